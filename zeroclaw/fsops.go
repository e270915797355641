package zeroclaw

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kobako/kobako/zeroclaw/internal/durable"
)

// Every change this package makes to the plugins directory, the config file or a key file is
// built beside its target under a name discovery ignores, flushed to disk, and renamed over it in
// one step, so that a process killed at any point leaves the old state or the new one. The names
// of the leftovers say what they were, so that the next operation (under the plugins directory's
// lock) knows which to delete and which to put back.
const (
	// stagingPrefix names the directories installs and updates build in. A leftover is an
	// unfinished copy, or the old version an exchange swapped out: deleted either way.
	stagingPrefix = ".kobako-install-"
	// asidePrefix names an installed plugin moved aside by an update where directories cannot be
	// exchanged, until the new version is in place. A leftover whose plugin directory is missing
	// is put back; otherwise it is deleted.
	asidePrefix = ".kobako-aside-"
	// removedPrefix names a plugin directory a removal renamed away before deleting it: removed
	// the moment it is renamed, so a leftover is deleted.
	removedPrefix = ".kobako-removed-"
	// leftoverSep ends the plugin name in a leftover's name; plugin names cannot contain it.
	leftoverSep = "~"
	// lockName is the lock file in the plugins directory that installs, updates and removals hold.
	lockName = ".kobako.lock"
)

// isLeftover reports whether a plugins directory entry is one of the names above.
func isLeftover(name string) bool {
	return strings.HasPrefix(name, stagingPrefix) || strings.HasPrefix(name, asidePrefix) || strings.HasPrefix(name, removedPrefix)
}

// stepHook is nil outside tests. Tests set it to see the file system between the steps of an
// operation, as a process killed there would leave it, or to fail a step as a full disk would; a
// non-nil error fails the step like the real operation's error.
var stepHook func(step string) error

// step marks a point of an operation that a crash or an I/O error may interrupt.
func step(name string) error {
	if stepHook == nil {
		return nil
	}
	return stepHook(name)
}

// exchangeDirs swaps two directories atomically, or fails wrapping errors.ErrUnsupported; tests
// replace it to exercise the fallback.
var exchangeDirs = durable.Exchange

// uniqueName is a name in dir that no entry has, made of prefix, the plugin name and a random
// number, for renames that must not replace anything.
func uniqueName(dir, prefix, name string) string {
	for {
		p := filepath.Join(dir, prefix+name+leftoverSep+strconv.FormatUint(rand.Uint64(), 36))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
}

// lockPlugins takes the plugins directory's lock, waiting for another kobako's install, update or
// removal to finish, then repairs what a killed one left. The directory is created if missing.
func (h *Host) lockPlugins(what string) (*durable.Lock, error) {
	if err := step("lock: mkdir plugins dir"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(h.opts.PluginsDir, 0o755); err != nil {
		return nil, err
	}
	l, err := durable.Acquire(filepath.Join(h.opts.PluginsDir, lockName), what)
	if err != nil {
		return nil, err
	}
	if err := h.recoverLeftovers(); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// recoverLeftovers deletes or puts back what interrupted operations left in the plugins
// directory. The caller holds the lock, so no leftover belongs to a running operation.
func (h *Host) recoverLeftovers() error {
	entries, err := os.ReadDir(h.opts.PluginsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	changed := false
	for _, e := range entries {
		name := e.Name()
		if !isLeftover(name) {
			continue
		}
		p := filepath.Join(h.opts.PluginsDir, name)
		if rest, ok := strings.CutPrefix(name, asidePrefix); ok {
			if i := strings.LastIndex(rest, leftoverSep); i > 0 {
				dest := filepath.Join(h.opts.PluginsDir, rest[:i])
				if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
					// The update died between moving the old version aside and moving the new one
					// in: the old version is the plugin.
					if err := os.Rename(p, dest); err != nil {
						return fmt.Errorf("restoring %s: %w", dest, err)
					}
					changed = true
					continue
				}
			}
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("removing the leftover %s: %w", p, err)
		}
		changed = true
	}
	if changed {
		return durable.SyncDir(h.opts.PluginsDir)
	}
	return nil
}

// hasLeftovers reports whether entries hold anything recoverLeftovers would act on.
func hasLeftovers(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if isLeftover(e.Name()) {
			return true
		}
	}
	return false
}

// writeFileSynced creates path (which must not exist) with data, flushed to disk.
func writeFileSynced(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	return finishFile(f, path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// finishFile writes f through fill, flushes it and closes it, marking each step.
func finishFile(f *os.File, path string, fill func(io.Writer) error) error {
	err := step("write " + filepath.Base(path))
	if err == nil {
		err = fill(f)
	}
	if err == nil {
		err = step("sync " + filepath.Base(path))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFile copies src to dst (which must not exist), flushed to disk.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return finishFile(out, dst, func(w io.Writer) error { _, err := io.Copy(w, in); return err })
}

// syncTree flushes the entries of every directory under root, root included, so that the files
// a staged plugin holds are on disk before it is renamed into place.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return durable.SyncDir(p)
	})
}

// writeFileAtomic replaces path with data through a temporary file in the same directory (named
// from tmpPattern, a CreateTemp pattern), flushed before the rename and followed by a flush of the
// directory, so that a crash leaves the old file or the new one. An existing file keeps its mode.
// The temporary file is removed on failure; a crash leaves it for cleanTemps.
func writeFileAtomic(path string, data []byte, mode fs.FileMode, tmpPattern string) error {
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := step("create temp for " + filepath.Base(path)); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tmpPattern)
	if err != nil {
		return err
	}
	name := tmp.Name()
	committed := false
	defer func() {
		if !committed {
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := finishFile(tmp, path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	if err := step("commit rename " + filepath.Base(path)); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	committed = true
	step("sync dir of " + filepath.Base(path))
	// The new file is in place: a failed directory flush cannot undo that, so it is not reported
	// as a failure of the write.
	durable.SyncDir(filepath.Dir(path))
	return nil
}

// cleanTemps removes the temporary files that writes through tmpPattern (a CreateTemp pattern
// with one '*') left in dir when a process died before renaming them: only regular files of that
// exact shape, which nothing but those writes creates.
func cleanTemps(dir, tmpPattern string) {
	prefix, suffix, ok := strings.Cut(tmpPattern, "*")
	if !ok {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if len(n) > len(prefix)+len(suffix) && strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) && e.Type().IsRegular() {
			digits := n[len(prefix) : len(n)-len(suffix)]
			if strings.Trim(digits, "0123456789") == "" {
				os.Remove(filepath.Join(dir, n))
			}
		}
	}
}
