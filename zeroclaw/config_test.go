package zeroclaw

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw/pluginconfig"

	"github.com/kobako/kobako/zeroclaw/signature"
)

func TestLoadConfig_Defaults(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join(t.TempDir(), "absent.toml"), false)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Plugins
	if p.Enabled || p.AutoDiscover || p.MaxPlugins != 50 || p.PluginsDir != "~/.kobako/plugins" || p.Security.SignatureMode != "disabled" {
		t.Errorf("defaults = %+v", p)
	}
	if p.Limits != (Limits{CallFuel: 1_000_000_000, MaxMemoryMB: 256, MaxTableElements: 100_000, MaxInstances: 64,
		CallTimeoutMS: 30_000, MaxConnectionsPerInstance: 16}) || p.Limits.MaxMemoryBytes() != 256<<20 {
		t.Errorf("limits = %+v", p.Limits)
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "absent.toml"), true); !errors.Is(err, ErrConfig) {
		t.Errorf("required file missing: %v", err)
	}
	if mode, warn := p.Security.Mode(); mode != signature.ModeDisabled || warn != "" {
		t.Errorf("default mode %v %q", mode, warn)
	}
}

func TestParseConfig(t *testing.T) {
	cfg := DefaultConfig()
	err := ParseConfig([]byte(`
[agents]
unrelated = true

[plugins]
plugins_dir = "/srv/plugins"
max_plugins = 3

[plugins.security]
signature_mode = "Strict-ish"
trusted_publisher_keys = ["ab", "CD"]

[plugins.limits]
call_fuel = 5
max_memory_mb = 1

[[plugins.entries]]
name = "zpi1_x"
egress_hosts = ["api.example.com"]
egress_allow_private = []

[plugins.entries.config]
label = "masked"
`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Plugins
	if p.PluginsDir != "/srv/plugins" || p.MaxPlugins != 3 || len(p.Security.TrustedPublisherKeys) != 2 ||
		p.Limits.CallFuel != 5 || p.Limits.MaxMemoryMB != 1 || p.Limits.MaxInstances != 64 {
		t.Errorf("parsed = %+v", p)
	}
	if mode, warn := p.Security.Mode(); mode != signature.ModeStrict || !strings.Contains(warn, "failing safe to strict") {
		t.Errorf("unknown mode: %v %q", mode, warn)
	}
	vals, err := p.EntryConfig("zpi1_x")
	if err != nil || vals["label"] != "masked" || p.Entries[0].EgressHosts[0] != "api.example.com" {
		t.Errorf("entry = %v %v", vals, err)
	}
	if vals, err := p.EntryConfig("zpi1_none"); vals != nil || err != nil {
		t.Errorf("absent entry = %v %v", vals, err)
	}
}

func TestParseConfig_Errors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[plugins.limits]\ncall_fuel = 0", "plugins.limits.call_fuel must be greater than 0; a zero budget traps every plugin call before it runs"},
		{"[plugins.limits]\nmax_memory_mb = 0", "plugins.limits.max_memory_mb must be greater than 0"},
		{"[plugins.limits]\nmax_table_elements = 0", "plugins.limits.max_table_elements must be greater than 0"},
		{"[plugins.limits]\nmax_instances = 0", "plugins.limits.max_instances must be greater than 0"},
		{"[plugins.limits]\ncall_timeout_ms = 0", "plugins.limits.call_timeout_ms must be greater than 0"},
		{"[plugins.limits]\nmax_connections_per_instance = 0", "plugins.limits.max_connections_per_instance must be greater than 0"},
		{"[plugins.limits]\ncall_fuel = -1", "plugins.limits.call_fuel must be greater than 0"},
		{"[plugins.limits]\ncall_timeout_ms = \"5\"", "plugins.limits.call_timeout_ms must be an integer"},
		{"[plugins]\nlimits = 5", "plugins.limits must be a table"},
		{"[plugins]\nmax_plugins = -1", "plugins.max_plugins must not be negative"},
		{"[[plugins.entries]]\nname = \"k\"\n[plugins.entries.config]\nmax_len = 5", "invalid kobako config"},
		{"[[plugins.entries]]\nconfig = {}", "plugins.entries[0] has no name"},
		{"[plugins\n", "invalid kobako config"},
	}
	for _, tt := range tests {
		err := ParseConfig([]byte(tt.text), DefaultConfig())
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}

func TestSeedEntry(t *testing.T) {
	const key = "zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0"
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "config.toml")
	added, err := SeedEntry(path, key)
	if err != nil || !added {
		t.Fatalf("seed into a new file: %v %v", added, err)
	}
	added, err = SeedEntry(path, key)
	if err != nil || added {
		t.Fatalf("second seed: %v %v", added, err)
	}
	// An existing file keeps its text; the row is appended.
	existing := "# my config\n[plugins]\nplugins_dir = \"/p\"  # here\n\n[[plugins.entries]]\nname = \"other\"\n[plugins.entries.config]\nx = \"1\""
	path2 := filepath.Join(dir, "config2.toml")
	os.WriteFile(path2, []byte(existing), 0o640)
	if added, err := SeedEntry(path2, key); err != nil || !added {
		t.Fatalf("seed into an existing file: %v", err)
	}
	b, _ := os.ReadFile(path2)
	if !strings.HasPrefix(string(b), existing+"\n") {
		t.Errorf("existing text changed:\n%s", b)
	}
	cfg, err := LoadConfig(path2, true)
	if err != nil || len(cfg.Plugins.Entries) != 2 || !cfg.Plugins.HasEntry(key) || cfg.Plugins.Entries[0].Config["x"] != "1" {
		t.Fatalf("reloaded = %+v %v", cfg, err)
	}
	if fi, _ := os.Stat(path2); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode())
	}
	// An inline entries array cannot take an appended row: untouched, error.
	inline := "[plugins]\nentries = [{ name = \"a\" }]\n"
	path3 := filepath.Join(dir, "config3.toml")
	os.WriteFile(path3, []byte(inline), 0o600)
	if _, err := SeedEntry(path3, key); !errors.Is(err, ErrConfig) {
		t.Errorf("inline entries: %v", err)
	}
	if b, _ := os.ReadFile(path3); string(b) != inline {
		t.Error("file changed after a refused seed")
	}
	if _, err := SeedEntry(path3, "bad\"key"); !errors.Is(err, ErrConfig) {
		t.Errorf("bad key: %v", err)
	}

	// The schema's properties come as a commented-out template of the row's config table.
	path4 := filepath.Join(dir, "config4.toml")
	props := []pluginconfig.Property{{Name: "api_key", Kind: pluginconfig.KindString, Secret: true}, {Name: "max items", Kind: pluginconfig.KindInteger}}
	if added, err := SeedEntry(path4, key, props...); err != nil || !added {
		t.Fatalf("seed with a template: %v", err)
	}
	b, _ = os.ReadFile(path4)
	want := "[[plugins.entries]]\nname = \"" + key + "\"\n# [plugins.entries.config]  # uncomment and set; every value is a string\n# api_key = \"\"  # string, secret\n# \"max items\" = \"\"  # integer\n"
	if string(b) != want {
		t.Errorf("seeded:\n%s\nwant:\n%s", b, want)
	}
	// Uncommented, the template is a valid config table.
	var filled strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		line, _, _ = strings.Cut(strings.TrimPrefix(line, "# "), "  #")
		filled.WriteString(strings.TrimSuffix(line, "\n") + "\n")
	}
	cfg = DefaultConfig()
	if err := ParseConfig([]byte(filled.String()), cfg); err != nil || len(cfg.Plugins.Entries) != 1 || len(cfg.Plugins.Entries[0].Config) != 2 {
		t.Errorf("uncommented template %q: %+v, %v", filled.String(), cfg.Plugins.Entries, err)
	}
}

func TestExpandHome(t *testing.T) {
	home, _ := os.UserHomeDir()
	for in, want := range map[string]string{"~/x": filepath.Join(home, "x"), "~": home, "/abs": "/abs", "rel/~": "rel/~", "~user/x": "~user/x"} {
		if got, err := ExpandHome(in); err != nil || got != want {
			t.Errorf("ExpandHome(%q) = %q %v", in, got, err)
		}
	}
	t.Setenv(EnvConfigFile, "/etc/kobako.toml")
	if p, _ := ConfigPath(""); p != "/etc/kobako.toml" {
		t.Errorf("ConfigPath from env = %s", p)
	}
	if p, _ := ConfigPath("/x.toml"); p != "/x.toml" {
		t.Errorf("ConfigPath flag = %s", p)
	}
}
