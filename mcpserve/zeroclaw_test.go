package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/zeroclaw"
)

// Real tool plugins of zeroclaw/runner's tests: go-echo (Go) and misbehave (WAT; spins on
// {"mode":"spin"}).
const zcFixtures = "../zeroclaw/runner/testdata/"

// installPlugins installs the named fixtures into a fresh plugins directory, as `kobako plugin
// install` does, and returns the source serving them.
func installPlugins(t *testing.T, timeoutMS uint64, fixtures map[string]string) PluginSource {
	t.Helper()
	plugins := filepath.Join(t.TempDir(), "plugins")
	opts := zeroclaw.Options{PluginsDir: plugins}
	h, err := zeroclaw.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, wasm := range fixtures {
		src := filepath.Join(t.TempDir(), name)
		os.MkdirAll(src, 0o755)
		b, err := os.ReadFile(zcFixtures + wasm)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, "plugin.wasm"), b, 0o644)
		os.WriteFile(filepath.Join(src, "manifest.toml"), []byte(fmt.Sprintf("name = %q\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n", name)), 0o644)
		if _, err := h.Install(src); err != nil {
			t.Fatal(err)
		}
	}
	cfg := zeroclaw.DefaultConfig().Plugins
	cfg.Limits.CallTimeoutMS = timeoutMS
	return ZeroClawPlugins(ZeroClawOptions{Host: opts, Config: &cfg})
}

// TestZeroClawTools serves real ZeroClaw tool plugins beside an ABI 1 package, in both eras and
// transports: the list, a tool-result, a failed tool-result, execute's own error, cancellation and
// 32 concurrent calls.
func TestZeroClawTools(t *testing.T) {
	src := installPlugins(t, 60000, map[string]string{"go-echo": "gotool.wasm", "misbehave": "misbehave.wasm"})
	s, logs := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}, Plugins: src})
	if got := s.Tools(); len(got) != 3 || got[0].Name != "go-echo__go-echo" || got[0].Kind != "plugin" || got[2].Name != "misbehave__misbehave" {
		t.Fatalf("tools %+v (warnings %q)", got, s.Warnings())
	}
	for _, transport := range []string{"memory", "http"} {
		for _, era := range eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := connect(t, s, transport, era, nil)
				calls := []struct {
					args    map[string]string
					isError bool
					want    string
				}{
					{map[string]string{"text": "hi"}, false, "go-echo:hi|config={}"},
					{map[string]string{"tool_error": "nope"}, true, "error: nope"},
					{map[string]string{"fail": "boom"}, true, "The tool failed: plugin execute returned error: boom"},
				}
				for _, c := range calls {
					r := call(t, cs, "go-echo__go-echo", c.args)
					if r.IsError != c.isError || text(r) != c.want {
						t.Errorf("%v: isError %v %q; want %v %q", c.args, r.IsError, text(r), c.isError, c.want)
					}
				}

				before := strings.Count(logs.String(), `msg="call canceled" tool=misbehave__misbehave`)
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(200*time.Millisecond, cancel)
				start := time.Now()
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "misbehave__misbehave", Arguments: map[string]string{"mode": "spin"}}); !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v", err)
				}
				for strings.Count(logs.String(), `msg="call canceled" tool=misbehave__misbehave`) == before {
					if time.Since(start) > 20*time.Second {
						t.Fatalf("the plugin was not stopped 20 s after the cancellation (its deadline is 60 s):\n%s", logs)
					}
					time.Sleep(10 * time.Millisecond)
				}

				callConcurrently(t, 32, func(i int) error {
					// misbehave echoes other arguments: a small WAT component, so that 32
					// instances at once stay cheap on a loaded machine.
					r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "misbehave__misbehave", Arguments: map[string]string{"n": fmt.Sprint(i)}})
					if err == nil && text(r) != fmt.Sprintf(`{"n":"%d"}`, i) {
						err = fmt.Errorf("call %d: %q", i, text(r))
					}
					return err
				})
			})
		}
	}
}

// TestZeroClawTimeout: a plugin call past [plugins.limits] call_timeout_ms is an isError result
// naming the deadline.
func TestZeroClawTimeout(t *testing.T) {
	s, _ := newServer(t, Options{Plugins: installPlugins(t, 1000, map[string]string{"misbehave": "misbehave.wasm"})})
	cs := connect(t, s, "memory", eras[1], nil)
	if r := call(t, cs, "misbehave__misbehave", map[string]string{"mode": "spin"}); !r.IsError || text(r) != "The tool failed: plugin call exceeded wall-clock deadline of 1000 ms" {
		t.Fatalf("spin: %v %q", r.IsError, text(r))
	}
}

// TestZeroClawSkipped: a tool plugin whose component does not load is left out with a warning
// saying why; the others are served.
func TestZeroClawSkipped(t *testing.T) {
	src := installPlugins(t, 30000, map[string]string{"misbehave": "misbehave.wasm", "broken": "misbehave.wasm"})
	// Installation checks the component, so the broken one is swapped for a memory plugin after.
	mem, err := os.ReadFile(zcFixtures + "memory.wasm")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src.Dir(), "broken", "plugin.wasm"), mem, 0o644)
	s, _ := newServer(t, Options{Plugins: src})
	if got := s.Tools(); len(got) != 1 || got[0].Name != "misbehave__misbehave" {
		t.Fatalf("tools %+v", got)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "broken") {
		t.Fatalf("warnings %q", w)
	}
}
