package zeroclaw

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/zeroclaw/signature"
)

// TestInstallFrom: the origin is staged with the plugin's files, read back by discovery, and
// dropped by an update from a source that records none.
func TestInstallFrom(t *testing.T) {
	plugins := t.TempDir()
	src := filepath.Join(t.TempDir(), "src")
	writePlugin(t, src, "capabilities = [\"tool\"]\n", toolWasm)
	h, err := Open(Options{PluginsDir: plugins, SignatureMode: signature.ModeDisabled})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.InstallFrom(src, Origin{}, false); err == nil {
		t.Fatal("an origin without a source was accepted")
	}
	o := Origin{Source: "oci://r.example/p:1", Digest: "sha256:" + hexSHA([]byte("m"))}
	p, err := h.InstallFrom(src, o, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Origin == nil || *p.Origin != o || p.Describe(nil).Origin == nil {
		t.Fatalf("installed origin %+v", p.Origin)
	}
	h2, err := Open(Options{PluginsDir: plugins, SignatureMode: signature.ModeDisabled})
	if err != nil {
		t.Fatal(err)
	}
	if found, ok := h2.FindOrigin(o.Source); !ok || *found.Origin != o {
		t.Fatalf("discovery did not read the origin back: %+v %v", found, ok)
	}
	o2 := Origin{Source: o.Source, Digest: "sha256:" + hexSHA([]byte("n"))}
	if p, err = h2.InstallFrom(src, o2, true); err != nil || *p.Origin != o2 {
		t.Fatalf("update with an origin: %+v, %v", p, err)
	}
	if p, err = h2.Update(src); err != nil || p.Origin != nil {
		t.Fatalf("a local update kept an origin: %+v, %v", p, err)
	}
	if _, err := os.Stat(filepath.Join(plugins, "p", OriginFile)); !os.IsNotExist(err) {
		t.Fatalf("the origin file outlived a local update: %v", err)
	}
}
