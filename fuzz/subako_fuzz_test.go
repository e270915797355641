package fuzz

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/subako"
)

// FuzzSubakoLoadZip uploads arbitrary archives through Runtime.LoadZip, the entry point a
// registry or an upload handler calls. Nothing may panic; a refusal wraps ErrPackage, ErrManifest
// or ErrInvalidModule; an accepted package has a named manifest and the module it was given.
// Seeded with a real package (the tiny fixture) so that mutations reach the manifest parser, the
// upload checks and the compiler, not only the zip reader.
func FuzzSubakoLoadZip(f *testing.F) {
	tiny, err := os.ReadFile(filepath.Join("..", "subako", "testdata", "tiny.wasm"))
	if err != nil {
		f.Fatal(err)
	}
	manifest := []byte(`{"abi":1,"name":"tiny","description":"Says hello."}`)
	mk := func(files ...string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := 0; i+1 < len(files); i += 2 {
			w, _ := zw.Create(files[i])
			w.Write([]byte(files[i+1]))
		}
		zw.Close()
		return buf.Bytes()
	}
	f.Add(mk(subako.ManifestFile, string(manifest), subako.ModuleFile, string(tiny)))
	f.Add(mk("pkg/"+subako.ManifestFile, string(manifest), "pkg/"+subako.ModuleFile, string(tiny), "pkg/assets/a.txt", "a"))
	f.Add(mk(subako.ManifestFile, string(manifest), subako.ModuleFile, string(tiny), "assets", "not a directory"))
	f.Add(mk(subako.ManifestFile, `{"abi":2}`, subako.ModuleFile, string(tiny)))
	f.Add(mk(subako.ManifestFile, string(manifest), subako.ModuleFile, "\x00asm\x01\x00\x00\x00"))
	f.Add(mk(subako.ManifestFile, string(manifest), "../x", ""))

	ctx := context.Background()
	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { rt.Close(ctx) })
	f.Fuzz(func(t *testing.T, b []byte) {
		pkg, err := rt.LoadZip(ctx, bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if !errors.Is(err, subako.ErrPackage) && !errors.Is(err, subako.ErrManifest) && !errors.Is(err, subako.ErrInvalidModule) {
				t.Fatalf("error %v wraps none of ErrPackage, ErrManifest, ErrInvalidModule", err)
			}
			return
		}
		defer pkg.Close()
		if pkg.Manifest.Name == "" || len(pkg.Module()) == 0 {
			t.Fatalf("accepted a package without a name or module: %+v", pkg.Manifest)
		}
	})
}
