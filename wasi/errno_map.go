package wasi

import (
	"context"
	"errors"
	"io"
	"io/fs"
)

// ToErrno returns the WASI error number for err: the Errno itself when err is or wraps one, the
// host system's error number translated when err wraps one, and otherwise the closest match among
// the io/fs sentinels. Errors it cannot classify become EIO. ToErrno(nil) is ESUCCESS.
func ToErrno(err error) Errno {
	if err == nil {
		return ESUCCESS
	}
	var e Errno
	if errors.As(err, &e) {
		return e
	}
	if isRootEscape(err) {
		return EPERM
	}
	if e, ok := sysErrno(err); ok {
		return e
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ENOENT
	case errors.Is(err, fs.ErrExist):
		return EEXIST
	case errors.Is(err, fs.ErrPermission):
		return EACCES
	case errors.Is(err, fs.ErrClosed):
		return EBADF
	case errors.Is(err, fs.ErrInvalid):
		return EINVAL
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return EINTR
	case errors.Is(err, io.ErrShortWrite):
		return EIO
	}
	return EIO
}
