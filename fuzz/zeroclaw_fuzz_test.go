package fuzz

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/registry"
	"github.com/kobako/kobako/zeroclaw/signature"
)

var manifestSeeds = []string{
	`name = "tool-fixture"
version = "0.0.0"
wasm_path = "tool-fixture.wasm"
capabilities = ["tool"]
permissions = ["config_read"]

[config_schema]
"$schema" = "https://json-schema.org/draft/2020-12/schema"
type = "object"
additionalProperties = false

[config_schema.properties.label]
type = "string"
`,
	"name = \"p\"\r\n# c\r\nsignature = \"x\" # s\r\npublisher_key = 'y'\r\nversion = \"1\"\r\ncapabilities = [\r\n \"tool\", # t\r\n]\r\n",
	"\xef\xbb\xbfname = \"\"\"a\nsignature = 1\"\"\"\nsignature.x = 1\n\"publisher_key\" = { a = [1, \"]\"] }\n[t]\nsignature = 2\n",
	"name = 'p'\nversion = \"1\"\ncapabilities = [\"skill\"]\nprovides = 1979-05-27T07:32:00Z\n[[x]]\na = 1\n",
	"q = \"\"\"a\"\"\"\"\"\nsignature = '''b'''\n",
}

// FuzzManifestParse: the manifest parser never panics, and whatever it
// accepts satisfies its own invariants (closed capability and permission
// sets, raw bytes kept) and goes through the shape checks and config schema
// admission without panicking.
func FuzzManifestParse(f *testing.F) {
	for _, s := range manifestSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse(data)
		if err != nil {
			if !errors.Is(err, manifest.ErrParse) && !errors.Is(err, manifest.ErrInvalidManifest) && !errors.Is(err, manifest.ErrTooLarge) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if !bytes.Equal(m.Raw, data) {
			t.Fatal("Raw differs from the input")
		}
		for _, c := range m.Capabilities {
			if !c.Valid() {
				t.Fatalf("invalid capability %q accepted", c)
			}
		}
		for _, p := range m.Permissions {
			if !p.Valid() {
				t.Fatalf("invalid permission %q accepted", p)
			}
		}
		if _, err := manifest.ValidateShape(m, dir); err == nil {
			if manifest.ValidatePackageName(m.Name) != nil {
				t.Fatalf("shape accepted name %q", m.Name)
			}
			if m.WasmPath != "" && manifest.ValidateSubpath("wasm_path", m.Name, m.WasmPath) != nil {
				t.Fatalf("shape accepted wasm_path %q", m.WasmPath)
			}
		}
		// Parse accepts a manifest without capabilities (ValidateShape refuses it), and
		// pluginconfig does not require the shape check first: each capability it declares is
		// tried as a scope, and a manifest without one has none to try.
		if s, err := pluginconfig.Compile(m); err == nil && s != nil {
			for _, c := range m.Capabilities {
				scope, err := instance.PackageScope(m, c, instance.RequestedGrants(m))
				if err == nil {
					pluginconfig.Resolve(m, s, scope, pluginconfig.Values(map[string]string{"label": "x"}))
				}
			}
		}
	})
}

// FuzzCanonicalize: canonicalisation never panics, is idempotent, never
// leaves a root signature or publisher_key, and signing then verifying
// round-trips on whatever it accepts.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range manifestSeeds {
		f.Add(s)
	}
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := signature.PublicKeyHex(priv.Public().(ed25519.PublicKey))
	f.Fuzz(func(t *testing.T, text string) {
		c1, err := signature.Canonicalize(text)
		if err != nil {
			return
		}
		c2, err := signature.Canonicalize(string(c1))
		if err != nil {
			t.Fatalf("canonical bytes no longer parse: %q: %v", c1, err)
		}
		if !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent: %q -> %q", c1, c2)
		}
		if bytes.HasSuffix(c1, []byte("\n")) {
			t.Fatalf("canonical bytes end in a newline: %q", c1)
		}
		signed, err := signature.SignManifest(text, priv)
		if err != nil {
			t.Fatalf("SignManifest failed on canonicalisable text %q: %v", text, err)
		}
		c3, err := signature.Canonicalize(signed)
		if err != nil || !bytes.Equal(c1, c3) {
			t.Fatalf("signing changed the canonical bytes: %q vs %q (%v)", c1, c3, err)
		}
		sig, _ := signature.Sign(text, priv)
		if res := signature.Verify(signed, sig, pub, []string{pub}); res.Status != signature.StatusValid {
			t.Fatalf("signed text does not verify: %+v", res)
		}
	})
}

func zipSeed(entries ...[2]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, _ := zw.Create(e[0])
		w.Write([]byte(e[1]))
	}
	zw.Close()
	return buf.Bytes()
}

// FuzzExtractZip: extraction never panics, never writes outside its
// directory, never writes more than the limit, and on success leaves only
// regular files and directories.
func FuzzExtractZip(f *testing.F) {
	f.Add(zipSeed([2]string{"p/manifest.toml", "name = \"p\""}, [2]string{"p/plugin.wasm", "\x00asm"}))
	f.Add(zipSeed([2]string{"../evil", "x"}))
	f.Add(zipSeed([2]string{"a/", ""}, [2]string{"a/b", strings.Repeat("z", 5000)}))
	f.Add(zipSeed([2]string{"m", "1"}, [2]string{"m", "2"}))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	const limit = 64 * 1024
	// One directory per worker, emptied after each input: a fresh
	// t.TempDir per input makes minimisation crawl.
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		dest := filepath.Join(root, "dest")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dest)
		err := registry.ExtractZip(bytes.NewReader(data), int64(len(data)), dest, limit)
		var total int64
		filepath.WalkDir(root, func(p string, d os.DirEntry, werr error) error {
			if werr != nil {
				return nil
			}
			if p != root && p != dest && !strings.HasPrefix(p, dest+string(os.PathSeparator)) {
				t.Fatalf("wrote outside the destination: %s", p)
			}
			if !d.IsDir() && !d.Type().IsRegular() {
				t.Fatalf("extracted a non-regular file: %s (%v)", p, d.Type())
			}
			if fi, err := d.Info(); err == nil && !d.IsDir() {
				total += fi.Size()
			}
			return nil
		})
		if total > limit {
			t.Fatalf("extracted %d bytes past the %d limit (err %v)", total, limit, err)
		}
		if err == nil {
			registry.FindManifestDir(dest)
		}
	})
}

// FuzzRegistryIndex: the index parser never panics and resolution returns
// only entries that match the spec.
func FuzzRegistryIndex(f *testing.F) {
	f.Add([]byte(`{"plugins":[{"name":"a","version":"1","url":"u","sha256":"sha256:00"},{"name":"a","version":"2","url":"v"}]}`), "a")
	f.Add([]byte(`{"plugins":[{"name":"a@b","version":"1","url":"u","capabilities":["tool"]}]}`), "a@b@1")
	f.Fuzz(func(t *testing.T, data []byte, spec string) {
		ix, err := registry.ParseIndex(data)
		if err != nil {
			return
		}
		ix.Search(spec)
		s, err := registry.ParseSpec(spec)
		if err != nil {
			return
		}
		if e, err := ix.Resolve(s); err == nil && (e.Name != s.Name || (s.Version != "" && e.Version != s.Version)) {
			t.Fatalf("Resolve(%+v) = %+v", s, e)
		}
	})
}

// FuzzInjectConfig: whatever the caller's arguments, the injected __config
// is exactly the host's object.
func FuzzInjectConfig(f *testing.F) {
	f.Add([]byte(`{"text":"hi","__config":{"label":"forged"}}`))
	f.Add([]byte(`{"a":[1,2.5e300,-0,"\ud83d\ude00"],"__config":null}`))
	public := map[string]any{"label": "masked"}
	f.Fuzz(func(t *testing.T, args []byte) {
		out, err := pluginconfig.InjectConfig(args, public)
		if err != nil {
			if !errors.Is(err, pluginconfig.ErrInvalidArgs) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(out, &top); err != nil {
			t.Fatalf("output is not a JSON object: %s: %v", out, err)
		}
		if string(top["__config"]) != `{"label":"masked"}` {
			t.Fatalf("__config not exactly the host's: %s", out)
		}
		again, err := pluginconfig.InjectConfig(out, public)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("injection is not stable: %s -> %s (%v)", out, again, err)
		}
	})
}
