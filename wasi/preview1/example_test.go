package preview1_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview1"
)

// Run a WASI command and collect what it writes.
func Example() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	wasm, err := os.ReadFile("testdata/hello.wasm")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	code, err := preview1.Run(ctx, e, wasm, preview1.Config{Args: []string{"hello"}, Stdout: &out}, engine.DefaultLimits())
	fmt.Printf("%sexit %d, error %v\n", out.String(), code, err)
	// Output:
	// hello, world
	// exit 0, error <nil>
}

// Bind WASI state to a store by hand, to keep the store (and its fuel figures) or to add other
// host modules beside WASI. The guest is a C program reading its stdin line by line.
func ExampleBind() {
	ctx := context.Background()
	e, _ := engine.New(ctx, engine.Config{})
	defer e.Close(ctx)
	wasm, _ := os.ReadFile("testdata/cfs/cfs.wasm")
	m, err := e.Compile(ctx, wasm)
	if err != nil {
		panic(err)
	}
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)

	var out bytes.Buffer
	h, err := preview1.Bind(s, preview1.Config{
		Args:   []string{"cfs", "echo"},
		Stdin:  strings.NewReader("first\nsecond\n"),
		Stdout: &out,
		Preopens: []preview1.Preopen{
			{GuestPath: "/package", FS: fstest.MapFS{"readme.txt": {Data: []byte("hi")}}},
		},
		WriteBudget: 64 << 20,
	})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module})
	if err != nil {
		panic(err)
	}
	_, err = inst.Call(ctx, "_start")
	fmt.Print(out.String())
	fmt.Println("error:", err, "fuel used > 0:", s.FuelConsumed() > 0)
	// Output:
	// line 1: first
	// line 2: second
	// eof after 2 lines
	// error: <nil> fuel used > 0: true
}
