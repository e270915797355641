package subako

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
)

var (
	sharedOnce sync.Once
	sharedRT   *Runtime
	sharedErr  error
)

// runtime returns one Runtime for the whole test binary, so each fixture compiles once.
func testRuntime(t testing.TB) *Runtime {
	t.Helper()
	sharedOnce.Do(func() {
		e, err := engine.New(context.Background(), engine.Config{})
		if err != nil {
			sharedErr = err
			return
		}
		// Discovery gets more than its 10 s here: under the race detector on a loaded machine, the
		// Go fixture's 17-request discoveries take longer. The default is tested on its own.
		dl := DefaultCallLimits()
		dl.Deadline = 2 * time.Minute
		sharedRT, sharedErr = New(context.Background(), Config{Engine: e, ClientVersion: "test", DiscoveryLimits: dl})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedRT
}

// writePackage writes a package directory with the fixture module and the given assets.
func writePackage(t testing.TB, fixture string, assets map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	wasm, err := os.ReadFile(filepath.Join("testdata", fixture+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	man, _ := json.Marshal(map[string]any{"abi": 1, "name": fixture, "description": "fixture " + fixture})
	must(t, os.WriteFile(filepath.Join(dir, ManifestFile), man, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ModuleFile), wasm, 0o644))
	for name, body := range assets {
		p := filepath.Join(dir, AssetsDir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func loadFixture(t testing.TB, fixture string, assets map[string]string) *Package {
	t.Helper()
	p, err := testRuntime(t).Load(context.Background(), writePackage(t, fixture, assets))
	if err != nil {
		t.Fatalf("load %s: %v", fixture, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
