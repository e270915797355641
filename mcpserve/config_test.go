package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/subako"
)

func TestParseConfig(t *testing.T) {
	home, _ := os.UserHomeDir()
	raw := `
[plugins]
enabled = true

[mcp]
allow_hosts = ["api.example.com"]
plugins = false
[mcp.limits]
timeout_ms = 5000
[mcp.http]
token_file = "token"

[[mcp.packages]]
path = "pkgs/a.zip"
name = "a"
prefix = false
volume = "~/vol"
skills = { notes = "skills/notes" }
[mcp.packages.limits]
fuel = 7
max_memory_mb = 16
write_budget_mb = 2

[[mcp.packages]]
path = "/abs/b"
allow_hosts = []

[[mcp.packages]]
path = "oci://registry.example/functions/c:1"
volume = "vol"
`
	cfg, err := ParseConfig([]byte(raw), "/etc/kobako")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServePlugins() || cfg.HTTP.TokenFile != "/etc/kobako/token" || len(cfg.Packages) != 3 {
		t.Fatalf("%+v", cfg)
	}
	// An OCI reference is left for the caller to pull; the row's other paths still resolve.
	if c := cfg.Packages[2]; c.Path != "oci://registry.example/functions/c:1" || c.Volume != "/etc/kobako/vol" {
		t.Fatalf("oci row %+v", c)
	}
	d := cfg.Defaults()
	if d.Limits.Deadline != 5*time.Second || d.Limits.Fuel != subako.DefaultCallLimits().Fuel || d.WriteBudget != subako.DefaultWriteBudget {
		t.Fatalf("defaults %+v", d)
	}
	a, err := cfg.Packages[0].Spec(d)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path != "/etc/kobako/pkgs/a.zip" || a.Name != "a" || !a.NoPrefix || a.Call.Volume != filepath.Join(home, "vol") ||
		a.Call.Limits.Fuel != 7 || a.Call.Limits.MemoryBytes != 16<<20 || a.Call.Limits.Deadline != 5*time.Second ||
		a.Call.WriteBudget != 2<<20 || a.Call.Network == nil || len(a.Call.Skills) != 1 || a.Call.Skills[0].Dir != "/etc/kobako/skills/notes" {
		t.Fatalf("package a: %+v", a)
	}
	b, err := cfg.Packages[1].Spec(d)
	if err != nil || b.Path != "/abs/b" || b.NoPrefix || b.Call.Network != nil {
		t.Fatalf("package b: %+v %v (an empty allow_hosts replaces the default list)", b, err)
	}
}

func TestParseConfig_Errors(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"[mcp]\ntimeout = 3", "unknown keys mcp.timeout"},
		{"[[mcp.packages]]\nname = \"x\"", "has no path"},
		{"[mcp.http]\nmax_body_bytes = -1", "must not be negative"},
		{"[mcp", "toml"},
		{"[mcp.limits]\ntimeout_ms = -1", "mcp.limits.timeout_ms = 18446744073709551615 is more than"},
		{"[[mcp.packages]]\npath = \"x\"\n[mcp.packages.limits]\nmax_memory_mb = 9223372036854775807", "mcp.packages[0].limits.max_memory_mb"},
		{"[mcp.limits]\ntimeout_ms = 0", "mcp.limits.timeout_ms = 0: a limit must be at least 1"},
		{"[[mcp.packages]]\npath = \"x\"\n[mcp.packages.limits]\nfuel = 0", "mcp.packages.limits.fuel = 0"},
		{"[mcp]\nmax_concurrent_calls = -1", "must not be negative"},
	}
	for _, tt := range tests {
		if _, err := ParseConfig([]byte(tt.raw), ""); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.raw, err, tt.want)
		}
	}
	if _, err := (PackageConfig{Path: "x", AllowHosts: []string{"*.com"}}).Spec(CallDefaults{Limits: subako.DefaultCallLimits()}); !errors.Is(err, ErrConfig) {
		t.Errorf("a bad host pattern: err = %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	os.WriteFile(p, []byte("[mcp]\nbogus = 1\n"), 0o644)
	if _, err := LoadConfig(p); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), p) {
		t.Errorf("LoadConfig: err = %v", err)
	}
	if cfg, err := LoadConfig(filepath.Join(dir, "missing.toml")); err != nil || len(cfg.Packages) != 0 {
		t.Errorf("a missing file: %v %v", cfg, err)
	}
}

// TestPluginResults maps ZeroClaw tool-results and failures to CallToolResults.
func TestPluginResults(t *testing.T) {
	msg := "bad input"
	tests := []struct {
		res      PluginResult
		err      error
		text     string
		isError  bool
		canceled bool
	}{
		{PluginResult{Success: true, Output: "42"}, nil, "42", false, false},
		{PluginResult{Success: false, Output: "partial", Error: &msg}, nil, "partial\nerror: bad input", true, false},
		{PluginResult{Success: false, Error: &msg}, nil, "error: bad input", true, false},
		{PluginResult{}, errors.New("wasm trap: unreachable"), "The tool failed: wasm trap: unreachable", true, false},
		{PluginResult{}, context.Canceled, "", false, true},
	}
	for i, tt := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		if tt.canceled {
			cancel()
		}
		r, err := callPlugin(ctx, func(context.Context, string) (PluginResult, error) { return tt.res, tt.err }, json.RawMessage(`{}`))
		cancel()
		if tt.canceled {
			if err == nil {
				t.Errorf("%d: a cancelled call returned %v", i, r)
			}
			continue
		}
		if err != nil || r.IsError != tt.isError || text(r) != tt.text {
			t.Errorf("%d: %v %q %v; want %q isError %v", i, err, text(r), r.IsError, tt.text, tt.isError)
		}
	}
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		if err := objectSchema(json.RawMessage(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{`{"type":"string"}`, `{}`, `[]`, `true`, `{"type":["object"]}`} {
		if err := objectSchema(json.RawMessage(s)); err == nil {
			t.Errorf("%s was taken for an object schema", s)
		}
	}
}

// TestPassThroughFallback: a block the SDK cannot read makes the whole result fall back to the
// mapping subako made for a model.
func TestPassThroughFallback(t *testing.T) {
	res := &subako.Result{
		Raw:     json.RawMessage(`{"content":[{"type":"text","text":"a"},{"type":"audio","data":"!!","mimeType":"audio/wav"},{"type":"weird"}]}`),
		Content: []subako.Content{{Type: "text", Text: "a"}, {Type: "text", Text: "[note 2]"}, {Type: "text", Text: "[note 3]"}},
	}
	r := passThrough(res)
	if text(r) != "a\n[note 2]\n[note 3]" {
		t.Fatalf("%q", text(r))
	}
	res.Raw = json.RawMessage(`{"content":[{"type":"text","text":"a"},{"type":"resource_link","uri":"https://x.example/r","name":"r"},{"type":"weird"}]}`)
	r = passThrough(res)
	if _, ok := r.Content[1].(*mcp.ResourceLink); !ok || text(r) != "a\n[note 3]" {
		t.Fatalf("%#v %q", r.Content, text(r))
	}
}
