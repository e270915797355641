package zeroclaw

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/signature"
)

func TestKeyFilesAndSignPlugin(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "publisher.key")
	pub, err := GenerateKeyFile(keyPath, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(keyPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", fi.Mode())
	}
	if _, err := GenerateKeyFile(keyPath, false); !errors.Is(err, ErrKeyFile) {
		t.Errorf("overwrote a key: %v", err)
	}
	priv, err := ReadKeyFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "nope")); !errors.Is(err, ErrKeyFile) {
		t.Errorf("missing key: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "junk.key"), []byte("junk"), 0o600)
	if _, err := ReadKeyFile(filepath.Join(dir, "junk.key")); !errors.Is(err, signature.ErrInvalidKey) {
		t.Errorf("junk key: %v", err)
	}

	src := filepath.Join(dir, "plugin")
	toolPlugin(t, src, "signed-tool")
	os.Chmod(filepath.Join(src, manifest.FileName), 0o640)
	res, err := SignPlugin(src, priv)
	if err != nil || res.PublisherKey != pub || res.ShapeError != nil || res.Manifest.Name != "signed-tool" {
		t.Fatalf("SignPlugin = %+v %v", res, err)
	}
	if fi, _ := os.Stat(filepath.Join(src, manifest.FileName)); fi.Mode().Perm() != 0o640 {
		t.Errorf("manifest mode changed to %v", fi.Mode())
	}
	// Strict install trusts it; a re-sign with another key replaces the fields.
	plugins := t.TempDir()
	h := open(t, Options{PluginsDir: plugins, SignatureMode: signature.ModeStrict, TrustedKeys: []string{strings.ToUpper(pub)}})
	p, err := h.Install(src)
	if err != nil || p.Signature.Status != signature.StatusValid {
		t.Fatalf("strict install of a signed plugin: %v", err)
	}
	if info := p.Describe([]string{pub}); info.Verification.Status != signature.StatusValid || info.SignedBy != pub {
		t.Errorf("describe = %+v", info)
	}
	other, _ := signature.GenerateKey()
	if _, err := SignPlugin(filepath.Join(src, manifest.FileName), other); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(src, manifest.FileName))
	if strings.Count(string(raw), "signature =") != 1 || strings.Contains(string(raw), pub) {
		t.Errorf("re-signed manifest:\n%s", raw)
	}
	// Unparseable manifests are not signed.
	bad := filepath.Join(dir, "bad")
	writeFile(t, filepath.Join(bad, manifest.FileName), "name = ")
	if _, err := SignPlugin(bad, priv); !errors.Is(err, manifest.ErrParse) {
		t.Errorf("signing a bad manifest: %v", err)
	}
	// A shape problem is reported but does not stop signing.
	noWasm := filepath.Join(dir, "nowasm")
	writeFile(t, filepath.Join(noWasm, manifest.FileName), "name = \"x\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n")
	if res, err := SignPlugin(noWasm, priv); err != nil || res.ShapeError == nil {
		t.Errorf("shape error not reported: %v %v", res, err)
	}
}
