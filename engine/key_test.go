package engine_test

import (
	"context"
	"testing"

	"github.com/kobako/kobako/engine"
)

func TestKey(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	s1, _ := e.NewStore(ctx, engine.DefaultLimits())
	s2, _ := e.NewStore(ctx, engine.DefaultLimits())
	k1, k2 := engine.NewKey[int](), engine.NewKey[int]()
	if _, ok := k1.Get(s1); ok {
		t.Fatal("empty store has a value")
	}
	k1.Set(s1, 1)
	k2.Set(s1, 2)
	k1.Set(s2, 3)
	k1.Set(s1, 4)
	for _, tt := range []struct {
		k    *engine.Key[int]
		s    *engine.Store
		want int
		ok   bool
	}{{k1, s1, 4, true}, {k2, s1, 2, true}, {k1, s2, 3, true}, {k2, s2, 0, false}} {
		if got, ok := tt.k.Get(tt.s); got != tt.want || ok != tt.ok {
			t.Fatalf("Get = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
		}
	}
	k1.Delete(s1)
	if _, ok := k1.Get(s1); ok {
		t.Fatal("deleted value still there")
	}
	if got, _ := k2.Get(s1); got != 2 {
		t.Fatalf("other key after Delete = %d", got)
	}
}
