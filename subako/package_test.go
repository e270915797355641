package subako

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseManifest(t *testing.T) {
	in := []byte(`{"abi":1,"name":"hello","description":"Says hello.","future":true}`)
	m, err := ParseManifest(in)
	if err != nil || m != (Manifest{ABI: 1, Name: "hello", Description: "Says hello."}) {
		t.Fatalf("ParseManifest = %+v, %v", m, err)
	}
	// An unknown member loads (the manifest is not closed in ABI 1) but is named, so a typo
	// such as "descripton" does not pass unseen.
	if w := ManifestWarnings(in); len(w) != 1 || !strings.Contains(w[0], `unknown member "future" is ignored`) {
		t.Errorf("warnings %q", w)
	}
	if w := ManifestWarnings([]byte(`{"abi":1,"name":"hello"}`)); w != nil {
		t.Errorf("warnings %q for a plain manifest", w)
	}
}

func TestParseManifest_Errors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, "subako-package.json is empty"},
		{`[]`, "subako-package.json must be a JSON object, not an array"},
		{`[{"abi":1,"name":"x"}]`, "subako-package.json must be a JSON object, not an array"},
		{`null`, "must be a JSON object, not null"},
		{`"x"`, "must be a JSON object, not a string"},
		{"\xef\xbb\xbf" + `{"abi":1,"name":"x"}`, "starts with a UTF-8 byte order mark (BOM)"},
		{"{\"abi\":1,\n\"name\":x}", "is not valid JSON: line 2, column 8"},
		{`{"abi":1,"name":"x"`, "it ends early"},
		{`{"abi":1,"name":"x"} {}`, "something follows the object"},
		{`{"abi":1,"name":"x","name":"y"}`, `gives the member "name" twice`},
		{`{"abi":1,"abi":1,"name":"x"}`, `gives the member "abi" twice`},
		{`{"abi":1,"name":"a/b"}`, `"name" "a/b": a name is 1 to 64 characters of a-z, 0-9, _ and -`},
		{`{"abi":1,"name":"../../etc"}`, `"name" "../../etc": a name is`},
		{`{"abi":1,"name":"Hello World"}`, `a name is`},
		{`{"name":"x"}`, `no "abi"`},
		{`{"abi":2,"name":"x"}`, `"abi" is 2; this host speaks ABI 1 only`},
		{`{"abi":1.0,"name":"x"}`, `"abi" is 1.0`},
		{`{"abi":"1","name":"x"}`, `"abi" must be a number`},
		{`{"abi":1}`, `no "name"`},
		{`{"abi":1,"name":""}`, `"name" must be a non-empty string`},
		{`{"abi":1,"name":7}`, `"name" must be a non-empty string`},
		{`{"abi":1,"name":"a\nb"}`, `"a\nb": a name is`},
		{`{"abi":1,"name":"` + strings.Repeat("n", MaxNameBytes+1) + `"}`, "1 to 64 characters"},
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
	t.Run("module symlink escape", func(t *testing.T) {
		dir := t.TempDir()
		outside := filepath.Join(t.TempDir(), "m.wasm")
		must(t, os.WriteFile(outside, wasm, 0o644))
		must(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(man), 0o644))
		must(t, os.Symlink(outside, filepath.Join(dir, ModuleFile)))
		_, err := rt.Load(ctx, dir)
		want := "module.wasm is a symbolic link to " + outside + ", which leads outside the package"
		if !errors.Is(err, ErrPackage) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "escapes from parent") {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
}

// TestLoad_SpecialFiles: a FIFO or a device as a package file is refused by name before it is
// opened; opening a FIFO for reading would wait for a writer forever.
func TestLoad_SpecialFiles(t *testing.T) {
	wasm, err := os.ReadFile("testdata/tiny.wasm")
	must(t, err)
	ctx := context.Background()
	rt := testRuntime(t)
	for _, tt := range []struct {
		name, file, say string
		want            error
	}{
		{"fifo module", ModuleFile, "module.wasm is a named pipe, not a regular file", ErrPackage},
		{"fifo manifest", ManifestFile, "subako-package.json is a named pipe, not a regular file", ErrManifest},
		{"module is a directory", ModuleFile, "module.wasm is a directory, not a regular file", ErrPackage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != ManifestFile {
				must(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"abi":1,"name":"tiny"}`), 0o644))
			}
			if tt.file != ModuleFile {
				must(t, os.WriteFile(filepath.Join(dir, ModuleFile), wasm, 0o644))
			}
			target := filepath.Join(dir, tt.file)
			if strings.Contains(tt.name, "fifo") {
				if err := mkfifo(target); err != nil {
					t.Skipf("no FIFOs here: %v", err)
				}
			} else {
				must(t, os.Mkdir(target, 0o755))
			}
			done := make(chan error, 1)
			go func() { _, err := rt.Load(ctx, dir); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
					t.Errorf("err = %v, want %v saying %q", err, tt.want, tt.say)
				}
			case <-time.After(10 * time.Second):
				// Unblock the open so that the goroutine ends with the test.
				if f, err := os.OpenFile(target, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatal("Load blocked on the FIFO")
			}
		})
	}
}

// TestReadZip_ManifestCap: a manifest entry is capped at MaxManifestBytes, as in a directory,
// not at what is left of MaxPackageBytes, so a 1 MiB manifest costs at most the cap to refuse.
func TestReadZip_ManifestCap(t *testing.T) {
	big := `{"abi":1,"name":"x","description":"` + strings.Repeat(" ", 1<<20) + `"}`
	honest := makeZip(t, []zipEntry{{name: ManifestFile, body: big}})
	// lying claims the entry inflates to exactly the cap, so only the decompression can stop it.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var deflated bytes.Buffer
	fw, err := flate.NewWriter(&deflated, flate.BestCompression)
	must(t, err)
	fw.Write([]byte(big))
	must(t, fw.Close())
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "pkg/" + ManifestFile, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(big)),
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: MaxManifestBytes})
	must(t, err)
	w.Write(deflated.Bytes())
	must(t, zw.Close())
	for name, z := range map[string][]byte{"honest": honest, "lying": buf.Bytes()} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := readZip(bytes.NewReader(z), int64(len(z)))
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrManifest) && name == "honest" {
				t.Errorf("err = %v, want %v", err, ErrManifest)
			}
			if err == nil || !strings.Contains(err.Error(), "65536") && name == "honest" {
				t.Errorf("err = %v, want the manifest's cap of 65536 bytes named", err)
			}
			// Decompressing the whole entry would allocate more than 1 MiB for its bytes alone.
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("refusing the manifest allocated %d bytes", n)
			}
		})
	}
}
