//go:build unix

package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadCapped_Files: every reader of a manifest, key, config or origin file goes through
// ReadCapped, so none of them may hang on a FIFO, read a directory or read past the cap.
func TestReadCapped_Files(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "manifest.toml")
	if err := os.WriteFile(reg, []byte("name = \"p\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		limit      int64
		want       string // "" for success
		tooLarge   bool
	}{
		{"regular file", reg, 64, "", false},
		{"at the cap", reg, 11, "", false},
		{"one byte over the cap", reg, 10, "larger than 10 bytes", true},
		{"link to a regular file", link, 64, "", false},
		{"directory", dir, 64, "is a directory", false},
		{"FIFO without a writer", fifo, 64, "named pipe", false},
		{"missing", filepath.Join(dir, "none"), 64, "no such file", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadCapped(tt.path, tt.limit)
			if tt.want == "" {
				if err != nil || string(b) != "name = \"p\"\n" {
					t.Fatalf("ReadCapped = %q, %v", b, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if errors.Is(err, ErrTooLarge) != tt.tooLarge {
				t.Fatalf("errors.Is(err, ErrTooLarge) = %v, want %v (%v)", !tt.tooLarge, tt.tooLarge, err)
			}
		})
	}
}
