package preview2

import "github.com/kobako/kobako/wasi"

// errorCode is wasi:filesystem/types' error-code enum, by case number.
type errorCode uint8

const (
	codeAccess errorCode = iota
	codeWouldBlock
	codeAlready
	codeBadDescriptor
	codeBusy
	codeDeadlock
	codeQuota
	codeExist
	codeFileTooLarge
	codeIllegalByteSequence
	codeInProgress
	codeInterrupted
	codeInvalid
	codeIO
	codeIsDirectory
	codeLoop
	codeTooManyLinks
	codeMessageSize
	codeNameTooLong
	codeNoDevice
	codeNoEntry
	codeNoLock
	codeInsufficientMemory
	codeInsufficientSpace
	codeNotDirectory
	codeNotEmpty
	codeNotRecoverable
	codeUnsupported
	codeNoTTY
	codeNoSuchDevice
	codeOverflow
	codeNotPermitted
	codePipe
	codeReadOnly
	codeInvalidSeek
	codeTextFileBusy
	codeCrossDevice
)

var errnoCodes = map[wasi.Errno]errorCode{
	wasi.EACCES: codeAccess, wasi.EAGAIN: codeWouldBlock, wasi.EALREADY: codeAlready,
	wasi.EBADF: codeBadDescriptor, wasi.EBUSY: codeBusy, wasi.EDEADLK: codeDeadlock,
	wasi.EDQUOT: codeQuota, wasi.EEXIST: codeExist, wasi.EFBIG: codeFileTooLarge,
	wasi.EILSEQ: codeIllegalByteSequence, wasi.EINPROGRESS: codeInProgress, wasi.EINTR: codeInterrupted,
	wasi.EINVAL: codeInvalid, wasi.EIO: codeIO, wasi.EISDIR: codeIsDirectory, wasi.ELOOP: codeLoop,
	wasi.EMLINK: codeTooManyLinks, wasi.EMSGSIZE: codeMessageSize, wasi.ENAMETOOLONG: codeNameTooLong,
	wasi.ENODEV: codeNoDevice, wasi.ENOENT: codeNoEntry, wasi.ENOLCK: codeNoLock,
	wasi.ENOMEM: codeInsufficientMemory, wasi.ENOSPC: codeInsufficientSpace, wasi.ENOTDIR: codeNotDirectory,
	wasi.ENOTEMPTY: codeNotEmpty, wasi.ENOTRECOVERABLE: codeNotRecoverable, wasi.ENOTSUP: codeUnsupported,
	wasi.ENOSYS: codeUnsupported, wasi.ENOTTY: codeNoTTY, wasi.ENXIO: codeNoSuchDevice,
	wasi.EOVERFLOW: codeOverflow, wasi.EPERM: codeNotPermitted, wasi.ENOTCAPABLE: codeNotPermitted,
	wasi.EPIPE: codePipe, wasi.EROFS: codeReadOnly, wasi.ESPIPE: codeInvalidSeek,
	wasi.ETXTBSY: codeTextFileBusy, wasi.EXDEV: codeCrossDevice,
}

// toCode maps an error from package wasi (an Errno, or an error that maps to one) to an
// error-code; what has no better name is io.
func toCode(err error) errorCode {
	if c, ok := errnoCodes[wasi.ToErrno(err)]; ok {
		return c
	}
	return codeIO
}
