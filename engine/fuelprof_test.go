package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/kobako/kobako/engine"
)

// TestFuelProfile profiles recursive fib: the samples add up to the call's fuel, the stacks nest
// fib under itself, and the profile pprof reads back says the same.
func TestFuelProfile(t *testing.T) {
	e := newEngine(t, engine.Config{ProfileFunctions: true})
	s, in := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
	p := engine.NewFuelProfile()
	ctx := engine.WithFuelListener(context.Background(), p)
	if _, err := in.Call(ctx, "fib", 12); err != nil {
		t.Fatal(err)
	}
	if p.Total() != s.FuelConsumed() {
		t.Fatalf("the profile holds %d fuel, the call used %d", p.Total(), s.FuelConsumed())
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	deepest := 0
	names := map[string]bool{}
	for _, smp := range prof.Sample {
		total += smp.Value[0]
		deepest = max(deepest, len(smp.Location))
		for _, l := range smp.Location {
			names[l.Line[0].Function.Name] = true
		}
	}
	if uint64(total) != s.FuelConsumed() || deepest < 12 || len(names) > 2 {
		t.Fatalf("pprof reads %d fuel over stacks up to %d deep in %v; want %d, 12 deep (fib recursing), one function and its export",
			total, deepest, names, s.FuelConsumed())
	}
	// Without ProfileFunctions the profile stays empty.
	e2 := newEngine(t, engine.Config{})
	_, in2 := instantiate(t, e2, "fib", engine.DefaultLimits(), nil)
	p2 := engine.NewFuelProfile()
	if _, err := in2.Call(engine.WithFuelListener(context.Background(), p2), "fib", 12); err != nil || p2.Total() != 0 {
		t.Fatalf("%v, %d fuel profiled without ProfileFunctions", err, p2.Total())
	}
}
