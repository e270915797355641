package wasi

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// lazyTrees makes openTree open its trees with HostDirOptions.Lazy.
var lazyTrees bool

// TestHostLazy runs the host directory tests again on lazily opened trees: a guest must see the
// same results either way.
func TestHostLazy(t *testing.T) {
	lazyTrees = true
	defer func() { lazyTrees = false }()
	for _, tt := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"DirOpen", TestHostDirOpen},
		{"SubdirConfinement", TestHostSubdirConfinement},
		{"Stat", TestHostStat},
		{"ReadOnly", TestHostReadOnly},
		{"Mutations", TestHostMutations},
		{"RenameBetweenDirs", TestHostRenameBetweenDirs},
		{"RenameOntoDirectory", TestHostRenameOntoDirectory},
		{"MovedLinkStaysInside", TestHostMovedLinkStaysInside},
		{"Budget", TestHostBudget},
		{"Readv", TestHostReadv},
		{"ReadDir", TestHostReadDir},
		{"CreateTruncate", TestHostCreateTruncate},
		{"SymlinkFromMovedDir", TestHostSymlinkFromMovedDir},
	} {
		t.Run(tt.name, tt.fn)
	}
}

// opened reports whether d's tree has opened its host directory (on the test's goroutine, after
// every use).
func opened(d Dir) bool { return d.(*hostDir).tree.root != nil }

// Every method that reaches the host opens a lazy tree first; ReadOnly and Close do not, and a
// path refused before reaching the host opens nothing.
func TestHostLazyOpensAtFirstUse(t *testing.T) {
	if runtime.GOOS == "windows" || !opensLater(t.TempDir()) {
		t.Skip("this platform opens lazy trees at once")
	}
	tests := []struct {
		name  string
		use   func(d Dir) error
		opens bool
	}{
		{"ReadOnly", func(d Dir) error { d.ReadOnly(); return nil }, false},
		{"Stat", func(d Dir) error { _, err := d.Stat(); return err }, true},
		{"Sync", func(d Dir) error { return d.Sync() }, true},
		{"SetTimes", func(d Dir) error { return d.SetTimes(Times{}) }, true},
		{"ReadDir", func(d Dir) error {
			r, err := d.ReadDir()
			if err == nil {
				r.Close()
			}
			return err
		}, true},
		{"OpenAt", func(d Dir) error {
			n, err := d.OpenAt("f", OpenFlags{})
			if err == nil {
				n.Close()
			}
			return err
		}, true},
		{"OpenAt escaping", func(d Dir) error {
			if _, err := d.OpenAt("../f", OpenFlags{}); err != EPERM {
				return err
			}
			return nil
		}, false},
		{"StatAt", func(d Dir) error { _, err := d.StatAt("f", true); return err }, true},
		{"MkdirAt", func(d Dir) error { return d.MkdirAt("new") }, true},
		{"UnlinkAt", func(d Dir) error { return d.UnlinkAt("f") }, true},
		{"RmdirAt", func(d Dir) error { return d.RmdirAt("sub") }, true},
		{"RenameAt", func(d Dir) error { return d.RenameAt("f", d, "g") }, true},
		{"LinkAt", func(d Dir) error { return d.LinkAt("f", false, d, "g") }, true},
		{"SymlinkAt", func(d Dir) error { return d.SymlinkAt("f", "l") }, true},
		{"ReadlinkAt", func(d Dir) error {
			if _, err := d.ReadlinkAt("f"); err != EINVAL {
				return err
			}
			return nil
		}, true},
		{"SetTimesAt", func(d Dir) error { return d.SetTimesAt("f", false, Times{}) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			d, err := OpenHostDir(dir, HostDirOptions{Lazy: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.use(d); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got := opened(d); got != tt.opens {
				t.Errorf("%s: opened = %v, want %v", tt.name, got, tt.opens)
			}
			if err := d.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// A lazy OpenHostDir fails exactly as an eager one on a missing path, a file, a path through a
// file and (when the process is subject to permissions) an unreadable directory.
func TestHostLazySameErrors(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	unreadable := filepath.Join(base, "unreadable")
	os.Mkdir(unreadable, 0o300)
	for _, p := range []string{filepath.Join(base, "missing"), file, filepath.Join(file, "x"), unreadable} {
		eager, eagerErr := OpenHostDir(p, HostDirOptions{})
		lazy, lazyErr := OpenHostDir(p, HostDirOptions{Lazy: true})
		if (eagerErr == nil) != (lazyErr == nil) || (eagerErr != nil && eagerErr.Error() != lazyErr.Error()) {
			t.Errorf("OpenHostDir(%q): eager %v, lazy %v", p, eagerErr, lazyErr)
		}
		for _, d := range []Dir{eager, lazy} {
			if d != nil {
				// Root (or a process with CAP_DAC_OVERRIDE) reads the unreadable directory;
				// both must then agree on what it holds.
				_, err := d.StatAt(".", true)
				if err != nil {
					t.Errorf("OpenHostDir(%q) opened but StatAt fails: %v", p, err)
				}
				d.Close()
			}
		}
	}
	if _, err := OpenHostDir(filepath.Join(base, "missing"), HostDirOptions{Lazy: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lazy OpenHostDir of a missing path = %v, want fs.ErrNotExist", err)
	}
}

// The one difference: a directory removed after a lazy OpenHostDir and before its first use
// fails that use with ENOENT, where an opened one keeps the removed directory (whose uses fail
// too, with whatever the host says of a removed directory).
func TestHostLazyRemovedBeforeUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	os.Mkdir(dir, 0o755)
	d, err := OpenHostDir(dir, HostDirOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !opensLater(dir) {
		t.Skip("this platform opens lazy trees at once")
	}
	os.Remove(dir)
	if _, err := d.Stat(); err != ENOENT {
		t.Errorf("Stat of a lazily opened, removed directory = %v, want ENOENT", err)
	}
	if _, err := d.OpenAt("f", OpenFlags{Write: true, Create: true}); err != ENOENT {
		t.Errorf("OpenAt = %v, want ENOENT", err)
	}
	// The directory coming back does not help: the tree tried once.
	os.Mkdir(dir, 0o755)
	if _, err := d.Stat(); err != ENOENT {
		t.Errorf("Stat after the directory reappeared = %v, want ENOENT", err)
	}
}

// Closing an unused lazy tree opens nothing, and uses after Close fail with EBADF as they do on
// a closed eager tree.
func TestHostLazyClosedUnused(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		d, err := OpenHostDir(t.TempDir(), HostDirOptions{Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("lazy=%v: Close = %v", lazy, err)
		}
		if lazy && d.(*hostDir).tree.root != nil {
			t.Errorf("closing an unused lazy tree opened it")
		}
		if err := d.Close(); err != EBADF {
			t.Errorf("lazy=%v: second Close = %v, want EBADF", lazy, err)
		}
		if _, err := d.Stat(); err != EBADF {
			t.Errorf("lazy=%v: Stat after Close = %v, want EBADF", lazy, err)
		}
		if _, err := d.OpenAt("x", OpenFlags{Create: true, Write: true}); err != EBADF {
			t.Errorf("lazy=%v: OpenAt after Close = %v, want EBADF", lazy, err)
		}
	}
}

// Goroutines racing to the first use open the tree once (run with -race).
func TestHostLazyConcurrentFirstUse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644)
	d, err := OpenHostDir(dir, HostDirOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			n, err := d.OpenAt("f", OpenFlags{})
			if err == nil {
				err = n.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
