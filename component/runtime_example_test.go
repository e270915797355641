package component_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// Compile a component, instantiate it in a store of its own and call its exports, dynamically
// with abi values and through a typed Go function.
func ExampleLinker_Instantiate() {
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
	cc, err := component.Compile(ctx, e, b) // once; instantiate as often as needed
	if err != nil {
		log.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)
	in, err := component.NewLinker().Instantiate(ctx, s, cc)
	if err != nil {
		log.Fatal(err)
	}
	res, err := in.Call(ctx, "docs:calc/api@0.1.0#add", abi.U32Value(40), abi.U32Value(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Uint())

	var concat func(context.Context, string, string) (string, error)
	if err := in.Bind("concat", &concat); err != nil {
		log.Fatal(err)
	}
	fmt.Println(concat(ctx, "small ", "box"))
	// Output:
	// 42
	// small box <nil>
}

// Satisfy a component's imports with host functions: typed Go functions, dynamic ones over abi
// values, and a host resource type whose reps the host chooses.
func ExampleLinker_DefineFunc() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	b, err := os.ReadFile("testdata/runtime/host.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		log.Fatal(err)
	}
	// The component imports docs:host/api@0.2.1; any 0.2.x definition satisfies it.
	const api = "docs:host/api@0.2.0"
	l := component.NewLinker()
	sizes := map[uint32]uint32{}
	if _, err := l.DefineResource(api, "blob", func(_ context.Context, _ *component.Caller, rep uint32) error {
		delete(sizes, rep)
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	check := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	check(l.DefineFunc(api, "double", func(_ context.Context, x uint32) uint32 { return 2 * x }))
	check(l.DefineFunc(api, "log", func(_ context.Context, msg string) { fmt.Println("guest says:", msg) }))
	check(l.DefineFunc(api, "name", func(context.Context) string { return "kobako" }))
	check(l.DefineFunc(api, "make", func(_ context.Context, n uint32) uint32 { // own<blob>: the rep
		rep := uint32(len(sizes) + 1)
		sizes[rep] = n
		return rep
	}))
	check(l.Define(api, "[method]blob.size", func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
		return []abi.Value{abi.U32Value(sizes[args[0].Rep()])}, nil
	}))

	s, err := e.NewStore(ctx, engine.DefaultLimits())
	check(err)
	defer s.Close(ctx)
	in, err := l.Instantiate(ctx, s, cc)
	check(err)
	res, err := in.Call(ctx, "run", abi.U32Value(20))
	check(err)
	fmt.Println(res[0].Uint())
	res, err = in.Call(ctx, "make-size", abi.U32Value(7))
	check(err)
	fmt.Println(res[0].Uint(), len(sizes))
	// Output:
	// guest says: hello from guest
	// 41
	// 7 0
}

// ExampleLinker_DefineUnknownImportsAsTraps runs a component whose imports the host implements
// only in part: greet calls the one defined import and works; run calls log, a stand-in, and
// traps naming it.
func ExampleLinker_DefineUnknownImportsAsTraps() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	b, err := os.ReadFile("testdata/runtime/host.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		log.Fatal(err)
	}
	l := component.NewLinker()
	if err := l.DefineFunc("docs:host/api@0.2.1", "name", func(context.Context) string { return "kobako" }); err != nil {
		log.Fatal(err)
	}
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil { // after every other definition
		log.Fatal(err)
	}
	in, err := l.InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close(ctx)
	res, err := in.Call(ctx, "greet")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Str())
	_, err = in.Call(ctx, "run", abi.U32Value(1))
	fmt.Println(errors.Is(err, component.ErrUnknownImport))
	// Output:
	// kobako
	// true
}

// exampleLog is one store's host state for ExampleLinker_Prepare.
type exampleLog struct{ lines []string }

var exampleLogKey = engine.NewKey[*exampleLog]()

// logAPI serves docs:host/api from its methods (DefineInterface): each method finds the calling
// instance's state through its Caller.
type logAPI struct{}

func (logAPI) Double(_ context.Context, x uint32) uint32 { return 2 * x }
func (logAPI) Name(context.Context) string               { return "kobako" }
func (logAPI) Make(context.Context, uint32) uint32       { return 0 }
func (logAPI) BlobSize(context.Context, uint32) uint32   { return 0 }
func (logAPI) Log(_ context.Context, c *component.Caller, msg string) {
	st, _ := exampleLogKey.Get(c.Store())
	st.lines = append(st.lines, msg)
}

// Define a host interface once from a Go value, link a component once (Prepare), and
// instantiate it in two stores, each with host state of its own.
func ExampleLinker_Prepare() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	b, err := os.ReadFile("testdata/runtime/host.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		log.Fatal(err)
	}
	l := component.NewLinker()
	if _, err := l.DefineResource("docs:host/api@0.2.1", "blob", nil); err != nil {
		log.Fatal(err)
	}
	if err := l.DefineInterface("docs:host/api@0.2.1", logAPI{}); err != nil {
		log.Fatal(err)
	}
	pre, err := l.Prepare(cc) // every import resolved and type-checked here, once
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range []uint32{1, 20} {
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			log.Fatal(err)
		}
		st := &exampleLog{}
		exampleLogKey.Set(s, st)
		in, err := pre.Instantiate(ctx, s)
		if err != nil {
			log.Fatal(err)
		}
		res, err := in.Call(ctx, "run", abi.U32Value(x))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res[0].Uint(), st.lines)
		_ = s.Close(ctx)
	}
	// Output:
	// 3 [hello from guest]
	// 41 [hello from guest]
}

// Bind an exported interface to a struct of typed Go functions, checked once against the WIT.
func ExampleInstance_BindInterface() {
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
	in, err := component.NewLinker().InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close(ctx)
	var api struct {
		Add func(context.Context, uint32, uint32) (uint32, error)
		Mul func(context.Context, uint32, uint32) (uint32, error) `wit:",optional"` // not exported
	}
	if err := in.BindInterface("docs:calc/api", &api); err != nil {
		log.Fatal(err)
	}
	fmt.Println(api.Add(ctx, 40, 2))
	fmt.Println(api.Mul == nil)
	// Output:
	// 42 <nil>
	// true
}

// Typed1 binds a function of one parameter and one result to Go types: here calc's
// echo-records, a list<record {id: u32, name: string, score: f64}> in and out, moved straight
// between the Go slice and guest memory.
func ExampleTyped1() {
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
	in, err := component.NewLinker().InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close(ctx)
	type rec struct {
		ID    uint32
		Name  string
		Score float64
	}
	f, err := in.Func("echo-records")
	if err != nil {
		log.Fatal(err)
	}
	echo, err := component.Typed1[[]rec, []rec](f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(echo(ctx, []rec{{1, "one", 0.5}, {2, "two", 2}}))
	// Output:
	// [{1 one 0.5} {2 two 2}] <nil>
}
