package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kobako/kobako/engine"
)

// Compile a module once, run it in a store with the default limits, and read the fuel it used.
func Example() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)

	wasm, err := os.ReadFile("testdata/fib.wasm")
	if err != nil {
		panic(err)
	}
	m, err := e.Compile(ctx, wasm)
	if err != nil {
		panic(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		panic(err)
	}
	defer s.Close(ctx)
	inst, err := s.Instantiate(ctx, m, nil)
	if err != nil {
		panic(err)
	}
	res, err := inst.Call(ctx, "fib", 20)
	if err != nil {
		panic(err)
	}
	fmt.Println("fib(20) =", res[0], "fuel:", s.FuelConsumed())
	// Output: fib(20) = 6765 fuel: 197015
}

// A loop with no calls stops when its fuel runs out.
func ExampleTrap() {
	ctx := context.Background()
	e, _ := engine.New(ctx, engine.Config{})
	defer e.Close(ctx)
	wasm, _ := os.ReadFile("testdata/spin.wasm")
	m, _ := e.Compile(ctx, wasm)
	lim := engine.DefaultLimits()
	lim.Fuel = 10_000
	s, _ := e.NewStore(ctx, lim)
	defer s.Close(ctx)
	inst, _ := s.Instantiate(ctx, m, nil)
	_, err := inst.Call(ctx, "spin")
	var trap *engine.Trap
	if errors.As(err, &trap) {
		fmt.Println(trap.Kind, errors.Is(err, engine.ErrFuelExhausted))
	}
	// Output: fuel exhausted true
}

// Take a snapshot of a module after its start function and _initialize ran, and create instances
// from it: they start in the initialized state, and charge the fuel initialization consumed.
func ExampleEngine_Snapshot() {
	ctx := context.Background()
	e, _ := engine.New(ctx, engine.Config{})
	defer e.Close(ctx)
	wasm, _ := os.ReadFile("testdata/snapshot.wasm")
	env := &engine.HostModule{Name: "env", Funcs: []engine.HostFunc{{
		Name: "seed", Results: []engine.ValueType{engine.I32},
		Fn: func(_ context.Context, _ *engine.Caller, stack []uint64) { stack[0] = 42 },
	}}}
	imports := engine.Imports{"env": env}
	sn, err := e.Snapshot(ctx, wasm, engine.SnapshotConfig{
		Limits: engine.DefaultLimits(), Imports: imports, InitExport: "_initialize"})
	if err != nil {
		panic(err)
	}
	start, init := sn.InitFuel()
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)
	inst, err := s.InstantiateSnapshot(ctx, sn, imports)
	if err != nil {
		panic(err)
	}
	fmt.Println("charged:", s.FuelConsumed() == init, "start:", start > 0)
	counter, _ := inst.Call(ctx, "counter")
	fmt.Println("counter:", counter[0])
	// Output:
	// charged: true start: true
	// counter: 42
}
