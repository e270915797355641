//go:build !js && !wasip1

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kobako/kobako/engine"
)

// Run a store without fuel: the module is not metered, and only the deadline (and the memory,
// table and instance limits) bound what a call may do.
func ExampleLimits_unmetered() {
	ctx := context.Background()
	e, _ := engine.New(ctx, engine.Config{})
	defer e.Close(ctx)
	wasm, _ := os.ReadFile("testdata/fib.wasm")
	m, _ := e.Compile(ctx, wasm)
	lim := engine.DefaultLimits()
	lim.Fuel = engine.Unmetered
	lim.Deadline = 100 * time.Millisecond
	s, _ := e.NewStore(ctx, lim)
	defer s.Close(ctx)
	inst, _ := s.Instantiate(ctx, m, nil)
	res, _ := inst.Call(ctx, "fib", 20)
	fmt.Println("fib(20) =", res[0], "fuel:", s.FuelConsumed())
	// fib(60) would take years: the deadline stops it.
	_, err := inst.Call(ctx, "fib", 60)
	fmt.Println(errors.Is(err, engine.ErrDeadlineExceeded))
	// Output:
	// fib(20) = 6765 fuel: 0
	// true
}
