//go:build unix

package zeroclaw

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadOriginFIFO: a named pipe in the origin file's place is not opened (discovery would wait
// for a writer on every scan).
func TestReadOriginFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, OriginFile), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if got := readOrigin(dir); got != nil {
		t.Fatalf("read %+v from a FIFO", got)
	}
}
