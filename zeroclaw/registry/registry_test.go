package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zip"
)

const sampleIndex = `{
  "plugins": [
    {"name": "team-calendar", "version": "0.1.0", "description": "Schedule meetings", "capabilities": ["tool"],
     "url": "https://example.invalid/team-calendar-0.1.0.zip", "provides": "x"},
    {"name": "web-research", "version": "0.1.0", "description": "Research web pages", "author": null,
     "url": "https://example.invalid/web-research-0.1.0.zip", "sha256": null},
    {"name": "team-calendar", "version": "0.2.0", "description": "Team CALENDAR scheduling", "author": "ZeroClaw Labs",
     "url": "https://example.invalid/team-calendar-0.2.0.zip", "sha256": "sha256:00", "sender_match": "exact"}
  ],
  "registry_url": "https://example.invalid/registry.json"
}`

func TestParseIndex(t *testing.T) {
	ix, err := ParseIndex([]byte(sampleIndex))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Plugins) != 3 || ix.Plugins[2].Author != "ZeroClaw Labs" || ix.Plugins[2].SHA256 != "sha256:00" ||
		ix.Plugins[1].SHA256 != "" || len(ix.Plugins[1].Capabilities) != 0 || ix.Plugins[0].Capabilities[0] != "tool" {
		t.Fatalf("index = %+v", ix.Plugins)
	}
	empty, err := ParseIndex([]byte(`{}`))
	if err != nil || len(empty.Plugins) != 0 {
		t.Errorf("empty index: %v %v", empty, err)
	}
}

func TestParseIndex_Errors(t *testing.T) {
	for _, in := range []string{
		`[]`, `{"plugins": {}}`, `{"plugins": null}`, `{"plugins": [1]}`, `not json`,
		`{"plugins": [{"version": "1", "url": "u"}]}`,
		`{"plugins": [{"name": "a", "url": "u"}]}`,
		`{"plugins": [{"name": "a", "version": "1"}]}`,
		`{"plugins": [{"NAME": "a", "version": "1", "url": "u"}]}`,
		`{"plugins": [{"name": 1, "version": "1", "url": "u"}]}`,
		`{"plugins": [{"name": "a", "version": "1", "url": "u", "capabilities": "tool"}]}`,
		`{"plugins": [{"name": "a", "version": "1", "url": "u", "sha256": ""}]}`,
	} {
		if _, err := ParseIndex([]byte(in)); !errors.Is(err, ErrIndex) {
			t.Errorf("ParseIndex(%s) = %v", in, err)
		}
	}
}

func TestSearchAndResolve(t *testing.T) {
	ix, _ := ParseIndex([]byte(sampleIndex))
	if got := ix.Search("calendar"); len(got) != 2 || got[1].Version != "0.2.0" {
		t.Errorf("Search(calendar) = %+v", got)
	}
	if got := ix.Search("RESEARCH"); len(got) != 1 || got[0].Name != "web-research" {
		t.Errorf("Search(RESEARCH) = %+v", got)
	}
	if got := ix.Search("nothing"); len(got) != 0 {
		t.Errorf("Search(nothing) = %+v", got)
	}
	latest, err := ix.Resolve(Spec{Name: "team-calendar"})
	if err != nil || latest.Version != "0.2.0" {
		t.Errorf("bare name takes the last entry: %+v %v", latest, err)
	}
	pinned, err := ix.Resolve(Spec{Name: "team-calendar", Version: "0.1.0"})
	if err != nil || pinned.Version != "0.1.0" || pinned.Source() != "team-calendar@0.1.0" {
		t.Errorf("pinned: %+v %v", pinned, err)
	}
	for _, s := range []Spec{{Name: "nope"}, {Name: "team-calendar", Version: "9"}} {
		if _, err := ix.Resolve(s); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "plugin '"+s.Name+"' not found in registry") {
			t.Errorf("Resolve(%+v) = %v", s, err)
		}
	}
	if _, err := ix.Resolve(Spec{Name: "team-calendar", Version: "9"}); err == nil || !strings.Contains(err.Error(), "at version 9; its versions there: 0.1.0, 0.2.0") {
		t.Errorf("a missing version does not list the versions there: %v", err)
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
		err  string
	}{
		{"team-calendar", Spec{Name: "team-calendar"}, ""},
		{" team-calendar@0.2.0 ", Spec{Name: "team-calendar", Version: "0.2.0"}, ""},
		{"a@b@1", Spec{Name: "a@b", Version: "1"}, ""},
		{"", Spec{}, "plugin name must not be empty"},
		{"@1", Spec{}, "plugin registry source must be name or name@version"},
		{"a@", Spec{}, "plugin registry source must be name or name@version"},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.in)
		if tt.err != "" {
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSpec(%q) = %v", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSpec(%q) = %+v %v", tt.in, got, err)
		}
	}
}

func TestLocation(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := Location("", getenv); got != DefaultIndexURL {
		t.Errorf("default = %s", got)
	}
	env[EnvZeroClawRegistryURL] = "https://zc.example/r.json"
	if got := Location("  ", getenv); got != "https://zc.example/r.json" {
		t.Errorf("zeroclaw env = %s", got)
	}
	env[EnvRegistryURL] = "/srv/registry.json"
	if got := Location("", getenv); got != "/srv/registry.json" {
		t.Errorf("kobako env = %s", got)
	}
	if got := Location("./r.json", getenv); got != "./r.json" {
		t.Errorf("flag = %s", got)
	}
}

func TestArchiveLocation(t *testing.T) {
	tests := []struct{ url, base, want string }{
		{"https://h/a.zip", "/srv/r.json", "https://h/a.zip"},
		{"a.zip", "https://h/reg/registry.json", "https://h/reg/a.zip"},
		{"../z/a.zip", "https://h/reg/registry.json", "https://h/z/a.zip"},
		{"a.zip", "/srv/reg/registry.json", "/srv/reg/a.zip"},
		{"/abs/a.zip", "/srv/reg/registry.json", "/abs/a.zip"},
		{"file:///abs/a.zip", "/srv/reg/registry.json", "file:///abs/a.zip"},
		{"//mirror/a.zip", "https://h/r.json", "https://mirror/a.zip"},
		{"http://h/a.zip", "http://h/r.json", "http://h/a.zip"},
		{"a.zip", "http://h/r.json", "http://h/a.zip"},
	}
	for _, tt := range tests {
		if got, err := ArchiveLocation(tt.url, tt.base); err != nil || got != tt.want {
			t.Errorf("ArchiveLocation(%q, %q) = %q, %v; want %q", tt.url, tt.base, got, err, tt.want)
		}
	}
}

// A remote index names only http(s) archives; nothing it says reaches the
// local file system.
func TestArchiveLocation_Errors(t *testing.T) {
	tests := []struct{ url, base, want string }{
		{"ftp://h/a.zip", "", "unsupported archive URL"},
		{"file:///etc/passwd", "https://h/r.json", "a remote index may name only https URLs or URLs relative to itself, not file: URLs"},
		{"file:///etc/passwd", "http://h/r.json", "not file: URLs"},
		{"FILE:/etc/passwd", "https://h/r.json", "not file: URLs"},
		{"file://localhost/etc/passwd", "https://h/r.json", "not file: URLs"},
		{"ftp://h/a.zip", "https://h/r.json", "not ftp: URLs"},
		{"http://h/a.zip", "https://h/r.json", "is served over https, so its archives must be too"},
		{"https:a.zip", "https://h/r.json", "no host"},
	}
	for _, tt := range tests {
		got, err := ArchiveLocation(tt.url, tt.base)
		if !errors.Is(err, ErrArchiveURL) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ArchiveLocation(%q, %q) = %q, %v; want %q", tt.url, tt.base, got, err, tt.want)
		}
	}
}

func TestFetchIndex(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/registry.json":
			io.WriteString(w, sampleIndex)
		case "/huge.json":
			w.Write(bytes.Repeat([]byte(" "), MaxIndexBytes+10))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var f Fetcher
	ctx := context.Background()
	ix, err := f.FetchIndex(ctx, srv.URL+"/registry.json")
	if err != nil || len(ix.Plugins) != 3 || ix.Base != srv.URL+"/registry.json" {
		t.Fatalf("FetchIndex = %+v %v", ix, err)
	}
	if _, err := f.FetchIndex(ctx, srv.URL+"/missing.json"); !errors.Is(err, ErrIndex) ||
		!strings.Contains(err.Error(), "plugin registry returned HTTP 404 Not Found for "+srv.URL+"/missing.json") {
		t.Errorf("404: %v", err)
	}
	if _, err := f.FetchIndex(ctx, srv.URL+"/huge.json"); !errors.Is(err, ErrIndex) {
		t.Errorf("huge index: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "registry.json")
	os.WriteFile(path, []byte(sampleIndex), 0o644)
	for _, loc := range []string{path, "file://" + path} {
		ix, err := f.FetchIndex(ctx, loc)
		if err != nil || len(ix.Plugins) != 3 || ix.Base != path {
			t.Errorf("FetchIndex(%s) = %+v %v", loc, ix, err)
		}
	}
	if _, err := f.FetchIndex(ctx, filepath.Join(dir, "nope.json")); !errors.Is(err, ErrIndex) {
		t.Errorf("missing local index: %v", err)
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestDownload(t *testing.T) {
	archive := []byte("PK fake archive bytes")
	big := MaxArchiveBytes + 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok.zip":
			w.Write(archive)
		case "/declared-huge.zip":
			w.Header().Set("Content-Length", fmt.Sprint(big))
			w.WriteHeader(http.StatusOK)
			// Nothing is sent: the declared length alone must be refused.
		case "/streamed-huge.zip":
			// No Content-Length: chunked, and more than the cap.
			fl := w.(http.Flusher)
			chunk := make([]byte, 1<<20)
			for sent := 0; sent < big; sent += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				fl.Flush()
			}
		case "/gone.zip":
			http.Error(w, "gone", http.StatusGone)
		}
	}))
	defer srv.Close()
	var f Fetcher
	ctx := context.Background()

	var progress []int64
	var buf bytes.Buffer
	n, err := f.Download(ctx, Entry{URL: srv.URL + "/ok.zip", SHA256: "sha256:" + strings.ToUpper(sha(archive))}, "", &buf,
		func(done, total int64) { progress = append(progress, done, total) })
	if err != nil || n != int64(len(archive)) || !bytes.Equal(buf.Bytes(), archive) {
		t.Fatalf("Download = %d %v", n, err)
	}
	if len(progress) == 0 || progress[len(progress)-2] != int64(len(archive)) || progress[len(progress)-1] != int64(len(archive)) {
		t.Errorf("progress = %v", progress)
	}
	tests := []struct {
		name string
		e    Entry
		is   error
		want string
	}{
		{"sha mismatch", Entry{URL: srv.URL + "/ok.zip", SHA256: sha([]byte("other"))}, ErrChecksum, "plugin archive sha256 mismatch: the archive's is " + sha(archive) + ", the registry pins " + sha([]byte("other"))},
		{"sha prefix is case-sensitive", Entry{URL: srv.URL + "/ok.zip", SHA256: "SHA256:" + sha(archive)}, ErrChecksum, "mismatch"},
		{"declared too large", Entry{URL: srv.URL + "/declared-huge.zip"}, ErrTooLarge, "plugin archive exceeds maximum size of 52428800 bytes"},
		{"streamed too large", Entry{URL: srv.URL + "/streamed-huge.zip"}, ErrTooLarge, "plugin archive exceeds maximum size of 52428800 bytes"},
		{"http error", Entry{URL: srv.URL + "/gone.zip"}, ErrDownload, "plugin archive returned HTTP 410 Gone for " + srv.URL + "/gone.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w countingWriter
			_, err := f.Download(ctx, tt.e, "", &w, nil)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if w.n > MaxArchiveBytes {
				t.Fatalf("wrote %d bytes past the cap", w.n)
			}
		})
	}

	dir := t.TempDir()
	local := filepath.Join(dir, "a.zip")
	os.WriteFile(local, archive, 0o644)
	buf.Reset()
	if _, err := f.Download(ctx, Entry{URL: "a.zip", SHA256: sha(archive)}, filepath.Join(dir, "registry.json"), &buf, nil); err != nil || buf.Len() != len(archive) {
		t.Errorf("local relative archive: %v", err)
	}
	if _, err := f.Download(ctx, Entry{URL: "a.zip", SHA256: sha(nil)}, filepath.Join(dir, "registry.json"), io.Discard, nil); !errors.Is(err, ErrChecksum) {
		t.Errorf("local sha mismatch: %v", err)
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func TestVerifySHA256(t *testing.T) {
	sum := sha256.Sum256([]byte("plugin archive"))
	digest := hex.EncodeToString(sum[:])
	for _, pin := range []string{"", digest, "sha256:" + digest, strings.ToUpper(digest)} {
		if err := VerifySHA256(sum[:], pin); err != nil {
			t.Errorf("VerifySHA256(%q) = %v", pin, err)
		}
	}
	for _, pin := range []string{"00", "sha256:", digest[1:]} {
		if err := VerifySHA256(sum[:], pin); !errors.Is(err, ErrChecksum) {
			t.Errorf("VerifySHA256(%q) = %v", pin, err)
		}
	}
}

type zipEntry struct {
	name string
	body []byte
	mode fs.FileMode
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func extract(t testing.TB, data []byte, limit int64) (string, error) {
	t.Helper()
	dest := t.TempDir()
	return dest, ExtractZip(bytes.NewReader(data), int64(len(data)), dest, limit)
}

func TestExtractZip(t *testing.T) {
	data := makeZip(t,
		zipEntry{name: "sample/"},
		zipEntry{name: "sample/manifest.toml", body: []byte("name = \"sample\"")},
		zipEntry{name: "sample/skills/a/SKILL.md", body: []byte("---")},
		zipEntry{name: "./sample/plugin.wasm", body: []byte("\x00asm")},
	)
	dest, err := extract(t, data, MaxExtractedBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sample/manifest.toml", "sample/skills/a/SKILL.md", "sample/plugin.wasm"} {
		if fi, err := os.Stat(filepath.Join(dest, p)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s not extracted: %v", p, err)
		}
	}
	dir, err := FindManifestDir(dest)
	if err != nil || dir != filepath.Join(dest, "sample") {
		t.Errorf("FindManifestDir = %q %v", dir, err)
	}
}

// Zip slip and friends: nothing is written for an unsafe archive.
func TestExtractZip_Unsafe(t *testing.T) {
	tests := []struct {
		name    string
		entries []zipEntry
		is      error
		want    string
	}{
		{"parent", []zipEntry{{name: "../manifest.toml", body: []byte("x")}}, ErrUnsafeArchive, "plugin archive contains unsafe path: ../manifest.toml"},
		{"nested parent", []zipEntry{{name: "a/../../evil", body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"backslash parent", []zipEntry{{name: `a\..\..\evil`, body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"absolute", []zipEntry{{name: "/manifest.toml", body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"backslash absolute", []zipEntry{{name: `\manifest.toml`, body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"drive", []zipEntry{{name: "C:/tmp/manifest.toml", body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"nul", []zipEntry{{name: "a\x00b", body: []byte("x")}}, ErrUnsafeArchive, "unsafe path"},
		{"symlink", []zipEntry{{name: "manifest.toml", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}}, ErrUnsafeArchive, "plugin archive contains a symlink: manifest.toml"},
		{"device", []zipEntry{{name: "dev", mode: fs.ModeDevice | 0o644}}, ErrUnsafeArchive, "is not a regular file"},
		{"duplicate", []zipEntry{{name: "manifest.toml", body: []byte("a")}, {name: "manifest.toml", body: []byte("b")}}, ErrUnsafeArchive, "contains manifest.toml more than once"},
		{"duplicate after cleaning", []zipEntry{{name: "p/manifest.toml", body: []byte("a")}, {name: "p/./manifest.toml", body: []byte("b")}}, ErrUnsafeArchive, "more than once"},
		{"file and dir", []zipEntry{{name: "x", body: []byte("a")}, {name: "x/", body: nil}}, ErrUnsafeArchive, "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest, err := extract(t, makeZip(t, tt.entries...), MaxExtractedBytes)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if left, _ := os.ReadDir(dest); len(left) != 0 {
				t.Fatalf("files written for a refused archive: %v", left)
			}
		})
	}
	if _, err := extract(t, []byte("not a zip"), MaxExtractedBytes); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("garbage: %v", err)
	}
	many := make([]zipEntry, MaxArchiveEntries+1)
	for i := range many {
		many[i] = zipEntry{name: fmt.Sprintf("f%d", i)}
	}
	if _, err := extract(t, makeZip(t, many...), MaxExtractedBytes); !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "entries") {
		t.Errorf("too many entries: %v", err)
	}
}

// A zip bomb: tiny compressed, huge uncompressed.
func TestExtractZip_Bomb(t *testing.T) {
	const limit = 1 << 20
	honest := makeZip(t, zipEntry{name: "bomb", body: make([]byte, 4*limit)})
	if len(honest) > limit/8 {
		t.Fatalf("bomb is not a bomb: %d bytes", len(honest))
	}
	if _, err := extract(t, honest, limit); !errors.Is(err, ErrTooLarge) ||
		!strings.Contains(err.Error(), fmt.Sprintf("plugin archive exceeds extracted size limit of %d bytes", limit)) {
		t.Errorf("declared bomb: %v", err)
	}
	split := makeZip(t, zipEntry{name: "a", body: make([]byte, limit/2+1)}, zipEntry{name: "b", body: make([]byte, limit/2+1)})
	if _, err := extract(t, split, limit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("total over the cap: %v", err)
	}
	// A header that lies about the size: the streaming cap still holds.
	dest, err := extract(t, lyingZip(t, 4*limit), limit)
	if err == nil {
		t.Fatal("lying bomb extracted")
	}
	if fi, statErr := os.Stat(filepath.Join(dest, "bomb")); statErr == nil && fi.Size() > limit {
		t.Fatalf("wrote %d bytes past the %d cap", fi.Size(), limit)
	}
	if _, err := extract(t, makeZip(t, zipEntry{name: "ok", body: make([]byte, limit)}), limit); err != nil {
		t.Errorf("exactly at the cap: %v", err)
	}
}

// lyingZip holds one deflated entry of n zero bytes whose header claims 10.
func lyingZip(t testing.TB, n int) []byte {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(make([]byte, n))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bomb", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(make([]byte, 10)),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: 10}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	return buf.Bytes()
}

func TestFindManifestDir_Errors(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"none", []string{"a/readme.md"}, "plugin archive does not contain manifest.toml"},
		{"root and nested", []string{"manifest.toml", "nested/manifest.toml"}, "plugin archive contains multiple manifest.toml files"},
		{"two nested", []string{"a/manifest.toml", "b/c/manifest.toml"}, "multiple manifest.toml files"},
	}
	for _, tt := range tests {
		root := t.TempDir()
		for _, f := range tt.files {
			p := filepath.Join(root, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, nil, 0o644)
		}
		if _, err := FindManifestDir(root); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestCheckIdentity(t *testing.T) {
	e := Entry{Name: "team-calendar", Version: "0.2.0"}
	if err := CheckIdentity(e, "team-calendar", "0.2.0"); err != nil {
		t.Error(err)
	}
	if err := CheckIdentity(e, "other-plugin", "0.2.0"); !errors.Is(err, ErrManifest) ||
		err.Error() != "plugin archive manifest name 'other-plugin' does not match registry name 'team-calendar'" {
		t.Errorf("name: %v", err)
	}
	if err := CheckIdentity(e, "team-calendar", "0.1.0"); !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "manifest version '0.1.0' does not match registry version '0.2.0'") {
		t.Errorf("version: %v", err)
	}
}
