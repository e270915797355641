package binary_test

import (
	"fmt"
	"log"
	"os"

	"github.com/kobako/kobako/component/binary"
)

// Decode a component and list what it imports and exports.
func ExampleDecode() {
	b, err := os.ReadFile("../testdata/fixture.wasm")
	if err != nil {
		log.Fatal(err)
	}
	c, err := binary.Decode(b)
	if err != nil {
		log.Fatal(err)
	}
	for _, im := range c.Type.Imports {
		fmt.Println("import", im.Name, im.Type.Sort)
	}
	for _, ex := range c.Type.Exports {
		fmt.Println("export", ex.Name, ex.Type.Sort)
	}
	api, _ := c.Type.Export("kobako:fixture/api@0.1.0")
	pair, _ := api.Type.Instance.Export("pair")
	fmt.Println(pair.Name, pair.Type.Func)
	// Output:
	// import kobako:fixture/host@0.1.0 instance
	// import logger type
	// import now func
	// export use-logger func
	// export run func
	// export kobako:fixture/api@0.1.0 instance
	// pair func() -> tuple<string, u64>
}

// Out-of-scope features are refused by name.
func ExampleDecode_unsupported() {
	b, err := os.ReadFile("../testdata/refuse/stream-type.wasm")
	if err != nil {
		log.Fatal(err)
	}
	_, err = binary.Decode(b)
	fmt.Println(err)
	// Output:
	// component: offset 0xb: type section: unsupported component feature: the stream type (kobako runs the synchronous component model 0.2)
}
