package preview1

import (
	"context"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// The path_* functions resolve a guest path against a directory descriptor through wasi.Dir, which
// enforces the sandbox: an absolute path or one that leaves the directory (by ".." or a symbolic
// link) is EPERM, and so is any change to a read-only preopen.

const lookupSymlinkFollow = 1

// dirArg returns the directory behind fd: EBADF when fd is not open, ENOTDIR when it is not a
// directory.
func (h *Host) dirArg(fd uint32) (*fdEntry, wasi.Errno) {
	e, errno := h.entry(fd)
	if errno != 0 {
		return nil, errno
	}
	if e.kind != kindDir {
		return nil, wasi.ENOTDIR
	}
	return e, wasi.ESUCCESS
}

// dirPath decodes the common (fd, path, path_len) arguments.
func (h *Host) dirPath(g mem, fd, p, n uint32) (wasi.Dir, string, wasi.Errno) {
	e, errno := h.dirArg(fd)
	if errno != 0 {
		return nil, "", errno
	}
	path, errno := g.path(p, n)
	if errno != 0 {
		return nil, "", errno
	}
	return e.dir, path, wasi.ESUCCESS
}

func pathCreateDirectory(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	return errnoOf(d.MkdirAt(path))
}

// path_filestat_get(fd, flags, path, path_len, buf).
func pathFilestatGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[2]), u32(s[3]))
	if errno != 0 {
		return errno
	}
	b, errno := g.read(u32(s[4]), 64)
	if errno != 0 {
		return errno
	}
	st, err := d.StatAt(path, u32(s[1])&lookupSymlinkFollow != 0)
	if err != nil {
		return errnoOf(err)
	}
	putFilestat(b, st)
	return wasi.ESUCCESS
}

// path_filestat_set_times(fd, flags, path, path_len, atim, mtim, fst_flags).
func pathFilestatSetTimes(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[2]), u32(s[3]))
	if errno != 0 {
		return errno
	}
	t, errno := h.times(s[4], s[5], u32(s[6]))
	if errno != 0 {
		return errno
	}
	return errnoOf(d.SetTimesAt(path, u32(s[1])&lookupSymlinkFollow != 0, t))
}

// path_link(old_fd, old_flags, old_path, old_len, new_fd, new_path, new_len).
func pathLink(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	od, oldPath, errno := h.dirPath(g, u32(s[0]), u32(s[2]), u32(s[3]))
	if errno != 0 {
		return errno
	}
	nd, newPath, errno := h.dirPath(g, u32(s[4]), u32(s[5]), u32(s[6]))
	if errno != 0 {
		return errno
	}
	return errnoOf(od.LinkAt(oldPath, u32(s[1])&lookupSymlinkFollow != 0, nd, newPath))
}

// oflags.
const (
	oflagCreat     = 1 << 0
	oflagDirectory = 1 << 1
	oflagExcl      = 1 << 2
	oflagTrunc     = 1 << 3
)

// path_open(fd, dirflags, path, path_len, oflags, rights_base, rights_inheriting, fdflags, fd_out).
//
// Access follows the requested rights, as wasmtime does: FD_READ or FD_READDIR asks for reading,
// FD_WRITE for writing. The new descriptor's rights are the requested ones limited to what its kind
// can do and to the directory's inheriting rights. A directory may be opened without
// OFLAG_DIRECTORY when no write access is asked for.
func pathOpen(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	de, errno := h.dirArg(u32(s[0]))
	if errno != 0 {
		return errno
	}
	path, errno := g.path(u32(s[2]), u32(s[3]))
	if errno != 0 {
		return errno
	}
	oflags, base, inheriting, rawFlags, fdPtr := u32(s[4]), s[5], s[6], u32(s[7]), u32(s[8])
	if oflags&^0xf != 0 || rawFlags > 0xffff || uint16(rawFlags)&^fdflagsAll != 0 {
		return wasi.EINVAL
	}
	fdflags := uint16(rawFlags)
	if errno := g.check(fdPtr, 4); errno != 0 {
		return errno
	}
	if !h.fds.hasRoom() {
		return wasi.EMFILE
	}
	write := base&rightFdWrite != 0
	flags := wasi.OpenFlags{
		Read:      base&(rightFdRead|rightFdReaddir) != 0,
		Write:     write,
		Create:    oflags&oflagCreat != 0,
		Exclusive: oflags&oflagExcl != 0,
		Truncate:  oflags&oflagTrunc != 0,
		Directory: oflags&oflagDirectory != 0,
		NoFollow:  u32(s[1])&lookupSymlinkFollow == 0,
	}
	node, err := de.dir.OpenAt(path, flags)
	if err != nil {
		return errnoOf(err)
	}
	allowed := base & de.inheriting
	var ne *fdEntry
	switch n := node.(type) {
	case wasi.Dir:
		ne = &fdEntry{kind: kindDir, dir: n, fdflags: fdflags,
			rights: allowed & dirRights, inheriting: inheriting & de.inheriting}
	case wasi.File:
		r := allowed & fileRights
		if !n.Writable() {
			r &^= fileWriteRights
		}
		if !n.Readable() {
			r &^= rightFdRead
		}
		ne = &fdEntry{kind: kindFile, file: n, fdflags: fdflags, rights: r}
	default:
		node.Close()
		return wasi.EIO
	}
	fd, errno := h.fds.add(ne)
	if errno != 0 {
		ne.close()
		return errno
	}
	return g.putU32(fdPtr, fd)
}

// path_readlink(fd, path, path_len, buf, buf_len, bufused) copies the link, cut to buf_len as
// POSIX readlink does.
func pathReadlink(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	buf, errno := g.read(u32(s[3]), u32(s[4]))
	if errno != 0 {
		return errno
	}
	usedPtr := u32(s[5])
	if errno := g.check(usedPtr, 4); errno != 0 {
		return errno
	}
	target, err := d.ReadlinkAt(path)
	if err != nil {
		return errnoOf(err)
	}
	return g.putU32(usedPtr, uint32(copy(buf, target)))
}

func pathRemoveDirectory(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	return errnoOf(d.RmdirAt(path))
}

// path_rename(fd, old_path, old_len, new_fd, new_path, new_len): both directories must belong to
// the same preopen (EXDEV otherwise).
func pathRename(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	od, oldPath, errno := h.dirPath(g, u32(s[0]), u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	nd, newPath, errno := h.dirPath(g, u32(s[3]), u32(s[4]), u32(s[5]))
	if errno != 0 {
		return errno
	}
	return errnoOf(od.RenameAt(oldPath, nd, newPath))
}

// path_symlink(old_path, old_len, fd, new_path, new_len): the link's contents must be relative and
// stay inside the preopen (see wasi.CheckSymlink), or the call is EPERM.
func pathSymlink(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	target, errno := g.path(u32(s[0]), u32(s[1]))
	if errno != 0 {
		return errno
	}
	d, path, errno := h.dirPath(g, u32(s[2]), u32(s[3]), u32(s[4]))
	if errno != 0 {
		return errno
	}
	return errnoOf(d.SymlinkAt(target, path))
}

func pathUnlinkFile(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	d, path, errno := h.dirPath(g, u32(s[0]), u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	return errnoOf(d.UnlinkAt(path))
}
