package preview1

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken") }

func TestFdWriteStdio(t *testing.T) {
	var out, errb bytes.Buffer
	r := newRaw(t, Config{Stdout: &out, Stderr: &errb, WriteBudget: 1})
	r.write(1000, []byte("hello, world"))
	// Two iovecs: "hello" and ", world"; an empty one between them.
	r.iovecs(100, [2]uint32{1000, 5}, [2]uint32{2000, 0}, [2]uint32{1005, 7})
	tests := []struct {
		name    string
		args    []uint64
		err     wasi.Errno
		written uint32
	}{
		{"stdout", []uint64{1, 100, 3, 200}, 0, 12},
		{"stderr", []uint64{2, 100, 1, 200}, 0, 5},
		{"no iovecs", []uint64{1, 100, 0, 200}, 0, 0},
		{"stdin", []uint64{0, 100, 1, 200}, wasi.EBADF, 0},
		{"closed fd", []uint64{9, 100, 1, 200}, wasi.EBADF, 0},
		{"huge fd", []uint64{0xFFFFFFFF, 100, 1, 200}, wasi.EBADF, 0},
		{"iovec array out of memory", []uint64{1, memSize - 4, 1, 200}, wasi.EFAULT, 0},
		{"iovec count wraps", []uint64{1, 100, 0x20000000, 200}, wasi.EINVAL, 0},
		{"too many iovecs", []uint64{1, 100, MaxIovecs + 1, 200}, wasi.EINVAL, 0},
		{"nwritten out of memory", []uint64{1, 100, 1, memSize - 3}, wasi.EFAULT, 0},
	}
	for _, tt := range tests {
		out.Reset()
		errb.Reset()
		r.putU32(200, 0xDEAD)
		e := r.call("fd_write", tt.args...)
		if e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
			continue
		}
		if e == 0 && r.u32(200) != tt.written {
			t.Errorf("%s: nwritten %d, want %d", tt.name, r.u32(200), tt.written)
		}
		if e != 0 && (out.Len() != 0 || errb.Len() != 0) {
			t.Errorf("%s: failed but wrote %q %q", tt.name, out.String(), errb.String())
		}
	}
	// stdout is not charged to the file write budget (1 byte here).
	if r.h.Budget().Used() != 0 {
		t.Errorf("stdout writes charged %d bytes", r.h.Budget().Used())
	}
	// A bad buffer in the second iovec fails the whole call before anything is written.
	out.Reset()
	r.iovecs(300, [2]uint32{1000, 5}, [2]uint32{memSize - 2, 5})
	if e := r.call("fd_write", 1, 300, 2, 200); e != wasi.EFAULT || out.Len() != 0 {
		t.Errorf("bad second iovec: %v, wrote %q", e, out.String())
	}
	f := newRaw(t, Config{Stdout: failWriter{}})
	f.write(1000, []byte("x"))
	f.iovecs(100, [2]uint32{1000, 1})
	if e := f.call("fd_write", 1, 100, 1, 200); e != wasi.EIO {
		t.Errorf("failing writer: %v", e)
	}
}

func TestFdReadStdin(t *testing.T) {
	r := newRaw(t, Config{Stdin: strings.NewReader("abcdefgh")})
	r.iovecs(100, [2]uint32{1000, 3}, [2]uint32{2000, 2})
	if e := r.call("fd_read", 0, 100, 2, 200); e != 0 || r.u32(200) != 5 {
		t.Fatalf("fd_read = %v, %d", e, r.u32(200))
	}
	if got := string(r.read(1000, 3)) + string(r.read(2000, 2)); got != "abcde" {
		t.Errorf("read %q", got)
	}
	if e := r.call("fd_read", 0, 100, 2, 200); e != 0 || r.u32(200) != 3 {
		t.Errorf("second fd_read = %v, %d", e, r.u32(200))
	}
	if e := r.call("fd_read", 0, 100, 2, 200); e != 0 || r.u32(200) != 0 {
		t.Errorf("fd_read at EOF = %v, %d", e, r.u32(200))
	}
	tests := []struct {
		name string
		args []uint64
		err  wasi.Errno
	}{
		{"stdout", []uint64{1, 100, 1, 200}, wasi.EBADF},
		{"closed", []uint64{7, 100, 1, 200}, wasi.EBADF},
		{"nread out of memory", []uint64{0, 100, 1, memSize}, wasi.EFAULT},
		{"buffer out of memory", []uint64{0, 300, 1, 200}, wasi.EFAULT},
		{"pread on stdin", []uint64{0, 100, 1, 0, 200}, wasi.ESPIPE},
	}
	r.iovecs(300, [2]uint32{memSize - 1, 2})
	for _, tt := range tests {
		fn := "fd_read"
		if len(tt.args) == 5 {
			fn = "fd_pread"
		}
		if e := r.call(fn, tt.args...); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
}

// With NONBLOCK set, a read with no data ready is EAGAIN instead of waiting.
func TestFdReadStdinNonblock(t *testing.T) {
	inR, inW := newPipe()
	defer inW.Close()
	r := newRaw(t, Config{Stdin: inR})
	if e := r.call("fd_fdstat_set_flags", 0, uint64(fdflagNonblock)); e != 0 {
		t.Fatal(e)
	}
	r.iovecs(100, [2]uint32{1000, 8})
	if e := r.call("fd_read", 0, 100, 1, 200); e != wasi.EAGAIN {
		t.Fatalf("fd_read without data = %v, want EAGAIN", e)
	}
	inW.Write([]byte("data"))
	waitReady(t, r)
	if e := r.call("fd_read", 0, 100, 1, 200); e != 0 || string(r.read(1000, r.u32(200))) != "data" {
		t.Fatalf("fd_read after data = %v, %q", e, r.read(1000, r.u32(200)))
	}
}

func TestFileIO(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("0123456789"), 0o644)
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	fd := uint64(r.openFile(3, "f", 0, rightsRW, 0))
	if fd != 4 {
		t.Fatalf("first file got fd %d, want 4", fd)
	}
	r.iovecs(100, [2]uint32{1000, 4})
	// Writes take their data from a separate buffer: a read may use all of its buffer as scratch
	// space (io.Reader's contract, and what Go's js port does), so what lies past nread is unknown.
	r.write(3000, []byte("PQRS"))
	r.iovecs(120, [2]uint32{3000, 4})
	steps := []struct {
		name string
		fn   string
		args []uint64
		err  wasi.Errno
		out  uint64 // value at 200 (u32 for counts, u64 for offsets)
	}{
		{"read", "fd_read", []uint64{fd, 100, 1, 200}, 0, 4},
		{"tell", "fd_tell", []uint64{fd, 200}, 0, 4},
		{"seek cur", "fd_seek", []uint64{fd, 2, 1, 200}, 0, 6},
		{"seek end", "fd_seek", []uint64{fd, uint64(^uint64(2)), 2, 200}, 0, 7}, // -3 from the end
		{"seek before start", "fd_seek", []uint64{fd, uint64(^uint64(19)), 2, 200}, wasi.EINVAL, 0},
		{"bad whence", "fd_seek", []uint64{fd, 0, 3, 200}, wasi.EINVAL, 0},
		{"seek result out of memory", "fd_seek", []uint64{fd, 0, 0, memSize - 4}, wasi.EFAULT, 0},
		{"pread", "fd_pread", []uint64{fd, 100, 1, 8, 200}, 0, 2},
		{"pread past end", "fd_pread", []uint64{fd, 100, 1, 100, 200}, 0, 0},
		{"pread huge offset", "fd_pread", []uint64{fd, 100, 1, 1 << 63, 200}, wasi.EINVAL, 0},
		{"pwrite", "fd_pwrite", []uint64{fd, 120, 1, 10, 200}, 0, 4},
		{"advise", "fd_advise", []uint64{fd, 0, 10, 1}, 0, 0},
		{"advise bad", "fd_advise", []uint64{fd, 0, 10, 6}, wasi.EINVAL, 0},
		{"allocate", "fd_allocate", []uint64{fd, 0, 100}, wasi.ENOTSUP, 0},
		{"allocate closed fd", "fd_allocate", []uint64{9, 0, 100}, wasi.EBADF, 0},
		{"sync", "fd_sync", []uint64{fd}, 0, 0},
		{"datasync", "fd_datasync", []uint64{fd}, 0, 0},
		{"set size", "fd_filestat_set_size", []uint64{fd, 20}, 0, 0},
		{"set size huge", "fd_filestat_set_size", []uint64{fd, 1 << 63}, wasi.EFBIG, 0},
		{"seek on stdout", "fd_seek", []uint64{1, 0, 0, 200}, wasi.ESPIPE, 0},
		{"tell on stdin", "fd_tell", []uint64{0, 200}, wasi.ESPIPE, 0},
		{"seek on directory", "fd_seek", []uint64{3, 0, 0, 200}, wasi.EBADF, 0},
		{"read directory", "fd_read", []uint64{3, 100, 1, 200}, wasi.EISDIR, 0},
		{"write directory", "fd_write", []uint64{3, 100, 1, 200}, wasi.EBADF, 0},
		{"advise stdout", "fd_advise", []uint64{1, 0, 0, 0}, wasi.ESPIPE, 0},
		{"sync stdout", "fd_sync", []uint64{1}, 0, 0},
		{"set size of directory", "fd_filestat_set_size", []uint64{3, 0}, wasi.EISDIR, 0},
	}
	for _, s := range steps {
		r.write(200, make([]byte, 8))
		e := r.call(s.fn, s.args...)
		if e != s.err {
			t.Errorf("%s: %v, want %v", s.name, e, s.err)
			continue
		}
		got := r.u64(200)
		if s.fn == "fd_read" || s.fn == "fd_pread" || s.fn == "fd_pwrite" {
			got = uint64(r.u32(200))
		}
		if e == 0 && got != s.out {
			t.Errorf("%s: result %d, want %d", s.name, got, s.out)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "f"))
	if want := "0123456789" + "PQRS" + "\x00\x00\x00\x00\x00\x00"; string(b) != want {
		t.Errorf("file %q, want %q", b, want)
	}
	// A file opened read-only cannot be written or resized.
	ro := uint64(r.openFile(3, "f", 0, rightsRead, 0))
	for _, fn := range []string{"fd_write", "fd_pwrite"} {
		args := []uint64{ro, 100, 1, 200}
		if fn == "fd_pwrite" {
			args = []uint64{ro, 100, 1, 0, 200}
		}
		if e := r.call(fn, args...); e != wasi.EBADF {
			t.Errorf("%s on read-only file: %v", fn, e)
		}
	}
	if e := r.call("fd_filestat_set_size", ro, 0); e != wasi.EBADF {
		t.Errorf("set size on read-only file: %v", e)
	}
	// A file opened write-only cannot be read.
	wo := uint64(r.openFile(3, "f", 0, rightsWrite, 0))
	if e := r.call("fd_read", wo, 100, 1, 200); e != wasi.EBADF {
		t.Errorf("read on write-only file: %v", e)
	}
}

// APPEND writes go to the end whatever the offset; fd_fdstat_set_flags turns it on and off.
func TestFdAppend(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "log"), []byte("start\n"), 0o644)
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	fd := uint64(r.openFile(3, "log", 0, rightsRW, uint32(fdflagAppend)))
	r.write(1000, []byte("line\n"))
	r.iovecs(100, [2]uint32{1000, 5})
	r.call("fd_seek", fd, 0, 0, 200)
	if e := r.call("fd_write", fd, 100, 1, 200); e != 0 {
		t.Fatal(e)
	}
	r.call("fd_fdstat_get", fd, 300)
	if flags := uint16(r.u32(302)); flags != fdflagAppend {
		t.Errorf("fdstat flags %d", flags)
	}
	if e := r.call("fd_fdstat_set_flags", fd, 0); e != 0 {
		t.Fatal(e)
	}
	r.call("fd_seek", fd, 0, 0, 200)
	r.write(1000, []byte("LINE\n"))
	r.call("fd_write", fd, 100, 1, 200)
	b, _ := os.ReadFile(filepath.Join(dir, "log"))
	// "start\n", then "line\n" appended despite the seek to 0, then "LINE\n" over the start.
	if string(b) != "LINE\n\nline\n" {
		t.Errorf("file %q", b)
	}
}

func TestFdstat(t *testing.T) {
	pre, _ := fsPreopens(t)
	r := newRaw(t, Config{Preopens: pre})
	os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o644)
	file := uint64(r.openFile(3, "f.txt", oflagCreat, rightsRead|rightFdWrite, 0))
	tests := []struct {
		fd         uint64
		typ        wasi.Filetype
		rights     uint64
		inheriting uint64
	}{
		{0, wasi.FiletypeCharacterDevice, stdinRights, 0},
		{1, wasi.FiletypeCharacterDevice, stdoutRights, 0},
		{2, wasi.FiletypeCharacterDevice, stdoutRights, 0},
		{3, wasi.FiletypeDirectory, dirRights, fileRights | dirRights},
		{5, wasi.FiletypeDirectory, dirRights, fileRights | dirRights},
		{file, wasi.FiletypeRegularFile, (rightsRead | rightFdWrite) & fileRights, 0},
	}
	for _, tt := range tests {
		if e := r.call("fd_fdstat_get", tt.fd, 100); e != 0 {
			t.Fatalf("fd %d: %v", tt.fd, e)
		}
		if got := r.read(100, 24); wasi.Filetype(got[0]) != tt.typ || r.u64(108) != tt.rights || r.u64(116) != tt.inheriting {
			t.Errorf("fd %d: type %d rights %#x inheriting %#x; want %d %#x %#x", tt.fd, got[0], r.u64(108), r.u64(116), tt.typ, tt.rights, tt.inheriting)
		}
	}
	errs := []struct {
		name string
		fn   string
		args []uint64
		err  wasi.Errno
	}{
		{"fdstat of closed fd", "fd_fdstat_get", []uint64{99, 100}, wasi.EBADF},
		{"fdstat out of memory", "fd_fdstat_get", []uint64{1, memSize - 23}, wasi.EFAULT},
		{"set flags unknown bit", "fd_fdstat_set_flags", []uint64{file, 1 << 5}, wasi.EINVAL},
		{"set flags too wide", "fd_fdstat_set_flags", []uint64{file, 1 << 16}, wasi.EINVAL},
		{"set flags sync", "fd_fdstat_set_flags", []uint64{file, uint64(fdflagSync)}, wasi.ENOTSUP},
		{"set flags nonblock", "fd_fdstat_set_flags", []uint64{file, uint64(fdflagNonblock)}, 0},
		{"drop rights", "fd_fdstat_set_rights", []uint64{file, rightFdRead, 0}, 0},
		{"regain rights", "fd_fdstat_set_rights", []uint64{file, rightFdRead | rightFdWrite, 0}, wasi.ENOTCAPABLE},
		{"write after dropping the right", "fd_write", []uint64{file, 100, 0, 200}, wasi.EBADF},
		{"set rights closed fd", "fd_fdstat_set_rights", []uint64{99, 0, 0}, wasi.EBADF},
	}
	for _, tt := range errs {
		if e := r.call(tt.fn, tt.args...); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
}

func TestFdClose(t *testing.T) {
	dir := t.TempDir()
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}, MaxHandles: 2})
	a := r.openFile(3, "a", oflagCreat, rightsRW, 0)
	b := r.openFile(3, "b", oflagCreat, rightsRW, 0)
	if a != 4 || b != 5 {
		t.Fatalf("fds %d %d", a, b)
	}
	p, n := r.str(60000, "c")
	if e := r.call("path_open", 3, 1, p, n, oflagCreat, rightsRW, 0, 0, 59996); e != wasi.EMFILE {
		t.Fatalf("third open = %v, want EMFILE", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil {
		t.Error("EMFILE open created the file")
	}
	if e := r.call("fd_close", uint64(a)); e != 0 {
		t.Fatal(e)
	}
	if e := r.call("fd_close", uint64(a)); e != wasi.EBADF {
		t.Errorf("double close = %v", e)
	}
	if c := r.openFile(3, "c", oflagCreat, rightsRW, 0); c != a {
		t.Errorf("reopened fd %d, want the lowest free %d", c, a)
	}
	// fd_renumber moves b onto a (closing it); the old number is free afterwards.
	if e := r.call("fd_renumber", uint64(b), uint64(a)); e != 0 {
		t.Fatal(e)
	}
	if e := r.call("fd_fdstat_get", uint64(b), 100); e != wasi.EBADF {
		t.Errorf("old fd after renumber = %v", e)
	}
	if e := r.call("fd_renumber", uint64(a), 99); e != wasi.EBADF {
		t.Errorf("renumber to closed fd = %v", e)
	}
	if e := r.call("fd_renumber", 99, uint64(a)); e != wasi.EBADF {
		t.Errorf("renumber from closed fd = %v", e)
	}
	if e := r.call("fd_renumber", uint64(a), uint64(a)); e != 0 {
		t.Errorf("renumber onto itself = %v", e)
	}
	// Closing the preopen is allowed; it is gone from prestat afterwards.
	if e := r.call("fd_close", 3); e != 0 {
		t.Fatal(e)
	}
	if e := r.call("fd_prestat_get", 3, 100); e != wasi.EBADF {
		t.Errorf("prestat of closed preopen = %v", e)
	}
	// The open file still works after its preopen is closed.
	r.write(1000, []byte("x"))
	r.iovecs(100, [2]uint32{1000, 1})
	if e := r.call("fd_write", uint64(a), 100, 1, 200); e != 0 {
		t.Errorf("write after preopen closed = %v", e)
	}
}

func TestPrestat(t *testing.T) {
	pre, _ := fsPreopens(t)
	r := newRaw(t, Config{Preopens: pre})
	for i, name := range []string{"/rw", "/ro", "/pkg"} {
		fd := uint64(3 + i)
		r.write(100, bytes.Repeat([]byte{0xFF}, 8))
		if e := r.call("fd_prestat_get", fd, 100); e != 0 {
			t.Fatalf("prestat %d: %v", fd, e)
		}
		if got := r.read(100, 8); got[0] != 0 || got[1] != 0 || r.u32(104) != uint32(len(name)) {
			t.Errorf("prestat %d = %x", fd, got)
		}
		if e := r.call("fd_prestat_dir_name", fd, 200, uint64(len(name))); e != 0 || string(r.read(200, uint32(len(name)))) != name {
			t.Errorf("dir name %d = %v %q", fd, e, r.read(200, uint32(len(name))))
		}
	}
	tests := []struct {
		name string
		fn   string
		args []uint64
		err  wasi.Errno
	}{
		{"stdin", "fd_prestat_get", []uint64{0, 100}, wasi.EBADF},
		{"past the preopens", "fd_prestat_get", []uint64{6, 100}, wasi.EBADF},
		{"out of memory", "fd_prestat_get", []uint64{3, memSize - 4}, wasi.EFAULT},
		{"name buffer short", "fd_prestat_dir_name", []uint64{3, 200, 2}, wasi.ENAMETOOLONG},
		{"name out of memory", "fd_prestat_dir_name", []uint64{3, memSize - 1, 3}, wasi.EFAULT},
		{"name of stdout", "fd_prestat_dir_name", []uint64{1, 200, 10}, wasi.EBADF},
	}
	for _, tt := range tests {
		if e := r.call(tt.fn, tt.args...); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
	// A file opened later is not a preopen.
	fd := r.openFile(3, "x", oflagCreat, rightsRW, 0)
	if e := r.call("fd_prestat_get", uint64(fd), 100); e != wasi.EBADF {
		t.Errorf("prestat of a file = %v", e)
	}
}

func TestFilestat(t *testing.T) {
	pre, rw := fsPreopens(t)
	os.WriteFile(filepath.Join(rw, "f"), []byte("12345"), 0o644)
	r := newRaw(t, Config{Preopens: pre})
	fd := uint64(r.openFile(3, "f", 0, rightsRW, 0))
	fi, _ := os.Stat(filepath.Join(rw, "f"))
	if e := r.call("fd_filestat_get", fd, 100); e != 0 {
		t.Fatal(e)
	}
	if typ, size, mtim := r.read(116, 1)[0], r.u64(132), r.u64(148); wasi.Filetype(typ) != wasi.FiletypeRegularFile || size != 5 || mtim != uint64(fi.ModTime().UnixNano()) {
		t.Errorf("filestat type %d size %d mtim %d", typ, size, mtim)
	}
	if e := r.call("fd_filestat_get", 1, 100); e != 0 || r.read(116, 1)[0] != byte(wasi.FiletypeCharacterDevice) {
		t.Errorf("stdout filestat: %v %d", e, r.read(116, 1)[0])
	}
	if e := r.call("fd_filestat_get", fd, memSize-63); e != wasi.EFAULT {
		t.Errorf("out of memory: %v", e)
	}
	const sec = uint64(1_000_000_000)
	tests := []struct {
		name  string
		fd    uint64
		atim  uint64
		mtim  uint64
		flags uint64
		err   wasi.Errno
	}{
		{"set both", fd, 100 * sec, 200 * sec, fstAtim | fstMtim, 0},
		{"set mtime only", fd, 0, 300 * sec, fstMtim, 0},
		{"atim and atim now", fd, 0, 0, fstAtim | fstAtimNow, wasi.EINVAL},
		{"mtim and mtim now", fd, 0, 0, fstMtim | fstMtimNow, wasi.EINVAL},
		{"unknown flag", fd, 0, 0, 16, wasi.EINVAL},
		{"stdout", 1, 0, 0, fstMtimNow, wasi.EBADF},
		{"read-only preopen dir", 4, 0, 0, fstMtimNow, wasi.EPERM},
		{"fs.FS dir", 5, 0, 0, fstMtimNow, wasi.EPERM},
	}
	for _, tt := range tests {
		if e := r.call("fd_filestat_set_times", tt.fd, tt.atim, tt.mtim, tt.flags); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
	fi, _ = os.Stat(filepath.Join(rw, "f"))
	if fi.ModTime().Unix() != 300 {
		t.Errorf("mtime %v", fi.ModTime())
	}
}

// A host preopen is opened at its first use (wasi.HostDirOptions.Lazy): fd_prestat_get,
// fd_prestat_dir_name and fd_fdstat_get answer without it, and a directory removed after Bind
// fails the first use with ENOENT (an opened one would have been kept, and its uses would fail
// as the host fails them on a removed directory). Where preopens open at once (not Unix), the
// same calls answer as for an opened directory.
func TestLazyPreopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	os.Remove(dir)
	if e := r.call("fd_prestat_get", 3, 100); e != 0 || r.u32(104) != 2 {
		t.Errorf("fd_prestat_get = %v, name length %d", e, r.u32(104))
	}
	if e := r.call("fd_prestat_dir_name", 3, 200, 2); e != 0 || string(r.read(200, 2)) != "/d" {
		t.Errorf("fd_prestat_dir_name = %v %q", e, r.read(200, 2))
	}
	if e := r.call("fd_fdstat_get", 3, 300); e != 0 || r.read(300, 1)[0] != byte(wasi.FiletypeDirectory) {
		t.Errorf("fd_fdstat_get = %v, filetype %d", e, r.read(300, 1)[0])
	}
	p, n := r.str(60000, "f")
	if e := r.call("path_open", 3, 1, p, n, 1 /* creat */, rightsRW, rightsRW, 0, 59996); e != wasi.ENOENT {
		t.Errorf("path_open in the removed directory = %v, want ENOENT", e)
	}
	// Opened lazily, the first use fails. Opened at Bind (where preopens cannot be lazy), fstat
	// answers as the platform's os.Root does for a removed directory: through its descriptor
	// (wasip1: success) or by its path (js: ENOENT).
	if e := r.call("fd_filestat_get", 3, 400); e != wasi.ENOENT && (lazyPreopens || e != 0) {
		t.Errorf("fd_filestat_get = %v, want ENOENT (lazy preopens: %v)", e, lazyPreopens)
	}
	if e := r.call("fd_close", 3); e != 0 {
		t.Errorf("fd_close = %v", e)
	}
}

// Bind still refuses a missing or non-directory host preopen, with the error of an eager open.
func TestBindPreopenErrorText(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o644)
	for _, dir := range []string{filepath.Join(base, "missing"), file} {
		_, eager := wasi.OpenHostDir(dir, wasi.HostDirOptions{})
		if eager == nil {
			t.Fatalf("OpenHostDir(%q) succeeded", dir)
		}
		want := `preview1: preopen 0 ("/x"): ` + eager.Error()
		s, _ := testEngine(t).NewStore(t.Context(), engine.DefaultLimits())
		_, err := Bind(s, Config{Preopens: []wasi.Preopen{{GuestPath: "/x", HostDir: dir}}})
		if err == nil || err.Error() != want {
			t.Errorf("Bind(%q) = %v, want %s", dir, err, want)
		}
		s.Close(t.Context())
	}
}
