package durable

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange swaps the directories at a and b in one step (renameat2 RENAME_EXCHANGE), so that
// nothing, not even a crash, ever sees b missing. It wraps errors.ErrUnsupported where the kernel
// or the file system cannot.
func Exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
