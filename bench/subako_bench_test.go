package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

// subakoGuests are the packages of the ABI 1 benchmarks: the tiny WAT package of subako's tests
// (the fixed cost of a call) and a Go package, the SDK's hello example when it has been built and
// subako's plain-Go test package otherwise (both answer greet with "Hello, Ada!").
var subakoGuests = []struct {
	name  string
	paths []string
	want  string
}{
	{"wat-tiny", []string{"../subako/testdata/tiny.wasm"}, "hello from wat"},
	{"go", []string{"../subako/sdk/examples/hello/module.wasm", "../subako/testdata/everything.wasm"}, "Hello, Ada!"},
}

// subakoRequest is the tools/call line the bare baseline feeds on stdin, shaped as subako sends it.
const subakoRequest = `{"jsonrpc":"2.0","id":"call-0123456789abcdef01234567","method":"tools/call","params":{"arguments":{"name":"Ada"},"name":"greet","_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"kobako","version":"bench"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n"

var (
	subakoMu   sync.Mutex
	subakoPkgs = map[string]*subako.Package{}
	subakoRT   *subako.Runtime
)

func subakoWasm(tb testing.TB, paths []string) ([]byte, string) {
	tb.Helper()
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			return b, p
		}
	}
	tb.Skipf("none of %q exists", paths)
	return nil, ""
}

// subakoPackage loads a guest as a package once per process.
func subakoPackage(tb testing.TB, name string, paths []string) *subako.Package {
	tb.Helper()
	subakoMu.Lock()
	defer subakoMu.Unlock()
	if p, ok := subakoPkgs[name]; ok {
		return p
	}
	ctx := context.Background()
	if subakoRT == nil {
		rt, err := subako.New(ctx, subako.Config{ClientVersion: "bench"})
		if err != nil {
			tb.Fatal(err)
		}
		subakoRT = rt
	}
	wasm, _ := subakoWasm(tb, paths)
	dir := tb.TempDir()
	os.WriteFile(filepath.Join(dir, subako.ManifestFile), []byte(`{"abi":1,"name":"bench"}`), 0o644)
	os.WriteFile(filepath.Join(dir, subako.ModuleFile), wasm, 0o644)
	p, err := subakoRT.Load(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	subakoPkgs[name] = p
	return p
}

// bareSubako runs a module the way a minimal host would without any of subako's checks: wazero's
// interpreter, wazero's WASI, a subako_http stub, the request on stdin; per run a fresh instance
// and _start. It is the baseline of the call-cost target.
type bareSubako struct {
	r  wazero.Runtime
	cm wazero.CompiledModule
}

func newBareSubako(ctx context.Context, wasm []byte) (*bareSubako, error) {
	r, err := newRuntime(ctx, bare)
	if err != nil {
		return nil, err
	}
	stub := func(ctx context.Context, m api.Module, ptr, n uint32) int32 { return -1 }
	if _, err := r.NewHostModuleBuilder("subako_http").
		NewFunctionBuilder().WithFunc(stub).Export("request").
		NewFunctionBuilder().WithFunc(stub).Export("read_response").
		Instantiate(ctx); err != nil {
		return nil, err
	}
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return nil, err
	}
	return &bareSubako{r: r, cm: cm}, nil
}

func (b *bareSubako) call(ctx context.Context) ([]byte, error) {
	var stdout bytes.Buffer
	cfg := moduleConfig().WithName("").WithArgs("bench").WithStdin(bytes.NewReader([]byte(subakoRequest))).WithStdout(&stdout)
	mod, err := b.r.InstantiateModule(ctx, b.cm, cfg)
	if err != nil {
		return nil, err
	}
	defer mod.Close(ctx)
	if _, err := mod.ExportedFunction("_start").Call(ctx); !exitedOK(err) {
		return nil, err
	}
	return stdout.Bytes(), nil
}

// BenchmarkSubakoCall measures one tools/call: engine=bare is the baseline above, engine=subako
// is Package.Call (fresh store, WASI preview 1 with the volume preopened, subako_http linked,
// every crash rule checked, the result mapped). The target is subako/bare <= 1.3 for wat-tiny.
func BenchmarkSubakoCall(b *testing.B) {
	ctx := context.Background()
	for _, g := range subakoGuests {
		b.Run("guest="+g.name, func(b *testing.B) {
			b.Run("engine=bare", func(b *testing.B) {
				wasm, _ := subakoWasm(b, g.paths)
				bs, err := newBareSubako(ctx, wasm)
				if err != nil {
					b.Fatal(err)
				}
				defer bs.r.Close(ctx)
				b.ReportAllocs()
				cpu := newCPUMeter()
				defer cpu.report(b)
				for b.Loop() {
					cpu.begin()
					out, err := bs.call(ctx)
					cpu.end()
					if err != nil || !bytes.Contains(out, []byte(g.want)) {
						b.Fatalf("bare call: %v, stdout %q", err, out)
					}
				}
			})
			b.Run("engine=kobako-wasi", func(b *testing.B) {
				// The same exchange on kobako's engine and WASI alone (no subako): how much of
				// subako's cost is the layers below it.
				wasm, _ := subakoWasm(b, g.paths)
				e, err := engine.New(ctx, engine.Config{})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close(ctx)
				m, err := e.Compile(ctx, wasm)
				if err != nil {
					b.Fatal(err)
				}
				stub := func(ctx context.Context, c *engine.Caller, stack []uint64) { stack[0] = uint64(uint32(0xffffffff)) }
				i32 := []engine.ValueType{engine.I32}
				httpStub := &engine.HostModule{Name: "subako_http", Funcs: []engine.HostFunc{
					{Name: "request", Params: []engine.ValueType{engine.I32, engine.I32}, Results: i32, Fn: stub},
					{Name: "read_response", Params: []engine.ValueType{engine.I32, engine.I32}, Results: i32, Fn: stub},
				}}
				b.ReportAllocs()
				cpu := newCPUMeter()
				defer cpu.report(b)
				for b.Loop() {
					cpu.begin()
					var stdout bytes.Buffer
					s, err := e.NewStore(ctx, benchLimits())
					if err == nil {
						var h *preview1.Host
						h, err = preview1.Bind(s, preview1.Config{Args: []string{"bench"}, Stdin: bytes.NewReader([]byte(subakoRequest)), Stdout: &stdout})
						if err == nil {
							var inst *engine.Instance
							inst, err = s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module, "subako_http": httpStub})
							if err == nil {
								_, err = inst.Call(ctx, "_start")
							}
							h.Close()
						}
						s.Close(ctx)
					}
					cpu.end()
					if !exitedOK(err) || !bytes.Contains(stdout.Bytes(), []byte(g.want)) {
						b.Fatalf("kobako-wasi call: %v, stdout %q", err, stdout.Bytes())
					}
				}
			})
			b.Run("engine=subako", func(b *testing.B) {
				p := subakoPackage(b, g.name, g.paths)
				opts := subako.CallOptions{Volume: b.TempDir(), Limits: benchLimits()}
				args := json.RawMessage(`{"name":"Ada"}`)
				b.ReportAllocs()
				cpu := newCPUMeter()
				defer cpu.report(b)
				for b.Loop() {
					cpu.begin()
					res, err := p.Call(ctx, "greet", args, opts)
					cpu.end()
					if err != nil || len(res.Content) == 0 || res.Content[0].Text != g.want {
						b.Fatalf("subako call: %v, %+v", err, res)
					}
				}
			})
		})
	}
}

// BenchmarkSubakoDiscover measures an upload's discovery run (server/discover, tools/list and the
// tool-table checks, JSON Schema compilation included) on a compiled package.
func BenchmarkSubakoDiscover(b *testing.B) {
	ctx := context.Background()
	for _, g := range subakoGuests {
		b.Run("guest="+g.name, func(b *testing.B) {
			p := subakoPackage(b, g.name, g.paths)
			b.ReportAllocs()
			for b.Loop() {
				tools, err := p.Discover(ctx)
				if err != nil || len(tools) == 0 {
					b.Fatalf("discover: %v", err)
				}
			}
		})
	}
}

// TestSubakoBaselineAgrees checks that the bare baseline and subako run the same exchange, so the
// benchmark compares like with like.
func TestSubakoBaselineAgrees(t *testing.T) {
	ctx := context.Background()
	for _, g := range subakoGuests {
		wasm, path := subakoWasm(t, g.paths)
		bs, err := newBareSubako(ctx, wasm)
		if err != nil {
			t.Fatal(err)
		}
		out, err := bs.call(ctx)
		bs.r.Close(ctx)
		if err != nil || !bytes.Contains(out, []byte(fmt.Sprintf("%q", g.want)[1:])) {
			t.Errorf("%s: bare: %v %q", path, err, out)
		}
		res, err := subakoPackage(t, g.name, g.paths).Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`), subako.CallOptions{Limits: engine.DefaultLimits()})
		if err != nil || res.Content[0].Text != g.want {
			t.Errorf("%s: subako: %v %+v", path, err, res)
		}
	}
}

// BenchmarkSubakoBind measures the per-call WASI setup of an ABI 1 call, without running
// anything: a store, preview1.Bind with subako's /volume/tmp preopen (a host directory), then
// Host.Close and Store.Close. It isolates the part of BenchmarkSubakoCall that the lazy preopen
// and the allocation-light Bind change.
func BenchmarkSubakoBind(b *testing.B) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	volume := b.TempDir()
	b.ReportAllocs()
	cpu := newCPUMeter()
	defer cpu.report(b)
	for b.Loop() {
		cpu.begin()
		s, err := e.NewStore(ctx, benchLimits())
		if err != nil {
			b.Fatal(err)
		}
		h, err := preview1.Bind(s, preview1.Config{Args: []string{"bench"}, Stdin: bytes.NewReader(nil),
			Preopens: []wasi.Preopen{{GuestPath: "/volume/tmp", HostDir: volume}}})
		if err != nil {
			b.Fatal(err)
		}
		h.Close()
		s.Close(ctx)
		cpu.end()
	}
}
