package subako

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVolumePath(t *testing.T) {
	for _, tt := range []struct{ uri, vol, rel, err string }{
		{"volume:///tmp/chart.png", "tmp", "chart.png", ""},
		{"volume:///tmp/a%20b/c%25.png", "tmp", "a b/c%.png", ""},
		{"volume:///data/x/y.gif", "data", "x/y.gif", ""},
		{"volume:///tmp/a%2Fb.png", "", "", "not a file name"},
		{"volume:///tmp/../etc/passwd", "", "", "not a file name"},
		{"volume:///tmp/%2e%2e/x", "", "", "not a file name"},
		{"volume:///tmp//x", "", "", "not a file name"},
		{"volume:///tmp/x%00", "", "", "not a file name"},
		{"volume:///tmp/%zz", "", "", "percent-encoded"},
		{"volume:///tmp/x.png?a=1", "", "", "no query"},
		{"volume:///tmp", "", "", "names no file"},
		{"volume://host/tmp/x", "", "", "starts with volume:///"},
	} {
		vol, rel, err := VolumePath(tt.uri)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.uri, err, tt.err)
			}
			continue
		}
		if err != nil || vol != tt.vol || rel != tt.rel {
			t.Errorf("%s = %q %q %v", tt.uri, vol, rel, err)
		}
	}
}

func TestImageType(t *testing.T) {
	for in, want := range map[string]string{
		"\x89PNG\r\n\x1a\nrest": "image/png", "\xff\xd8\xff\xe0": "image/jpeg", "GIF89a..": "image/gif", "GIF87a": "image/gif",
		"RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp", "RIFF\x00\x00\x00\x00WAVE": "", "<svg>": "", "": "",
	} {
		if got := imageType([]byte(in)); got != want {
			t.Errorf("imageType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMapResult_Images(t *testing.T) {
	vol := t.TempDir()
	vols := map[string]string{"tmp": vol}
	raw := `{"content":[{"type":"image","mimeType":"image/png","data":"!!"},{"type":"resource_link","uri":"volume:///tmp/none.png","name":"n"},{"type":"resource_link","uri":"volume:///data/x.png","name":"x"},{"type":"resource_link","uri":"volume:///tmp/../x","name":"x"},7]}`
	res, err := mapResult([]byte(raw), vols, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	wants := []string{"data is not base64", "cannot be opened", "/volume/data is not mounted", "not a file name", "not a content block"}
	for i, w := range wants {
		if res.Content[i].Type != "text" || !strings.Contains(res.Content[i].Text, w) {
			t.Errorf("block %d = %+v, want a note saying %q", i, res.Content[i], w)
		}
	}
	// A symbolic link in the volume that leads out of it is not followed.
	outside := filepath.Join(t.TempDir(), "secret.png")
	must(t, os.WriteFile(outside, []byte("\x89PNG\r\n\x1a\nsecret"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(vol, "link.png")))
	must(t, os.WriteFile(filepath.Join(vol, "big.png"), append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...), 0o644))
	res, err = mapResult([]byte(`{"content":[{"type":"resource_link","uri":"volume:///tmp/link.png","name":"l"},{"type":"resource_link","uri":"volume:///tmp/big.png","name":"b"}]}`), vols, 64)
	if err != nil || res.Content[0].Type != "text" || strings.Contains(res.Content[0].Text, "secret") || res.Content[1].Type != "text" || !strings.Contains(res.Content[1].Text, "more than 64") {
		t.Errorf("escaping link / oversized image: %+v %v", res, err)
	}
	if _, err := mapResult([]byte(`{"content":"x"}`), vols, 1); err == nil {
		t.Error("a content string was accepted")
	}
}

func TestTailBuffer(t *testing.T) {
	var tb tailBuffer
	tb.Write([]byte("start "))
	for i := 0; i < 3000; i++ {
		tb.Write([]byte("0123456789"))
	}
	tb.Write([]byte("end"))
	s := tb.String()
	if len(s) != StderrTailBytes || !strings.HasSuffix(s, "789end") {
		t.Errorf("tail is %d bytes ending %q", len(s), s[len(s)-10:])
	}
	tb.Write([]byte(strings.Repeat("x", 3*StderrTailBytes) + "!"))
	if s := tb.String(); len(s) != StderrTailBytes || !strings.HasSuffix(s, "x!") {
		t.Errorf("big write: %d bytes", len(s))
	}
}
