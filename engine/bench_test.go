package engine_test

import (
	"context"
	"testing"

	"github.com/kobako/kobako/engine"
)

// BenchmarkStoreCall measures the fixed cost of a plugin call on a fresh store: NewStore,
// Instantiate, one tiny call, Close. The guest does almost nothing, so this is the engine's own cost.
func BenchmarkStoreCall(b *testing.B) {
	ctx := context.Background()
	e := newEngine(b, engine.Config{})
	m, err := e.Compile(ctx, fixture(b, "fib"))
	if err != nil {
		b.Fatal(err)
	}
	lim := engine.DefaultLimits()
	b.ReportAllocs()
	for b.Loop() {
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			b.Fatal(err)
		}
		in, err := s.Instantiate(ctx, m, nil)
		if err != nil {
			b.Fatal(err)
		}
		if r, err := in.Call(ctx, "fib", 1); err != nil || r[0] != 1 {
			b.Fatalf("fib(1) = %v, %v", r, err)
		}
		_ = s.Close(ctx)
	}
}

// BenchmarkCall measures one top-level call on a live store: the per-call cost alone.
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	e := newEngine(b, engine.Config{})
	_, in := instantiate(b, e, "fib", engine.DefaultLimits(), nil)
	f, err := in.Function("fib")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := f.Call(ctx, 1); err != nil || r[0] != 1 {
			b.Fatalf("fib(1) = %v, %v", r, err)
		}
	}
}

// BenchmarkNewStore measures an empty store: its fuel counter and nothing else.
func BenchmarkNewStore(b *testing.B) {
	ctx := context.Background()
	e := newEngine(b, engine.Config{})
	lim := engine.DefaultLimits()
	b.ReportAllocs()
	for b.Loop() {
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Close(ctx)
	}
}

// BenchmarkCallUnmetered is BenchmarkCall on an unmetered store: what wazero's per-call watcher
// and the store's own (see Unmetered) add to a call.
func BenchmarkCallUnmetered(b *testing.B) {
	ctx := context.Background()
	e := newEngine(b, engine.Config{})
	_, in := instantiate(b, e, "fib", unmeteredLimits(), nil)
	f, err := in.Function("fib")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := f.Call(ctx, 1); err != nil || r[0] != 1 {
			b.Fatalf("fib(1) = %v, %v", r, err)
		}
	}
}
