package host_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/kobako/kobako/subako/example"
	"github.com/kobako/kobako/web/host"
)

// Open an ABI 1 package from the bytes of its zip and call a tool, as the browser build's worker
// does: the same call uses the same fuel there.
func Example() {
	ctx := context.Background()
	h, err := host.New(ctx, host.Config{})
	if err != nil {
		panic(err)
	}
	defer h.Close(ctx)

	p, err := h.OpenPackage(ctx, zipOf(example.FS()))
	if err != nil {
		panic(err)
	}
	defer p.Close(ctx)
	res, err := p.Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`), host.CallOptions{Fuel: 1_000_000})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name(), p.Tools()[0].Name)
	fmt.Println(string(res.Result), res.FuelConsumed)
	// Output:
	// hello greet
	// {"content":[{"type":"text","text":"Hello, Ada!"}]} 20204
}

// zipOf zips a package directory's files.
func zipOf(fsys fs.FS) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"subako-package.json", "module.wasm"} {
		b, _ := fs.ReadFile(fsys, name)
		w, _ := zw.Create(name)
		w.Write(b)
	}
	zw.Close()
	return buf.Bytes()
}
