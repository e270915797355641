package zeroclaw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
)

type file struct{ name, body string }

func zipOf(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func calendarZip(t testing.TB, version string) []byte {
	return zipOf(t,
		file{"team-calendar/manifest.toml", "name = \"team-calendar\"\nversion = \"" + version + "\"\nwasm_path = \"team_calendar.wasm\"\ncapabilities = [\"tool\"]\n"},
		file{"team-calendar/team_calendar.wasm", toolWasm},
	)
}

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// registryServer serves an index and archives from loopback.
type registryServer struct {
	*httptest.Server
	archives map[string][]byte
	entries  []map[string]any
}

func newRegistryServer(t *testing.T) *registryServer {
	rs := &registryServer{archives: map[string][]byte{}}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/registry.json" {
			json.NewEncoder(w).Encode(map[string]any{"plugins": rs.entries})
			return
		}
		if r.URL.Path == "/huge.zip" {
			// No Content-Length and more than the cap.
			chunk := make([]byte, 1<<20)
			for i := 0; i <= registry.MaxArchiveBytes/len(chunk); i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
			return
		}
		b, ok := rs.archives[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *registryServer) add(name, version, archive string, data []byte, sha string) {
	if data != nil {
		rs.archives[archive] = data
	}
	e := map[string]any{"name": name, "version": version, "description": "Schedule meetings", "capabilities": []string{"tool"}, "url": archive}
	if sha != "" {
		e["sha256"] = sha
	}
	rs.entries = append(rs.entries, e)
}

func TestInstallFromRegistry(t *testing.T) {
	rs := newRegistryServer(t)
	v1, v2 := calendarZip(t, "0.1.0"), calendarZip(t, "0.2.0")
	rs.add("team-calendar", "0.1.0", "team-calendar-0.1.0.zip", v1, hexSHA(v1))
	rs.add("team-calendar", "0.2.0", "team-calendar-0.2.0.zip", v2, "sha256:"+strings.ToUpper(hexSHA(v2)))
	ctx := context.Background()
	var seen int64
	opts := RegistryOptions{Location: rs.URL + "/registry.json", Progress: func(done, total int64) { seen = done }}

	plugins := t.TempDir()
	h := open(t, Options{PluginsDir: plugins})
	res, err := h.InstallSource(ctx, "team-calendar", opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plugin.Manifest.Version != "0.2.0" || res.Entry == nil || res.Entry.Version != "0.2.0" || !res.Plugin.Loaded() {
		t.Fatalf("installed %+v", res.Plugin.Manifest)
	}
	if seen != int64(len(v2)) {
		t.Errorf("progress saw %d of %d bytes", seen, len(v2))
	}
	if err := h.Remove("team-calendar"); err != nil {
		t.Fatal(err)
	}
	res, err = h.InstallSource(ctx, "team-calendar@0.1.0", opts)
	if err != nil || res.Plugin.Manifest.Version != "0.1.0" {
		t.Fatalf("pinned install: %v", err)
	}
}

// Every failing registry install leaves the plugins directory as it was and
// cleans its temporary directory.
func TestInstallFromRegistry_Errors(t *testing.T) {
	rs := newRegistryServer(t)
	good := calendarZip(t, "0.2.0")
	rs.add("sha-mismatch", "1", "good.zip", good, hexSHA([]byte("other")))
	rs.add("wrong-name", "0.2.0", "good.zip", good, "")
	rs.add("team-calendar", "9.9.9", "good.zip", good, "")
	rs.add("huge", "1", "huge.zip", nil, "")
	rs.add("missing", "1", "missing.zip", nil, "")
	slip := zipOf(t, file{"../evil.toml", "x"}, file{"p/manifest.toml", "name = \"slip\""})
	rs.add("slip", "1", "slip.zip", slip, "")
	dup := zipOf(t, file{"a/manifest.toml", "name = \"dup\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n"}, file{"b/manifest.toml", "x"})
	rs.add("dup", "1", "dup.zip", dup, "")
	bomb := zipOf(t, file{"bomb/manifest.toml", "x"}, file{"bomb/zeros", string(make([]byte, registry.MaxExtractedBytes+1))})
	rs.add("bomb", "1", "bomb.zip", bomb, "")
	nomanifest := zipOf(t, file{"readme.md", "x"})
	rs.add("nomanifest", "1", "nomanifest.zip", nomanifest, "")
	invalid := zipOf(t, file{"manifest.toml", "name = \"invalid\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n"})
	rs.add("invalid", "1", "invalid.zip", invalid, "")

	tests := []struct {
		spec string
		is   error
		want string
	}{
		{"sha-mismatch", registry.ErrChecksum, "plugin archive sha256 mismatch"},
		{"wrong-name", registry.ErrManifest, "plugin archive manifest name 'team-calendar' does not match registry name 'wrong-name'"},
		{"team-calendar", registry.ErrManifest, "manifest version '0.2.0' does not match registry version '9.9.9'"},
		{"huge", registry.ErrTooLarge, "plugin archive exceeds maximum size of 52428800 bytes"},
		{"missing", registry.ErrDownload, "plugin archive returned HTTP 404 Not Found"},
		{"slip", registry.ErrUnsafeArchive, "plugin archive contains unsafe path: ../evil.toml"},
		{"dup", registry.ErrManifest, "plugin archive contains multiple manifest.toml files"},
		{"bomb", registry.ErrTooLarge, "plugin archive exceeds extracted size limit of 52428800 bytes"},
		{"nomanifest", registry.ErrManifest, "plugin archive does not contain manifest.toml"},
		{"invalid", manifest.ErrInvalidManifest, "missing required `wasm_path`"},
		{"absent", registry.ErrNotFound, "plugin 'absent' not found in registry"},
		{"absent@1", registry.ErrNotFound, "plugin 'absent' not found in registry"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			plugins, tmp := t.TempDir(), t.TempDir()
			h := open(t, Options{PluginsDir: plugins})
			_, err := h.InstallSource(context.Background(), tt.spec, RegistryOptions{Location: rs.URL + "/registry.json", TempDir: tmp})
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v %q", err, tt.is, tt.want)
			}
			for _, dir := range []string{plugins, tmp} {
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Fatalf("%s holds %v after a failed install", dir, entries)
				}
			}
		})
	}
	if _, err := open(t, Options{PluginsDir: t.TempDir()}).InstallSource(context.Background(), "https://example.invalid/p.zip", RegistryOptions{}); !errors.Is(err, ErrUnsupportedSource) {
		t.Errorf("URL source: %v", err)
	}
}

// A remote index cannot make the installer read local files: a file:// URL,
// or anything but http(s), is refused before any request or file read, while
// a URL relative to the index downloads from the index's server.
func TestInstallFromRegistry_RemoteIndexNamesLocalFile(t *testing.T) {
	local := filepath.Join(t.TempDir(), "team-calendar-0.2.0.zip")
	data := calendarZip(t, "0.2.0")
	writeFile(t, local, string(data))
	var mu sync.Mutex
	var requests []string
	entries := map[string]string{
		"passwd":        "file:///etc/passwd",
		"localzip":      "file://" + local,
		"opaque":        "file:" + local,
		"ftp":           "ftp://127.0.0.1/x.zip",
		"team-calendar": "archives/team-calendar-0.2.0.zip",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/registry.json":
			var list []map[string]any
			for name, u := range entries {
				version := "0.1.0"
				if name == "team-calendar" {
					version = "0.2.0"
				}
				list = append(list, map[string]any{"name": name, "version": version, "url": u})
			}
			json.NewEncoder(w).Encode(map[string]any{"plugins": list})
		case "/archives/team-calendar-0.2.0.zip":
			w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	opts := RegistryOptions{Location: srv.URL + "/registry.json"}
	for _, name := range []string{"passwd", "localzip", "opaque", "ftp"} {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			requests = nil
			mu.Unlock()
			h := open(t, Options{PluginsDir: t.TempDir()})
			_, err := h.InstallSource(context.Background(), name, opts)
			if !errors.Is(err, registry.ErrArchiveURL) || !strings.Contains(err.Error(), "a remote index may name only https URLs or URLs relative to itself") {
				t.Fatalf("err = %v, want the archive URL refused", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(requests) != 1 || requests[0] != "/registry.json" {
				t.Errorf("server saw %v, want only /registry.json", requests)
			}
		})
	}
	h := open(t, Options{PluginsDir: t.TempDir()})
	if res, err := h.InstallSource(context.Background(), "team-calendar", opts); err != nil || res.Plugin.Manifest.Version != "0.2.0" {
		t.Fatalf("relative archive URL: %v", err)
	}
}

// A local registry file with relative archive paths works offline.
func TestInstallFromRegistry_LocalIndex(t *testing.T) {
	dir := t.TempDir()
	data := calendarZip(t, "0.2.0")
	writeFile(t, filepath.Join(dir, "archives", "team-calendar-0.2.0.zip"), string(data))
	index := fmt.Sprintf(`{"plugins":[{"name":"team-calendar","version":"0.2.0","url":"archives/team-calendar-0.2.0.zip","sha256":"%s"}]}`, hexSHA(data))
	writeFile(t, filepath.Join(dir, "registry.json"), index)
	h := open(t, Options{PluginsDir: t.TempDir()})
	res, err := h.InstallSource(context.Background(), "team-calendar", RegistryOptions{Location: filepath.Join(dir, "registry.json")})
	if err != nil || res.Plugin.Name() != "team-calendar" {
		t.Fatalf("local registry install: %v", err)
	}
	ix, err := FetchIndex(context.Background(), RegistryOptions{Location: "file://" + filepath.Join(dir, "registry.json")})
	if err != nil || len(ix.Search("CALENDAR")) != 1 {
		t.Errorf("FetchIndex(file://): %v", err)
	}
}
