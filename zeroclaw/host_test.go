package zeroclaw

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// fixtureManifest is the reference fixture's manifest, byte for byte, read from the one copy in
// zeroclaw/testdata/tool-fixture so that every package's tests agree on it.
var fixtureManifest = func() string {
	b, err := os.ReadFile("testdata/tool-fixture/manifest.toml")
	if err != nil {
		panic("the reference fixture manifest is missing: " + err.Error())
	}
	return string(b)
}()

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toolPlugin writes a minimal tool plugin into dir.
func toolPlugin(t testing.TB, dir, name string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, manifest.FileName), "name = \""+name+"\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n")
	writeFile(t, filepath.Join(dir, "plugin.wasm"), toolWasm)
}

// seedReferenceLayout reproduces reference_plugin_e2e.rs's plugins dir.
func seedReferenceLayout(t testing.TB, plugins string) {
	writeFile(t, filepath.Join(plugins, "tool-fixture", manifest.FileName), fixtureManifest)
	writeFile(t, filepath.Join(plugins, "tool-fixture", "tool-fixture.wasm"), toolWasm)
	writeFile(t, filepath.Join(plugins, "broken-tool", manifest.FileName), "name = \"broken-tool\"\nversion = \"0.0.0\"\ncapabilities = [\"tool\"]\n")
	writeFile(t, filepath.Join(plugins, "schemaless-tool", "schemaless-tool.wasm"), toolWasm)
	writeFile(t, filepath.Join(plugins, "schemaless-tool", manifest.FileName),
		"name = \"schemaless-tool\"\nversion = \"0.0.0\"\nwasm_path = \"schemaless-tool.wasm\"\ncapabilities = [\"tool\"]\npermissions = [\"config_read\"]\n")
}

func open(t testing.TB, opts Options) *Host {
	t.Helper()
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func names(ps []*Plugin) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name())
	}
	return out
}

func TestDiscovery_ReferenceLayout(t *testing.T) {
	plugins := t.TempDir()
	seedReferenceLayout(t, plugins)
	writeFile(t, filepath.Join(plugins, "not-a-plugin", "readme.md"), "no manifest: ignored")
	writeFile(t, filepath.Join(plugins, "loose-file.toml"), "ignored")
	h := open(t, Options{PluginsDir: plugins})

	if got := names(h.Plugins()); !reflect.DeepEqual(got, []string{"tool-fixture"}) {
		t.Fatalf("admitted = %v, want only tool-fixture", got)
	}
	rej := map[string]string{}
	for _, r := range h.Rejected() {
		rej[filepath.Base(r.Dir)] = r.Err.Error()
	}
	if len(rej) != 2 ||
		rej["broken-tool"] != "invalid manifest: plugin 'broken-tool' is missing required `wasm_path` for non-skill capabilities" ||
		rej["schemaless-tool"] != "invalid manifest: plugin 'schemaless-tool' requests config_read but declares no config_schema" {
		t.Fatalf("rejected = %v", rej)
	}
	p, _ := h.Plugin("tool-fixture")
	if !p.Loaded() || p.Schema == nil || p.WasmFile() != filepath.Join(plugins, "tool-fixture", "tool-fixture.wasm") {
		t.Errorf("plugin = %+v", p)
	}
	if keys := p.ConfigEntryKeys(); len(keys) != 1 || keys[0].Key() != "zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0" {
		t.Errorf("instance keys = %v", keys)
	}
}

// The e2e path without wasm: the operator's strings in a config file, keyed
// by the instance key, resolve to the __config the fixture would receive.
func TestResolveConfig_FromConfigFile(t *testing.T) {
	root := t.TempDir()
	plugins := filepath.Join(root, "plugins")
	seedReferenceLayout(t, plugins)
	cfgPath := filepath.Join(root, "config.toml")
	writeFile(t, cfgPath, "schema_version = 3\n\n[plugins]\nenabled = true\nauto_discover = true\nplugins_dir = \""+plugins+"\"\n\n"+
		"[[plugins.entries]]\nname = \"zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0\"\n\n"+
		"[plugins.entries.config]\nlabel = \"masked\"\nuppercase = \"true\"\nmax_len = \"5\"\n")
	cfg, err := LoadConfig(cfgPath, true)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Plugins.Enabled || !cfg.Plugins.AutoDiscover {
		t.Error("enabled/auto_discover not read")
	}
	opts, warning, err := OptionsFromConfig(&cfg.Plugins)
	if err != nil || warning != "" || opts.PluginsDir != plugins {
		t.Fatalf("options = %+v %q %v", opts, warning, err)
	}
	p, ok := open(t, opts).Plugin("tool-fixture")
	if !ok {
		t.Fatal("tool-fixture not admitted")
	}
	scope, err := p.DefaultScope(manifest.CapabilityTool)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.ResolveConfig(scope, &cfg.Plugins)
	if err != nil {
		t.Fatal(err)
	}
	args, err := pluginconfig.InjectConfig([]byte(`{"text":"hello world"}`), res.Public())
	if err != nil || string(args) != `{"__config":{"label":"masked","max_len":5,"uppercase":true},"text":"hello world"}` {
		t.Fatalf("args = %s %v", args, err)
	}
	// A duplicate entry for the key is an error, as in the reference.
	cfg.Plugins.Entries = append(cfg.Plugins.Entries, cfg.Plugins.Entries[0])
	if _, err := p.ResolveConfig(scope, &cfg.Plugins); !errors.Is(err, ErrConfig) ||
		!strings.Contains(err.Error(), "duplicate plugin config entries for one instance key") {
		t.Errorf("duplicate entries: %v", err)
	}
}

func TestDiscovery_DuplicateNames(t *testing.T) {
	plugins := t.TempDir()
	toolPlugin(t, filepath.Join(plugins, "a"), "shared")
	toolPlugin(t, filepath.Join(plugins, "b"), "shared")
	toolPlugin(t, filepath.Join(plugins, "c"), "shared")
	toolPlugin(t, filepath.Join(plugins, "other"), "other")
	writeFile(t, filepath.Join(plugins, "d", manifest.FileName), "name = \"shared\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n") // fails shape first
	h := open(t, Options{PluginsDir: plugins})
	if got := names(h.Plugins()); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("admitted = %v", got)
	}
	dups := 0
	for _, r := range h.Rejected() {
		if errors.Is(r.Err, ErrDuplicateName) {
			dups++
			if !strings.Contains(r.Err.Error(), "plugin 'shared' is declared by 3 directories (a, b, c)") {
				t.Errorf("message = %v", r.Err)
			}
		}
	}
	if dups != 3 || len(h.Rejected()) != 4 {
		t.Errorf("rejected = %v", h.Rejected())
	}
}

func TestDiscovery_Details(t *testing.T) {
	plugins := t.TempDir()
	if h := open(t, Options{PluginsDir: filepath.Join(plugins, "missing")}); len(h.Plugins()) != 0 {
		t.Error("a missing plugins dir is not empty")
	}
	// Discovery admits a plugin whose wasm is missing and reports it.
	writeFile(t, filepath.Join(plugins, "nowasm", manifest.FileName),
		"name = \"nowasm\"\nversion = \"1\"\nwasm_path = \"gone.wasm\"\ncapabilities = [\"memory\"]\npermissions = [\"http_client\", \"file_write\"]\n")
	// A half-finished install is invisible.
	toolPlugin(t, filepath.Join(plugins, stagingPrefix+"nowasm-123"), "nowasm")
	h := open(t, Options{PluginsDir: plugins})
	p, ok := h.Plugin("nowasm")
	if !ok || p.Loaded() {
		t.Fatalf("nowasm: ok=%v loaded=%v", ok, ok && p.Loaded())
	}
	if got := p.InertPermissions(); !reflect.DeepEqual(got, []manifest.Permission{manifest.PermissionHTTPClient, manifest.PermissionFileWrite}) {
		t.Errorf("inert = %v", got)
	}
	if len(h.Rejected()) != 0 {
		t.Errorf("rejected = %v", h.Rejected())
	}
	if _, err := Open(Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("Open without a dir: %v", err)
	}
}

func TestDiscovery_SkillPlugin(t *testing.T) {
	plugins := t.TempDir()
	dir := filepath.Join(plugins, "my-toolkit")
	writeFile(t, filepath.Join(dir, manifest.FileName), "name = \"my-toolkit\"\nversion = \"1\"\ncapabilities = [\"skill\"]\n")
	writeFile(t, filepath.Join(dir, "skills", "design-review", "SKILL.md"), "---\nname: design-review\ndescription: Review designs\n---\n")
	h := open(t, Options{PluginsDir: plugins})
	p, ok := h.Plugin("my-toolkit")
	if !ok || !p.Loaded() || p.WasmFile() != "" || len(p.Skills) != 1 || p.Skills[0].ID != "plugin:my-toolkit/design-review" {
		t.Fatalf("skill plugin = %+v (%v)", p, h.Rejected())
	}
	if len(h.PluginsWith(manifest.CapabilitySkill)) != 1 || len(h.PluginsWith(manifest.CapabilityTool)) != 0 {
		t.Error("PluginsWith")
	}
}

func signedPlugin(t testing.TB, dir, name string, priv ed25519.PrivateKey) {
	t.Helper()
	toolPlugin(t, dir, name)
	raw, _ := os.ReadFile(filepath.Join(dir, manifest.FileName))
	signed, err := signature.SignManifest(string(raw), priv)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, manifest.FileName), signed)
}

// Discovery skips what the signature policy refuses; permissive warns.
func TestDiscovery_Signatures(t *testing.T) {
	priv, _ := signature.GenerateKey()
	pub := signature.PublicKeyHex(priv.Public().(ed25519.PublicKey))
	stranger, _ := signature.GenerateKey()
	plugins := t.TempDir()
	toolPlugin(t, filepath.Join(plugins, "unsigned"), "unsigned")
	signedPlugin(t, filepath.Join(plugins, "valid"), "valid", priv)
	signedPlugin(t, filepath.Join(plugins, "untrusted"), "untrusted", stranger)
	signedPlugin(t, filepath.Join(plugins, "invalid"), "invalid", priv)
	tampered := filepath.Join(plugins, "invalid", manifest.FileName)
	raw, _ := os.ReadFile(tampered)
	writeFile(t, tampered, strings.Replace(string(raw), "0.1.0", "6.6.6", 1))

	strict := open(t, Options{PluginsDir: plugins, SignatureMode: signature.ModeStrict, TrustedKeys: []string{pub}})
	if got := names(strict.Plugins()); !reflect.DeepEqual(got, []string{"valid"}) {
		t.Errorf("strict admitted %v", got)
	}
	if len(strict.Rejected()) != 3 {
		t.Errorf("strict rejected %v", strict.Rejected())
	}
	permissive := open(t, Options{PluginsDir: plugins, SignatureMode: signature.ModePermissive, TrustedKeys: []string{pub}})
	if len(permissive.Plugins()) != 4 || len(permissive.Warnings()) != 3 {
		t.Errorf("permissive: %v warnings %v", names(permissive.Plugins()), permissive.Warnings())
	}
	if p, _ := permissive.Plugin("valid"); p.Signature.Status != signature.StatusValid {
		t.Errorf("valid plugin status %v", p.Signature)
	}
	disabled := open(t, Options{PluginsDir: plugins})
	if len(disabled.Plugins()) != 4 || len(disabled.Warnings()) != 0 {
		t.Errorf("disabled: %v", names(disabled.Plugins()))
	}
}

func TestInstall_Local(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, manifest.FileName), "# comment kept\r\n"+strings.ReplaceAll(fixtureManifest, "\n", "\r\n")+"\r\n\r\n")
	writeFile(t, filepath.Join(src, "tool-fixture.wasm"), toolWasm)
	writeFile(t, filepath.Join(src, "unrelated.txt"), "not copied")
	plugins := filepath.Join(t.TempDir(), "plugins")
	h := open(t, Options{PluginsDir: plugins})
	p, err := h.Install(src)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(plugins, "tool-fixture")
	if p.Dir != dest || !p.Loaded() {
		t.Errorf("installed plugin = %+v", p)
	}
	got, _ := os.ReadFile(filepath.Join(dest, manifest.FileName))
	want, _ := os.ReadFile(filepath.Join(src, manifest.FileName))
	if string(got) != string(want) {
		t.Error("installed manifest is not the exact source bytes")
	}
	if _, err := os.Stat(filepath.Join(dest, "unrelated.txt")); err == nil {
		t.Error("unrelated file copied")
	}
	if _, err := h.Install(src); !errors.Is(err, ErrAlreadyInstalled) || err.Error() != "plugin 'tool-fixture' is already loaded" {
		t.Errorf("second install: %v", err)
	}
	// A fresh host discovers it.
	if _, ok := open(t, Options{PluginsDir: plugins}).Plugin("tool-fixture"); !ok {
		t.Error("installed plugin is not discovered")
	}
	// Install from the manifest path, with a nested wasm_path.
	src2 := t.TempDir()
	writeFile(t, filepath.Join(src2, manifest.FileName), "name = \"nested\"\nversion = \"1\"\nwasm_path = \"bin/p.wasm\"\ncapabilities = [\"tool\"]\n")
	writeFile(t, filepath.Join(src2, "bin", "p.wasm"), toolWasm)
	if p, err := h.Install(filepath.Join(src2, manifest.FileName)); err != nil || !p.Loaded() {
		t.Fatalf("install by manifest path: %v", err)
	}
	// Besides the two plugins, only the lock file installs hold.
	if entries, _ := os.ReadDir(plugins); len(entries) != 3 || entries[0].Name() != lockName {
		t.Errorf("plugins dir holds %v", entries)
	}
}

func TestInstall_SkillsWithoutSymlinks(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, manifest.FileName), "name = \"kit\"\nversion = \"1\"\ncapabilities = [\"skill\"]\n")
	writeFile(t, filepath.Join(src, "skills", "a", "SKILL.md"), "---\nname: a\ndescription: d\n---\n")
	writeFile(t, filepath.Join(src, "skills", "a", "references", "r.md"), "ref")
	secret := filepath.Join(t.TempDir(), "secret")
	writeFile(t, secret, "host secret")
	if err := os.Symlink(secret, filepath.Join(src, "skills", "a", "link.md")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	plugins := t.TempDir()
	p, err := open(t, Options{PluginsDir: plugins}).Install(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(p.Dir, "skills", "a", "link.md")); err == nil {
		t.Error("symlink copied")
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "skills", "a", "references", "r.md")); err != nil || string(b) != "ref" {
		t.Errorf("nested skill file: %v", err)
	}
	if len(p.Skills) != 1 || !strings.HasPrefix(p.Skills[0].Dir, p.Dir) {
		t.Errorf("skills = %+v", p.Skills)
	}
}

// Failed installs leave nothing in the plugins directory.
func TestInstall_Errors(t *testing.T) {
	priv, _ := signature.GenerateKey()
	tests := []struct {
		name  string
		setup func(src string)
		opts  Options
		is    error
		want  string
	}{
		{"no manifest", func(src string) {}, Options{}, ErrNotFound, "plugin not found: manifest.toml not found at"},
		{"no wasm_path", func(src string) {
			writeFile(t, filepath.Join(src, manifest.FileName), "name = \"p\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n")
		}, Options{}, manifest.ErrInvalidManifest, "missing required `wasm_path`"},
		{"wasm traversal", func(src string) {
			writeFile(t, filepath.Join(src, manifest.FileName), "name = \"p\"\nversion = \"1\"\nwasm_path = \"../../etc/passwd\"\ncapabilities = [\"tool\"]\n")
		}, Options{}, manifest.ErrInvalidManifest, "must be a relative path inside the plugin directory"},
		{"wasm missing", func(src string) {
			writeFile(t, filepath.Join(src, manifest.FileName), "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
		}, Options{}, ErrNotFound, "WASM file not found"},
		{"config_read without schema", func(src string) {
			toolPlugin(t, src, "p")
			writeFile(t, filepath.Join(src, manifest.FileName), "name = \"p\"\nversion = \"1\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\npermissions = [\"config_read\"]\n")
		}, Options{}, manifest.ErrInvalidManifest, "requests config_read but declares no config_schema"},
		{"strict unsigned", func(src string) { toolPlugin(t, src, "p") }, Options{SignatureMode: signature.ModeStrict}, signature.ErrUnsignedPlugin, "is unsigned"},
		{"strict untrusted", func(src string) { signedPlugin(t, src, "p", priv) }, Options{SignatureMode: signature.ModeStrict}, signature.ErrUntrustedPublisher, "untrusted publisher key"},
		{"bad toml", func(src string) { writeFile(t, filepath.Join(src, manifest.FileName), "name = ") }, Options{}, manifest.ErrParse, "TOML parse error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			tt.setup(src)
			plugins := t.TempDir()
			tt.opts.PluginsDir = plugins
			_, err := open(t, tt.opts).Install(src)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v %q", err, tt.is, tt.want)
			}
			if entries, _ := os.ReadDir(plugins); len(entries) != 0 {
				t.Fatalf("left behind: %v", entries)
			}
		})
	}
	// A broken plugin occupying the destination is not overwritten.
	plugins := t.TempDir()
	writeFile(t, filepath.Join(plugins, "p", manifest.FileName), "broken")
	src := t.TempDir()
	toolPlugin(t, src, "p")
	if _, err := open(t, Options{PluginsDir: plugins}).Install(src); !errors.Is(err, ErrAlreadyInstalled) {
		t.Errorf("occupied destination: %v", err)
	}
}

func TestRemove(t *testing.T) {
	plugins := t.TempDir()
	toolPlugin(t, filepath.Join(plugins, "dir-name"), "good")
	writeFile(t, filepath.Join(plugins, "broken", manifest.FileName), "name = ")
	h := open(t, Options{PluginsDir: plugins})
	if err := h.Remove("good"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plugins, "dir-name")); !os.IsNotExist(err) {
		t.Error("plugin directory survived")
	}
	if _, ok := h.Plugin("good"); ok {
		t.Error("removed plugin still listed")
	}
	if err := h.Remove("broken"); err != nil || len(h.Rejected()) != 0 {
		t.Errorf("removing a rejected plugin: %v", err)
	}
	for _, name := range []string{"ghost", "../etc", "", "."} {
		if err := h.Remove(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Remove(%q) = %v", name, err)
		}
	}
}

func TestInspect(t *testing.T) {
	src := t.TempDir()
	toolPlugin(t, src, "p")
	p, err := Inspect(src, Options{})
	if err != nil || p.Name() != "p" || p.Signature.Status != signature.StatusUnsigned {
		t.Fatalf("Inspect = %+v %v", p, err)
	}
	info := p.Describe(nil)
	if info.Name != "p" || !info.Loaded || len(info.InstanceKeys) != 1 || info.Capabilities[0] != manifest.CapabilityTool {
		t.Errorf("info = %+v", info)
	}
	if _, err := Inspect(src, Options{SignatureMode: signature.ModeStrict}); !errors.Is(err, signature.ErrUnsignedPlugin) {
		t.Errorf("strict inspect: %v", err)
	}
}

func TestIsLocalSource(t *testing.T) {
	for s, want := range map[string]bool{"./p": true, "~/p": true, "a/b": true, `a\b`: true, ".": true, "team-calendar": false, "team-calendar@0.2.0": false} {
		if got := IsLocalSource(s); got != want {
			t.Errorf("IsLocalSource(%q) = %v", s, got)
		}
	}
}
