package wasi

import (
	"io/fs"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		in      string
		clean   string
		dirOnly bool
		err     error
	}{
		{"a", "a", false, nil},
		{"a/b/c", "a/b/c", false, nil},
		{".", ".", false, nil},
		{"./", ".", true, nil},
		{"a/", "a", true, nil},
		{"a//b/./c/", "a/b/c", true, nil},
		{"a/..", ".", false, nil},
		{"a/../b", "b", false, nil},
		{"a/b/../../c", "c", false, nil},
		{"", "", false, ENOENT},
		{"/", "", false, EPERM},
		{"/etc/passwd", "", false, EPERM},
		{"..", "", false, EPERM},
		{"../x", "", false, EPERM},
		{"a/../../x", "", false, EPERM},
		{"./..", "", false, EPERM},
		{"a\x00b", "", false, EINVAL},
		{"a\xffb", "", false, EILSEQ},
		{strings.Repeat("a", MaxPathLen), strings.Repeat("a", MaxPathLen), false, nil},
		{strings.Repeat("a", MaxPathLen+1), "", false, ENAMETOOLONG},
	}
	for _, tt := range tests {
		clean, dirOnly, err := CheckPath(tt.in)
		if err != tt.err || clean != tt.clean || dirOnly != tt.dirOnly {
			t.Errorf("CheckPath(%q) = %q, %v, %v; want %q, %v, %v", tt.in, clean, dirOnly, err, tt.clean, tt.dirOnly, tt.err)
		}
	}
}

func TestCheckSymlink(t *testing.T) {
	tests := []struct {
		dir, target string
		err         error
	}{
		{".", "a", nil},
		{".", "a/b/../c", nil},
		{"a", "../b", nil},
		{"a/b", "../../c", nil},
		{"a/b", "../../../c", EPERM},
		{".", "../x", EPERM},
		{".", "/etc/passwd", EPERM},
		{"a", "/a", EPERM},
		{".", "", ENOENT},
		{".", "x\x00", EINVAL},
		{".", "\xfe", EILSEQ},
	}
	for _, tt := range tests {
		if err := CheckSymlink(tt.dir, tt.target); err != tt.err {
			t.Errorf("CheckSymlink(%q, %q) = %v, want %v", tt.dir, tt.target, err, tt.err)
		}
	}
}

// Whatever CheckPath accepts is a valid fs.FS name that stays inside the directory.
func TestCheckPathProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", ".", "..", "", "c.d", "é"}), 1, 8).Draw(t, "parts")
		p := strings.Join(parts, "/")
		clean, _, err := CheckPath(p)
		if err != nil {
			if err != EPERM && err != ENOENT {
				t.Fatalf("CheckPath(%q): unexpected error %v", p, err)
			}
			return
		}
		if !fs.ValidPath(clean) {
			t.Fatalf("CheckPath(%q) = %q, not a valid fs path", p, clean)
		}
		for _, c := range strings.Split(clean, "/") {
			if c == ".." {
				t.Fatalf("CheckPath(%q) = %q keeps ..", p, clean)
			}
		}
	})
}

func TestJoinPath(t *testing.T) {
	tests := []struct{ dir, rel, want string }{
		{".", "a", "a"}, {"", "a", "a"}, {"a", ".", "a"}, {"a", "b/c", "a/b/c"}, {".", ".", "."},
	}
	for _, tt := range tests {
		if got := JoinPath(tt.dir, tt.rel); got != tt.want {
			t.Errorf("JoinPath(%q, %q) = %q, want %q", tt.dir, tt.rel, got, tt.want)
		}
	}
}
