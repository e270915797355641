package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
)

// TestFuelProgress reads a spinning call's fuel from another goroutine while it runs (under -race
// too): the count grows while the guest runs, never goes back, and after the calls end equals
// what the store reports, summed over the calls.
func TestFuelProgress(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.Fuel = engine.MaxFuel
	lim.Deadline = 300 * time.Millisecond
	_, in := instantiate(t, e, "spin", lim, nil)
	var p engine.FuelProgress
	ctx := engine.WithFuelProgress(context.Background(), &p)
	done := make(chan struct{})
	var seen []uint64
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 10 {
			<-tick.C
			seen = append(seen, p.Consumed())
		}
	}()
	_, err := in.Call(ctx, "spin")
	<-done
	if got := trapKind(t, err); got != engine.TrapDeadlineExceeded {
		t.Fatalf("kind = %v: %v", got, err)
	}
	if p.Budget() != lim.Fuel {
		t.Errorf("budget %d, want %d", p.Budget(), lim.Fuel)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress went back: %v", seen)
		}
	}
	if seen[len(seen)-1] == 0 || seen[len(seen)-1] == seen[0] {
		t.Fatalf("progress did not move while the guest ran: %v", seen)
	}

	// Two calls of one store, each counted exactly.
	s2, in2 := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
	var q engine.FuelProgress
	ctx = engine.WithFuelProgress(context.Background(), &q)
	var sum uint64
	for range 2 {
		if _, err := in2.Call(ctx, "fib", 15); err != nil {
			t.Fatal(err)
		}
		sum += s2.FuelConsumed()
	}
	if q.Consumed() != sum {
		t.Fatalf("progress %d after two calls, the store says %d", q.Consumed(), sum)
	}
	// A context without a progress reports nothing to q.
	if _, err := in2.Call(context.Background(), "fib", 10); err != nil {
		t.Fatal(err)
	}
	if q.Consumed() != sum {
		t.Fatalf("a call without the progress counted: %d, want %d", q.Consumed(), sum)
	}
}
