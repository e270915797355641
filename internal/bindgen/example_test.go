package bindgen_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/kobako/kobako/internal/bindgen"
)

// Generate the host bindings of a world and list the entry points a host calls: a Define
// function per imported interface (and for root imports), and New{World}Pre for the exports.
func ExampleGenerate() {
	r, err := bindgen.Load("testdata/all.wit")
	if err != nil {
		log.Fatal(err)
	}
	src, err := bindgen.Generate(bindgen.Config{
		Package: "all",
		Sources: []bindgen.Source{{Label: "testdata/all.wit", Resolve: r, Worlds: []bindgen.World{{Name: "all"}}}},
		Caller:  true,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "func Define") || strings.HasPrefix(line, "func New") {
			fmt.Println(strings.TrimSuffix(line, " {"))
		}
	}
	// Output:
	// func DefineShapes(l *component.Linker, impl Shapes) error
	// func DefineAllImports(l *component.Linker, impl AllImports) error
	// func NewAllPre(pre *component.InstancePre) (*AllPre, error)
}
