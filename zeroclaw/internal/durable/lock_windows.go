package durable

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Windows makes a rename durable without a directory fsync, and cannot open a directory to sync.
const syncDirs = false

// acquire uses LockFileEx on the first byte: Windows releases the lock when its holder dies.
func acquire(path, what string, wait bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped)); err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, fmt.Errorf("%w: another kobako is %s (lock file %s)", ErrBusy, what, path)
		}
		return nil, fmt.Errorf("lock file %s: %w", path, err)
	}
	return &Lock{f: f, path: path}, nil
}

func release(l *Lock) error {
	windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, new(windows.Overlapped))
	return l.f.Close()
}

func isInvalid(error) bool { return false }
