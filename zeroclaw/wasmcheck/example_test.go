package wasmcheck_test

import (
	"fmt"
	"os"

	"github.com/kobako/kobako/zeroclaw/wasmcheck"
)

func ExampleRequire() {
	b, _ := os.ReadFile("testdata/tool.wasm")
	fmt.Println(wasmcheck.Require(b, []string{"zeroclaw:plugin/plugin-info@0.1.0", "zeroclaw:plugin/tool@0.1.0"}))
	fmt.Println(wasmcheck.Require(b, []string{"zeroclaw:plugin/memory@0.1.0"}))
	_, err := wasmcheck.Exports([]byte("\x00asm\x01\x00\x00\x00"))
	fmt.Println(err)
	// Output:
	// <nil>
	// component lacks a required export: it does not export zeroclaw:plugin/memory@0.1.0 (it exports zeroclaw:plugin/plugin-info@0.1.0, zeroclaw:plugin/tool@0.1.0)
	// not a WebAssembly component: it is a core module (version 1); a plugin is a component built for wasm32-wasip2
}
