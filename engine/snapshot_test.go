package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/engine"
)

// seedHost is the snapshot fixture's "env" module: seed returns 7, then 8, ... per store when
// counting, or always 7.
func seedHost(counting bool) *engine.HostModule {
	key := engine.NewKey[*uint32]()
	return &engine.HostModule{Name: "env", Funcs: []engine.HostFunc{{
		Name: "seed", Results: []engine.ValueType{engine.I32},
		Fn: func(_ context.Context, c *engine.Caller, stack []uint64) {
			if !counting {
				stack[0] = 7
				return
			}
			n, ok := key.Get(c.Store())
			if !ok {
				n = new(uint32)
				*n = 7
				key.Set(c.Store(), n)
			}
			stack[0] = uint64(*n)
			*n++
		},
	}}}
}

func snapshotLimits(fuel uint64) engine.Limits {
	l := engine.DefaultLimits()
	l.Fuel = fuel
	l.MemoryBytes = 16 * 65536
	l.Deadline = time.Minute
	return l
}

func takeSnapshot(t testing.TB, e *engine.Engine, imports engine.Imports) *engine.Snapshot {
	t.Helper()
	sn, err := e.Snapshot(context.Background(), fixture(t, "snapshot"), engine.SnapshotConfig{
		Limits: snapshotLimits(engine.DefaultFuel), Imports: imports, InitExport: "_initialize"})
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// normalInstance instantiates the fixture and calls _initialize, as a snapshot instance stands for.
func normalInstance(ctx context.Context, e *engine.Engine, m *engine.Module, lim engine.Limits, imports engine.Imports) (*engine.Store, *engine.Instance, error) {
	s, err := e.NewStore(ctx, lim)
	if err != nil {
		return nil, nil, err
	}
	in, err := s.Instantiate(ctx, m, imports)
	if err != nil {
		return s, nil, err
	}
	if _, err := in.Call(ctx, "_initialize"); err != nil {
		return s, nil, err
	}
	return s, in, nil
}

func TestSnapshotExact(t *testing.T) {
	// With profiling, exports keep their entry-charging wrappers: the counts must match either way.
	for _, cfg := range []engine.Config{{}, {ProfileFunctions: true}} {
		t.Run(fmt.Sprintf("profile=%v", cfg.ProfileFunctions), func(t *testing.T) { testSnapshotExact(t, cfg) })
	}
}

func testSnapshotExact(t *testing.T, cfg engine.Config) {
	ctx := context.Background()
	e := newEngine(t, cfg)
	imports := engine.Imports{"env": seedHost(false)}
	sn := takeSnapshot(t, e, imports)
	m, err := e.Compile(ctx, fixture(t, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	lim := snapshotLimits(engine.DefaultFuel)

	// The start function's fuel, as a normal instantiation consumes it.
	s0, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer s0.Close(ctx)
	if _, err := s0.Instantiate(ctx, m, imports); err != nil {
		t.Fatal(err)
	}
	start, _ := sn.InitFuel()
	if start == 0 || s0.FuelConsumed() != start {
		t.Fatalf("start fuel: snapshot %d, instantiation %d", start, s0.FuelConsumed())
	}

	ns, nin, err := normalInstance(ctx, e, m, lim, imports)
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close(ctx)
	ss, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	sin, err := ss.InstantiateSnapshot(ctx, sn, imports)
	if err != nil {
		t.Fatal(err)
	}
	if ns.FuelConsumed() != ss.FuelConsumed() {
		t.Fatalf("fuel after initialization: normal %d, snapshot %d", ns.FuelConsumed(), ss.FuelConsumed())
	}
	if a, b := memoryOf(t, nin), memoryOf(t, sin); !bytes.Equal(a, b) {
		t.Fatalf("memories differ: %d and %d bytes", len(a), len(b))
	}
	for _, call := range []struct {
		name   string
		params []uint64
	}{{"counter", nil}, {"add", []uint64{0}}, {"floats", []uint64{0}}, {"size", nil}, {"load", []uint64{100000}}, {"load", []uint64{70000}}} {
		a, errA := nin.Call(ctx, call.name, call.params...)
		fa := ns.FuelConsumed()
		b, errB := sin.Call(ctx, call.name, call.params...)
		fb := ss.FuelConsumed()
		if fmt.Sprint(a, errA) != fmt.Sprint(b, errB) || fa != fb {
			t.Fatalf("%s: normal %v %v fuel %d, snapshot %v %v fuel %d", call.name, a, errA, fa, b, errB, fb)
		}
	}
}

func memoryOf(t interface{ Fatal(...any) }, in *engine.Instance) []byte {
	mem := in.Memory("memory")
	b, ok := mem.Read(0, mem.Size())
	if !ok {
		t.Fatal("memory unreadable")
	}
	return bytes.Clone(b)
}

// TestSnapshotSemanticDifference pins the one documented difference: what initialization read
// from a host function is the same in every snapshot instance, while later calls do call it.
func TestSnapshotSemanticDifference(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	imports := engine.Imports{"env": seedHost(true)}
	sn := takeSnapshot(t, e, imports)
	for range 2 {
		s, err := e.NewStore(ctx, snapshotLimits(engine.DefaultFuel))
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.InstantiateSnapshot(ctx, sn, imports)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := in.Call(ctx, "counter"); got[0] != 7 {
			t.Fatalf("counter %d, want the 7 read at capture", got[0])
		}
		// The store's host state never saw the start function's call: its first seed is 7 again.
		if got, _ := in.Call(ctx, "seed"); got[0] != 7 {
			t.Fatalf("seed %d, want 7 (a fresh host state)", got[0])
		}
		s.Close(ctx)
	}
}

func TestSnapshotFuelExhausted(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	imports := engine.Imports{"env": seedHost(false)}
	sn := takeSnapshot(t, e, imports)
	start, init := sn.InitFuel()
	for _, tc := range []struct {
		fuel uint64
		fn   string
	}{{start - 1, "start"}, {init - 1, "_initialize"}} {
		if init <= start {
			t.Fatalf("the fixture's _initialize (%d) must cost more than its start (%d)", init, start)
		}
		s, err := e.NewStore(ctx, snapshotLimits(tc.fuel))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.InstantiateSnapshot(ctx, sn, imports)
		var trap *engine.Trap
		if !errors.As(err, &trap) || trap.Kind != engine.TrapFuelExhausted || trap.Function != tc.fn {
			t.Fatalf("fuel %d: %v, want fuel exhausted in %s", tc.fuel, err, tc.fn)
		}
		if _, err := s.InstantiateSnapshot(ctx, sn, imports); !errors.Is(err, engine.ErrInstanceUnavailable) {
			t.Fatalf("after the trap: %v", err)
		}
		s.Close(ctx)
	}
}

func TestSnapshot_Errors(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	lim := snapshotLimits(engine.DefaultFuel)
	provider := func() engine.Imports {
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(ctx) })
		m, err := e.Compile(ctx, fixture(t, "hostcall"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.Instantiate(ctx, m, engine.Imports{"host": &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
			{Name: "block", Fn: func(context.Context, *engine.Caller, []uint64) {}},
			{Name: "fail", Fn: func(context.Context, *engine.Caller, []uint64) {}},
			{Name: "exit", Params: []engine.ValueType{engine.I32}, Fn: func(context.Context, *engine.Caller, []uint64) {}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return engine.Imports{"env": in}
	}
	tests := []struct {
		fixture  string
		cfg      engine.SnapshotConfig
		contains string
	}{
		{"snap_tableset", engine.SnapshotConfig{}, "table.set, which writes a table"},
		{"snap_tablegrow", engine.SnapshotConfig{}, "table.grow, which writes a table"},
		{"snap_tablefill", engine.SnapshotConfig{}, "table.fill, which writes a table"},
		{"snap_tablecopy", engine.SnapshotConfig{}, "table.copy, which writes a table"},
		{"snap_tableinit", engine.SnapshotConfig{}, "table.init, which writes a table"},
		{"snap_elemdrop", engine.SnapshotConfig{}, "elem.drop, which drops an element segment"},
		{"snap_datadrop", engine.SnapshotConfig{}, "data.drop, which drops a data segment"},
		{"snap_exporttable", engine.SnapshotConfig{}, `exports table 0 as "t"`},
		{"snap_importtable", engine.SnapshotConfig{}, `import 0 ("env" "t") is a table`},
		{"snap_importmemory", engine.SnapshotConfig{}, `import 0 ("env" "m") is a memory`},
		{"snap_importglobal", engine.SnapshotConfig{}, `import 0 ("env" "g") is a global`},
		{"snap_sharedmemory", engine.SnapshotConfig{}, "memory 0 is shared or 64-bit"},
		{"snap_refglobal", engine.SnapshotConfig{}, "mutable global 0 of type funcref"},
		{"snap_reserved", engine.SnapshotConfig{}, `reserved prefix "kobako:snapshot/"`},
		{"snapshot", engine.SnapshotConfig{Imports: engine.Imports{"env": seedHost(false)}, Stateful: []string{"env"}}, `"env" is marked stateful`},
		{"snapshot", engine.SnapshotConfig{Imports: provider()}, "provided by an instance"},
		{"snapshot", engine.SnapshotConfig{Imports: engine.Imports{"env": seedHost(false)}, InitExport: "nope"}, `function "nope"`},
		{"snapshot", engine.SnapshotConfig{Imports: engine.Imports{"env": seedHost(false)}, InitExport: "add"}, "takes 1 parameters"},
		{"snapshot", engine.SnapshotConfig{Imports: engine.Imports{"env": seedHost(false)}, InitExport: "load"}, "takes 1 parameters"},
		{"snapshot", engine.SnapshotConfig{}, "nothing provides import module"},
	}
	for _, tc := range tests {
		t.Run(tc.fixture+"/"+tc.contains, func(t *testing.T) {
			if tc.cfg.Limits == (engine.Limits{}) {
				tc.cfg.Limits = lim
			}
			_, err := e.Snapshot(ctx, fixture(t, tc.fixture), tc.cfg)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.contains)) {
				t.Fatalf("got %v, want an error containing %q", err, tc.contains)
			}
		})
	}
	// Every refusal of what could differ wraps ErrSnapshot.
	if _, err := e.Snapshot(ctx, fixture(t, "snap_tableset"), engine.SnapshotConfig{Limits: lim}); !errors.Is(err, engine.ErrSnapshot) {
		t.Fatalf("%v does not wrap ErrSnapshot", err)
	}
}

// TestSnapshotDifferential runs random call sequences on a normal instance (instantiation and
// _initialize) and on a snapshot instance, with random fuel limits, and compares every result,
// error and fuel count, and the memories at the end.
func TestSnapshotDifferential(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	imports := engine.Imports{"env": seedHost(false)}
	sn := takeSnapshot(t, e, imports)
	m, err := e.Compile(ctx, fixture(t, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	start, init := sn.InitFuel()
	type call struct {
		name   string
		params []uint64
	}
	rapid.Check(t, func(rt *rapid.T) {
		fuel := rapid.OneOf(
			rapid.Uint64Range(1, start+init+10),
			rapid.Uint64Range(start+init, 300_000),
			rapid.Just(uint64(engine.DefaultFuel)),
		).Draw(rt, "fuel")
		lim := snapshotLimits(fuel)
		ns, nin, errN := normalInstance(ctx, e, m, lim, imports)
		if ns != nil {
			defer ns.Close(ctx)
		}
		ss, err := e.NewStore(ctx, lim)
		if err != nil {
			rt.Fatal(err)
		}
		defer ss.Close(ctx)
		sin, errS := ss.InstantiateSnapshot(ctx, sn, imports)
		if (errN == nil) != (errS == nil) || ns.FuelConsumed() != ss.FuelConsumed() && errN == nil {
			rt.Fatalf("instantiation: normal %v fuel %d, snapshot %v fuel %d", errN, ns.FuelConsumed(), errS, ss.FuelConsumed())
		}
		if errN != nil {
			var tn, ts *engine.Trap
			if !errors.As(errN, &tn) || !errors.As(errS, &ts) || tn.Kind != engine.TrapFuelExhausted || ts.Kind != tn.Kind {
				rt.Fatalf("instantiation: normal %v, snapshot %v", errN, errS)
			}
			return
		}
		arg := rapid.Uint64Range(0, 1<<20)
		calls := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) call {
			switch rapid.IntRange(0, 10).Draw(rt, "op") {
			case 0:
				return call{"add", []uint64{uint64(rapid.Int32().Draw(rt, "n")) & math.MaxUint32}}
			case 1:
				return call{"load", []uint64{arg.Draw(rt, "addr")}}
			case 2:
				return call{"grow", []uint64{rapid.Uint64Range(0, 16).Draw(rt, "pages")}}
			case 3:
				return call{"size", nil}
			case 4:
				return call{"init_passive", []uint64{arg.Draw(rt, "addr")}}
			case 5:
				return call{"init_active", []uint64{arg.Draw(rt, "addr")}}
			case 6:
				return call{"indirect", []uint64{rapid.Uint64Range(0, 5).Draw(rt, "slot"), arg.Draw(rt, "x")}}
			case 7:
				return call{"floats", []uint64{uint64(rapid.Int32Range(-100, 100).Draw(rt, "n")) & math.MaxUint32}}
			case 8:
				return call{"sum", []uint64{arg.Draw(rt, "n")}}
			case 9:
				return call{"seed", nil}
			default:
				return call{"counter", nil}
			}
		}), 1, 30).Draw(rt, "calls")
		for i, c := range calls {
			a, errA := nin.Call(ctx, c.name, c.params...)
			fa := ns.FuelConsumed()
			b, errB := sin.Call(ctx, c.name, c.params...)
			fb := ss.FuelConsumed()
			if fmt.Sprint(a, errA) != fmt.Sprint(b, errB) || fa != fb {
				rt.Fatalf("call %d %s%v: normal %v %v fuel %d, snapshot %v %v fuel %d", i, c.name, c.params, a, errA, fa, b, errB, fb)
			}
		}
		if !bytes.Equal(memoryOf(rt, nin), memoryOf(rt, sin)) {
			rt.Fatal("memories differ at the end")
		}
	})
}
