package bench

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
)

// The component benchmarks use package component's fixtures: calc.wasm (component text format,
// a core module that computes), plugin.wasm (freestanding C componentized by wit-component) and
// loop.wasm (an export that calls a host import n times), and goplugin.wasm (Go, GOOS=wasip1,
// through the preview 1 reactor adapter, importing WASI 0.2).
const (
	compCalc     = "../component/testdata/runtime/calc.wasm"
	compPlugin   = "../component/testdata/runtime/plugin.wasm"
	compGoPlugin = "../component/testdata/real/goplugin.wasm"
	compLoop     = "../component/testdata/diff/loop.wasm"
	// hostCalls is how many times BenchmarkComponentHostImport's guest calls its import per op.
	hostCalls = 100_000
)

func compileComponent(tb testing.TB, e *engine.Engine, path string) *component.Component {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	cc, err := component.Compile(context.Background(), e, b)
	if err != nil {
		tb.Fatalf("compile %s: %v", path, err)
	}
	return cc
}

func benchEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	e, err := engine.New(context.Background(), engine.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

func warmComponent(tb testing.TB, e *engine.Engine, l *component.Linker, path string) *component.Instance {
	tb.Helper()
	ctx := context.Background()
	s, err := e.NewStore(ctx, benchLimits())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close(ctx) })
	in, err := l.Instantiate(ctx, s, compileComponent(tb, e, path))
	if err != nil {
		tb.Fatalf("instantiate %s: %v", path, err)
	}
	return in
}

// freshCall is one iteration of BenchmarkComponentInstantiateCall: a new store and instance of a
// compiled component, one call checked against its known answer, and the store closed.
type freshCall struct {
	guest, path, fn string
	args            []abi.Value
	check           func([]abi.Value) bool
	wasi            bool // link the WASI 0.2 host
}

var freshCalls = []freshCall{
	{guest: "WAT", path: compCalc, fn: "add", args: []abi.Value{abi.U32Value(40), abi.U32Value(2)},
		check: func(r []abi.Value) bool { return len(r) == 1 && r[0].Uint() == 42 }},
	{guest: "C", path: compPlugin, fn: "test:plugin/tool#name",
		check: func(r []abi.Value) bool { return len(r) == 1 && r[0].Str() != "" }},
	{guest: "Go", path: compGoPlugin, fn: "test:plugin/tool#name", wasi: true,
		check: func(r []abi.Value) bool { return len(r) == 1 && r[0].Str() == "go-plugin" }},
}

// freshLinker returns the linker f's component is instantiated with: empty, or defining WASI 0.2
// once for every instance, each store binding a Host of its own (stdio discarded), as an
// embedder's would.
func freshLinker(tb testing.TB, f freshCall) *component.Linker {
	tb.Helper()
	l := component.NewLinker()
	if !f.wasi {
		return l
	}
	if err := preview2.Define(l); err != nil {
		tb.Fatal(err)
	}
	return l
}

func (f freshCall) run(ctx context.Context, e *engine.Engine, pre *component.InstancePre) ([]abi.Value, error) {
	s, err := e.NewStore(ctx, benchLimits())
	if err != nil {
		return nil, err
	}
	defer s.Close(ctx)
	if f.wasi {
		if _, err := preview2.Bind(s, preview2.Config{Args: []string{"plugin"}, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
			return nil, err
		}
	}
	in, err := pre.Instantiate(ctx, s)
	if err != nil {
		return nil, err
	}
	return in.Call(ctx, f.fn, f.args...)
}

// BenchmarkComponentInstantiateCall instantiates a compiled component in a fresh store and calls
// one export, per iteration.
func BenchmarkComponentInstantiateCall(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	for _, f := range freshCalls {
		b.Run("guest="+f.guest, func(b *testing.B) {
			pre, err := freshLinker(b, f).Prepare(compileComponent(b, e, f.path))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := newCPUMeter()
			defer cpu.report(b)
			for b.Loop() {
				cpu.begin()
				r, err := f.run(ctx, e, pre)
				cpu.end()
				if err != nil || !f.check(r) {
					b.Fatalf("%s: %v, %v", f.fn, err, r)
				}
			}
		})
	}
}

// BenchmarkComponentHostSetup measures what a fresh WASI 0.2 instance needs from the host
// before instantiation, stores made and closed outside the timer: via=bind attaches a Host to the
// store for a Linker defined once (preview2.Bind), via=define-per-instance also makes a Linker
// and defines WASI 0.2 on it, as every instance had to before host functions saw their caller.
func BenchmarkComponentHostSetup(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	cfg := preview2.Config{Args: []string{"plugin"}, Stdout: io.Discard, Stderr: io.Discard}
	for _, via := range []struct {
		name  string
		setup func(*engine.Store) error
	}{
		{"bind", func(s *engine.Store) error { _, err := preview2.Bind(s, cfg); return err }},
		{"define-per-instance", func(s *engine.Store) error {
			if _, err := preview2.Linker(); err != nil {
				return err
			}
			_, err := preview2.Bind(s, cfg)
			return err
		}},
	} {
		b.Run("via="+via.name, func(b *testing.B) {
			const batch = 256
			stores := make([]*engine.Store, 0, batch)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; {
				b.StopTimer()
				n := min(batch, b.N-i)
				for range n {
					s, err := e.NewStore(ctx, benchLimits())
					if err != nil {
						b.Fatal(err)
					}
					stores = append(stores, s)
				}
				b.StartTimer()
				for _, s := range stores {
					if err := via.setup(s); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				for _, s := range stores {
					_ = s.Close(ctx)
				}
				stores = stores[:0]
				i += n
				b.StartTimer()
			}
		})
	}
}

// BenchmarkComponentString1MiB sends 1 MiB of UTF-8 (mixed ASCII, Latin-1, CJK, emoji) to calc's
// echo and lifts the same 1 MiB back: one string lowered and one lifted per call.
func BenchmarkComponentString1MiB(b *testing.B) {
	ctx := context.Background()
	in := warmComponent(b, benchEngine(b), component.NewLinker(), compCalc)
	f, err := in.Func("echo")
	if err != nil {
		b.Fatal(err)
	}
	arg := abi.StringValue(abiMixed)
	b.SetBytes(2 * mib)
	b.ReportAllocs()
	cpu := newCPUMeter()
	defer cpu.report(b)
	for b.Loop() {
		cpu.begin()
		r, err := f.Call(ctx, arg)
		cpu.end()
		if err != nil || len(r) != 1 || len(r[0].Str()) != len(abiMixed) {
			b.Fatalf("echo: %v", err)
		}
	}
}

// BenchmarkComponentHostImport calls an export whose guest calls a typed Go host import
// 100,000 times, each call feeding its result into the next; host-ns/call is the cost of one.
func BenchmarkComponentHostImport(b *testing.B) {
	ctx := context.Background()
	l := component.NewLinker()
	if err := l.DefineFunc("kobako:bench/host", "tick", func(_ context.Context, x uint32) uint32 { return x + 1 }); err != nil {
		b.Fatal(err)
	}
	in := warmComponent(b, benchEngine(b), l, compLoop)
	f, err := in.Func("run")
	if err != nil {
		b.Fatal(err)
	}
	arg := abi.U32Value(hostCalls)
	b.ReportAllocs()
	cpu := newCPUMeter()
	for b.Loop() {
		cpu.begin()
		r, err := f.Call(ctx, arg)
		cpu.end()
		if err != nil || len(r) != 1 || r[0].Uint() != hostCalls {
			b.Fatalf("run: %v, %v", err, r)
		}
	}
	cpu.report(b)
	if cpu.ok && cpu.n > 0 {
		b.ReportMetric(float64(cpu.total.Nanoseconds())/float64(cpu.n)/hostCalls, "cpu-ns/call")
	}
}

// calcCore returns the bytes of calc.wasm's first core module, the one whose add the component
// lifts.
func calcCore(tb testing.TB, e *engine.Engine) []byte {
	tb.Helper()
	// Decoded afresh: a compiled component lets go of its core modules' bytes once they are
	// compiled.
	wasm, err := os.ReadFile(compCalc)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := binary.Decode(wasm)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range c.Definitions {
		if m, ok := d.(*binary.CoreModule); ok {
			return m.Bytes
		}
	}
	tb.Fatalf("%s has no core module", compCalc)
	return nil
}

// BenchmarkComponentWarmCall calls calc's add on a warm instance through the component layer
// (via=component: canon lift, argument and result conversion, re-entrance and borrow checks), the
// same core function of the same module directly through kobako's engine (via=core: fuel
// metering, a deadline per call), and through bare wazero's interpreter with no kobako at all
// (via=wazero). The target is component/wazero ≤ 1.5.
func BenchmarkComponentWarmCall(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	b.Run("via=wazero", func(b *testing.B) {
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
		defer r.Close(ctx)
		mod, err := r.InstantiateWithConfig(ctx, calcCore(b, e), wazero.NewModuleConfig().WithStartFunctions())
		if err != nil {
			b.Fatal(err)
		}
		f := mod.ExportedFunction("add")
		if f == nil {
			b.Fatal("calc's core module exports no add")
		}
		b.ReportAllocs()
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			r, err := f.Call(ctx, 40, 2)
			cpu.end()
			if err != nil || len(r) != 1 || r[0] != 42 {
				b.Fatalf("add: %v, %v", err, r)
			}
		}
	})
	b.Run("via=core", func(b *testing.B) {
		core := calcCore(b, e)
		m, err := e.Compile(ctx, core)
		if err != nil {
			b.Fatal(err)
		}
		s, err := e.NewStore(ctx, benchLimits())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close(ctx)
		inst, err := s.Instantiate(ctx, m, nil)
		if err != nil {
			b.Fatal(err)
		}
		f, err := inst.Function("add")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			r, err := f.Call(ctx, 40, 2)
			cpu.end()
			if err != nil || len(r) != 1 || r[0] != 42 {
				b.Fatalf("add: %v, %v", err, r)
			}
		}
	})
	b.Run("via=component", func(b *testing.B) {
		in := warmComponent(b, e, component.NewLinker(), compCalc)
		f, err := in.Func("add")
		if err != nil {
			b.Fatal(err)
		}
		args := []abi.Value{abi.U32Value(40), abi.U32Value(2)}
		b.ReportAllocs()
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			r, err := f.Call(ctx, args...)
			cpu.end()
			if err != nil || len(r) != 1 || r[0].Uint() != 42 {
				b.Fatalf("add: %v, %v", err, r)
			}
		}
	})
}

// TestComponentWorkloads runs each component benchmark's work once with its result check, so that
// `go test ./bench/` catches a workload that no longer computes the right thing.
func TestComponentWorkloads(t *testing.T) {
	ctx := context.Background()
	e := benchEngine(t)
	l := component.NewLinker()
	for _, f := range freshCalls {
		pre, err := freshLinker(t, f).Prepare(compileComponent(t, e, f.path))
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.run(ctx, e, pre)
		if err != nil || !f.check(r) {
			t.Errorf("guest=%s %s: %v, %v", f.guest, f.fn, err, r)
		}
	}

	calc := warmComponent(t, e, l, compCalc)
	r, err := calc.Call(ctx, "echo", abi.StringValue(abiMixed))
	if err != nil || len(r) != 1 || r[0].Str() != abiMixed {
		t.Errorf("echo of 1 MiB: %v", err)
	}
	r, err = calc.Call(ctx, "add", abi.U32Value(40), abi.U32Value(2))
	if err != nil || len(r) != 1 || r[0].Uint() != 42 {
		t.Errorf("add: %v, %v", err, r)
	}

	hl := component.NewLinker()
	ticks := 0
	if err := hl.DefineFunc("kobako:bench/host", "tick", func(_ context.Context, x uint32) uint32 { ticks++; return x + 1 }); err != nil {
		t.Fatal(err)
	}
	r, err = warmComponent(t, e, hl, compLoop).Call(ctx, "run", abi.U32Value(1000))
	if err != nil || len(r) != 1 || r[0].Uint() != 1000 || ticks != 1000 {
		t.Errorf("run(1000): %v, %v, %d host calls", err, r, ticks)
	}
}
