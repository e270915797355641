//go:build unix

package zeroclaw

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInstallSource_FIFO: a named pipe given as the plugin to install is refused, not waited on:
// the zip probe used to open it and block until a writer came.
func TestInstallSource_FIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plugin.zip")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	h := open(t, Options{PluginsDir: t.TempDir()})
	done := make(chan error, 1)
	go func() {
		_, err := h.InstallSource(context.Background(), fifo, RegistryOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("installing a FIFO succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("InstallSource blocked on a FIFO")
	}
}
