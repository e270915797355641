package subako

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layering of spec/style.md: subako builds on engine, wasi and wasi/preview1 and
// internal/egress only (never component, zeroclaw, its own SDK or the CLI), plus the zip reader and
// the JSON Schema validator.
func TestImports_Layering(t *testing.T) {
	allowed := map[string]bool{
		"github.com/kobako/kobako/engine":          true,
		"github.com/kobako/kobako/wasi":            true,
		"github.com/kobako/kobako/wasi/preview1":   true,
		"github.com/kobako/kobako/internal/egress": true,
		"github.com/klauspost/compress/zip":        true,
		"github.com/santhosh-tekuri/jsonschema/v6": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if !strings.Contains(first, ".") && path != "C" {
				continue
			}
			if !allowed[path] {
				t.Errorf("%s imports %q, outside subako's layer", f, path)
			}
		}
	}
}
