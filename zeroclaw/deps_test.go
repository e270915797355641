package zeroclaw

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The layering rule for zeroclaw and its subpackages: besides the standard
// library and their own tree they may use only the component runtime, the
// WASI preview 2 host and the egress policy (never wazero or the engine
// directly), plus the maintained TOML, zip and JSON Schema libraries.
func TestDependencies(t *testing.T) {
	const module = "github.com/kobako/kobako/"
	allowed := []string{
		module + "zeroclaw", module + "component", module + "wasi/preview2", module + "internal/egress", module + "abi",
		"github.com/BurntSushi/toml", "github.com/klauspost/compress/", "github.com/santhosh-tekuri/jsonschema/v6",
	}
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || strings.HasPrefix(d.Name(), "testdata") {
			return err
		}
		pkg, err := build.ImportDir(dir, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return err
		}
		if len(pkg.CgoFiles) > 0 {
			t.Errorf("%s uses cgo", dir)
		}
	imports:
		for _, imp := range pkg.Imports {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // standard library
			}
			for _, a := range allowed {
				if imp == a || strings.HasPrefix(imp, strings.TrimSuffix(a, "/")+"/") {
					continue imports
				}
			}
			t.Errorf("%s imports %s, outside zeroclaw's layer", dir, imp)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
