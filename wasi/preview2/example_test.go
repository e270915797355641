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

// Define WASI 0.2 once on a Linker, then bind a Host per store and instantiate as many
// components as needed; here one, calling wasi:cli/run by hand (Run does the same in one step).
func ExampleDefine() {
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
	l := component.NewLinker()
	if err := preview2.Define(l); err != nil {
		panic(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		panic(err)
	}
	defer s.Close(ctx)
	if _, err := preview2.Bind(s, preview2.Config{Stdin: strings.NewReader("linker\n"), Stdout: os.Stdout}); err != nil {
		panic(err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		panic(err)
	}
	res, err := in.Call(ctx, "wasi:cli/run@0.2.12#run")
	if err != nil {
		panic(err)
	}
	fmt.Println(res[0])
	// Output:
	// hello, linker
	// ok
}
