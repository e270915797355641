//go:build js || wasip1

package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kobako/kobako/engine"
)

// Where Go's scheduler never preempts a running guest, an unmetered store's deadline could never
// fire: NewStore refuses one, naming why.
func TestUnmeteredRefusedWithoutPreemption(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	lim := engine.DefaultLimits()
	lim.Fuel = engine.Unmetered
	if _, err := e.NewStore(ctx, lim); !errors.Is(err, engine.ErrUnmeteredUnsupported) {
		t.Fatalf("NewStore(Unmetered) = %v, want ErrUnmeteredUnsupported", err)
	}
}
