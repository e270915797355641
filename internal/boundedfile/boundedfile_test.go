package boundedfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const testCap = 16

// fileCase is one file given to Read, ReadFS, Copy and Open, with what each must do with it.
type fileCase struct {
	name string
	// make creates the file at path (in dir), or skips the test where the platform cannot.
	make func(t *testing.T, dir, path string)
	data string // the contents read, when want is nil
	want error  // the sentinel of the refusal, or fs.ErrNotExist
	say  string // what the error must say (besides the file's name)
}

func writeFile(data string) func(t *testing.T, dir, path string) {
	return func(t *testing.T, _, path string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(target func(t *testing.T, dir, path string)) func(t *testing.T, dir, path string) {
	return func(t *testing.T, dir, path string) {
		to := filepath.Join(dir, "target")
		target(t, dir, to)
		if err := os.Symlink(to, path); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
}

func mkdir(t *testing.T, _, path string) {
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// fileCases are the cases of every platform; fifo_unix_test.go adds FIFOs and devices.
var fileCases = []fileCase{
	{name: "regular file", make: writeFile("hello"), data: "hello"},
	{name: "empty file", make: writeFile(""), data: ""},
	{name: "exactly at the cap", make: writeFile(strings.Repeat("a", testCap)), data: strings.Repeat("a", testCap)},
	{name: "over the cap by one byte", make: writeFile(strings.Repeat("a", testCap+1)), want: ErrTooLarge,
		say: "is too large: 17 bytes, larger than 16"},
	{name: "directory", make: mkdir, want: ErrNotRegular, say: "is a directory, not a regular file"},
	{name: "symbolic link to a regular file", make: symlink(writeFile("linked")), data: "linked"},
	{name: "symbolic link to a directory", make: symlink(mkdir), want: ErrNotRegular, say: "is a directory, not a regular file"},
	{name: "symbolic link to a file over the cap", make: symlink(writeFile(strings.Repeat("a", testCap+1))), want: ErrTooLarge,
		say: "larger than 16"},
	{name: "nonexistent", make: func(*testing.T, string, string) {}, want: fs.ErrNotExist},
	{name: "dangling symbolic link", make: func(t *testing.T, dir, path string) {
		if err := os.Symlink(filepath.Join(dir, "nowhere"), path); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}, want: fs.ErrNotExist},
}

// readers are the ways into the package, each reading the file named name in dir.
var readers = []struct {
	name string
	read func(dir, name string) ([]byte, error)
}{
	{"Read", func(dir, name string) ([]byte, error) { return Read(filepath.Join(dir, name), testCap) }},
	{"ReadFS", func(dir, name string) ([]byte, error) { return ReadFS(os.DirFS(dir), name, testCap) }},
	{"Copy", func(dir, name string) ([]byte, error) {
		var buf bytes.Buffer
		n, err := Copy(&buf, filepath.Join(dir, name), testCap)
		if err == nil && n != int64(buf.Len()) {
			return nil, errors.New("Copy's count is not what it wrote")
		}
		return buf.Bytes(), err
	}},
	{"Open", func(dir, name string) ([]byte, error) {
		f, err := Open(filepath.Join(dir, name), testCap)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}},
}

// TestRead runs every file case through every reader; none may take long, a FIFO without a
// writer included.
func TestRead(t *testing.T) {
	for _, tt := range fileCases {
		for _, r := range readers {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				dir := t.TempDir()
				tt.make(t, dir, filepath.Join(dir, "f"))
				var b []byte
				var err error
				within(t, 10*time.Second, func() { b, err = r.read(dir, "f") })
				if tt.want == nil {
					if err != nil || string(b) != tt.data {
						t.Fatalf("got %q, %v; want %q", b, err, tt.data)
					}
					return
				}
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "f") || !strings.Contains(err.Error(), tt.say) {
					t.Fatalf("got %q, %v; want %v saying %q", b, err, tt.want, tt.say)
				}
				if b != nil {
					t.Errorf("returned %d bytes with the error", len(b))
				}
			})
		}
	}
}

// within fails the test if f does not return within d: the refusals are about reads that block.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// sizeFS reports every file's size as size, whatever it holds: a file that grew after its Stat,
// or a file system that reports no size.
type sizeFS struct {
	fstest.MapFS
	size int64
}

func (s sizeFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return sizeFile{f, s.size}, nil
}

func (s sizeFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := s.MapFS.Stat(name)
	if err != nil {
		return nil, err
	}
	return sizeInfo{fi, s.size}, nil
}

type sizeFile struct {
	fs.File
	size int64
}

func (f sizeFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return sizeInfo{fi, f.size}, nil
}

type sizeInfo struct {
	fs.FileInfo
	size int64
}

func (i sizeInfo) Size() int64 { return i.size }

// TestReadFS_Errors: what ReadFS refuses on any fs.FS, platform or not: special files as
// fstest.MapFS has them, and contents longer than the size the file system reported.
func TestReadFS_Errors(t *testing.T) {
	mfs := fstest.MapFS{
		"pipe":   {Mode: fs.ModeNamedPipe},
		"dev":    {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"sock":   {Mode: fs.ModeSocket},
		"big":    {Data: []byte(strings.Repeat("a", testCap+1))},
		"at-cap": {Data: []byte(strings.Repeat("a", testCap))},
	}
	tests := []struct {
		name, file string
		fsys       fs.FS
		want       error
		say        string
	}{
		{"named pipe", "pipe", mfs, ErrNotRegular, "pipe is a named pipe, not a regular file"},
		{"character device", "dev", mfs, ErrNotRegular, "dev is a character device, not a regular file"},
		{"socket", "sock", mfs, ErrNotRegular, "sock is a socket, not a regular file"},
		{"over the cap", "big", mfs, ErrTooLarge, "big is too large: 17 bytes, larger than 16"},
		{"over the cap, reported empty", "big", sizeFS{mfs, 0}, ErrTooLarge, "big is too large: larger than 16 bytes"},
		{"not there", "none", mfs, fs.ErrNotExist, "none"},
		{"invalid name", "../x", mfs, fs.ErrNotExist, "../x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadFS(tt.fsys, tt.file, testCap)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) || b != nil {
				t.Errorf("got %d bytes, %v; want %v saying %q", len(b), err, tt.want, tt.say)
			}
		})
	}
	// A file that reports more than it holds is read to its end all the same.
	if b, err := ReadFS(sizeFS{mfs, testCap}, "big", testCap+1); err != nil || len(b) != testCap+1 {
		t.Errorf("reported larger: got %d bytes, %v", len(b), err)
	}
	if b, err := ReadFS(sizeFS{mfs, 3}, "at-cap", testCap); err != nil || len(b) != testCap {
		t.Errorf("reported smaller: got %d bytes, %v", len(b), err)
	}
}

// TestRead_Proc: a file of /proc reports size 0 and holds more; the cap holds on what is read.
func TestRead_Proc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	const name = "/proc/self/status"
	if _, err := os.Stat(name); err != nil {
		t.Skip(err)
	}
	if _, err := Read(name, 8); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 8 bytes") {
		t.Errorf("capped at 8: %v", err)
	}
	if b, err := Read(name, 1<<20); err != nil || !bytes.Contains(b, []byte("Name:")) {
		t.Errorf("got %q, %v", b, err)
	}
}

// TestCopy_WriterError: an error of the writer is Copy's, not a refusal of the file.
func TestCopy_WriterError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	werr := errors.New("disk full")
	_, err := Copy(failWriter{werr}, path, testCap)
	if !errors.Is(err, werr) || errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v", err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestKind(t *testing.T) {
	for _, tt := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "regular file"},
		{fs.ModeDir | 0o755, "directory"},
		{fs.ModeSymlink, "symbolic link"},
		{fs.ModeNamedPipe, "named pipe"},
		{fs.ModeDevice | fs.ModeCharDevice, "character device"},
		{fs.ModeDevice, "block device"},
		{fs.ModeSocket, "socket"},
		{fs.ModeIrregular, "special file"},
	} {
		if got := Kind(tt.mode); got != tt.want {
			t.Errorf("Kind(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
