package subako

import (
	"fmt"
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
	digits := strings.Repeat("0123456789", 3000)
	var dump strings.Builder
	dump.WriteString("fatal error: runtime: out of memory\n\nruntime stack:\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&dump, "goroutine %d [running]:\nmain.alloc(0x2f2000, 0x12a, 0x140})\n\t/src/main.go:%d +0x1c\n", i, i)
	}
	dump.WriteString("exit status 2\n")
	tests := []struct {
		name   string
		writes []string
		prefix string // the whole output when suffix is ""
		suffix string
		cut    bool // an omission line is expected
	}{
		{"short", []string{"a\n", "b"}, "a\nb", "", false},
		{"exactly the cap", []string{strings.Repeat("y", StderrTailBytes)}, strings.Repeat("y", StderrTailBytes), "", false},
		{"many small writes", []string{"start ", digits, "end"}, "start 0123", "789end", true},
		{"one big write", []string{strings.Repeat("x", 3*StderrTailBytes) + "!"}, "xxx", "x!", true},
		// P19: a Go runtime's out-of-memory report keeps its first line, not only the dump's end.
		{"go fatal error", []string{dump.String()}, "fatal error: runtime: out of memory\n\nruntime stack:\n", "\t/src/main.go:59 +0x1c\nexit status 2\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tb tailBuffer
			for _, w := range tt.writes {
				tb.Write([]byte(w))
			}
			s := tb.String()
			if tt.suffix == "" {
				if s != tt.prefix {
					t.Errorf("got %q, want %q", s, tt.prefix)
				}
				return
			}
			if !strings.HasPrefix(s, tt.prefix) || !strings.HasSuffix(s, tt.suffix) {
				t.Errorf("got %.40q…%q, want %q…%q", s, s[max(0, len(s)-40):], tt.prefix, tt.suffix)
			}
			if strings.Contains(s, "bytes of stderr omitted …]\n") != tt.cut {
				t.Errorf("omission line present %v, want %v:\n%s", !tt.cut, tt.cut, s)
			}
			if len(s) > StderrTailBytes+64 {
				t.Errorf("%d bytes, more than the cap", len(s))
			}
			if strings.HasPrefix(tt.name, "go") {
				// Both halves are cut at line boundaries: no line begins mid-way.
				_, after, _ := strings.Cut(s, "omitted …]\n")
				if !strings.HasPrefix(after, "goroutine") && !strings.HasPrefix(after, "main.") && !strings.HasPrefix(after, "\t") {
					t.Errorf("the tail begins mid-line: %.60q", after)
				}
			}
		})
	}
}
