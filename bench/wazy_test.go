package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/samyfodil/wazy"
	wazycomponent "github.com/samyfodil/wazy/component"
	"github.com/samyfodil/wazy/component/wit"
	"github.com/samyfodil/wazy/imports/wasi_snapshot_preview1"
	"github.com/samyfodil/wazy/imports/wasip2"
)

// wazy v0.8.0 (github.com/samyfodil/wazy), the wazero fork issue 24 compares kobako with, runs here
// on its interpreter only (wazy.NewRuntimeConfigInterpreter), never its compiler: the comparison is
// interpreter against interpreter. Its interpreter ends a call when the call's context is done
// (every 1,024th loop header or function entry checks, and every bulk instruction of 64 KiB or
// more), with nothing to turn on, so the wazy engine gives every call a timeout context of
// benchDeadline, as kobako gives every call its deadline. wazy has no fuel and no snapshots.

// newWazyRuntime is wazy's interpreter with WASI preview 1 instantiated.
func newWazyRuntime(ctx context.Context) (wazy.Runtime, error) {
	r := wazy.NewRuntimeWithConfig(ctx, wazy.NewRuntimeConfigInterpreter())
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("wazy wasi: %w", err)
	}
	return r, nil
}

// newWazyGuest runs wasmBytes on wazy's interpreter, configured as moduleConfig configures the
// plain-wazero guests (no start functions, real clocks and random source).
func newWazyGuest(ctx context.Context, wasmBytes []byte) (*guest, error) {
	r, err := newWazyRuntime(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*guest, error) {
		_ = r.Close(ctx)
		return nil, err
	}
	cm, err := r.CompileModule(ctx, wasmBytes)
	if err != nil {
		return fail(fmt.Errorf("wazy compile: %w", err))
	}
	mod, err := r.InstantiateModule(ctx, cm, wazy.NewModuleConfig().WithStartFunctions().WithName("guest").
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().WithRandSource(rand.Reader))
	if err != nil {
		return fail(fmt.Errorf("wazy instantiate: %w", err))
	}
	return &guest{
		kind: wazyEngine,
		fn: func(name string) (callFunc, error) {
			f := mod.ExportedFunction(name)
			if f == nil {
				return nil, fmt.Errorf("no export %q", name)
			}
			return func(ctx context.Context, params ...uint64) ([]uint64, error) {
				ctx, cancel := context.WithTimeout(ctx, benchDeadline)
				defer cancel()
				return f.Call(ctx, params...)
			}, nil
		},
		read: func(offset, n uint32) ([]byte, bool) {
			if mod.Memory() == nil {
				return nil, false
			}
			return mod.Memory().Read(offset, n)
		},
		close: func() { _ = r.Close(ctx) },
	}, nil
}

// newWazySpinner is newSpinner for wazy: the spin fixture compiled once, each call on a fresh
// instance under a timeout context of d.
func newWazySpinner(tb testing.TB) (spin spinFunc, close func()) {
	tb.Helper()
	ctx := context.Background()
	r, err := newWazyRuntime(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	cm, err := r.CompileModule(ctx, fixture(tb, "wat/spin"))
	if err != nil {
		_ = r.Close(ctx)
		tb.Fatal(err)
	}
	return func(ctx context.Context, d time.Duration) (time.Duration, error) {
		mod, err := r.InstantiateModule(ctx, cm, wazy.NewModuleConfig().WithName(""))
		if err != nil {
			return 0, err
		}
		defer mod.Close(ctx)
		start := time.Now() // before the deadline is set, so that took >= d
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		_, err = mod.ExportedFunction("spin").Call(ctx)
		return time.Since(start), err
	}, func() { _ = r.Close(ctx) }
}

// wazyStoppedByDeadline reports whether err is how wazy ends a call whose context's deadline
// passed: a panic with the context's cause, returned wrapped.
func wazyStoppedByDeadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded)
}

// wazyTool is one ZeroClaw tool component on wazy: its bytes, compiled once into a
// CompileCache of one interpreter runtime, and the options every instantiation gets: wazy's own
// WASI 0.2 host (output discarded) and the ZeroClaw imports the fixture has.
type wazyTool struct {
	r     wazy.Runtime
	cache *wazycomponent.CompileCache
	raw   []byte
	opts  []wazycomponent.Option
}

// newWazyTool compiles the fixture (by instantiating it once through the cache, which is how wazy
// compiles a component) and returns it ready for fresh instances.
func newWazyTool(ctx context.Context, fixture string) (*wazyTool, error) {
	raw, err := os.ReadFile(filepath.Join(zcFixtures, fixture))
	if err != nil {
		return nil, err
	}
	t := &wazyTool{
		r:     wazy.NewRuntimeWithConfig(ctx, wazy.NewRuntimeConfigInterpreter()),
		cache: wazycomponent.NewCompileCache(),
		raw:   raw,
	}
	opts, err := wazyZeroClawImports(raw)
	if err != nil {
		t.close(ctx)
		return nil, err
	}
	t.opts = append(wasip2.With(wasip2.Config{Stdout: io.Discard, Stderr: io.Discard}), opts...)
	t.opts = append(t.opts, wazycomponent.WithCompileCache(t.cache))
	in, err := t.instantiate(ctx)
	if err != nil {
		t.close(ctx)
		return nil, err
	}
	_ = in.Close(ctx)
	return t, nil
}

func (t *wazyTool) instantiate(ctx context.Context) (*wazycomponent.Instance, error) {
	in, err := wazycomponent.Instantiate(ctx, t.r, t.raw, t.opts...)
	if err != nil {
		return nil, fmt.Errorf("wazy instantiate: %w", err)
	}
	return in, nil
}

func (t *wazyTool) close(ctx context.Context) {
	_ = t.cache.Close(ctx)
	_ = t.r.Close(ctx)
}

// execute calls the tool's execute export on in under a timeout context of benchDeadline, and
// returns its tool-result's output, or an error for an err result, a failed tool result or a
// value of the wrong shape.
func wazyExecute(ctx context.Context, in *wazycomponent.Instance, args string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, benchDeadline)
	defer cancel()
	res, err := in.CallExport(ctx, "zeroclaw:plugin/tool@0.1.0", "execute", args)
	if err != nil {
		return "", err
	}
	if len(res) != 1 {
		return "", fmt.Errorf("execute returned %d values, want 1", len(res))
	}
	r, ok := res[0].(wazycomponent.ResultValue)
	if !ok {
		return "", fmt.Errorf("execute returned %T, want a result", res[0])
	}
	if r.IsErr {
		return "", fmt.Errorf("execute returned err(%v)", r.Payload)
	}
	rec, ok := r.Payload.([]wazycomponent.Value)
	if !ok || len(rec) != 3 {
		return "", fmt.Errorf("execute returned ok(%#v), want a tool-result record", r.Payload)
	}
	success, _ := rec[0].(bool)
	output, _ := rec[1].(string)
	if !success || rec[2] != nil {
		return "", fmt.Errorf("tool-result {success: %v, output: %q, error: %v}", rec[0], output, rec[2])
	}
	return output, nil
}

// wazyZeroClawImports gives a tool component the ZeroClaw host imports it has, as zcPrepare does
// for kobako's component linker: log-record discards the record, secrets.get answers
// err(unavailable). Their signatures are read from the component itself (wit.FromComponent), as a
// wazy host binding a component it did not build would.
func wazyZeroClawImports(raw []byte) ([]wazycomponent.Option, error) {
	pkg, err := wit.FromComponent(raw)
	if err != nil {
		return nil, fmt.Errorf("wazy wit: %w", err)
	}
	var opts []wazycomponent.Option
	for _, d := range []struct {
		iface, name string
		fn          wazycomponent.HostFunc
	}{
		{"zeroclaw:plugin/logging@0.1.0", "log-record", func(context.Context, []wazycomponent.Value) ([]wazycomponent.Value, error) {
			return nil, nil
		}},
		{"zeroclaw:plugin/secrets@0.1.0", "get", func(context.Context, []wazycomponent.Value) ([]wazycomponent.Value, error) {
			return []wazycomponent.Value{wazycomponent.ResultValue{IsErr: true, Payload: uint32(2)}}, nil // secret-error.unavailable
		}},
	} {
		iface := pkg.Interface(d.iface)
		if iface == nil {
			continue // the component does not import it
		}
		f := iface.Func(d.name)
		if f == nil {
			return nil, fmt.Errorf("%s has no %s", d.iface, d.name)
		}
		sig, err := f.Signature(nil)
		if err != nil {
			return nil, err
		}
		opts = append(opts, wazycomponent.WithImportCustom(d.iface, d.name, d.fn, sig.Desc, sig.Types.Resolver()))
	}
	return opts, nil
}

// zcExecuteCases are the ZeroClaw tool fixtures BenchmarkZeroClawExecute runs, with the args and
// the output execute must return (the fixtures' documented echoes; `{}` is the empty __config a
// plain component linker leaves them).
var zcExecuteCases = []struct{ tool, fixture, args, output string }{
	{"wat", "misbehave.wasm", `{"mode":"echo"}`, `{"mode":"echo"}`},
	{"go", "gotool.wasm", `{"text":"hello"}`, `go-echo:hello|config={}`},
	{"js", "configecho.wasm", `{"text":"hello"}`, `label=unset|uppercase=false|max_len=0|keys=0|text=hello`},
}

// TestWazyZeroClawExecute runs every tool of BenchmarkZeroClawExecute on wazy twice, each on a
// fresh instance, so that `go test` fails when wazy stops running one or returns anything but its
// real result.
func TestWazyZeroClawExecute(t *testing.T) {
	ctx := context.Background()
	for _, tc := range zcExecuteCases {
		t.Run(tc.tool, func(t *testing.T) {
			tool, err := newWazyTool(ctx, tc.fixture)
			if err != nil {
				t.Fatal(err)
			}
			defer tool.close(ctx)
			for range 2 {
				in, err := tool.instantiate(ctx)
				if err != nil {
					t.Fatal(err)
				}
				out, err := wazyExecute(ctx, in, tc.args)
				_ = in.Close(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if out != tc.output {
					t.Fatalf("execute(%s) = %q, want %q", tc.args, out, tc.output)
				}
			}
		})
	}
}
