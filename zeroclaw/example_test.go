package zeroclaw_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
)

// Install a local plugin, discover it again, and resolve an instance's
// config the way a tool call would receive it.
func Example() {
	work, _ := os.MkdirTemp("", "zeroclaw-example-")
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "manifest.toml"), []byte(`name = "echo"
version = "0.1.0"
wasm_path = "echo.wasm"
capabilities = ["tool"]
permissions = ["config_read"]

[config_schema]
type = "object"
additionalProperties = false
properties.greeting.type = "string"
properties.repeat.type = "integer"
`), 0o644)
	// A component exporting the tool-plugin world's interfaces; install checks that it does.
	wasm, _ := os.ReadFile("wasmcheck/testdata/tool.wasm")
	os.WriteFile(filepath.Join(src, "echo.wasm"), wasm, 0o644)

	host, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: filepath.Join(work, "plugins")})
	if err != nil {
		panic(err)
	}
	p, err := host.Install(src)
	if err != nil {
		panic(err)
	}
	key := p.ConfigEntryKeys()[0].Key()
	fmt.Println("installed", p.Name(), "config key", key)

	cfg := zeroclaw.DefaultConfig()
	cfg.Plugins.Entries = []zeroclaw.EntryConfig{{Name: key, Config: map[string]string{"greeting": "hi", "repeat": "2"}}}
	scope, _ := p.DefaultScope(manifest.CapabilityTool)
	res, err := p.ResolveConfig(scope, &cfg.Plugins)
	if err != nil {
		panic(err)
	}
	args, _ := pluginconfig.InjectConfig([]byte(`{"text":"x","__config":{"forged":true}}`), res.Public())
	fmt.Println(string(args))
	// Output:
	// installed echo config key zpi1_WyJlY2hvIiwidG9vbCIsImVjaG8iXQ
	// {"__config":{"greeting":"hi","repeat":2},"text":"x"}
}

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "zeroclaw-example-")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "broken-tool"), 0o755)
	os.WriteFile(filepath.Join(dir, "broken-tool", "manifest.toml"), []byte("name = \"broken-tool\"\nversion = \"0.0.0\"\ncapabilities = [\"tool\"]\n"), 0o644)

	host, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: dir})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(host.Plugins()), "admitted")
	for _, r := range host.Rejected() {
		fmt.Println(filepath.Base(r.Dir)+":", r.Err)
	}
	// Output:
	// 0 admitted
	// broken-tool: invalid manifest: plugin 'broken-tool' is missing required `wasm_path` for non-skill capabilities
}
