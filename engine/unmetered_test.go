//go:build !js && !wasip1

// Unmetered stores need a scheduler that preempts a spinning guest; on js and wasip1 NewStore
// refuses them (unmetered_coop_test.go).

package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/enginehook"
)

// callWithin calls name on in, failing the test instead of hanging if the call has not returned
// within limit (the goroutine of a call that hangs is left running).
func callWithin(t *testing.T, ctx context.Context, in *engine.Instance, limit time.Duration, name string, params ...uint64) ([]uint64, error) {
	t.Helper()
	type result struct {
		res []uint64
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := in.Call(ctx, name, params...)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(limit):
		t.Fatalf("%s has not returned after %v", name, limit)
		return nil, nil
	}
}

func TestUnmeteredResults(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	sm, metered := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
	su, unmetered := instantiate(t, e, "fib", unmeteredLimits(), nil)
	for _, tc := range []struct {
		fn  string
		arg uint64
	}{{"fib", 0}, {"fib", 1}, {"fib", 20}, {"sumsq", 0}, {"sumsq", 1000}} {
		want, err := metered.Call(ctx, tc.fn, tc.arg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := unmetered.Call(ctx, tc.fn, tc.arg)
		if err != nil {
			t.Fatalf("%s(%d) unmetered: %v", tc.fn, tc.arg, err)
		}
		if got[0] != want[0] {
			t.Errorf("%s(%d) = %d unmetered, %d metered", tc.fn, tc.arg, got[0], want[0])
		}
		if sm.FuelConsumed() == 0 {
			t.Errorf("%s(%d): the metered store counted no fuel", tc.fn, tc.arg)
		}
		if su.FuelConsumed() != 0 || su.Fuel() != 0 {
			t.Errorf("%s(%d): unmetered store reports fuel consumed %d, left %d; want 0, 0", tc.fn, tc.arg, su.FuelConsumed(), su.Fuel())
		}
	}
	if su.Limits().Fuel != engine.Unmetered {
		t.Errorf("Limits().Fuel = %d, want Unmetered", su.Limits().Fuel)
	}
	su.SetFuel(5)
	if err := hooks.ChargeFuel(su, 1<<40, "x"); err != nil || su.Fuel() != 0 {
		t.Errorf("SetFuel and ChargeFuel changed an unmetered store: %v, fuel %d", err, su.Fuel())
	}
	// Both compiles of the module are one module to its holder: closing it releases both.
	m, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestUnmeteredImportsAcrossInstances(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	s, lib := instantiate(t, e, "fib", unmeteredLimits(), nil)
	m, err := e.Compile(ctx, fixture(t, "callfib"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Instantiate(ctx, m, engine.Imports{"lib": lib})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Call(ctx, "run", 15)
	if err != nil || res[0] != 610 {
		t.Fatalf("run(15) = %v, %v", res, err)
	}
}

// TestUnmeteredDeadline checks that an unmetered store stops at its deadline wherever the guest
// spins: in a call-free loop, in a recursion with no loop, in its start function, and in another
// core instance of the store, two calls below the one the call entered.
func TestUnmeteredDeadline(t *testing.T) {
	const deadline = 50 * time.Millisecond
	lim := unmeteredLimits()
	lim.Deadline = deadline
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	check := func(t *testing.T, err error, start time.Time) {
		t.Helper()
		if got := trapKind(t, err); got != engine.TrapDeadlineExceeded {
			t.Fatalf("kind = %v, want deadline exceeded: %v", got, err)
		}
		if !errors.Is(err, engine.ErrDeadlineExceeded) {
			t.Errorf("error %v is not ErrDeadlineExceeded", err)
		}
		if took := time.Since(start); took < deadline {
			t.Errorf("stopped after %v, before the deadline", took)
		}
	}
	t.Run("loop", func(t *testing.T) {
		s, in := instantiate(t, e, "spin", lim, nil)
		start := time.Now()
		_, err := callWithin(t, ctx, in, 10*time.Second, "spin")
		check(t, err, start)
		if _, err := in.Call(ctx, "spin"); !errors.Is(err, engine.ErrInstanceUnavailable) {
			t.Fatalf("call after the deadline: %v", err)
		}
		_ = s
	})
	t.Run("recursion", func(t *testing.T) {
		_, in := instantiate(t, e, "fib", lim, nil)
		start := time.Now()
		_, err := callWithin(t, ctx, in, 10*time.Second, "fib", 60) // years without a deadline
		check(t, err, start)
	})
	t.Run("start", func(t *testing.T) {
		m, err := e.Compile(ctx, fixture(t, "start_spin"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(ctx)
		start := time.Now()
		_, err = s.Instantiate(ctx, m, nil)
		check(t, err, start)
	})
	t.Run("other-instance", func(t *testing.T) {
		s, deep := instantiate(t, e, "spin_deep", lim, nil)
		m, err := e.Compile(ctx, fixture(t, "spin_caller"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.Instantiate(ctx, m, engine.Imports{"deep": deep})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = callWithin(t, ctx, in, 10*time.Second, "go")
		check(t, err, start)
	})
	t.Run("canceled", func(t *testing.T) {
		l := lim
		l.Deadline = time.Minute
		_, in := instantiate(t, e, "spin", l, nil)
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := callWithin(t, cctx, in, 10*time.Second, "spin")
		if got := trapKind(t, err); got != engine.TrapCanceled {
			t.Fatalf("kind = %v, want canceled: %v", got, err)
		}
	})
}

func TestUnmeteredLimits(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()

	lim := unmeteredLimits()
	lim.MemoryBytes = 2 * 65536
	s, in := instantiate(t, e, "traps", lim, nil)
	for _, tc := range []struct{ delta, want uint64 }{{1, 1}, {1, 0xffffffff}, {0, 2}} {
		res, err := in.Call(ctx, "grow", tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if res[0] != tc.want {
			t.Errorf("memory.grow(%d) = %d, want %d", tc.delta, int32(res[0]), int32(tc.want))
		}
	}
	if s.PeakMemory() != 2*65536 {
		t.Errorf("peak memory %d", s.PeakMemory())
	}
	if _, err := in.Call(ctx, "oob"); trapKind(t, err) != engine.TrapMemoryOutOfBounds {
		t.Errorf("oob: %v", err)
	}

	lim = unmeteredLimits()
	lim.TableElements = 1000
	_, tables := instantiate(t, e, "tables", lim, nil)
	for _, tc := range []struct {
		fn          string
		delta, want uint64
	}{
		{"grow_unbounded", 998, 1},
		{"grow_unbounded", 2, 0xffffffff}, // would reach 1001 > 1000
		{"grow_bounded", 9, 1},
		{"grow_bounded", 1, 0xffffffff}, // declared max 10 still holds
	} {
		res, err := tables.Call(ctx, tc.fn, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(res[0]) != uint32(tc.want) {
			t.Errorf("%s(%d) = %d, want %d", tc.fn, tc.delta, int32(res[0]), int32(tc.want))
		}
	}

	for _, name := range []string{"bigmem", "bigtable"} {
		m, err := e.Compile(ctx, fixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.NewStore(ctx, unmeteredLimits())
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Instantiate(ctx, m, nil)
		want := map[string]engine.TrapKind{"bigmem": engine.TrapMemoryLimit, "bigtable": engine.TrapTableLimit}[name]
		if got := trapKind(t, err); got != want {
			t.Errorf("%s: kind %v, want %v: %v", name, got, want, err)
		}
		_ = s.Close(ctx)
	}

	lim = unmeteredLimits()
	lim.Instances = 1
	s, _ = instantiate(t, e, "fib", lim, nil)
	m, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Instantiate(ctx, m, nil); trapKind(t, err) != engine.TrapInstanceLimit {
		t.Errorf("second instance: %v", err)
	}
}

func TestUnmeteredValidate(t *testing.T) {
	if err := unmeteredLimits().Validate(); err != nil {
		t.Errorf("Unmetered: %v", err)
	}
	l := engine.DefaultLimits()
	l.Fuel = engine.MaxFuel + 1
	if err := l.Validate(); err == nil {
		t.Error("fuel MaxFuel+1 accepted")
	}
}

// TestUnmeteredObservers checks that an unmetered store reports nothing to fuel observers.
func TestUnmeteredObservers(t *testing.T) {
	e := newEngine(t, engine.Config{ProfileFunctions: true})
	_, in := instantiate(t, e, "fib", unmeteredLimits(), nil)
	var p engine.FuelProgress
	prof := engine.NewFuelProfile()
	ctx := engine.WithFuelListener(engine.WithFuelProgress(context.Background(), &p), prof)
	if res, err := in.Call(ctx, "fib", 15); err != nil || res[0] != 610 {
		t.Fatalf("fib(15) = %v, %v", res, err)
	}
	if p.Budget() != 0 || p.Consumed() != 0 {
		t.Errorf("progress budget %d, consumed %d; want none", p.Budget(), p.Consumed())
	}
}

func TestUnmeteredSnapshot(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	env := &engine.HostModule{Name: "env", Funcs: []engine.HostFunc{{
		Name: "seed", Results: []engine.ValueType{engine.I32},
		Fn: func(_ context.Context, _ *engine.Caller, stack []uint64) { stack[0] = 42 },
	}}}
	imports := engine.Imports{"env": env}
	if _, err := e.Snapshot(ctx, fixture(t, "snapshot"), engine.SnapshotConfig{Limits: unmeteredLimits(), Imports: imports, InitExport: "_initialize"}); !errors.Is(err, engine.ErrSnapshot) {
		t.Fatalf("capture with unmetered limits: %v", err)
	}
	sn, err := e.Snapshot(ctx, fixture(t, "snapshot"), engine.SnapshotConfig{Limits: engine.DefaultLimits(), Imports: imports, InitExport: "_initialize"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, unmeteredLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	in, err := s.InstantiateSnapshot(ctx, sn, imports)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := in.Call(ctx, "counter"); err != nil || c[0] != 42 || s.FuelConsumed() != 0 {
		t.Fatalf("counter = %v, %v; fuel %d", c, err, s.FuelConsumed())
	}
	// A capture runs the module's own compile, which keeps its binary: an unmetered store
	// instantiates it through an unmetered variant, as any module.
	c, err := hooks.NewCapture(ctx, e, fixture(t, "snapshot"), engine.DefaultTableElements, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	in2, err := s.Instantiate(ctx, c.Module(), imports)
	if err != nil {
		t.Fatalf("capture module in an unmetered store: %v", err)
	}
	if _, err := in2.Call(ctx, "counter"); err != nil || s.FuelConsumed() != 0 {
		t.Fatalf("counter in the capture module's unmetered variant: %v; fuel %d", err, s.FuelConsumed())
	}
}

// hooks reach the engine's capture plumbing as package component does.
var hooks = enginehook.Get[*engine.Engine, *engine.Module, *engine.Instance, *engine.Store]()
