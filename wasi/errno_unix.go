//go:build unix || wasip1 || js

package wasi

import (
	"errors"
	"syscall"
)

// sysErrnos translates the host's error numbers. Numbers missing here fall back to the io/fs
// sentinels in ToErrno.
var sysErrnos = map[syscall.Errno]Errno{
	syscall.E2BIG:        E2BIG,
	syscall.EACCES:       EACCES,
	syscall.EAGAIN:       EAGAIN,
	syscall.EBADF:        EBADF,
	syscall.EBUSY:        EBUSY,
	syscall.ECANCELED:    ECANCELED,
	syscall.EDQUOT:       EDQUOT,
	syscall.EEXIST:       EEXIST,
	syscall.EFAULT:       EFAULT,
	syscall.EFBIG:        EFBIG,
	syscall.EILSEQ:       EILSEQ,
	syscall.EINTR:        EINTR,
	syscall.EINVAL:       EINVAL,
	syscall.EIO:          EIO,
	syscall.EISDIR:       EISDIR,
	syscall.ELOOP:        ELOOP,
	syscall.EMFILE:       EMFILE,
	syscall.EMLINK:       EMLINK,
	syscall.ENAMETOOLONG: ENAMETOOLONG,
	syscall.ENFILE:       ENFILE,
	syscall.ENODEV:       ENODEV,
	syscall.ENOENT:       ENOENT,
	syscall.ENOMEM:       ENOMEM,
	syscall.ENOSPC:       ENOSPC,
	syscall.ENOSYS:       ENOSYS,
	syscall.ENOTDIR:      ENOTDIR,
	syscall.ENOTEMPTY:    ENOTEMPTY,
	syscall.ENOTSUP:      ENOTSUP,
	syscall.ENXIO:        ENXIO,
	syscall.EOVERFLOW:    EOVERFLOW,
	syscall.EPERM:        EPERM,
	syscall.EPIPE:        EPIPE,
	syscall.ERANGE:       ERANGE,
	syscall.EROFS:        EROFS,
	syscall.ESPIPE:       ESPIPE,
	syscall.ESTALE:       ESTALE,
	syscall.ETIMEDOUT:    ETIMEDOUT,
	syscall.EXDEV:        EXDEV,
}

func init() {
	addPlatformErrnos(sysErrnos)
	// EOPNOTSUPP equals ENOTSUP on Linux but not on the BSDs.
	if _, dup := sysErrnos[syscall.EOPNOTSUPP]; !dup {
		sysErrnos[syscall.EOPNOTSUPP] = ENOTSUP
	}
}

func sysErrno(err error) (Errno, bool) {
	var se syscall.Errno
	if !errors.As(err, &se) {
		return 0, false
	}
	e, ok := sysErrnos[se]
	return e, ok
}
