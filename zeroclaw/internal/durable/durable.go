// Package durable holds the operating-system pieces that make the host's file changes crash-safe:
// an exclusive lock on a file, a directory fsync, and an atomic exchange of two directories. The
// host builds its atomic installs, updates, removals and file replacements on them; they are kept
// apart so that the platform-specific code (and golang.org/x/sys) stays in one small package.
package durable

import (
	"errors"
	"fmt"
	"os"
)

// ErrBusy: the lock is held by another process (platforms without advisory locks), or TryLock
// found it held.
var ErrBusy = errors.New("locked by another kobako")

// Lock is a held lock; Unlock releases it.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the exclusive lock of the file at path, creating the file, and waits while another
// process (or another Lock in this one) holds it. what says what the holder does, for the error of
// platforms where a lock cannot be waited for ("installing calendar").
func Acquire(path, what string) (*Lock, error) { return acquire(path, what, true) }

// TryAcquire takes the lock only if it is free; a held lock is an error wrapping ErrBusy.
func TryAcquire(path, what string) (*Lock, error) { return acquire(path, what, false) }

// Unlock releases the lock. The lock file stays where the platform locks open files (removing it
// would let a waiter lock a file a newcomer no longer sees); where the lock is the file's
// existence, it is removed.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := release(l)
	l.f = nil
	return err
}

// SyncDir flushes a directory's entries, so that a file created or renamed in it survives a power
// loss. Platforms whose directories cannot be opened for syncing (Windows) make their renames
// durable themselves, and file systems that refuse a directory fsync (EINVAL) have nothing to sync.
func SyncDir(dir string) error {
	if !syncDirs {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && isInvalid(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
