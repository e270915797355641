package wasi

import "strconv"

// Errno is a WASI error number, numbered as in wasi_snapshot_preview1 (the `errno` enum of
// witx/typenames.witx). It is an error: every sandbox operation in this package fails with an Errno
// (or an error wrapping one), so a host can hand the number to the guest unchanged. ESUCCESS is not
// an error and is never returned as one.
type Errno uint16

// The WASI preview 1 error numbers.
const (
	ESUCCESS        Errno = iota // No error occurred.
	E2BIG                        // Argument list too long.
	EACCES                       // Permission denied.
	EADDRINUSE                   // Address in use.
	EADDRNOTAVAIL                // Address not available.
	EAFNOSUPPORT                 // Address family not supported.
	EAGAIN                       // Resource unavailable, or operation would block.
	EALREADY                     // Connection already in progress.
	EBADF                        // Bad file descriptor.
	EBADMSG                      // Bad message.
	EBUSY                        // Device or resource busy.
	ECANCELED                    // Operation canceled.
	ECHILD                       // No child processes.
	ECONNABORTED                 // Connection aborted.
	ECONNREFUSED                 // Connection refused.
	ECONNRESET                   // Connection reset.
	EDEADLK                      // Resource deadlock would occur.
	EDESTADDRREQ                 // Destination address required.
	EDOM                         // Mathematics argument out of domain of function.
	EDQUOT                       // Reserved in POSIX; in kobako: the write budget or per-call write cap is exceeded.
	EEXIST                       // File exists.
	EFAULT                       // Bad address.
	EFBIG                        // File too large.
	EHOSTUNREACH                 // Host is unreachable.
	EIDRM                        // Identifier removed.
	EILSEQ                       // Illegal byte sequence.
	EINPROGRESS                  // Operation in progress.
	EINTR                        // Interrupted function.
	EINVAL                       // Invalid argument.
	EIO                          // I/O error.
	EISCONN                      // Socket is connected.
	EISDIR                       // Is a directory.
	ELOOP                        // Too many levels of symbolic links.
	EMFILE                       // File descriptor value too large.
	EMLINK                       // Too many links.
	EMSGSIZE                     // Message too large.
	EMULTIHOP                    // Reserved.
	ENAMETOOLONG                 // Filename too long.
	ENETDOWN                     // Network is down.
	ENETRESET                    // Connection aborted by network.
	ENETUNREACH                  // Network unreachable.
	ENFILE                       // Too many files open in system.
	ENOBUFS                      // No buffer space available.
	ENODEV                       // No such device.
	ENOENT                       // No such file or directory.
	ENOEXEC                      // Executable file format error.
	ENOLCK                       // No locks available.
	ENOLINK                      // Reserved.
	ENOMEM                       // Not enough space.
	ENOMSG                       // No message of the desired type.
	ENOPROTOOPT                  // Protocol not available.
	ENOSPC                       // No space left on device.
	ENOSYS                       // Function not supported.
	ENOTCONN                     // The socket is not connected.
	ENOTDIR                      // Not a directory or a symbolic link to a directory.
	ENOTEMPTY                    // Directory not empty.
	ENOTRECOVERABLE              // State not recoverable.
	ENOTSOCK                     // Not a socket.
	ENOTSUP                      // Not supported, or operation not supported on socket.
	ENOTTY                       // Inappropriate I/O control operation.
	ENXIO                        // No such device or address.
	EOVERFLOW                    // Value too large to be stored in data type.
	EOWNERDEAD                   // Previous owner died.
	EPERM                        // Operation not permitted.
	EPIPE                        // Broken pipe.
	EPROTO                       // Protocol error.
	EPROTONOSUPPORT              // Protocol not supported.
	EPROTOTYPE                   // Protocol wrong type for socket.
	ERANGE                       // Result too large.
	EROFS                        // Read-only file system.
	ESPIPE                       // Invalid seek.
	ESRCH                        // No such process.
	ESTALE                       // Reserved.
	ETIMEDOUT                    // Connection timed out.
	ETXTBSY                      // Text file busy.
	EXDEV                        // Cross-device link.
	ENOTCAPABLE                  // Extension: capabilities insufficient.
)

// errnoCount is the number of defined error numbers; Errno values at or above it name nothing.
const errnoCount = int(ENOTCAPABLE) + 1

var errnoNames = [errnoCount]string{
	"ESUCCESS", "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY",
	"EBADF", "EBADMSG", "EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET",
	"EDEADLK", "EDESTADDRREQ", "EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EHOSTUNREACH", "EIDRM",
	"EILSEQ", "EINPROGRESS", "EINTR", "EINVAL", "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK",
	"EMSGSIZE", "EMULTIHOP", "ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE",
	"ENOBUFS", "ENODEV", "ENOENT", "ENOEXEC", "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT",
	"ENOSPC", "ENOSYS", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP",
	"ENOTTY", "ENXIO", "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPIPE", "EPROTO", "EPROTONOSUPPORT",
	"EPROTOTYPE", "ERANGE", "EROFS", "ESPIPE", "ESRCH", "ESTALE", "ETIMEDOUT", "ETXTBSY", "EXDEV",
	"ENOTCAPABLE",
}

var errnoText = [errnoCount]string{
	"success", "argument list too long", "permission denied", "address in use",
	"address not available", "address family not supported", "resource unavailable, try again",
	"connection already in progress", "bad file descriptor", "bad message", "device or resource busy",
	"operation canceled", "no child processes", "connection aborted", "connection refused",
	"connection reset", "resource deadlock would occur", "destination address required",
	"mathematics argument out of domain", "quota exceeded", "file exists", "bad address",
	"file too large", "host is unreachable", "identifier removed", "illegal byte sequence",
	"operation in progress", "interrupted function", "invalid argument", "I/O error",
	"socket is connected", "is a directory", "too many levels of symbolic links",
	"too many open files", "too many links", "message too large", "multihop attempted",
	"filename too long", "network is down", "connection aborted by network", "network unreachable",
	"too many files open in system", "no buffer space available", "no such device",
	"no such file or directory", "executable file format error", "no locks available",
	"link has been severed", "not enough space", "no message of the desired type",
	"protocol not available", "no space left on device", "function not supported",
	"socket is not connected", "not a directory", "directory not empty", "state not recoverable",
	"not a socket", "not supported", "inappropriate I/O control operation",
	"no such device or address", "value too large for data type", "previous owner died",
	"operation not permitted", "broken pipe", "protocol error", "protocol not supported",
	"protocol wrong type for socket", "result too large", "read-only file system", "invalid seek",
	"no such process", "stale file handle", "connection timed out", "text file busy",
	"cross-device link", "capabilities insufficient",
}

// Name returns the symbolic name, e.g. "EBADF", or "errno(N)" for a number WASI does not define.
func (e Errno) Name() string {
	if int(e) < errnoCount {
		return errnoNames[e]
	}
	return "errno(" + strconv.Itoa(int(e)) + ")"
}

// Error reads like "EBADF (bad file descriptor)".
func (e Errno) Error() string {
	if int(e) < errnoCount {
		return errnoNames[e] + " (" + errnoText[e] + ")"
	}
	return e.Name()
}

// Valid reports whether e is one of the numbers WASI preview 1 defines.
func (e Errno) Valid() bool { return int(e) < errnoCount }
