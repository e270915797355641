//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

const syncDirs = true

// acquire makes the lock file's existence the lock (O_EXCL), where there is no advisory lock to
// take (js, wasip1, plan9 and the rest). Nothing can wait for it, so a held lock is an error naming
// what its holder said it was doing, and the file to delete should that holder have died.
func acquire(path, what string, _ bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		holder := what
		if b, rerr := os.ReadFile(path); rerr == nil && len(b) > 0 {
			holder = strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("%w: another kobako is %s (if none is running, delete the lock file %s)", ErrBusy, holder, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	f.WriteString(what + "\n")
	return &Lock{f: f, path: path}, nil
}

func release(l *Lock) error {
	l.f.Close()
	// This process created the file when it took the lock.
	return os.Remove(l.path)
}

func isInvalid(err error) bool { return errors.Is(err, syscall.EINVAL) }
