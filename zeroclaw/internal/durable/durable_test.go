package durable

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Acquire(path, "installing p")
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryAcquire(path, "scanning")
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another kobako is") || !strings.Contains(err.Error(), path) {
		t.Fatalf("TryAcquire of a held lock: %v", err)
	}
	// A waiting Acquire gets the lock once it is released, not before.
	got := make(chan error, 1)
	go func() {
		l, err := Acquire(path, "updating p")
		if err == nil {
			err = l.Unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("Acquire returned %v while the lock was held", err)
		}
		// Platforms without advisory locks cannot wait: the error names the holder.
		if !strings.Contains(err.Error(), "installing p") {
			t.Errorf("busy error %v does not say what the holder does", err)
		}
		held.Unlock()
		return
	case <-time.After(100 * time.Millisecond):
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiting Acquire: %v", err)
	}
	l, err := TryAcquire(path, "scanning")
	if err != nil {
		t.Fatalf("TryAcquire of a free lock: %v", err)
	}
	l.Unlock()
}

func TestExchange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "name"), []byte(filepath.Base(d)), 0o644)
	}
	err := Exchange(a, b)
	if errors.Is(err, errors.ErrUnsupported) {
		if runtime.GOOS == "linux" {
			t.Logf("this file system cannot exchange: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{a: "b", b: "a"} {
		if got, _ := os.ReadFile(filepath.Join(d, "name")); string(got) != want {
			t.Errorf("%s holds %q, want %q", d, got, want)
		}
	}
	if err := Exchange(a, filepath.Join(dir, "missing")); err == nil || errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("exchange with a missing directory: %v", err)
	}
}

func TestSyncDir(t *testing.T) {
	tests := []struct {
		dir     string
		wantErr bool
	}{
		{t.TempDir(), false},
		{filepath.Join(t.TempDir(), "missing"), syncDirs},
	}
	for _, tt := range tests {
		if err := SyncDir(tt.dir); (err != nil) != tt.wantErr {
			t.Errorf("SyncDir(%s) = %v", tt.dir, err)
		}
	}
}
