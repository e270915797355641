package wasi

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HostDirOptions configure OpenHostDir.
type HostDirOptions struct {
	// ReadOnly refuses every change to the tree with EPERM.
	ReadOnly bool
	// Budget is charged for every byte written to files of the tree. Nil means no total limit,
	// but each write call is still capped at DefaultMaxWriteSize.
	Budget *Budget
	// Lazy defers opening the directory to the Dir's first use (any method but ReadOnly and
	// Close): a preopen the guest never touches then costs one stat instead of an open, a
	// close and a finalizer. OpenHostDir defers only when that stat shows the open will succeed
	// (on Unix: a directory the process owns and may read; elsewhere never), and otherwise
	// opens at once, so that a missing, unreadable or non-directory path fails OpenHostDir with
	// the same error as without Lazy. A directory removed or replaced between OpenHostDir and
	// the first use fails that use with an Errno (the open's error mapped by ToErrno), where an
	// opened directory would have kept the removed one.
	Lazy bool
}

// OpenHostDir opens the host directory path as a Dir. Everything beneath it is reached through
// an os.Root, so neither ".." nor a symbolic link (absolute, or relative and climbing out) can
// reach a file outside path; such attempts fail with EPERM. Special files already present in the
// directory (devices, FIFOs) are not hidden: give guests directories that hold ordinary files.
//
// Closing the returned Dir releases the directory once every File and Dir opened beneath it is
// closed too.
func OpenHostDir(path string, opts HostDirOptions) (Dir, error) {
	b := opts.Budget
	if b == nil {
		b = &Budget{limit: 1<<63 - 1, maxWrite: DefaultMaxWriteSize}
	}
	t := &hostTree{path: path, readOnly: opts.ReadOnly, budget: b}
	t.refs.Store(1)
	d := &hostDir{tree: t, prefix: "."}
	t.top = d
	if opts.Lazy && opensLater(path) {
		return d, nil
	}
	t.once.Do(t.open)
	if t.err != nil {
		return nil, fmt.Errorf("wasi: open host directory: %w", t.err)
	}
	return d, nil
}

// rootEscape holds the error that os.Root reports for a path leaving the root. Go does not export
// it, so it is read once from a real root: asking any root for ".." produces it.
var (
	rootEscapeOnce sync.Once
	rootEscape     atomic.Pointer[error]
)

func noteRootEscape(r *os.Root) {
	rootEscapeOnce.Do(func() {
		_, err := r.Lstat("..")
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Err != nil {
			e := pe.Err
			rootEscape.Store(&e)
		}
	})
}

func isRootEscape(err error) bool {
	p := rootEscape.Load()
	return p != nil && errors.Is(err, *p)
}

// hostTree is one opened host directory and everything opened beneath it; the preopened root stays
// open until the last node of the tree is closed, because renames and links between two
// directories of the tree go through it.
//
// The root is opened by open, under once: at OpenHostDir, or at the first use of a lazy tree's
// top directory. Every reader of root (and of top.root) has gone through once, which orders the
// write before the reads; nodes other than top exist only after the root opened.
type hostTree struct {
	path     string
	top      *hostDir // the directory OpenHostDir returned
	once     sync.Once
	root     *os.Root
	err      error // why root did not open; fs.ErrClosed when the tree closed unopened
	readOnly bool
	budget   *Budget
	refs     atomic.Int32
}

func (t *hostTree) open() {
	root, err := os.OpenRoot(t.path)
	if err != nil {
		t.err = err
		return
	}
	noteRootEscape(root)
	t.root, t.top.root = root, root
}

func (t *hostTree) acquire() { t.refs.Add(1) }

func (t *hostTree) release() error {
	if t.refs.Add(-1) == 0 {
		// A lazy tree closed before its first use is never opened.
		t.once.Do(func() { t.err = fs.ErrClosed })
		if t.root != nil {
			return t.root.Close()
		}
	}
	return nil
}

// ready opens a lazy tree's root if it is not open yet. Every method that reaches the host calls
// it first.
func (d *hostDir) ready() error {
	t := d.tree
	t.once.Do(t.open)
	if t.err != nil {
		return mapErr(t.err)
	}
	return nil
}

// hostDir is a directory of a hostTree. root confines paths to this directory (for a preopen it is
// the tree's root itself); prefix is the directory's path from the tree root when it was opened.
type hostDir struct {
	tree   *hostTree
	root   *os.Root
	prefix string
	closed atomic.Bool
}

func (d *hostDir) ReadOnly() bool { return d.tree.readOnly }

func (d *hostDir) Close() error {
	if d.closed.Swap(true) {
		return EBADF
	}
	var err error
	if d != d.tree.top {
		err = d.root.Close()
	}
	if e := d.tree.release(); err == nil {
		err = e
	}
	return mapErr(err)
}

func (d *hostDir) Stat() (Stat, error) {
	if err := d.ready(); err != nil {
		return Stat{}, err
	}
	fi, err := d.root.Stat(".")
	if err != nil {
		return Stat{}, mapErr(err)
	}
	return toStat(fi), nil
}

func (d *hostDir) Sync() error {
	if err := d.ready(); err != nil {
		return err
	}
	f, err := d.root.Open(".")
	if err != nil {
		return mapErr(err)
	}
	err = f.Sync()
	f.Close()
	return mapErr(err)
}

func (d *hostDir) SetTimes(t Times) error { return d.SetTimesAt(".", true, t) }

func (d *hostDir) ReadDir() (DirReader, error) {
	if err := d.ready(); err != nil {
		return nil, err
	}
	f, err := d.root.Open(".")
	if err != nil {
		return nil, mapErr(err)
	}
	return &hostDirReader{f: f}, nil
}

// check validates path and, when write is set, refuses it on a read-only tree.
func (d *hostDir) check(path string, write bool) (clean string, dirOnly bool, err error) {
	clean, dirOnly, err = CheckPath(path)
	if err != nil {
		return "", false, err
	}
	if write && d.tree.readOnly {
		return "", false, EPERM
	}
	return clean, dirOnly, nil
}

func (d *hostDir) OpenAt(path string, f OpenFlags) (Node, error) {
	_, dirOnly, err := d.check(path, f.mutates())
	if err != nil {
		return nil, err
	}
	if f.Create && f.Directory {
		return nil, EINVAL
	}
	if err := d.ready(); err != nil {
		return nil, err
	}
	if f.NoFollow {
		if fi, err := d.root.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if f.Create && f.Exclusive {
				return nil, EEXIST
			}
			return nil, ELOOP
		}
	}
	fi, statErr := d.root.Stat(path)
	switch {
	case statErr == nil && fi.IsDir():
		if f.Create && f.Exclusive {
			return nil, EEXIST
		}
		if f.mutates() {
			return nil, EISDIR
		}
		sub, err := d.root.OpenRoot(path)
		if err != nil {
			return nil, mapErr(err)
		}
		clean, _, _ := CheckPath(path)
		d.tree.acquire()
		return &hostDir{tree: d.tree, root: sub, prefix: JoinPath(d.prefix, clean)}, nil
	case statErr == nil && (f.Directory || dirOnly):
		return nil, ENOTDIR
	case statErr != nil && !f.Create:
		return nil, mapErr(statErr)
	case statErr != nil && dirOnly:
		// POSIX: O_CREAT on "name/" cannot create a regular file.
		return nil, EISDIR
	}
	flag := os.O_RDONLY
	readable := f.Read || !f.Write
	switch {
	case f.Write && readable:
		flag = os.O_RDWR
	case f.Write:
		flag = os.O_WRONLY
	}
	if f.Create {
		flag |= os.O_CREATE
	}
	if f.Exclusive {
		flag |= os.O_EXCL
	}
	if f.Truncate {
		flag |= os.O_TRUNC
	}
	file, err := d.root.OpenFile(path, flag, 0o666)
	if err != nil {
		return nil, mapErr(err)
	}
	clean, _, _ := CheckPath(path)
	d.tree.acquire()
	return &hostFile{tree: d.tree, f: file, path: JoinPath(d.prefix, clean), readable: readable, writable: f.Write}, nil
}

func (d *hostDir) StatAt(path string, follow bool) (Stat, error) {
	if _, _, err := d.check(path, false); err != nil {
		return Stat{}, err
	}
	if err := d.ready(); err != nil {
		return Stat{}, err
	}
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = d.root.Stat(path)
	} else {
		fi, err = d.root.Lstat(path)
	}
	if err != nil {
		return Stat{}, mapErr(err)
	}
	return toStat(fi), nil
}

func (d *hostDir) MkdirAt(path string) error {
	clean, _, err := d.check(path, true)
	if err != nil {
		return err
	}
	if clean == "." {
		return EEXIST
	}
	if err := d.ready(); err != nil {
		return err
	}
	return mapErr(d.root.Mkdir(path, 0o777))
}

func (d *hostDir) UnlinkAt(path string) error {
	clean, dirOnly, err := d.check(path, true)
	if err != nil {
		return err
	}
	if err := d.ready(); err != nil {
		return err
	}
	fi, err := d.root.Lstat(path)
	switch {
	case err != nil:
		return mapErr(err)
	case fi.IsDir() || clean == ".":
		return EISDIR
	case dirOnly:
		return ENOTDIR
	}
	return mapErr(d.root.Remove(path))
}

func (d *hostDir) RmdirAt(path string) error {
	clean, _, err := d.check(path, true)
	if err != nil {
		return err
	}
	if clean == "." {
		return EINVAL
	}
	if err := d.ready(); err != nil {
		return err
	}
	fi, err := d.root.Lstat(path)
	switch {
	case err != nil:
		return mapErr(err)
	case !fi.IsDir():
		return ENOTDIR
	}
	return mapErr(d.root.Remove(path))
}

// peer returns other as a directory of the same tree as d, or EXDEV.
func (d *hostDir) peer(other Dir) (*hostDir, error) {
	o, ok := other.(*hostDir)
	if !ok || o.tree != d.tree {
		return nil, EXDEV
	}
	if o.closed.Load() {
		return nil, EBADF
	}
	return o, nil
}

func (d *hostDir) RenameAt(oldPath string, newDir Dir, newPath string) error {
	oldClean, _, err := d.check(oldPath, true)
	if err != nil {
		return err
	}
	nd, err := d.peer(newDir)
	if err != nil {
		return err
	}
	newClean, _, err := nd.check(newPath, true)
	if err != nil {
		return err
	}
	if oldClean == "." || newClean == "." {
		return EBUSY
	}
	if err := d.ready(); err != nil {
		return err
	}
	if err := d.checkMovedLink(oldClean, nd, newClean); err != nil {
		return err
	}
	if nd == d {
		return renameIn(d.root, oldPath, newPath)
	}
	return renameIn(d.tree.root, JoinPath(d.prefix, oldClean), JoinPath(nd.prefix, newClean))
}

// renameIn renames within root with POSIX's answer when the target is an existing directory,
// which os.Root.Rename refuses outright (EEXIST, as Go does on every platform): a directory
// replaces an empty directory, a non-empty one is ENOTEMPTY, a file over a directory EISDIR,
// and renaming an entry onto itself does nothing. The replacement removes the empty target
// and then renames, so it is not atomic as renameat(2) is; between the two a concurrent
// creation of the target makes the rename fail rather than lose data.
func renameIn(root *os.Root, from, to string) error {
	err := root.Rename(from, to)
	if err == nil {
		return nil
	}
	tfi, terr := root.Lstat(to)
	if terr != nil || !tfi.IsDir() {
		return mapErr(err)
	}
	ffi, ferr := root.Lstat(from)
	if ferr != nil {
		return mapErr(ferr)
	}
	if os.SameFile(ffi, tfi) {
		return nil
	}
	if !ffi.IsDir() {
		return EISDIR
	}
	dir, oerr := root.Open(to)
	if oerr != nil {
		return mapErr(oerr)
	}
	names, _ := dir.Readdirnames(1)
	dir.Close()
	if len(names) > 0 {
		return ENOTEMPTY
	}
	if err := root.Remove(to); err != nil {
		return mapErr(err)
	}
	return mapErr(root.Rename(from, to))
}

func (d *hostDir) LinkAt(oldPath string, follow bool, newDir Dir, newPath string) error {
	oldClean, _, err := d.check(oldPath, true)
	if err != nil {
		return err
	}
	nd, err := d.peer(newDir)
	if err != nil {
		return err
	}
	newClean, _, err := nd.check(newPath, true)
	if err != nil {
		return err
	}
	if follow {
		return EINVAL
	}
	if err := d.ready(); err != nil {
		return err
	}
	if err := d.checkMovedLink(oldClean, nd, newClean); err != nil {
		return err
	}
	if nd == d {
		return mapErr(d.root.Link(oldPath, newPath))
	}
	return mapErr(d.tree.root.Link(JoinPath(d.prefix, oldClean), JoinPath(nd.prefix, newClean)))
}

func (d *hostDir) SymlinkAt(target, path string) error {
	clean, _, err := d.check(path, true)
	if err != nil {
		return err
	}
	if clean == "." {
		return EEXIST
	}
	if err := d.ready(); err != nil {
		return err
	}
	if err := d.checkSymlinkTarget(clean, target); err != nil {
		return err
	}
	return mapErr(d.root.Symlink(target, path))
}

// checkMovedLink refuses to rename or hard-link a symbolic link to where its relative target
// would lead out of the tree although it stays inside where it is: "d/l -> ../f" moved to the
// top would point outside on the host, which SymlinkAt never lets a guest create. (Links the
// host made that already point out may move. A directory moved with such links inside is not
// inspected: that would mean walking it.)
func (d *hostDir) checkMovedLink(oldClean string, nd *hostDir, newClean string) error {
	fi, err := d.root.Lstat(oldClean)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // the rename or link itself reports a missing source
	}
	target, err := d.root.Readlink(oldClean)
	if err != nil {
		return mapErr(err)
	}
	if d.checkSymlinkTarget(oldClean, target) == nil && nd.checkSymlinkTarget(newClean, target) != nil {
		return EPERM
	}
	return nil
}

// checkSymlinkTarget refuses a link whose target could lead out of the tree. The lexical check
// of CheckSymlink needs the link's real depth in the tree, so when the target climbs with ".."
// the directory holding the link must be reached from the tree root without symbolic links, and
// d must still be where it was opened.
func (d *hostDir) checkSymlinkTarget(clean, target string) error {
	linkDir, _ := splitDir(JoinPath(d.prefix, clean))
	if err := CheckSymlink(linkDir, target); err != nil {
		return err
	}
	if !hasDotDot(target) || linkDir == "." {
		return nil
	}
	if d.prefix != "." {
		here, err1 := d.root.Stat(".")
		there, err2 := d.tree.root.Lstat(d.prefix)
		if err1 != nil || err2 != nil || !os.SameFile(here, there) {
			return EPERM
		}
	}
	walked := ""
	for c := range strings.SplitSeq(linkDir, "/") {
		walked = JoinPath(walked, c)
		fi, err := d.tree.root.Lstat(walked)
		if err != nil {
			return mapErr(err)
		}
		if !fi.IsDir() {
			return EPERM
		}
	}
	return nil
}

func hasDotDot(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

func (d *hostDir) ReadlinkAt(path string) (string, error) {
	if _, _, err := d.check(path, false); err != nil {
		return "", err
	}
	if err := d.ready(); err != nil {
		return "", err
	}
	s, err := d.root.Readlink(path)
	if err != nil {
		return "", mapErr(err)
	}
	return s, nil
}

func (d *hostDir) SetTimesAt(path string, follow bool, t Times) error {
	if _, _, err := d.check(path, true); err != nil {
		return err
	}
	if err := d.ready(); err != nil {
		return err
	}
	if !follow {
		fi, err := d.root.Lstat(path)
		if err != nil {
			return mapErr(err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return ENOTSUP
		}
	}
	return mapErr(chtimes(d.root, path, t))
}

func chtimes(r *os.Root, path string, t Times) error {
	var at, mt time.Time // zero leaves the time unchanged
	if t.SetAtime {
		at = t.Atime
	}
	if t.SetMtime {
		mt = t.Mtime
	}
	if !t.SetAtime && !t.SetMtime {
		_, err := r.Lstat(path)
		return err
	}
	return r.Chtimes(path, at, mt)
}

// hostFile is a regular (or special) file of a hostTree. path locates it from the tree root for
// SetTimes, which Go offers only by name: if the file was renamed since it was opened, SetTimes
// reaches whatever now has that name, still inside the tree.
type hostFile struct {
	tree     *hostTree
	f        *os.File
	path     string
	readable bool
	writable bool
	// seeked is set after Seek: the next write at the current offset may start past the end of
	// the file, and the gap counts against the budget.
	seeked bool
	closed bool
}

func (f *hostFile) Readable() bool { return f.readable }
func (f *hostFile) Writable() bool { return f.writable }

func (f *hostFile) Close() error {
	if f.closed {
		return EBADF
	}
	f.closed = true
	err := f.f.Close()
	if e := f.tree.release(); err == nil {
		err = e
	}
	return mapErr(err)
}

func (f *hostFile) Stat() (Stat, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return Stat{}, mapErr(err)
	}
	return toStat(fi), nil
}

func (f *hostFile) Sync() error { return mapErr(f.f.Sync()) }

func (f *hostFile) SetTimes(t Times) error {
	if f.tree.readOnly {
		return EPERM
	}
	return mapErr(chtimes(f.tree.root, f.path, t))
}

func (f *hostFile) Readv(bufs [][]byte, off int64) (int, error) {
	if !f.readable {
		return 0, EBADF
	}
	total := 0
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		var n int
		var err error
		if off < 0 {
			n, err = f.f.Read(b)
		} else {
			n, err = f.f.ReadAt(b, off+int64(total))
		}
		total += n
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			if total > 0 {
				return total, nil
			}
			return 0, mapErr(err)
		}
		if n < len(b) {
			break
		}
	}
	return total, nil
}

func (f *hostFile) Writev(bufs [][]byte, off int64) (int, error) {
	if !f.writable {
		return 0, EBADF
	}
	var total int64
	for _, b := range bufs {
		total += int64(len(b))
	}
	if total == 0 {
		return 0, nil
	}
	start := off
	if start < 0 && f.seeked {
		pos, err := f.f.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, mapErr(err)
		}
		start = pos
	}
	charge := total
	if start >= 0 {
		fi, err := f.f.Stat()
		if err != nil {
			return 0, mapErr(err)
		}
		if gap := start - fi.Size(); gap > 0 {
			charge += gap
		}
	}
	if err := f.tree.budget.Charge(charge); err != nil {
		return 0, err
	}
	f.seeked = false
	var done int64
	var werr error
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		var n int
		if off < 0 {
			n, werr = f.f.Write(b)
		} else {
			n, werr = f.f.WriteAt(b, off+done)
		}
		done += int64(n)
		if werr != nil || n < len(b) {
			break
		}
	}
	f.tree.budget.Refund(total - done)
	if werr != nil && done == 0 {
		return 0, mapErr(werr)
	}
	return int(done), nil
}

func (f *hostFile) Seek(offset int64, whence int) (int64, error) {
	n, err := f.f.Seek(offset, whence)
	if err != nil {
		return 0, mapErr(err)
	}
	f.seeked = true
	return n, nil
}

func (f *hostFile) Truncate(size int64) error {
	if !f.writable {
		return EBADF
	}
	if size < 0 {
		return EINVAL
	}
	fi, err := f.f.Stat()
	if err != nil {
		return mapErr(err)
	}
	if grow := size - fi.Size(); grow > 0 {
		if err := f.tree.budget.Charge(grow); err != nil {
			return err
		}
	}
	// The offset may now lie past the end; the next write must charge the gap.
	f.seeked = true
	return mapErr(f.f.Truncate(size))
}

// hostDirReader lists a host directory in batches, so a huge directory never sits in memory whole.
type hostDirReader struct {
	f     *os.File
	batch []os.DirEntry
	done  bool
}

const dirBatch = 64

func (r *hostDirReader) Next() (DirEntry, error) {
	for len(r.batch) == 0 {
		if r.done {
			return DirEntry{}, io.EOF
		}
		b, err := r.f.ReadDir(dirBatch)
		if err == io.EOF || (err == nil && len(b) == 0) {
			r.done = true
			continue
		}
		if err != nil && len(b) == 0 {
			return DirEntry{}, mapErr(err)
		}
		r.batch = b
	}
	e := r.batch[0]
	r.batch = r.batch[1:]
	de := DirEntry{Name: e.Name(), Type: FiletypeOf(e.Type())}
	if fi, err := e.Info(); err == nil {
		de.Ino = toStat(fi).Ino
	}
	return de, nil
}

func (r *hostDirReader) Close() error { return mapErr(r.f.Close()) }

// mapErr turns a host error into an Errno, keeping nil.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	return ToErrno(err)
}

func toStat(fi fs.FileInfo) Stat {
	st := Stat{
		Type:  FiletypeOf(fi.Mode()),
		Nlink: 1,
		Mtime: fi.ModTime(),
	}
	if s := fi.Size(); s > 0 {
		st.Size = uint64(s)
	}
	st.Atime, st.Ctime = st.Mtime, st.Mtime
	sysStat(fi, &st)
	return st
}
