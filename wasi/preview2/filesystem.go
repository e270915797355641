package preview2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/wasi"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

const (
	ifaceTypes    = "wasi:filesystem/types@0.2.0"
	ifacePreopens = "wasi:filesystem/preopens@0.2.0"
)

// descriptor-flags bits.
const (
	flagRead            = 1 << 0
	flagWrite           = 1 << 1
	flagMutateDirectory = 1 << 5
	knownDescFlags      = 1<<6 - 1
)

// descriptor-type cases.
const (
	typeUnknown         = b.DescriptorTypeUnknown
	typeBlockDevice     = b.DescriptorTypeBlockDevice
	typeCharacterDevice = b.DescriptorTypeCharacterDevice
	typeDirectory       = b.DescriptorTypeDirectory
	typeFIFO            = b.DescriptorTypeFifo
	typeSymbolicLink    = b.DescriptorTypeSymbolicLink
	typeRegularFile     = b.DescriptorTypeRegularFile
	typeSocket          = b.DescriptorTypeSocket
)

// descriptor is a wasi:filesystem descriptor: an open directory or file.
type descriptor struct {
	dir     wasi.Dir
	file    wasi.File
	flags   uint8
	preopen bool // owned by the Host, closed by Host.Close only
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*descriptor) ResourceName() string { return "descriptor" }

func (d *descriptor) node() wasi.Node {
	if d.dir != nil {
		return d.dir
	}
	return d.file
}

func (d *descriptor) close() error {
	if d.preopen {
		return nil
	}
	return d.node().Close()
}

type dirStream struct{ r wasi.DirReader }

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*dirStream) ResourceName() string { return "directory-entry-stream" }

func (s *dirStream) close() error { return s.r.Close() }

// wasi:filesystem/types' records and variants, as generated into package bindings.
type (
	descStat     = b.DescriptorStat
	newTimestamp = b.NewTimestamp
	dirEntry     = b.DirectoryEntry
	hashValue    = b.MetadataHashValue
)

type fsResult[T any] = abi.Result[T, errorCode]

func fsErr[T any](err error) fsResult[T] { return abi.Err[T](toCode(err)) }
func fsOK[T any](v T) fsResult[T]        { return abi.Ok[T, errorCode](v) }

// fsPush adds r to the resource table and returns its own handle as a filesystem result.
func fsPush[R abi.Resource](h *Host, r R) (fsResult[abi.Own[R]], error) {
	o, err := push(h, r)
	if err != nil {
		return fsResult[abi.Own[R]]{}, err
	}
	return fsOK(o), nil
}

// descHandle is how the guest names a descriptor in a call: a borrow, for the call's length.
type descHandle = abi.Borrow[*descriptor]

func descType(t wasi.Filetype) b.DescriptorType {
	switch t {
	case wasi.FiletypeBlockDevice:
		return typeBlockDevice
	case wasi.FiletypeCharacterDevice:
		return typeCharacterDevice
	case wasi.FiletypeDirectory:
		return typeDirectory
	case wasi.FiletypeRegularFile:
		return typeRegularFile
	case wasi.FiletypeSocketDgram, wasi.FiletypeSocketStream:
		return typeSocket
	case wasi.FiletypeSymbolicLink:
		return typeSymbolicLink
	}
	return typeUnknown
}

func ptr[T any](v T) *T { return &v }

func toStat(s wasi.Stat) descStat {
	return descStat{
		Type: descType(s.Type), LinkCount: s.Nlink, Size: s.Size,
		DataAccessTimestamp:       ptr(toDatetime(s.Atime)),
		DataModificationTimestamp: ptr(toDatetime(s.Mtime)),
		StatusChangeTimestamp:     ptr(toDatetime(s.Ctime)),
	}
}

// maxTimestampSeconds is the last second of a new-timestamp the host can set: os.Chtimes passes
// times through time.UnixNano, which cannot hold later ones (past the year 2262) and would set
// some other time instead.
const maxTimestampSeconds = math.MaxInt64/uint64(time.Second) - 1

func (h *Host) times(a, m newTimestamp) (wasi.Times, error) {
	var t wasi.Times
	conv := func(n newTimestamp) (time.Time, bool, error) {
		switch {
		case n.Now:
			return h.clock.Now(), true, nil
		case n.Timestamp != nil:
			if n.Timestamp.Nanoseconds >= 1e9 {
				return time.Time{}, false, wasi.EINVAL
			}
			if n.Timestamp.Seconds > maxTimestampSeconds {
				return time.Time{}, false, wasi.EOVERFLOW
			}
			return time.Unix(int64(n.Timestamp.Seconds), int64(n.Timestamp.Nanoseconds)), true, nil
		}
		return time.Time{}, false, nil
	}
	var err error
	if t.Atime, t.SetAtime, err = conv(a); err != nil {
		return t, err
	}
	t.Mtime, t.SetMtime, err = conv(m)
	return t, err
}

// desc returns the descriptor behind self; a wrong rep traps, as the component's handle table
// would.
func (h *Host) desc(self descHandle) (*descriptor, error) { return borrowed(h, self) }

// dirOf returns the directory of descriptor self, or not-directory.
func (h *Host) dirOf(self descHandle) (wasi.Dir, error, error) {
	d, err := h.desc(self)
	if err != nil {
		return nil, nil, err
	}
	if d.dir == nil {
		return nil, wasi.ENOTDIR, nil
	}
	return d.dir, nil, nil
}

// fileOf returns the file of descriptor self, or is-directory.
func (h *Host) fileOf(self descHandle) (*descriptor, error, error) {
	d, err := h.desc(self)
	if err != nil {
		return nil, nil, err
	}
	if d.file == nil {
		return nil, wasi.EISDIR, nil
	}
	return d, nil, nil
}

// mutating runs fn on the directory of self when the descriptor may change it.
func (h *Host) mutating(self descHandle, fn func(wasi.Dir) error) (fsResult[struct{}], error) {
	d, err := h.desc(self)
	if err != nil {
		return fsResult[struct{}]{}, err
	}
	if d.dir == nil {
		return fsErr[struct{}](wasi.ENOTDIR), nil
	}
	if d.flags&flagMutateDirectory == 0 {
		return fsErr[struct{}](wasi.EPERM), nil
	}
	if err := fn(d.dir); err != nil {
		return fsErr[struct{}](err), nil
	}
	return fsOK(struct{}{}), nil
}

func (h *Host) openAt(self descHandle, pathFlags uint8, path string, openFlags, flags uint8) (fsResult[abi.Own[*descriptor]], error) {
	d, err := h.desc(self)
	if err != nil {
		return fsResult[abi.Own[*descriptor]]{}, err
	}
	if d.dir == nil {
		return fsErr[abi.Own[*descriptor]](wasi.ENOTDIR), nil
	}
	if flags&^knownDescFlags != 0 {
		return fsErr[abi.Own[*descriptor]](wasi.EINVAL), nil
	}
	of := wasi.OpenFlags{
		Read: flags&flagRead != 0, Write: flags&flagWrite != 0,
		Create: openFlags&1 != 0, Directory: openFlags&2 != 0, Exclusive: openFlags&4 != 0, Truncate: openFlags&8 != 0,
		NoFollow: pathFlags&1 == 0,
	}
	if (of.Write || of.Create || of.Truncate || flags&flagMutateDirectory != 0) && d.flags&flagMutateDirectory == 0 {
		return fsErr[abi.Own[*descriptor]](wasi.EPERM), nil
	}
	n, err := d.dir.OpenAt(path, of)
	if err != nil {
		return fsErr[abi.Own[*descriptor]](err), nil
	}
	nd := &descriptor{flags: flags}
	switch n := n.(type) {
	case wasi.Dir:
		nd.dir = n
	case wasi.File:
		nd.file = n
		nd.flags &^= flagMutateDirectory
	default:
		_ = n.Close()
		return fsErr[abi.Own[*descriptor]](wasi.EIO), nil
	}
	r, err := fsPush(h, nd)
	if err != nil {
		_ = nd.node().Close()
	}
	return r, err
}

// streamFile checks that self is a file open for reading (write false) or writing, and off an
// offset a stream may start at; the error-code, if not, comes second.
func (h *Host) streamFile(self descHandle, off uint64, write bool) (*descriptor, error, error) {
	d, ferr, err := h.fileOf(self)
	if err != nil || ferr != nil {
		return nil, ferr, err
	}
	switch {
	case off > 1<<62:
		return nil, wasi.EINVAL, nil
	case write && (d.flags&flagWrite == 0 || !d.file.Writable()):
		return nil, wasi.EBADF, nil
	case !write && (d.flags&flagRead == 0 || !d.file.Readable()):
		return nil, wasi.EBADF, nil
	}
	return d, nil, nil
}

func (h *Host) readStream(self descHandle, off uint64) (fsResult[abi.Own[*InputStream]], error) {
	d, ferr, err := h.streamFile(self, off, false)
	if err != nil || ferr != nil {
		return fsErr[abi.Own[*InputStream]](ferr), err
	}
	return fsPush(h, &InputStream{file: d.file, off: int64(off)})
}

func (h *Host) writeStream(self descHandle, off uint64, appending bool) (fsResult[abi.Own[*OutputStream]], error) {
	d, ferr, err := h.streamFile(self, off, true)
	if err != nil || ferr != nil {
		return fsErr[abi.Own[*OutputStream]](ferr), err
	}
	return fsPush(h, &OutputStream{file: d.file, off: int64(off), append: appending})
}

func (h *Host) setTimes(self descHandle, a, m newTimestamp) (fsResult[struct{}], error) {
	d, err := h.desc(self)
	if err != nil {
		return fsResult[struct{}]{}, err
	}
	// A directory's times are part of what mutate-directory guards, as for set-times-at ".".
	if d.dir != nil && d.flags&flagMutateDirectory == 0 {
		return fsErr[struct{}](wasi.EPERM), nil
	}
	t, err := h.times(a, m)
	if err == nil {
		err = d.node().SetTimes(t)
	}
	if err != nil {
		return fsErr[struct{}](err), nil
	}
	return fsOK(struct{}{}), nil
}

func (h *Host) setTimesAt(self descHandle, pf uint8, path string, a, m newTimestamp) (fsResult[struct{}], error) {
	return h.mutating(self, func(d wasi.Dir) error {
		t, err := h.times(a, m)
		if err != nil {
			return err
		}
		return d.SetTimesAt(path, pf&1 != 0, t)
	})
}

func (h *Host) readDirectory(self descHandle) (fsResult[abi.Own[*dirStream]], error) {
	dir, derr, err := h.dirOf(self)
	if err != nil || derr != nil {
		return fsErr[abi.Own[*dirStream]](derr), err
	}
	r, err := dir.ReadDir()
	if err != nil {
		return fsErr[abi.Own[*dirStream]](err), nil
	}
	res, err := fsPush(h, &dirStream{r: r})
	if err != nil {
		_ = r.Close()
	}
	return res, err
}

func (h *Host) readDirectoryEntry(self abi.Borrow[*dirStream]) (fsResult[abi.Option[dirEntry]], error) {
	s, err := borrowed(h, self)
	if err != nil {
		return fsResult[abi.Option[dirEntry]]{}, err
	}
	e, err := s.r.Next()
	if errors.Is(err, io.EOF) {
		return fsOK(abi.None[dirEntry]()), nil
	}
	if err != nil {
		return fsErr[abi.Option[dirEntry]](err), nil
	}
	// A host name that is not UTF-8 cannot be lowered as a string (the call would trap); the
	// guest gets an error for this entry and may read on, as in wasmtime.
	if !utf8.ValidString(e.Name) {
		return fsErr[abi.Option[dirEntry]](wasi.EILSEQ), nil
	}
	return fsOK(abi.Some(dirEntry{Type: descType(e.Type), Name: e.Name})), nil
}

func (h *Host) createDirectoryAt(self descHandle, path string) (fsResult[struct{}], error) {
	return h.mutating(self, func(d wasi.Dir) error { return d.MkdirAt(path) })
}

func (h *Host) removeDirectoryAt(self descHandle, path string) (fsResult[struct{}], error) {
	return h.mutating(self, func(d wasi.Dir) error { return d.RmdirAt(path) })
}

func (h *Host) unlinkFileAt(self descHandle, path string) (fsResult[struct{}], error) {
	return h.mutating(self, func(d wasi.Dir) error { return d.UnlinkAt(path) })
}

func (h *Host) symlinkAt(self descHandle, target, path string) (fsResult[struct{}], error) {
	return h.mutating(self, func(d wasi.Dir) error { return d.SymlinkAt(target, path) })
}

func (h *Host) linkAt(self descHandle, pf uint8, oldPath string, newDesc descHandle, newPath string) (fsResult[struct{}], error) {
	return h.mutatingPair(self, newDesc, func(d, nd wasi.Dir) error { return d.LinkAt(oldPath, pf&1 != 0, nd, newPath) })
}

func (h *Host) renameAt(self descHandle, oldPath string, newDesc descHandle, newPath string) (fsResult[struct{}], error) {
	return h.mutatingPair(self, newDesc, func(d, nd wasi.Dir) error { return d.RenameAt(oldPath, nd, newPath) })
}

// mutatingPair is mutating for the calls that change two directories, rename-at and link-at:
// both descriptors must be directories that may be changed, or a guest could write through a
// descriptor it opened without mutate-directory by naming it as the new one.
func (h *Host) mutatingPair(self, other descHandle, fn func(d, nd wasi.Dir) error) (fsResult[struct{}], error) {
	d, err := h.desc(self)
	if err != nil {
		return fsResult[struct{}]{}, err
	}
	nd, err := h.desc(other)
	if err != nil {
		return fsResult[struct{}]{}, err
	}
	if d.dir == nil || nd.dir == nil {
		return fsErr[struct{}](wasi.ENOTDIR), nil
	}
	if d.flags&nd.flags&flagMutateDirectory == 0 {
		return fsErr[struct{}](wasi.EPERM), nil
	}
	if err := fn(d.dir, nd.dir); err != nil {
		return fsErr[struct{}](err), nil
	}
	return fsOK(struct{}{}), nil
}

func (h *Host) statAt(self descHandle, pf uint8, path string) (fsResult[descStat], error) {
	dir, derr, err := h.dirOf(self)
	if err != nil || derr != nil {
		return fsErr[descStat](derr), err
	}
	st, err := dir.StatAt(path, pf&1 != 0)
	if err != nil {
		return fsErr[descStat](err), nil
	}
	return fsOK(toStat(st)), nil
}

func (h *Host) readlinkAt(self descHandle, path string) (fsResult[string], error) {
	dir, derr, err := h.dirOf(self)
	if err != nil || derr != nil {
		return fsErr[string](derr), err
	}
	s, err := dir.ReadlinkAt(path)
	if err != nil {
		return fsErr[string](err), nil
	}
	if !utf8.ValidString(s) {
		return fsErr[string](wasi.EILSEQ), nil // not a string: lowering it would trap
	}
	return fsOK(s), nil
}

func (h *Host) isSameObject(self, other descHandle) (bool, error) {
	a, err := h.desc(self)
	if err != nil {
		return false, err
	}
	b, err := h.desc(other)
	if err != nil {
		return false, err
	}
	sa, err1 := a.node().Stat()
	sb, err2 := b.node().Stat()
	if err1 != nil || err2 != nil || sa.Ino == 0 {
		return a == b, nil
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino, nil
}

func (h *Host) metadataHash(self descHandle) (fsResult[hashValue], error) {
	d, err := h.desc(self)
	if err != nil {
		return fsResult[hashValue]{}, err
	}
	st, err := d.node().Stat()
	if err != nil {
		return fsErr[hashValue](err), nil
	}
	return fsOK(hashValue{Lower: st.Ino, Upper: st.Dev}), nil
}

func (h *Host) metadataHashAt(self descHandle, pf uint8, path string) (fsResult[hashValue], error) {
	dir, derr, err := h.dirOf(self)
	if err != nil || derr != nil {
		return fsErr[hashValue](derr), err
	}
	st, err := dir.StatAt(path, pf&1 != 0)
	if err != nil {
		return fsErr[hashValue](err), nil
	}
	return fsOK(hashValue{Lower: st.Ino, Upper: st.Dev}), nil
}

func defineFilesystem(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceTypes, "descriptor", dtor[*descriptor]()); err != nil {
		return err
	}
	if _, err := l.DefineResource(ifaceTypes, "directory-entry-stream", dtor[*dirStream]()); err != nil {
		return err
	}
	if err := defineAll(l, ifaceTypes, filesystemFuncs()); err != nil {
		return err
	}
	return defineAll(l, ifacePreopens, preopensFuncs())
}

// filesystemFuncs are the functions of wasi:filesystem/types.
func filesystemFuncs() map[string]any {
	type unit = fsResult[struct{}]
	ok := fsOK(struct{}{})
	m := "[method]descriptor."
	return map[string]any{
		m + "read-via-stream": func(_ context.Context, h *Host, self descHandle, off uint64) (fsResult[abi.Own[*InputStream]], error) {
			return h.readStream(self, off)
		},
		m + "write-via-stream": func(_ context.Context, h *Host, self descHandle, off uint64) (fsResult[abi.Own[*OutputStream]], error) {
			return h.writeStream(self, off, false)
		},
		m + "append-via-stream": func(_ context.Context, h *Host, self descHandle) (fsResult[abi.Own[*OutputStream]], error) {
			return h.writeStream(self, 0, true)
		},
		m + "advise": func(_ context.Context, h *Host, self descHandle, _, _ uint64, advice uint8) (unit, error) {
			if _, err := h.desc(self); err != nil {
				return unit{}, err
			}
			return ok, nil // advice is only advice
		},
		m + "sync-data": func(_ context.Context, h *Host, self descHandle) (unit, error) {
			d, err := h.desc(self)
			if err != nil {
				return unit{}, err
			}
			if err := d.node().Sync(); err != nil {
				return fsErr[struct{}](err), nil
			}
			return ok, nil
		},
		m + "sync": func(_ context.Context, h *Host, self descHandle) (unit, error) {
			d, err := h.desc(self)
			if err != nil {
				return unit{}, err
			}
			if err := d.node().Sync(); err != nil {
				return fsErr[struct{}](err), nil
			}
			return ok, nil
		},
		m + "get-flags": func(_ context.Context, h *Host, self descHandle) (fsResult[uint8], error) {
			d, err := h.desc(self)
			if err != nil {
				return fsResult[uint8]{}, err
			}
			return fsOK(d.flags), nil
		},
		m + "get-type": func(_ context.Context, h *Host, self descHandle) (fsResult[b.DescriptorType], error) {
			d, err := h.desc(self)
			if err != nil {
				return fsResult[b.DescriptorType]{}, err
			}
			st, err := d.node().Stat()
			if err != nil {
				return fsErr[b.DescriptorType](err), nil
			}
			return fsOK(descType(st.Type)), nil
		},
		m + "set-size": func(_ context.Context, h *Host, self descHandle, size uint64) (unit, error) {
			d, ferr, err := h.fileOf(self)
			if err != nil || ferr != nil {
				return fsErr[struct{}](ferr), err
			}
			if d.flags&flagWrite == 0 {
				return fsErr[struct{}](wasi.EBADF), nil
			}
			if size > 1<<62 {
				return fsErr[struct{}](wasi.EFBIG), nil
			}
			if err := d.file.Truncate(int64(size)); err != nil {
				return fsErr[struct{}](err), nil
			}
			return ok, nil
		},
		m + "set-times": func(_ context.Context, h *Host, self descHandle, a, mt newTimestamp) (unit, error) {
			return h.setTimes(self, a, mt)
		},
		m + "read": func(_ context.Context, h *Host, self descHandle, n, off uint64) (fsResult[readResult], error) {
			d, ferr, err := h.fileOf(self)
			if err != nil || ferr != nil {
				return fsErr[readResult](ferr), err
			}
			if d.flags&flagRead == 0 {
				return fsErr[readResult](wasi.EBADF), nil
			}
			if off > 1<<62 {
				return fsErr[readResult](wasi.EINVAL), nil
			}
			buf := make([]byte, min(n, MaxReadChunk))
			k, err := d.file.Readv([][]byte{buf}, int64(off))
			if err != nil && !errors.Is(err, io.EOF) {
				return fsErr[readResult](err), nil
			}
			return fsOK(readResult{buf[:k], k == 0 && len(buf) > 0}), nil
		},
		m + "write": func(_ context.Context, h *Host, self descHandle, b []byte, off uint64) (fsResult[uint64], error) {
			d, ferr, err := h.fileOf(self)
			if err != nil || ferr != nil {
				return fsErr[uint64](ferr), err
			}
			if d.flags&flagWrite == 0 {
				return fsErr[uint64](wasi.EBADF), nil
			}
			if off > 1<<62 {
				return fsErr[uint64](wasi.EFBIG), nil
			}
			k, err := d.file.Writev([][]byte{b}, int64(off))
			if err != nil {
				return fsErr[uint64](err), nil
			}
			return fsOK(uint64(k)), nil
		},
		m + "read-directory": func(_ context.Context, h *Host, self descHandle) (fsResult[abi.Own[*dirStream]], error) {
			return h.readDirectory(self)
		},
		m + "create-directory-at": func(_ context.Context, h *Host, self descHandle, path string) (unit, error) {
			return h.createDirectoryAt(self, path)
		},
		m + "stat": func(_ context.Context, h *Host, self descHandle) (fsResult[descStat], error) {
			d, err := h.desc(self)
			if err != nil {
				return fsResult[descStat]{}, err
			}
			st, err := d.node().Stat()
			if err != nil {
				return fsErr[descStat](err), nil
			}
			return fsOK(toStat(st)), nil
		},
		m + "stat-at": func(_ context.Context, h *Host, self descHandle, pf uint8, path string) (fsResult[descStat], error) {
			return h.statAt(self, pf, path)
		},
		m + "set-times-at": func(_ context.Context, h *Host, self descHandle, pf uint8, path string, a, mt newTimestamp) (unit, error) {
			return h.setTimesAt(self, pf, path, a, mt)
		},
		m + "link-at": func(_ context.Context, h *Host, self descHandle, pf uint8, oldPath string, newDesc descHandle, newPath string) (unit, error) {
			return h.linkAt(self, pf, oldPath, newDesc, newPath)
		},
		m + "open-at": func(_ context.Context, h *Host, self descHandle, pf uint8, path string, of, flags uint8) (fsResult[abi.Own[*descriptor]], error) {
			return h.openAt(self, pf, path, of, flags)
		},
		m + "readlink-at": func(_ context.Context, h *Host, self descHandle, path string) (fsResult[string], error) {
			return h.readlinkAt(self, path)
		},
		m + "remove-directory-at": func(_ context.Context, h *Host, self descHandle, path string) (unit, error) {
			return h.removeDirectoryAt(self, path)
		},
		m + "rename-at": func(_ context.Context, h *Host, self descHandle, oldPath string, newDesc descHandle, newPath string) (unit, error) {
			return h.renameAt(self, oldPath, newDesc, newPath)
		},
		m + "symlink-at": func(_ context.Context, h *Host, self descHandle, target, path string) (unit, error) {
			return h.symlinkAt(self, target, path)
		},
		m + "unlink-file-at": func(_ context.Context, h *Host, self descHandle, path string) (unit, error) {
			return h.unlinkFileAt(self, path)
		},
		m + "is-same-object": func(_ context.Context, h *Host, self, other descHandle) (bool, error) {
			return h.isSameObject(self, other)
		},
		m + "metadata-hash": func(_ context.Context, h *Host, self descHandle) (fsResult[hashValue], error) {
			return h.metadataHash(self)
		},
		m + "metadata-hash-at": func(_ context.Context, h *Host, self descHandle, pf uint8, path string) (fsResult[hashValue], error) {
			return h.metadataHashAt(self, pf, path)
		},
		"[method]directory-entry-stream.read-directory-entry": func(_ context.Context, h *Host, self abi.Borrow[*dirStream]) (fsResult[abi.Option[dirEntry]], error) {
			return h.readDirectoryEntry(self)
		},
		"filesystem-error-code": func(_ context.Context, h *Host, e abi.Borrow[*ioError]) (abi.Option[errorCode], error) {
			ie, err := borrowed(h, e)
			if err != nil {
				return abi.Option[errorCode]{}, err
			}
			if _, known := errnoCodes[wasi.ToErrno(ie.err)]; !known {
				return abi.None[errorCode](), nil
			}
			return abi.Some(toCode(ie.err)), nil
		},
	}
}

// preopensFuncs are the functions of wasi:filesystem/preopens.
func preopensFuncs() map[string]any {
	return map[string]any{
		"get-directories": func(_ context.Context, h *Host) ([]preopenEntry, error) {
			return h.getDirectories()
		},
	}
}

// getDirectories hands out a descriptor for each preopen; dropping one leaves the preopen open
// for the next call.
func (h *Host) getDirectories() ([]preopenEntry, error) {
	out := make([]preopenEntry, 0, len(h.preopens))
	for _, p := range h.preopens {
		flags := uint8(flagRead)
		if !p.dir.ReadOnly() {
			flags |= flagMutateDirectory
		}
		d, err := push(h, &descriptor{dir: p.dir, flags: flags, preopen: true})
		if err != nil {
			return nil, fmt.Errorf("preview2: get-directories: %w", err)
		}
		out = append(out, preopenEntry{d, p.name})
	}
	return out, nil
}

// readResult is descriptor.read's tuple<list<u8>, bool>: the bytes and whether the end of the
// file was reached.
type readResult struct {
	Data []byte
	EOF  bool
}

// preopenEntry is get-directories' tuple<descriptor, string>.
type preopenEntry struct {
	Desc abi.Own[*descriptor]
	Path string
}
