package wasi

import (
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"sync/atomic"
)

// fsDevCounter gives every FSDir tree its own device number, so that inode numbers (hashes of the
// path) of two trees never look like the same file.
var fsDevCounter atomic.Uint64

// NewFSDir returns a read-only Dir over fsys. Every change fails with EPERM. Paths are resolved
// lexically and handed to fsys as fs.ValidPath names, so ".." never reaches it; what a name means
// beyond that (symbolic links included) is up to fsys. os.DirFS follows symbolic links out of its
// directory: for a host directory use OpenHostDir with ReadOnly instead.
//
// Symbolic links are visible only when fsys implements fs.ReadLinkFS. Inode numbers are a hash of
// the path; link counts are 1; access and change times equal the modification time.
func NewFSDir(fsys fs.FS) Dir {
	return &fsDir{fsys: fsys, name: ".", dev: 1<<32 | fsDevCounter.Add(1)}
}

type fsDir struct {
	fsys   fs.FS
	name   string
	dev    uint64
	closed atomic.Bool
}

func (d *fsDir) ReadOnly() bool { return true }

func (d *fsDir) Close() error {
	if d.closed.Swap(true) {
		return EBADF
	}
	return nil
}

func (d *fsDir) Stat() (Stat, error) { return d.statName(d.name, true) }

func (d *fsDir) Sync() error { return nil }

func (d *fsDir) SetTimes(Times) error { return EPERM }

func (d *fsDir) ReadDir() (DirReader, error) {
	f, err := d.fsys.Open(d.name)
	if err != nil {
		return nil, mapErr(err)
	}
	if rd, ok := f.(fs.ReadDirFile); ok {
		return &fsDirReader{d: d, f: f, rd: rd}, nil
	}
	f.Close()
	// Without ReadDirFile, fs.ReadDir may still work through fs.ReadDirFS.
	list, err := fs.ReadDir(d.fsys, d.name)
	if err != nil {
		return nil, mapErr(err)
	}
	return &fsDirReader{d: d, batch: list, done: true}, nil
}

// resolve validates path, refusing any change, and returns the fs.FS name it designates.
func (d *fsDir) resolve(path string, write bool) (name string, dirOnly bool, err error) {
	clean, dirOnly, err := CheckPath(path)
	if err != nil {
		return "", false, err
	}
	if write {
		return "", false, EPERM
	}
	return JoinPath(d.name, clean), dirOnly, nil
}

func (d *fsDir) statName(name string, follow bool) (Stat, error) {
	var fi fs.FileInfo
	var err error
	if rl, ok := d.fsys.(fs.ReadLinkFS); ok && !follow {
		fi, err = rl.Lstat(name)
	} else {
		fi, err = fs.Stat(d.fsys, name)
	}
	if err != nil {
		return Stat{}, mapErr(err)
	}
	return d.toStat(name, fi), nil
}

func (d *fsDir) toStat(name string, fi fs.FileInfo) Stat {
	st := Stat{Dev: d.dev, Ino: pathIno(name), Type: FiletypeOf(fi.Mode()), Nlink: 1, Mtime: fi.ModTime()}
	if s := fi.Size(); s > 0 {
		st.Size = uint64(s)
	}
	st.Atime, st.Ctime = st.Mtime, st.Mtime
	return st
}

func pathIno(name string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, name)
	return h.Sum64()
}

func (d *fsDir) OpenAt(path string, f OpenFlags) (Node, error) {
	name, dirOnly, err := d.resolve(path, f.mutates())
	if err != nil {
		return nil, err
	}
	if f.NoFollow {
		if rl, ok := d.fsys.(fs.ReadLinkFS); ok {
			if fi, err := rl.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, ELOOP
			}
		}
	}
	fi, err := fs.Stat(d.fsys, name)
	if err != nil {
		return nil, mapErr(err)
	}
	if fi.IsDir() {
		return &fsDir{fsys: d.fsys, name: name, dev: d.dev}, nil
	}
	if f.Directory || dirOnly {
		return nil, ENOTDIR
	}
	file, err := d.fsys.Open(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return &fsFile{d: d, f: file, name: name}, nil
}

func (d *fsDir) StatAt(path string, follow bool) (Stat, error) {
	name, _, err := d.resolve(path, false)
	if err != nil {
		return Stat{}, err
	}
	return d.statName(name, follow)
}

// refuse validates path (so a bad path reports its own error first) and then refuses the change.
func (d *fsDir) refuse(path string) error {
	_, _, err := d.resolve(path, true)
	return err
}

func (d *fsDir) MkdirAt(path string) error  { return d.refuse(path) }
func (d *fsDir) UnlinkAt(path string) error { return d.refuse(path) }
func (d *fsDir) RmdirAt(path string) error  { return d.refuse(path) }

func (d *fsDir) RenameAt(oldPath string, _ Dir, _ string) error { return d.refuse(oldPath) }

func (d *fsDir) LinkAt(oldPath string, _ bool, _ Dir, _ string) error { return d.refuse(oldPath) }

func (d *fsDir) SymlinkAt(_, path string) error { return d.refuse(path) }

func (d *fsDir) SetTimesAt(path string, _ bool, _ Times) error { return d.refuse(path) }

func (d *fsDir) ReadlinkAt(path string) (string, error) {
	name, _, err := d.resolve(path, false)
	if err != nil {
		return "", err
	}
	rl, ok := d.fsys.(fs.ReadLinkFS)
	if !ok {
		// Without ReadLinkFS the tree shows no links: an existing name is simply not one.
		if _, err := fs.Stat(d.fsys, name); err != nil {
			return "", mapErr(err)
		}
		return "", EINVAL
	}
	s, err := rl.ReadLink(name)
	if err != nil {
		return "", mapErr(err)
	}
	return s, nil
}

// fsFile is an open file of an fs.FS, read-only.
type fsFile struct {
	d      *fsDir
	f      fs.File
	name   string
	closed bool
}

func (f *fsFile) Readable() bool { return true }
func (f *fsFile) Writable() bool { return false }

func (f *fsFile) Close() error {
	if f.closed {
		return EBADF
	}
	f.closed = true
	return mapErr(f.f.Close())
}

func (f *fsFile) Stat() (Stat, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return Stat{}, mapErr(err)
	}
	return f.d.toStat(f.name, fi), nil
}

func (f *fsFile) Sync() error          { return nil }
func (f *fsFile) SetTimes(Times) error { return EPERM }

func (f *fsFile) Readv(bufs [][]byte, off int64) (int, error) {
	total := 0
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		n, err := f.readOne(b, off, total)
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

func (f *fsFile) readOne(b []byte, off int64, done int) (int, error) {
	if off < 0 {
		return f.f.Read(b)
	}
	at := off + int64(done)
	if ra, ok := f.f.(io.ReaderAt); ok {
		return ra.ReadAt(b, at)
	}
	s, ok := f.f.(io.Seeker)
	if !ok {
		return 0, ESPIPE
	}
	// Emulate pread: read at the offset and put the file offset back.
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	if _, err := s.Seek(at, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f.f, b)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	if _, serr := s.Seek(cur, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	return n, err
}

func (f *fsFile) Writev([][]byte, int64) (int, error) { return 0, EBADF }

func (f *fsFile) Seek(offset int64, whence int) (int64, error) {
	s, ok := f.f.(io.Seeker)
	if !ok {
		return 0, ESPIPE
	}
	n, err := s.Seek(offset, whence)
	if err != nil {
		return 0, mapErr(err)
	}
	return n, nil
}

func (f *fsFile) Truncate(int64) error { return EBADF }

type fsDirReader struct {
	d     *fsDir
	f     fs.File
	rd    fs.ReadDirFile
	batch []fs.DirEntry
	done  bool
}

func (r *fsDirReader) Next() (DirEntry, error) {
	for len(r.batch) == 0 {
		if r.done || r.rd == nil {
			return DirEntry{}, io.EOF
		}
		b, err := r.rd.ReadDir(dirBatch)
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
	return DirEntry{Name: e.Name(), Type: FiletypeOf(e.Type()), Ino: pathIno(JoinPath(r.d.name, e.Name()))}, nil
}

func (r *fsDirReader) Close() error {
	if r.f != nil {
		return mapErr(r.f.Close())
	}
	return nil
}
