//go:build windows

package wasi

import (
	"errors"
	"syscall"
)

// Win32 error codes (by number, since package syscall names only some) that the io/fs sentinels do
// not cover precisely.
var sysErrnos = map[syscall.Errno]Errno{
	5:    EACCES,       // ERROR_ACCESS_DENIED
	17:   EXDEV,        // ERROR_NOT_SAME_DEVICE
	2:    ENOENT,       // ERROR_FILE_NOT_FOUND
	3:    ENOENT,       // ERROR_PATH_NOT_FOUND
	32:   EBUSY,        // ERROR_SHARING_VIOLATION
	39:   ENOSPC,       // ERROR_HANDLE_DISK_FULL
	50:   ENOTSUP,      // ERROR_NOT_SUPPORTED
	80:   EEXIST,       // ERROR_FILE_EXISTS
	112:  ENOSPC,       // ERROR_DISK_FULL
	123:  ENOENT,       // ERROR_INVALID_NAME
	145:  ENOTEMPTY,    // ERROR_DIR_NOT_EMPTY
	183:  EEXIST,       // ERROR_ALREADY_EXISTS
	206:  ENAMETOOLONG, // ERROR_FILENAME_EXCED_RANGE
	267:  ENOTDIR,      // ERROR_DIRECTORY
	1921: ELOOP,        // ERROR_CANT_RESOLVE_FILENAME
}

func sysErrno(err error) (Errno, bool) {
	var se syscall.Errno
	if !errors.As(err, &se) {
		return 0, false
	}
	e, ok := sysErrnos[se]
	return e, ok
}
