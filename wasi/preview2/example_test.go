package preview2_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
)

// Run a wasi:cli/run component (C built with wasi-libc and the preview 1 command adapter) with
// stdin, stdout and arguments of the host's choosing.
func ExampleRun() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	wasm, err := os.ReadFile("../../component/testdata/hello.wasm")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	code, err := preview2.Run(ctx, e, wasm, preview2.Config{
		Args:   []string{"hello"},
		Stdin:  strings.NewReader("gopher\n"),
		Stdout: &out,
	}, engine.DefaultLimits())
	if err != nil {
		panic(err)
	}
	fmt.Printf("exit %d: %s", code, out.String())
	// Output: exit 0: hello, gopher
}

// Define WASI 0.2 on a Linker to instantiate a component and call any of its exports, here
// wasi:cli/run by hand (Run does the same in one step).
func ExampleHost_Define() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	wasm, err := os.ReadFile("../../component/testdata/hello.wasm")
	if err != nil {
		panic(err)
	}
	cc, err := component.Compile(ctx, e, wasm)
	if err != nil {
		panic(err)
	}
	h, err := preview2.NewHost(preview2.Config{Stdin: strings.NewReader("linker\n"), Stdout: os.Stdout})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	l := component.NewLinker()
	if err := h.Define(l); err != nil {
		panic(err)
	}
	in, err := l.InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
	if err != nil {
		panic(err)
	}
	defer in.Close(ctx)
	res, err := in.Call(ctx, "wasi:cli/run@0.2.12#run")
	if err != nil {
		panic(err)
	}
	fmt.Println(res[0])
	// Output:
	// hello, linker
	// ok
}
