package preview1

import (
	"context"
	"errors"
	"io"
	"math"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// The fd_* functions. Errors follow POSIX where it is clear and wasmtime where POSIX leaves a
// choice: positional or seek operations on stdio are ESPIPE; file operations on a directory are
// EISDIR for reads and EBADF otherwise; writing a descriptor opened without write access is EBADF.

func (h *Host) entry(fd uint32) (*fdEntry, wasi.Errno) {
	e := h.fds.get(fd)
	if e == nil {
		return nil, wasi.EBADF
	}
	return e, wasi.ESUCCESS
}

func errnoOf(err error) wasi.Errno { return wasi.ToErrno(err) }

const (
	adviceMax = 5 // normal, sequential, random, willneed, dontneed, noreuse
)

// fd_advise(fd, offset, len, advice): advice is only a hint, so it is checked and ignored.
func fdAdvise(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	if u32(s[3]) > adviceMax {
		return wasi.EINVAL
	}
	switch e.kind {
	case kindFile:
		return wasi.ESUCCESS
	case kindDir:
		return wasi.EBADF
	}
	return wasi.ESPIPE
}

// fd_allocate is not supported (ABI 1): a guest must not reserve disk space past its write budget.
func fdAllocate(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	if _, errno := h.entry(u32(s[0])); errno != 0 {
		return errno
	}
	return wasi.ENOTSUP
}

func fdClose(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e := h.fds.remove(u32(s[0]))
	if e == nil {
		return wasi.EBADF
	}
	if err := e.close(); err != nil {
		return errnoOf(err)
	}
	return wasi.ESUCCESS
}

func fdDatasync(ctx context.Context, h *Host, c *engine.Caller, g mem, s []uint64) wasi.Errno {
	return fdSync(ctx, h, c, g, s)
}

// fd_sync and fd_datasync flush a file or directory; on stdio, whose writes are already handed
// to the writer, they succeed.
func fdSync(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	switch e.kind {
	case kindFile:
		return errnoOf(e.file.Sync())
	case kindDir:
		return errnoOf(e.dir.Sync())
	}
	return wasi.ESUCCESS
}

// fd_fdstat_get(fd, buf) writes a 24-byte fdstat.
func fdFdstatGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	b, errno := g.read(u32(s[1]), 24)
	if errno != 0 {
		return errno
	}
	clear(b)
	b[0] = byte(e.filetype())
	put16(b[2:], e.fdflags)
	put64(b[8:], e.rights)
	put64(b[16:], e.inheriting)
	return wasi.ESUCCESS
}

// fd_fdstat_set_flags(fd, flags) sets APPEND and NONBLOCK. The synchronized-I/O flags can be
// asked for at open but not changed later (ENOTSUP), as in wasmtime.
func fdFdstatSetFlags(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	raw := u32(s[1])
	if raw > math.MaxUint16 || uint16(raw)&^fdflagsAll != 0 {
		return wasi.EINVAL
	}
	flags := uint16(raw)
	if (flags^e.fdflags)&fdflagsSyncs != 0 {
		return wasi.ENOTSUP
	}
	e.fdflags = flags
	return wasi.ESUCCESS
}

// fd_fdstat_set_rights(fd, base, inheriting) can only drop rights (ENOTCAPABLE otherwise).
func fdFdstatSetRights(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	base, inh := s[1], s[2]
	if base&^e.rights != 0 || inh&^e.inheriting != 0 {
		return wasi.ENOTCAPABLE
	}
	e.rights, e.inheriting = base, inh
	return wasi.ESUCCESS
}

func (e *fdEntry) stat() (wasi.Stat, wasi.Errno) {
	var st wasi.Stat
	var err error
	switch e.kind {
	case kindFile:
		st, err = e.file.Stat()
	case kindDir:
		st, err = e.dir.Stat()
	default:
		st.Type = wasi.FiletypeCharacterDevice
	}
	if err != nil {
		return st, errnoOf(err)
	}
	return st, wasi.ESUCCESS
}

// putFilestat writes a 64-byte filestat.
func putFilestat(b []byte, st wasi.Stat) {
	clear(b[:64])
	put64(b[0:], st.Dev)
	put64(b[8:], st.Ino)
	b[16] = byte(st.Type)
	put64(b[24:], st.Nlink)
	put64(b[32:], st.Size)
	put64(b[40:], unixNanos(st.Atime))
	put64(b[48:], unixNanos(st.Mtime))
	put64(b[56:], unixNanos(st.Ctime))
}

func fdFilestatGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	b, errno := g.read(u32(s[1]), 64)
	if errno != 0 {
		return errno
	}
	st, errno := e.stat()
	if errno != 0 {
		return errno
	}
	putFilestat(b, st)
	return wasi.ESUCCESS
}

// fd_filestat_set_size(fd, size) truncates or extends a file; growth counts against the write
// budget.
func fdFilestatSetSize(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	if e.kind != kindFile {
		if e.kind == kindDir {
			return wasi.EISDIR
		}
		return wasi.EINVAL
	}
	if s[1] > math.MaxInt64 {
		return wasi.EFBIG
	}
	if e.rights&rightFdWrite == 0 {
		return wasi.EBADF
	}
	return errnoOf(e.file.Truncate(int64(s[1])))
}

// fstflags.
const (
	fstAtim    = 1 << 0
	fstAtimNow = 1 << 1
	fstMtim    = 1 << 2
	fstMtimNow = 1 << 3
)

// times decodes fd_filestat_set_times / path_filestat_set_times arguments; "now" is the Host's
// clock, so a fake clock stays consistent.
func (h *Host) times(atim, mtim uint64, flags uint32) (wasi.Times, wasi.Errno) {
	if flags&^0xf != 0 || flags&(fstAtim|fstAtimNow) == fstAtim|fstAtimNow ||
		flags&(fstMtim|fstMtimNow) == fstMtim|fstMtimNow {
		return wasi.Times{}, wasi.EINVAL
	}
	var t wasi.Times
	var now time.Time
	if flags&(fstAtimNow|fstMtimNow) != 0 {
		now = h.clock.Now()
	}
	switch {
	case flags&fstAtimNow != 0:
		t.SetAtime, t.Atime = true, now
	case flags&fstAtim != 0:
		if atim > math.MaxInt64 {
			return wasi.Times{}, wasi.EINVAL
		}
		t.SetAtime, t.Atime = true, time.Unix(0, int64(atim))
	}
	switch {
	case flags&fstMtimNow != 0:
		t.SetMtime, t.Mtime = true, now
	case flags&fstMtim != 0:
		if mtim > math.MaxInt64 {
			return wasi.Times{}, wasi.EINVAL
		}
		t.SetMtime, t.Mtime = true, time.Unix(0, int64(mtim))
	}
	return t, wasi.ESUCCESS
}

func fdFilestatSetTimes(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	t, errno := h.times(s[1], s[2], u32(s[3]))
	if errno != 0 {
		return errno
	}
	switch e.kind {
	case kindFile:
		return errnoOf(e.file.SetTimes(t))
	case kindDir:
		return errnoOf(e.dir.SetTimes(t))
	}
	return wasi.EBADF
}

// fd_prestat_get(fd, buf): wasi-libc and Go probe descriptors 3, 4, … until EBADF, so every
// descriptor that is not a preopened directory answers EBADF.
func fdPrestatGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e := h.fds.get(u32(s[0]))
	if e == nil || !e.isPreopen {
		return wasi.EBADF
	}
	b, errno := g.read(u32(s[1]), 8)
	if errno != 0 {
		return errno
	}
	clear(b)
	put32(b[4:], uint32(len(e.preopen)))
	return wasi.ESUCCESS
}

// fd_prestat_dir_name(fd, path, len) copies the preopen's name, without a NUL; a buffer shorter
// than the name is ENAMETOOLONG.
func fdPrestatDirName(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e := h.fds.get(u32(s[0]))
	if e == nil || !e.isPreopen {
		return wasi.EBADF
	}
	if uint64(u32(s[2])) < uint64(len(e.preopen)) {
		return wasi.ENAMETOOLONG
	}
	b, errno := g.read(u32(s[1]), uint32(len(e.preopen)))
	if errno != 0 {
		return errno
	}
	copy(b, e.preopen)
	return wasi.ESUCCESS
}

func fdRead(ctx context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return h.readv(ctx, g, u32(s[0]), u32(s[1]), u32(s[2]), -1, u32(s[3]))
}

func fdPread(ctx context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	if s[3] > math.MaxInt64 {
		return wasi.EINVAL
	}
	return h.readv(ctx, g, u32(s[0]), u32(s[1]), u32(s[2]), int64(s[3]), u32(s[4]))
}

// readv implements fd_read (off < 0) and fd_pread.
func (h *Host) readv(ctx context.Context, g mem, fd, iovs, count uint32, off int64, nreadPtr uint32) wasi.Errno {
	e, errno := h.entry(fd)
	if errno != 0 {
		return errno
	}
	if errno := g.check(nreadPtr, 4); errno != 0 {
		return errno
	}
	bufs, _, errno := g.iovecs(iovs, count, h.iov)
	if errno != 0 {
		return errno
	}
	h.iov = bufs[:0]
	defer clear(bufs) // drop the views: they pin guest memory
	var n int
	switch e.kind {
	case kindStdin:
		if off >= 0 {
			return wasi.ESPIPE
		}
		n, errno = h.readStdin(ctx, bufs, e.fdflags&fdflagNonblock != 0)
	case kindFile:
		if e.rights&rightFdRead == 0 {
			return wasi.EBADF
		}
		var err error
		n, err = e.file.Readv(bufs, off)
		errno = errnoOf(err)
	case kindDir:
		return wasi.EISDIR
	default:
		if off >= 0 {
			return wasi.ESPIPE
		}
		return wasi.EBADF
	}
	if errno != 0 {
		return errno
	}
	return g.putU32(nreadPtr, uint32(n))
}

// readStdin fills bufs from stdin, waiting (until ctx ends) only for the first byte; a stuck
// reader is abandoned (see wasi.Input). A call whose context ends returns EINTR, and the engine
// reports the deadline.
func (h *Host) readStdin(ctx context.Context, bufs [][]byte, nonblock bool) (int, wasi.Errno) {
	total := 0
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		n, err := h.stdin.Read(ctx, b, !nonblock && total == 0)
		total += n
		if err != nil {
			if total > 0 {
				break // the error is sticky: it is reported by the next read
			}
			switch {
			case err == io.EOF:
				return 0, wasi.ESUCCESS
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
				return 0, wasi.EINTR
			case errors.As(err, new(wasi.Errno)):
				return 0, errnoOf(err)
			}
			return 0, wasi.EIO
		}
		if n < len(b) {
			break
		}
	}
	return total, wasi.ESUCCESS
}

func fdWrite(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return h.writev(g, u32(s[0]), u32(s[1]), u32(s[2]), -1, u32(s[3]))
}

func fdPwrite(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	if s[3] > math.MaxInt64 {
		return wasi.EINVAL
	}
	return h.writev(g, u32(s[0]), u32(s[1]), u32(s[2]), int64(s[3]), u32(s[4]))
}

// writev implements fd_write (off < 0) and fd_pwrite. File writes are charged to the write
// budget as a whole before anything is written (wasi.File.Writev): over the per-call cap or the
// remaining budget, the call fails with EDQUOT and writes nothing. Writes to stdout and stderr
// are not charged.
func (h *Host) writev(g mem, fd, iovs, count uint32, off int64, nwrittenPtr uint32) wasi.Errno {
	e, errno := h.entry(fd)
	if errno != 0 {
		return errno
	}
	if errno := g.check(nwrittenPtr, 4); errno != 0 {
		return errno
	}
	bufs, _, errno := g.iovecs(iovs, count, h.iov)
	if errno != 0 {
		return errno
	}
	h.iov = bufs[:0]
	defer clear(bufs)
	var n int
	switch e.kind {
	case kindWriter:
		if off >= 0 {
			return wasi.ESPIPE
		}
		for _, b := range bufs {
			if len(b) == 0 {
				continue
			}
			k, err := e.w.Write(b)
			n += k
			if err != nil {
				if n == 0 {
					return wasi.EIO
				}
				break
			}
		}
	case kindFile:
		if e.rights&rightFdWrite == 0 {
			return wasi.EBADF
		}
		if off < 0 && e.fdflags&fdflagAppend != 0 {
			// APPEND is kept per descriptor (fd_fdstat_set_flags may change it), so the file
			// itself is not opened in append mode: move to its end before each write.
			if _, err := e.file.Seek(0, io.SeekEnd); err != nil {
				return errnoOf(err)
			}
		}
		var err error
		if n, err = e.file.Writev(bufs, off); err != nil {
			return errnoOf(err)
		}
	case kindStdin:
		if off >= 0 {
			return wasi.ESPIPE
		}
		return wasi.EBADF
	default:
		return wasi.EBADF
	}
	return g.putU32(nwrittenPtr, uint32(n))
}

// fd_renumber(from, to) moves from onto to, closing what to held; both must be open.
func fdRenumber(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	from, to := u32(s[0]), u32(s[1])
	ef, et := h.fds.get(from), h.fds.get(to)
	if ef == nil || et == nil {
		return wasi.EBADF
	}
	if from == to {
		return wasi.ESUCCESS
	}
	et.close()
	h.fds.entries[to] = ef
	h.fds.entries[from] = nil
	return wasi.ESUCCESS
}

// fd_seek(fd, offset, whence, newoffset).
func fdSeek(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	whence := u32(s[2])
	if whence > io.SeekEnd {
		return wasi.EINVAL
	}
	return h.seek(e, g, int64(s[1]), int(whence), u32(s[3]))
}

func fdTell(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	return h.seek(e, g, 0, io.SeekCurrent, u32(s[1]))
}

func (h *Host) seek(e *fdEntry, g mem, off int64, whence int, resultPtr uint32) wasi.Errno {
	if errno := g.check(resultPtr, 8); errno != 0 {
		return errno
	}
	switch e.kind {
	case kindFile:
	case kindDir:
		return wasi.EBADF
	default:
		return wasi.ESPIPE
	}
	pos, err := e.file.Seek(off, whence)
	if err != nil {
		return errnoOf(err)
	}
	return g.putU64(resultPtr, uint64(pos))
}
