package zeroclaw

import "os"

// toolWasm is a real component exporting the tool-plugin world's interfaces
// (wasmcheck/testdata/tool.wat, built by its build.sh), for plugins that must pass the wasm check.
var toolWasm = func() string {
	b, err := os.ReadFile("wasmcheck/testdata/tool.wasm")
	if err != nil {
		panic(err)
	}
	return string(b)
}()
