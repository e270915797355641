//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package durable

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

const syncDirs = true

// acquire uses flock(2): the kernel drops the lock when its holder dies, so a killed kobako never
// leaves a lock behind. flock locks belong to the open file, so two Locks in one process exclude
// each other as two processes do.
func acquire(path, what string, wait bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: another kobako is %s (lock file %s)", ErrBusy, what, path)
		}
		return nil, fmt.Errorf("lock file %s: %w", path, err)
	}
	return &Lock{f: f, path: path}, nil
}

func release(l *Lock) error {
	// Closing the file drops the flock.
	return l.f.Close()
}

func isInvalid(err error) bool { return errors.Is(err, unix.EINVAL) }
