//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, _, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

func devNull(t *testing.T, _, path string) {
	if err := os.Symlink(os.DevNull, path); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// FIFOs without a writer (whose open would wait for one) and devices (/dev/zero has no end).
func init() {
	fileCases = append(fileCases,
		fileCase{name: "FIFO without a writer", make: mkfifo, want: ErrNotRegular, say: "is a named pipe, not a regular file"},
		fileCase{name: "symbolic link to a FIFO", make: symlink(mkfifo), want: ErrNotRegular, say: "is a named pipe, not a regular file"},
		fileCase{name: "symbolic link to a device", make: devNull, want: ErrNotRegular, say: "is a character device, not a regular file"},
	)
}

// TestOpenChecked_FIFO: a name that turns into a FIFO after the Stat by name is opened without
// waiting for a writer and refused by the Stat of the open file. openChecked is that second half
// of open, the part the race reaches.
func TestOpenChecked_FIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	mkfifo(t, "", path)
	done := make(chan error, 1)
	go func() {
		f, _, err := openChecked(path, testCap)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path+" is a named pipe") {
			t.Errorf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so that the goroutine ends with the test.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("the open waited for a writer")
	}
}
