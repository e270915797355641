package wasi

import (
	"io/fs"
	"time"
)

// Filetype is the type of a file, numbered as WASI preview 1's `filetype`.
type Filetype uint8

// The file types.
const (
	FiletypeUnknown Filetype = iota
	FiletypeBlockDevice
	FiletypeCharacterDevice
	FiletypeDirectory
	FiletypeRegularFile
	FiletypeSocketDgram
	FiletypeSocketStream
	FiletypeSymbolicLink
)

// FiletypeOf returns the file type that a Go file mode describes.
func FiletypeOf(m fs.FileMode) Filetype {
	switch {
	case m.IsRegular():
		return FiletypeRegularFile
	case m&fs.ModeDir != 0:
		return FiletypeDirectory
	case m&fs.ModeSymlink != 0:
		return FiletypeSymbolicLink
	case m&fs.ModeCharDevice != 0:
		return FiletypeCharacterDevice
	case m&fs.ModeDevice != 0:
		return FiletypeBlockDevice
	case m&fs.ModeSocket != 0:
		return FiletypeSocketStream
	}
	return FiletypeUnknown
}

// Stat describes a file as WASI's `filestat` does. Dev, Ino and Nlink are zero or one where the
// platform or the fs.FS cannot tell; Atime and Ctime equal Mtime where they are unknown.
type Stat struct {
	Dev, Ino            uint64
	Type                Filetype
	Nlink               uint64
	Size                uint64
	Atime, Mtime, Ctime time.Time
}

// DirEntry is one entry of a directory listing. Ino may be zero when it cannot be read.
type DirEntry struct {
	Name string
	Type Filetype
	Ino  uint64
}

// DirReader lists a directory one entry at a time, without "." and "..". Next returns io.EOF after
// the last entry. Entries created or removed while listing may or may not appear.
type DirReader interface {
	Next() (DirEntry, error)
	Close() error
}

// OpenFlags say how Dir.OpenAt opens a path.
type OpenFlags struct {
	// Read and Write ask for access to a file's contents. Neither means read.
	Read, Write bool
	// Create makes a regular file when the path does not exist; with Exclusive the path must not
	// exist. Truncate empties an existing regular file.
	Create, Exclusive, Truncate bool
	// Directory requires the path to name a directory.
	Directory bool
	// NoFollow refuses (ELOOP) a symbolic link as the last path component.
	NoFollow bool
}

// mutates reports whether opening with f changes the file system or may write to it.
func (f OpenFlags) mutates() bool { return f.Write || f.Create || f.Truncate }

// Times says which timestamps SetTimes changes. A false Set leaves that timestamp as it is.
type Times struct {
	Atime, Mtime       time.Time
	SetAtime, SetMtime bool
}

// Node is what Dir.OpenAt returns: a File or a Dir.
type Node interface {
	// Stat describes the open file.
	Stat() (Stat, error)
	// Sync flushes the file's data and metadata to storage.
	Sync() error
	// SetTimes changes the file's access and modification times.
	SetTimes(t Times) error
	// Close releases the node. Closing twice fails with EBADF.
	Close() error
}

// File is an open non-directory file. Writes are charged to the write budget of the directory
// tree that the file belongs to: a call that would pass the budget or the per-call cap fails
// with EDQUOT and writes nothing. A File is not safe for concurrent use.
type File interface {
	Node
	// Readv reads into bufs in order, at the current offset (advancing it) when off < 0, else at
	// off. It stops early at end of file; it returns 0, nil at end of file.
	Readv(bufs [][]byte, off int64) (int, error)
	// Writev writes bufs in order, at the current offset (advancing it) when off < 0, else at
	// off. Their total, and any gap it opens past the end of the file, is charged to the budget
	// before anything is written.
	Writev(bufs [][]byte, off int64) (int, error)
	// Seek sets the offset as io.Seeker does.
	Seek(offset int64, whence int) (int64, error)
	// Truncate sets the size; growth is charged to the budget.
	Truncate(size int64) error
	// Readable and Writable report the access the file was opened with.
	Readable() bool
	Writable() bool
}

// Dir is an open directory: a capability for the tree beneath it. Every path is relative to the
// directory, uses '/' separators and is checked by CheckPath; a path that is absolute or leads
// outside the directory, by ".." or through a symbolic link, fails with EPERM. Operations that
// would change a read-only tree fail with EPERM (what wasmtime and wasi:filesystem's
// `not-permitted` give), never EROFS. Errors are Errno values. A Dir is safe for concurrent use
// (one over an fs.FS as far as that fs.FS is).
type Dir interface {
	Node
	// ReadOnly reports whether the tree refuses every change.
	ReadOnly() bool
	// ReadDir starts a listing of the directory.
	ReadDir() (DirReader, error)
	// OpenAt opens a file or directory; the result is a File or a Dir.
	OpenAt(path string, f OpenFlags) (Node, error)
	// StatAt describes a path, following a final symbolic link when follow is set.
	StatAt(path string, follow bool) (Stat, error)
	// MkdirAt creates a directory.
	MkdirAt(path string) error
	// UnlinkAt removes a non-directory (EISDIR for a directory).
	UnlinkAt(path string) error
	// RmdirAt removes an empty directory (ENOTDIR for anything else).
	RmdirAt(path string) error
	// RenameAt moves oldPath to newPath in newDir, which must belong to the same tree (EXDEV).
	RenameAt(oldPath string, newDir Dir, newPath string) error
	// LinkAt makes newPath in newDir a hard link to oldPath. Following a symbolic link at oldPath
	// is not supported (EINVAL), as in wasmtime.
	LinkAt(oldPath string, follow bool, newDir Dir, newPath string) error
	// SymlinkAt creates path as a symbolic link to target (see CheckSymlink).
	SymlinkAt(target, path string) error
	// ReadlinkAt returns the contents of a symbolic link.
	ReadlinkAt(path string) (string, error)
	// SetTimesAt changes the times of a path, following a final symbolic link when follow is set
	// (changing the times of a link itself is ENOTSUP).
	SetTimesAt(path string, follow bool, t Times) error
}
