//go:build unix

package engine_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
)

// TestPreparedCacheFIFO: a FIFO planted in place of a cache entry is rejected without being
// opened for a writer that never comes, the module is prepared anew and the entry rewritten.
func TestPreparedCacheFIFO(t *testing.T) {
	want := runCached(t, engine.Config{}, "fib", "fib", 20, 0)
	dir := t.TempDir()
	runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
	path := cacheFiles(t, dir)[0]
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan cacheRun, 1)
	go func() { done <- runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0) }()
	select {
	case got := <-done:
		sameRun(t, "after a FIFO", got, want)
		if s := got.stats; s.Rejected != 1 || s.Prepared != 1 || s.Stored != 1 {
			t.Errorf("%+v, want the FIFO rejected, the module prepared and stored", s)
		}
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("the entry was not rewritten: %v, %v", fi, err)
		}
	case <-time.After(20 * time.Second):
		// Unblock the open so that the goroutine ends with the test.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("loading the cache blocked on the FIFO")
	}
}
