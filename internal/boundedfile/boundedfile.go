// Package boundedfile reads a file named by a user or found in a directory without letting it
// hang the reader or exhaust memory: it refuses anything but a regular file (a FIFO would block
// the open until a writer comes, /dev/zero has no end, a directory is no input) and anything over
// a cap, before reading any of it, and holds the cap while reading whatever the size said.
//
// The file is judged twice: by a Stat of its name before it is opened, so that a FIFO is refused
// without being opened at all, and by a Stat of the open file, so that a name replaced between
// the two calls is judged by what was opened. The open itself is non-blocking where the platform
// has O_NONBLOCK, so that a FIFO swapped in between does not block it either. Symbolic links are
// followed: their target is what must be a regular file.
//
// Errors name the file as it was given and say what it is or how large against the cap; refusals
// wrap ErrNotRegular or ErrTooLarge, and failures of the file system (fs.ErrNotExist, permission)
// are returned as the file system gave them, so callers can tell a missing file apart.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read returns the contents of the regular file at path, refusing one over limit bytes.
func Read(path string, limit int64) ([]byte, error) {
	f, fi, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, fi.Size(), limit)
}

// ReadFS is Read for the file name of fsys. An fs.FS has no non-blocking open, so it relies on
// the Stat before the open to keep a FIFO from blocking it; the Stat of the open file still
// refuses a name replaced in between.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, fi, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(name, fi, limit); err != nil {
		return nil, err
	}
	return readAll(f, name, fi.Size(), limit)
}

// Copy copies the regular file at path to w, refusing one over limit bytes, and returns the number
// of bytes copied: for a file too large to hold in memory, such as one to hash. A file that grows
// past limit while it is copied has had limit+1 bytes written to w when Copy returns ErrTooLarge.
func Copy(w io.Writer, path string, limit int64) (int64, error) {
	f, _, err := open(path, limit)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, past(limit)))
	if err != nil {
		return n, named(path, err)
	}
	if n > limit {
		return n, grewPast(path, limit)
	}
	return n, nil
}

// Open opens the regular file at path for reading, refusing one over limit bytes. The file may
// still grow after the check: the caller reads at most limit bytes of it (io.LimitReader).
func Open(path string, limit int64) (*os.File, error) {
	f, _, err := open(path, limit)
	return f, err
}

// open checks path by name, then opens it and checks what was opened.
func open(path string, limit int64) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, nil, err
	}
	return openChecked(path, limit)
}

// openChecked opens path without blocking and checks the open file: what keeps a name replaced
// by a FIFO after open's Stat from hanging the open.
func openChecked(path string, limit int64) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = check(path, fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// check refuses fi unless it is a regular file of at most limit bytes.
func check(name string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is a %s, %w", name, Kind(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s is %w: %d bytes, larger than %d", name, ErrTooLarge, fi.Size(), limit)
	}
	return nil
}

// grewPast is the error of a file that gave more than limit bytes although its size said it held
// at most limit: it grew while read, or its file system reports no size (as /proc does).
func grewPast(name string, limit int64) error {
	return fmt.Errorf("%s is %w: larger than %d bytes", name, ErrTooLarge, limit)
}

// readAll reads r to its end, at most limit bytes; size, what a Stat said, sizes the buffer so that
// a file that kept its size is read with one allocation.
func readAll(r io.Reader, name string, size, limit int64) ([]byte, error) {
	// One byte more than size, so that the end is seen without growing the buffer; at most limit+1,
	// the most that is ever read.
	b := make([]byte, 0, max(min(size, limit), 0)+1)
	lr := io.LimitReader(r, past(limit))
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, named(name, err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
	if int64(len(b)) > limit {
		return nil, grewPast(name, limit)
	}
	return b, nil
}

// past is how many bytes to read to tell a file over limit: one more, but no overflow.
func past(limit int64) int64 {
	return max(limit, limit+1)
}

// named makes a read error name the file, unless it does already.
func named(name string, err error) error {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Kind names a file's type for a message: "regular file", "directory", "named pipe",
// "character device" and so on.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
