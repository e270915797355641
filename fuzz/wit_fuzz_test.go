package fuzz

import (
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.bytecodealliance.org/wit"

	"github.com/kobako/kobako/component/binary"
)

// FuzzWITPrinter decodes a component and prints its WIT, as `kobako inspect` does. What is
// printed must parse (with wasm-tools, embedded in go.bytecodealliance.org and run on wazero)
// and its world must name the same imports and exports as the binary.
func FuzzWITPrinter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "component", "testdata", "*.wasm"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 1<<14 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := binary.Decode(b)
		if err != nil {
			return
		}
		text := c.WIT()
		r, err := wit.DecodeWIT(strings.NewReader(text))
		if err != nil {
			t.Fatalf("the printed WIT does not parse: %v\n%s", err, text)
		}
		var w *wit.World
		for _, x := range r.Worlds {
			if x.Name == "root" {
				w = x
			}
		}
		if w == nil {
			t.Fatalf("no world root in the printed WIT:\n%s", text)
		}
		// Functions and interfaces are what WIT names as the binary does; types are printed where
		// WIT puts them (in a synthesized root-types interface, or pulled in by use), and core
		// modules and components, which WIT cannot express, are left out.
		names := func(m interface {
			All() iter.Seq2[string, wit.WorldItem]
		}) []string {
			var out []string
			for key, item := range m.All() {
				switch it := item.(type) {
				case *wit.InterfaceRef:
					if it.Interface.Name == nil || it.Interface.Package == nil {
						out = append(out, key) // an inline interface: named by its key
						continue
					}
					id := it.Interface.Package.Name
					if id.Namespace == "root" && id.Package == "component" {
						continue
					}
					id.Extension = *it.Interface.Name
					out = append(out, id.String())
				case *wit.Function:
					out = append(out, key)
				}
			}
			slices.Sort(out)
			return out
		}
		decls := func(ds []binary.ExternDecl) []string {
			var out []string
			for _, d := range ds {
				// A root-level [constructor]/[method]/[static] has no WIT form; the printer comments it.
				if (d.Type.Sort == binary.SortFunc || d.Type.Sort == binary.SortInstance) && !strings.HasPrefix(d.Name.Raw, "[") {
					out = append(out, d.Name.Raw)
				}
			}
			slices.Sort(out)
			return slices.Compact(out)
		}
		if got, want := names(&w.Imports), decls(c.Type.Imports); !slices.Equal(got, want) {
			t.Fatalf("imports: the WIT names %q, the binary %q\n%s", got, want, text)
		}
		if got, want := names(&w.Exports), decls(c.Type.Exports); !slices.Equal(got, want) {
			t.Fatalf("exports: the WIT names %q, the binary %q\n%s", got, want, text)
		}
	})
}
