package preview1_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing/fstest"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
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

// Embed kobako: compile a WASI preview 1 command once, then instantiate it in a store with its
// limits and WASI state, and call it. This body is the README's embedding snippet; readme_test.go
// at the repository root fails when the two differ.
func Example_embedding() {
	ctx := context.Background()
	wasmBytes, err := os.ReadFile("testdata/hello.wasm") // a WASI preview 1 command
	if err != nil {
		panic(err)
	}
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, wasmBytes) // decoded, checked, metered, cached by hash
	if err != nil {
		panic(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits()) // fuel 1e9/call, 30 s, 256 MiB, 100,000 table elements, 64 instances
	if err != nil {
		panic(err)
	}
	defer s.Close(ctx)
	h, err := preview1.Bind(s, preview1.Config{Stdout: os.Stdout}) // the WASI state of this store
	if err != nil {
		panic(err)
	}
	defer h.Close()
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module})
	if err != nil {
		panic(err)
	}
	_, err = inst.Call(ctx, "_start") // *engine.Trap, *engine.ExitError, or nil
	var exit *engine.ExitError
	if errors.As(err, &exit) && exit.Code == 0 {
		err = nil // proc_exit(0), which Go and Rust programs call at the end: a success
	}
	fmt.Println("error:", err, "fuel:", s.FuelConsumed())
	// Output:
	// hello, world
	// error: <nil> fuel: 11
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
		Preopens: []wasi.Preopen{
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
