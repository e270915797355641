package fuzz

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestClusterFuzzLiteBuildsEveryTarget fails when a Fuzz function of the module is missing from
// .clusterfuzzlite/build.sh (or the script names one that no longer exists), so the targets a
// distributed engine runs are the ones `go test -fuzz` has.
func TestClusterFuzzLiteBuildsEveryTarget(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", ".clusterfuzzlite", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^compile_native_go_fuzzer (\S+) (Fuzz\w+) \S+$`).FindAllStringSubmatch(string(script), -1) {
		listed[m[1]+" "+m[2]] = true
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	found := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel("..", filepath.Dir(path))
		pkg := "github.com/kobako/kobako"
		if dir != "." {
			pkg += "/" + filepath.ToSlash(dir)
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found[pkg+" "+m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 30 {
		t.Fatalf("found only %d fuzz targets in the module", len(found))
	}
	for k := range found {
		if !listed[k] {
			t.Errorf("%s is not built by .clusterfuzzlite/build.sh", k)
		}
	}
	for k := range listed {
		if !found[k] {
			t.Errorf(".clusterfuzzlite/build.sh builds %s, which does not exist", k)
		}
	}
}
