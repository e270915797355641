package zeroclaw

import (
	"crypto/ed25519"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
	"github.com/kobako/kobako/zeroclaw/signature"
	"github.com/kobako/kobako/zeroclaw/wasmcheck"
)

func writePlugin(t *testing.T, dir, extra, wasm string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, manifest.FileName), "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\n"+extra)
	writeFile(t, filepath.Join(dir, "p.wasm"), wasm)
}

func TestInstall_WasmChecked_Errors(t *testing.T) {
	pin := hexSHA([]byte(toolWasm))
	tests := []struct {
		name, extra, wasm string
		want              error
		say               string
	}{
		{"any bytes", "capabilities = [\"tool\"]\n", "MZ not wasm", wasmcheck.ErrNotComponent, "p.wasm: not a WebAssembly component: no WebAssembly header"},
		{"core module", "capabilities = [\"tool\"]\n", "\x00asm\x01\x00\x00\x00", wasmcheck.ErrNotComponent, "core module"},
		{"truncated", "capabilities = [\"tool\"]\n", toolWasm[:40], wasmcheck.ErrMalformed, "malformed component"},
		{"memory world", "capabilities = [\"memory\"]\n", toolWasm, wasmcheck.ErrMissingExport, "does not export zeroclaw:plugin/memory@0.1.0"},
		{"two worlds", "capabilities = [\"tool\", \"channel\"]\n", toolWasm, wasmcheck.ErrMissingExport, "does not export zeroclaw:plugin/channel@0.1.0"},
		{"pin mismatch", "capabilities = [\"tool\"]\nwasm_sha256 = \"" + hexSHA([]byte("other")) + "\"\n", toolWasm, ErrWasm,
			"p.wasm: sha256 " + pin + ", but the manifest's wasm_sha256 pins " + hexSHA([]byte("other"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src")
			writePlugin(t, src, tt.extra, tt.wasm)
			h, err := Open(Options{PluginsDir: filepath.Join(t.TempDir(), "plugins")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Install(src)
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrWasm) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("install: %v; want %v saying %q", err, tt.want, tt.say)
			}
			if _, err := Inspect(src, Options{}); !errors.Is(err, tt.want) {
				t.Errorf("inspect: %v", err)
			}
		})
	}
}

// A wasm_path that is not a regular file (a link to /dev/zero, a directory) is named as such,
// not reported as missing, and never read.
func TestInstall_WasmNotRegular_Errors(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		say  string
	}{
		{"link to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Skip(err)
			}
		}, "p.wasm is a character device, not a regular file"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "p.wasm is a directory, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src")
			writeFile(t, filepath.Join(src, manifest.FileName), "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
			tt.make(t, filepath.Join(src, "p.wasm"))
			h, err := Open(Options{PluginsDir: filepath.Join(t.TempDir(), "plugins")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Install(src)
			if !errors.Is(err, ErrWasm) || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("install: %v; want %q", err, tt.say)
			}
			p := &Plugin{Manifest: &manifest.Manifest{Name: "p", WasmPath: "p.wasm"}, Dir: src}
			if _, err := p.ReadWasm(); !errors.Is(err, ErrWasm) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("ReadWasm: %v", err)
			}
		})
	}
}

func TestInstall_WasmPinned(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writePlugin(t, src, "capabilities = [\"tool\"]\nwasm_sha256 = \"sha256:"+strings.ToUpper(hexSHA([]byte(toolWasm)))+"\"\n", toolWasm)
	plugins := filepath.Join(t.TempDir(), "plugins")
	h, _ := Open(Options{PluginsDir: plugins})
	p, err := h.Install(src)
	if err != nil || p.Manifest.WasmSHA256 != hexSHA([]byte(toolWasm)) {
		t.Fatalf("install: %v", err)
	}
	// Discovery checks the installed file again: replaced, the plugin is skipped with the reason.
	writeFile(t, filepath.Join(plugins, "p", "p.wasm"), toolWasm+"\x00")
	h, _ = Open(Options{PluginsDir: plugins})
	if len(h.Plugins()) != 0 || len(h.Rejected()) != 1 || !errors.Is(h.Rejected()[0].Err, ErrWasm) {
		t.Errorf("discovery after the wasm changed: %v, %v", h.Plugins(), h.Rejected())
	}
	// A missing wasm still leaves the plugin admitted but not loaded, as in the reference.
	os.Remove(filepath.Join(plugins, "p", "p.wasm"))
	h, _ = Open(Options{PluginsDir: plugins})
	if p, ok := h.Plugin("p"); !ok || p.Loaded() {
		t.Errorf("discovery without the wasm: %v %v", ok, h.Rejected())
	}
}

func TestManifest_WasmSHA256_Errors(t *testing.T) {
	for _, pin := range []string{"abc", strings.Repeat("g", 64), "sha512:" + strings.Repeat("0", 64)} {
		_, err := manifest.Parse([]byte("name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\nwasm_sha256 = \"" + pin + "\"\n"))
		if !errors.Is(err, manifest.ErrInvalidManifest) || !strings.Contains(err.Error(), "invalid `wasm_sha256`") {
			t.Errorf("%q: %v", pin, err)
		}
	}
	if _, err := manifest.Parse([]byte("name = \"p\"\nversion = \"1\"\ncapabilities = [\"skill\"]\nwasm_sha256 = \"" + strings.Repeat("0", 64) + "\"\n")); !errors.Is(err, manifest.ErrInvalidManifest) {
		t.Errorf("a pin without wasm_path: %v", err)
	}
}

func TestInstallZip(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "calendar.zip")
	os.WriteFile(good, calendarZip(t, "0.2.0"), 0o644)
	h, _ := Open(Options{PluginsDir: filepath.Join(dir, "plugins")})
	res, err := h.InstallSource(t.Context(), good, RegistryOptions{})
	if err != nil || res.Plugin.Name() != "team-calendar" || !res.Plugin.Loaded() {
		t.Fatalf("install %s: %v", good, err)
	}
	tests := []struct {
		name string
		zip  []byte
		want error
	}{
		{"escaping entry", zipOf(t, file{"../x/manifest.toml", "name = \"x\""}), registry.ErrUnsafeArchive},
		{"two manifests", zipOf(t, file{"a/manifest.toml", "x"}, file{"b/manifest.toml", "y"}), registry.ErrManifest},
		{"not a component", zipOf(t, file{"p/manifest.toml", "name = \"q\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n"}, file{"p/p.wasm", "junk"}), ErrWasm},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".zip")
		os.WriteFile(path, tt.zip, 0o644)
		if _, err := h.InstallSource(t.Context(), path, RegistryOptions{}); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("the escaping entry was written")
	}
}

// TestSignatureCoversWasmPin: with wasm_sha256 in the manifest, the signature covers the
// component, since changing the pin (to match another wasm) breaks the signature.
func TestSignatureCoversWasmPin(t *testing.T) {
	priv, err := signature.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pub := signature.PublicKeyHex(priv.Public().(ed25519.PublicKey))
	src := filepath.Join(t.TempDir(), "src")
	writePlugin(t, src, "capabilities = [\"tool\"]\nwasm_sha256 = \""+hexSHA([]byte(toolWasm))+"\"\n", toolWasm)
	if _, err := SignPlugin(src, priv); err != nil {
		t.Fatal(err)
	}
	strict := Options{SignatureMode: signature.ModeStrict, TrustedKeys: []string{pub}}
	if _, err := Inspect(src, strict); err != nil {
		t.Fatalf("signed and pinned: %v", err)
	}
	path := filepath.Join(src, manifest.FileName)
	b, _ := os.ReadFile(path)
	other := toolWasm + "\x00\x01\x00" // an empty custom section: another valid component
	os.WriteFile(path, []byte(strings.Replace(string(b), hexSHA([]byte(toolWasm)), hexSHA([]byte(other)), 1)), 0o644)
	writeFile(t, filepath.Join(src, "p.wasm"), other)
	if _, err := Inspect(src, strict); !errors.Is(err, signature.ErrSignatureInvalid) {
		t.Errorf("a re-pinned wasm under the old signature: %v", err)
	}
}

// ReadWasm's errors match ErrWasm, so an embedder can tell a plugin's bad component file from
// other failures, and a missing file's still match fs.ErrNotExist.
func TestReadWasm_Missing(t *testing.T) {
	p := &Plugin{Manifest: &manifest.Manifest{Name: "p", WasmPath: "p.wasm"}, Dir: t.TempDir()}
	_, err := p.ReadWasm()
	if !errors.Is(err, ErrWasm) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadWasm of a missing file: %v; want ErrWasm and fs.ErrNotExist", err)
	}
}
