package component_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// Prepare an export once, then call it in any number of fresh instances: the Go types are
// checked and the plan made by PrepareFunc, so each instance costs only its own instantiation.
func ExamplePrepareFunc() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	b, err := os.ReadFile("testdata/runtime/calc.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		log.Fatal(err)
	}
	pre, err := component.NewLinker().Prepare(cc)
	if err != nil {
		log.Fatal(err)
	}
	// add takes two parameters: P is a struct with one field for each, in order.
	type addArgs struct{ A, B uint32 }
	add, err := component.PrepareFunc[addArgs, uint32](pre, "docs:calc/api#add")
	if err != nil {
		log.Fatal(err)
	}
	for i := range uint32(3) {
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			log.Fatal(err)
		}
		in, err := pre.Instantiate(ctx, s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(add.Call(ctx, in, addArgs{40, i}))
		_ = s.Close(ctx)
	}
	// Output:
	// 40 <nil>
	// 41 <nil>
	// 42 <nil>
}

// Bind an exported interface once on an InstancePre to a struct of Go funcs that take the
// instance to call.
func ExampleInstancePre_BindInterface() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	b, err := os.ReadFile("testdata/runtime/calc.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		log.Fatal(err)
	}
	pre, err := component.NewLinker().Prepare(cc)
	if err != nil {
		log.Fatal(err)
	}
	var api struct {
		Add func(context.Context, *component.Instance, uint32, uint32) (uint32, error)
	}
	if err := pre.BindInterface("docs:calc/api", &api); err != nil {
		log.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)
	in, err := pre.Instantiate(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.Add(ctx, in, 40, 2))
	// Output:
	// 42 <nil>
}
