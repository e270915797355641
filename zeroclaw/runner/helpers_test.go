package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// fixtureManifest is the reference tool-fixture's manifest with the wasm file swapped in, read from the one copy in
// zeroclaw/testdata/tool-fixture so that every package's tests agree on it.
var fixtureManifest = func() string {
	b, err := os.ReadFile("../testdata/tool-fixture/manifest.toml")
	if err != nil {
		panic("the reference fixture manifest is missing: " + err.Error())
	}
	return strings.Replace(string(b), "wasm_path = \"tool-fixture.wasm\"", "wasm_path = \"plugin.wasm\"", 1)
}()

// secretManifest admits a tool with a public and an x-secret property.
func secretManifest(name, capability string) string {
	return `name = "` + name + `"
version = "0.1.0"
wasm_path = "plugin.wasm"
capabilities = ["` + capability + `"]
permissions = ["config_read"]

[config_schema]
type = "object"
additionalProperties = false

[config_schema.properties.binding_label]
type = "string"

[config_schema.properties.api_token]
type = "string"
x-secret = true
`
}

func plainManifest(name, capability string) string {
	return `name = "` + name + `"
version = "0.1.0"
wasm_path = "plugin.wasm"
capabilities = ["` + capability + `"]
`
}

type fixturePlugin struct {
	manifest string
	wasm     string // file name in testdata
}

// newHost builds a plugins directory holding the given plugins (the .wasm linked from testdata)
// and opens a host over it.
func newHost(t *testing.T, plugins ...fixturePlugin) *zeroclaw.Host {
	t.Helper()
	dir := t.TempDir()
	for _, p := range plugins {
		m := p.manifest
		name := m[len(`name = "`):]
		name = name[:len(name)-len(name)+indexQuote(name)]
		pd := filepath.Join(dir, name)
		if err := os.MkdirAll(pd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pd, "manifest.toml"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(filepath.Join("testdata", p.wasm))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(pd, "plugin.wasm")); err != nil {
			t.Fatal(err)
		}
		pin(abs)
	}
	h, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: dir, SignatureMode: signature.ModeDisabled})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Rejected()) > 0 {
		t.Fatalf("rejected: %+v", h.Rejected())
	}
	return h
}

func indexQuote(s string) int {
	for i := range s {
		if s[i] == '"' {
			return i
		}
	}
	return len(s)
}

// config builds a host config with entries and limits.
func config(limits func(*zeroclaw.Limits), entries ...zeroclaw.EntryConfig) *zeroclaw.PluginsConfig {
	c := zeroclaw.DefaultConfig().Plugins
	c.Limits.CallTimeoutMS = 20_000
	if limits != nil {
		limits(&c.Limits)
	}
	c.Entries = entries
	return &c
}

// testEngine is shared by the tests' runtimes, so each fixture's core modules compile once.
var testEngine = sync.OnceValue(func() *engine.Engine {
	e, err := engine.New(context.Background(), engine.Config{})
	if err != nil {
		panic(err)
	}
	return e
})

// pinned holds, by path, a compile of each fixture a test installed, never closed: a Runner
// closes its compiles, and without this one each test's runtime would compile the fixtures'
// core modules again rather than find them in testEngine's cache.
var pinned sync.Map

func pin(path string) {
	if _, ok := pinned.Load(path); ok {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return // the test reports the missing fixture when it loads the plugin
	}
	cc, err := component.Compile(context.Background(), testEngine(), b)
	if err != nil {
		return // a fixture that does not compile, whose tests check just that
	}
	if _, loaded := pinned.LoadOrStore(path, cc); loaded {
		_ = cc.Close(context.Background())
	}
}

func openRuntime(t *testing.T, h *zeroclaw.Host, cfg *zeroclaw.PluginsConfig, opts ...func(*Options)) *Runner {
	t.Helper()
	o := Options{Host: h, Config: cfg, Engine: testEngine()}
	for _, f := range opts {
		f(&o)
	}
	rt, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rt.Close(ctx)
	})
	return rt
}
