package subako

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(`{"abi":1,"name":"hello","description":"Says hello.","future":true}`))
	if err != nil || m != (Manifest{ABI: 1, Name: "hello", Description: "Says hello."}) {
		t.Fatalf("ParseManifest = %+v, %v", m, err)
	}
}

func TestParseManifest_Errors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, "subako-package.json"},
		{`[]`, "subako-package.json"},
		{`null`, "not a JSON object"},
		{`{"name":"x"}`, `no "abi"`},
		{`{"abi":2,"name":"x"}`, `"abi" is 2; this host speaks ABI 1 only`},
		{`{"abi":1.0,"name":"x"}`, `"abi" is 1.0`},
		{`{"abi":"1","name":"x"}`, `"abi" must be a number`},
		{`{"abi":1}`, `no "name"`},
		{`{"abi":1,"name":""}`, `"name" must be a non-empty string`},
		{`{"abi":1,"name":7}`, `"name" must be a non-empty string`},
		{`{"abi":1,"name":"a\nb"}`, "unprintable"},
		{`{"abi":1,"name":"` + strings.Repeat("n", MaxNameBytes+1) + `"}`, "more than 128"},
		{`{"abi":1,"name":"x","description":5}`, `"description" must be`},
		{`{"abi":1,"name":"x","description":"` + strings.Repeat("é", MaxDescriptionChars+1) + `"}`, "1025 characters"},
		{`{"abi":1,"name":"x","description":"` + strings.Repeat(" ", MaxManifestBytes) + `"}`, "more than 65536"},
	} {
		_, err := ParseManifest([]byte(tt.in))
		if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.60q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

type zipEntry struct {
	name, body string
	symlink    bool
}

func makeZip(t *testing.T, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.symlink {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		must(t, err)
		w.Write([]byte(e.body))
	}
	must(t, zw.Close())
	return buf.Bytes()
}

func TestLoad(t *testing.T) {
	wasm, err := os.ReadFile("testdata/tiny.wasm")
	must(t, err)
	man := `{"abi":1,"name":"tiny","description":"d"}`
	ctx := context.Background()
	rt := testRuntime(t)
	for name, entries := range map[string][]zipEntry{
		"root":    {{name: ManifestFile, body: man}, {name: ModuleFile, body: string(wasm)}, {name: "assets/a.txt", body: "a"}},
		"one dir": {{name: "tiny/"}, {name: "tiny/" + ManifestFile, body: man}, {name: "tiny/" + ModuleFile, body: string(wasm)}},
	} {
		t.Run("zip "+name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pkg.zip")
			must(t, os.WriteFile(path, makeZip(t, entries), 0o644))
			p, err := rt.Load(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.Manifest.Name != "tiny" || p.HasAssets() != (name == "root") {
				t.Errorf("manifest %+v, assets %v", p.Manifest, p.HasAssets())
			}
			if _, err := p.Discover(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		p := loadFixture(t, "tiny", map[string]string{"x/y.txt": "y"})
		if !p.HasAssets() || !bytes.Equal(p.Module(), wasm) {
			t.Errorf("assets %v", p.HasAssets())
		}
	})
}

func TestLoad_Errors(t *testing.T) {
	wasm, err := os.ReadFile("testdata/tiny.wasm")
	must(t, err)
	bad, err := os.ReadFile("testdata/validate/no_memory.wasm")
	must(t, err)
	man := `{"abi":1,"name":"tiny"}`
	ctx := context.Background()
	rt := testRuntime(t)
	zips := []struct {
		name    string
		entries []zipEntry
		want    error
		say     string
	}{
		{"no manifest", []zipEntry{{name: ModuleFile, body: string(wasm)}}, ErrManifest, "no subako-package.json"},
		{"abi 2", []zipEntry{{name: ManifestFile, body: `{"abi":2,"name":"x"}`}, {name: ModuleFile, body: string(wasm)}}, ErrManifest, "ABI 1 only"},
		{"no module", []zipEntry{{name: ManifestFile, body: man}}, ErrPackage, "module.wasm"},
		{"bad module", []zipEntry{{name: ManifestFile, body: man}, {name: ModuleFile, body: string(bad)}}, ErrInvalidModule, "missing export memory"},
		{"dot-dot", []zipEntry{{name: ManifestFile, body: man}, {name: "../evil", body: "x"}}, ErrPackage, `"../evil" is not a plain relative path`},
		{"absolute", []zipEntry{{name: ManifestFile, body: man}, {name: "/etc/passwd", body: "x"}}, ErrPackage, "not a plain relative path"},
		{"backslash", []zipEntry{{name: ManifestFile, body: man}, {name: `assets\..\x`, body: "x"}}, ErrPackage, "not a plain relative path"},
		{"duplicate", []zipEntry{{name: ManifestFile, body: man}, {name: ManifestFile, body: man}}, ErrPackage, "appears twice"},
		{"symlink", []zipEntry{{name: ManifestFile, body: man}, {name: "assets/link", body: "/etc/passwd", symlink: true}}, ErrPackage, "symbolic link"},
		{"file and dir", []zipEntry{{name: ManifestFile, body: man}, {name: "assets", body: "x"}, {name: "assets/y", body: "y"}}, ErrPackage, "both a file and a directory"},
		{"assets is a file", []zipEntry{{name: ManifestFile, body: man}, {name: ModuleFile, body: string(wasm)}, {name: "assets", body: "x"}}, ErrPackage, "assets is not a directory"},
	}
	for _, tt := range zips {
		t.Run(tt.name, func(t *testing.T) {
			z := makeZip(t, tt.entries)
			_, err := rt.LoadZip(ctx, bytes.NewReader(z), int64(len(z)))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("err = %v, want %v saying %q", err, tt.want, tt.say)
			}
		})
	}
	t.Run("a bare module or component", func(t *testing.T) {
		for file, kind := range map[string]string{"testdata/tiny.wasm": "core module", "../component/testdata/hello.wasm": "component"} {
			_, err := rt.Load(ctx, file)
			if !errors.Is(err, ErrPackage) || !strings.Contains(err.Error(), "is a WebAssembly "+kind+", not a function package") {
				t.Errorf("%s: err = %v", file, err)
			}
		}
	})
	t.Run("not a zip", func(t *testing.T) {
		if _, err := rt.LoadZip(ctx, strings.NewReader("nope"), 4); !errors.Is(err, ErrPackage) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("zip bomb", func(t *testing.T) {
		// A module entry that inflates past MaxModuleBytes stops at the cap.
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create(ModuleFile)
		chunk := make([]byte, 1<<20)
		for i := 0; i <= MaxModuleBytes>>20; i++ {
			w.Write(chunk)
		}
		zw.Close()
		_, err := readZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if !errors.Is(err, ErrPackage) || !strings.Contains(err.Error(), "past the cap") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing path", func(t *testing.T) {
		if _, err := rt.Load(ctx, filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrPackage) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("directory symlink escape", func(t *testing.T) {
		dir := t.TempDir()
		outside := filepath.Join(t.TempDir(), "m.json")
		must(t, os.WriteFile(outside, []byte(man), 0o644))
		must(t, os.Symlink(outside, filepath.Join(dir, ManifestFile)))
		if _, err := rt.Load(ctx, dir); !errors.Is(err, ErrManifest) {
			t.Errorf("err = %v, want the manifest outside the package refused", err)
		}
	})
}
