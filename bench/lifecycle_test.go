package bench

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
)

// compileFunc compiles wasmBytes on a fresh engine of one kind and returns what keeps the result
// alive; release frees it. A fresh engine per compile defeats both engines' caches of compiled
// modules, which would otherwise turn every compile after the first into a lookup.
type compileFunc func(ctx context.Context, wasmBytes []byte) (release func(), err error)

func wazeroCompile(kind engineKind) compileFunc {
	return func(ctx context.Context, wasmBytes []byte) (func(), error) {
		var rc wazero.RuntimeConfig
		switch kind {
		case bare:
			rc = wazero.NewRuntimeConfigInterpreter()
		case compiler:
			rc = wazero.NewRuntimeConfigCompiler()
		default:
			return nil, fmt.Errorf("BUG: no wazero compile for %s", kind)
		}
		r := wazero.NewRuntimeWithConfig(ctx, rc)
		cm, err := r.CompileModule(ctx, wasmBytes)
		if err != nil {
			_ = r.Close(ctx)
			return nil, err
		}
		if cm.ExportedFunctions()["_start"] == nil {
			_ = r.Close(ctx)
			return nil, fmt.Errorf("compiled module exports no _start")
		}
		return func() { _ = r.Close(ctx) }, nil
	}
}

func compileFor(kind engineKind) compileFunc {
	if kind == kobako {
		return kobakoCompile
	}
	return wazeroCompile(kind)
}

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // a second cycle frees what the first one's finalizers released
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkCompile compiles a 2.5 MB Go module (testdata/hello) on a fresh engine per iteration.
// Besides time and allocation it reports retained-B/op: the Go heap one compiled module keeps
// alive, measured once per run with the GC settled before and after. The compiler's machine code
// lives in mmapped memory outside the Go heap, so its retained-B/op undercounts.
func BenchmarkCompile(b *testing.B) {
	wasmBytes := fixture(b, "hello/hello")
	ctx := context.Background()
	for _, kind := range lifecycleEngines {
		b.Run("engine="+string(kind), func(b *testing.B) {
			if kind == compiler && !compilerSupported() {
				b.Skipf("wazero's compiler does not support %s/%s", runtime.GOOS, runtime.GOARCH)
			}
			compile := compileFor(kind)

			before := heapAfterGC()
			release, err := compile(ctx, wasmBytes)
			if err != nil {
				b.Fatalf("compile on %s: %v", kind, err)
			}
			retained := int64(heapAfterGC()) - int64(before)
			release()

			b.ReportAllocs()
			cpu := newCPUMeter()
			defer cpu.report(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cpu.begin()
				release, err := compile(ctx, wasmBytes)
				cpu.end()
				if err != nil {
					b.Fatalf("compile on %s: %v", kind, err)
				}
				b.StopTimer()
				release()
				b.StartTimer()
			}
			b.ReportMetric(float64(retained), "retained-B/op")
		})
	}
}

// BenchmarkRewrite is the part of kobako's compile that wazero does not do: decoding and checking
// the module and rewriting it for fuel metering (BenchmarkCompile's kobako column includes it, plus
// wazero compiling the rewritten, larger module).
func BenchmarkRewrite(b *testing.B) {
	wasmBytes := fixture(b, "hello/hello")
	b.ReportAllocs()
	cpu := newCPUMeter()
	defer cpu.report(b)
	var out []byte
	for b.Loop() {
		var err error
		cpu.begin()
		out, err = rewrite(wasmBytes)
		cpu.end()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out))/float64(len(wasmBytes)), "size-ratio")
}

// startCase is a command module run fresh per iteration, and how to check one run.
type startCase struct {
	guest   string
	fixture string
	// check receives the run's stdout and a reader of the instance's exported globals.
	check func(stdout []byte, global func(name string) (uint64, bool)) error
}

var startCases = []startCase{
	{"wat", "wat/tiny", func(_ []byte, global func(string) (uint64, bool)) error {
		want := uint64(0)
		for _, c := range []byte("hello, world\n") {
			want += uint64(c)
		}
		if got, ok := global("sum"); !ok || got != want {
			return fmt.Errorf("global sum = %d (present %v), want %d", got, ok, want)
		}
		return nil
	}},
	{"go", "hello/hello", func(stdout []byte, _ func(string) (uint64, bool)) error {
		if string(stdout) != "hello, world\n" {
			return fmt.Errorf("stdout %q, want %q", stdout, "hello, world\n")
		}
		return nil
	}},
}

// starter instantiates one compiled command module afresh and runs its _start.
type starter struct {
	// run makes a new instance, calls _start, checks the run with check and frees the instance.
	run   func(ctx context.Context, check func([]byte, func(string) (uint64, bool)) error) error
	close func()
}

type starterKey struct {
	kind    engineKind
	fixture string
}

var (
	startersMu sync.Mutex
	starters   = map[starterKey]*starter{}
)

// starterFor returns the process-wide starter of fixture under kind: the engine and the compiled
// module are set up once, since compile time has its own benchmark.
func starterFor(tb testing.TB, kind engineKind, name string) *starter {
	tb.Helper()
	if kind == compiler && !compilerSupported() {
		tb.Skipf("wazero's compiler does not support %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	startersMu.Lock()
	defer startersMu.Unlock()
	key := starterKey{kind, name}
	if s, ok := starters[key]; ok {
		return s
	}
	var s *starter
	var err error
	if kind == kobako {
		s, err = newKobakoStarter(context.Background(), fixture(tb, name))
	} else {
		s, err = newWazeroStarter(context.Background(), kind, fixture(tb, name))
	}
	if err != nil {
		tb.Fatalf("%s on %s: %v", name, kind, err)
	}
	starters[key] = s
	return s
}

func closeStarters() {
	startersMu.Lock()
	defer startersMu.Unlock()
	for k, s := range starters {
		s.close()
		delete(starters, k)
	}
}

func newWazeroStarter(ctx context.Context, kind engineKind, wasmBytes []byte) (*starter, error) {
	r, err := newRuntime(ctx, kind)
	if err != nil {
		return nil, err
	}
	cm, err := r.CompileModule(ctx, wasmBytes)
	if err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("compile: %w", err)
	}
	var stdout bytes.Buffer
	run := func(ctx context.Context, check func([]byte, func(string) (uint64, bool)) error) error {
		stdout.Reset()
		// An anonymous instance, so that one runtime can hold several; no start functions, so that
		// _start is called the same way on every engine.
		cfg := moduleConfig().WithName("").WithStdout(&stdout)
		mod, err := r.InstantiateModule(ctx, cm, cfg)
		if err != nil {
			return fmt.Errorf("instantiate: %w", err)
		}
		defer mod.Close(ctx)
		start := mod.ExportedFunction("_start")
		if start == nil {
			return fmt.Errorf("no _start export")
		}
		if _, err := start.Call(ctx); !exitedOK(err) {
			return fmt.Errorf("_start: %w", err)
		}
		return check(stdout.Bytes(), func(name string) (uint64, bool) {
			g := mod.ExportedGlobal(name)
			if g == nil {
				return 0, false
			}
			return g.Get(), true
		})
	}
	return &starter{run: run, close: func() { _ = r.Close(ctx) }}, nil
}

// BenchmarkStart instantiates a command module afresh and runs its _start per iteration: a tiny WAT
// module (the fixed cost of an instance) and a Go hello world (the Go runtime's start-up on top).
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	for _, sc := range startCases {
		b.Run("guest="+sc.guest, func(b *testing.B) {
			for _, kind := range lifecycleEngines {
				b.Run("engine="+string(kind), func(b *testing.B) {
					s := starterFor(b, kind, sc.fixture)
					b.ReportAllocs()
					cpu := newCPUMeter()
					defer cpu.report(b)
					for b.Loop() {
						cpu.begin()
						err := s.run(ctx, sc.check)
						cpu.end()
						if err != nil {
							b.Fatalf("%s on %s: %v", sc.fixture, kind, err)
						}
					}
				})
			}
		})
	}
}

// TestLifecycle compiles the 2.5 MB module and runs both command modules once on every engine, so
// that `go test` catches what would break the compile and start benchmarks.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	wasmBytes := fixture(t, "hello/hello")
	for _, kind := range guestKinds(lifecycleEngines) {
		release, err := compileFor(kind)(ctx, wasmBytes)
		if err != nil {
			t.Fatalf("compile on %s: %v", kind, err)
		}
		release()
		for _, sc := range startCases {
			if err := starterFor(t, kind, sc.fixture).run(ctx, sc.check); err != nil {
				t.Errorf("%s on %s: %v", sc.fixture, kind, err)
			}
		}
	}
}
