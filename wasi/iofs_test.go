package wasi

import (
	"io"
	"io/fs"
	"sort"
	"testing"
	"testing/fstest"
	"time"
)

func testFS() fstest.MapFS {
	mt := time.Unix(1_700_000_000, 0)
	return fstest.MapFS{
		"a.txt":         {Data: []byte("alpha"), ModTime: mt},
		"dir/b.txt":     {Data: []byte("bravo")},
		"dir/sub/c.txt": {Data: []byte("charlie")},
		"link":          {Data: []byte("a.txt"), Mode: fs.ModeSymlink},
	}
}

func TestFSDirOpen(t *testing.T) {
	d := NewFSDir(testFS())
	if !d.ReadOnly() {
		t.Fatal("fs.FS dir is not read-only")
	}
	tests := []struct {
		path  string
		flags OpenFlags
		want  string
		err   error
	}{
		{"a.txt", OpenFlags{Read: true}, "alpha", nil},
		{"dir/sub/../b.txt", OpenFlags{}, "bravo", nil},
		{"./dir//sub/c.txt", OpenFlags{}, "charlie", nil},
		{"dir", OpenFlags{}, "<dir>", nil},
		{".", OpenFlags{Directory: true}, "<dir>", nil},
		{"link", OpenFlags{}, "alpha", nil},
		{"link", OpenFlags{NoFollow: true}, "", ELOOP},
		{"../a.txt", OpenFlags{}, "", EPERM},
		{"/a.txt", OpenFlags{}, "", EPERM},
		{"missing", OpenFlags{}, "", ENOENT},
		{"a.txt", OpenFlags{Directory: true}, "", ENOTDIR},
		{"a.txt/", OpenFlags{}, "", ENOTDIR},
		{"a.txt", OpenFlags{Write: true}, "", EPERM},
		{"new", OpenFlags{Create: true}, "", EPERM},
		{"a.txt", OpenFlags{Truncate: true}, "", EPERM},
	}
	for _, tt := range tests {
		n, err := d.OpenAt(tt.path, tt.flags)
		if err != tt.err {
			t.Errorf("OpenAt(%q, %+v) = %v, want %v", tt.path, tt.flags, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if _, ok := n.(Dir); ok {
			if tt.want != "<dir>" {
				t.Errorf("OpenAt(%q) gave a directory", tt.path)
			}
		} else if got := readAll(t, n); got != tt.want {
			t.Errorf("OpenAt(%q) read %q, want %q", tt.path, got, tt.want)
		}
		n.Close()
	}
}

func TestFSDirSubdir(t *testing.T) {
	d := NewFSDir(testFS())
	n, err := d.OpenAt("dir", OpenFlags{Directory: true})
	if err != nil {
		t.Fatal(err)
	}
	sub := n.(Dir)
	if _, err := sub.OpenAt("../a.txt", OpenFlags{}); err != EPERM {
		t.Errorf("sub ../a.txt = %v, want EPERM", err)
	}
	f, err := sub.OpenAt("sub/c.txt", OpenFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, f); got != "charlie" {
		t.Errorf("read %q", got)
	}
	r, err := sub.ReadDir()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
		if e.Ino == 0 {
			t.Errorf("%s: no inode", e.Name)
		}
	}
	r.Close()
	sort.Strings(names)
	if !equalStrings(names, []string{"b.txt", "sub"}) {
		t.Errorf("listing %v", names)
	}
	if err := sub.Close(); err != nil {
		t.Error(err)
	}
	if err := sub.Close(); err != EBADF {
		t.Errorf("second close = %v", err)
	}
}

func TestFSDirReadOnly(t *testing.T) {
	d := NewFSDir(testFS())
	ops := []struct {
		name string
		fn   func() error
		err  error
	}{
		{"mkdir", func() error { return d.MkdirAt("x") }, EPERM},
		{"mkdir escape", func() error { return d.MkdirAt("../x") }, EPERM},
		{"mkdir bad path", func() error { return d.MkdirAt("") }, ENOENT},
		{"unlink", func() error { return d.UnlinkAt("a.txt") }, EPERM},
		{"rmdir", func() error { return d.RmdirAt("dir") }, EPERM},
		{"rename", func() error { return d.RenameAt("a.txt", d, "b") }, EPERM},
		{"link", func() error { return d.LinkAt("a.txt", false, d, "b") }, EPERM},
		{"symlink", func() error { return d.SymlinkAt("a.txt", "b") }, EPERM},
		{"set times", func() error { return d.SetTimesAt("a.txt", true, Times{}) }, EPERM},
		{"dir set times", func() error { return d.SetTimes(Times{}) }, EPERM},
	}
	for _, op := range ops {
		if err := op.fn(); err != op.err {
			t.Errorf("%s = %v, want %v", op.name, err, op.err)
		}
	}
	n, _ := d.OpenAt("a.txt", OpenFlags{})
	f := n.(File)
	defer f.Close()
	if _, err := f.Writev([][]byte{[]byte("x")}, -1); err != EBADF {
		t.Errorf("write = %v, want EBADF", err)
	}
	if err := f.Truncate(0); err != EBADF {
		t.Errorf("truncate = %v, want EBADF", err)
	}
	if err := f.SetTimes(Times{}); err != EPERM {
		t.Errorf("set times = %v, want EPERM", err)
	}
	if f.Writable() || !f.Readable() {
		t.Error("fs.FS file access flags wrong")
	}
}

func TestFSDirStat(t *testing.T) {
	d := NewFSDir(testFS())
	tests := []struct {
		path   string
		follow bool
		typ    Filetype
		size   uint64
		err    error
	}{
		{"a.txt", true, FiletypeRegularFile, 5, nil},
		{"dir", true, FiletypeDirectory, 0, nil},
		{"link", false, FiletypeSymbolicLink, 5, nil},
		{"link", true, FiletypeRegularFile, 5, nil},
		{"nope", true, 0, 0, ENOENT},
		{"..", true, 0, 0, EPERM},
	}
	for _, tt := range tests {
		st, err := d.StatAt(tt.path, tt.follow)
		if err != tt.err || (err == nil && (st.Type != tt.typ || st.Size != tt.size)) {
			t.Errorf("StatAt(%q, %v) = %+v, %v", tt.path, tt.follow, st, err)
		}
	}
	a, _ := d.StatAt("a.txt", true)
	if !a.Mtime.Equal(time.Unix(1_700_000_000, 0)) || a.Ino == 0 || a.Dev == 0 || a.Nlink != 1 {
		t.Errorf("a.txt stat %+v", a)
	}
	if s, err := d.ReadlinkAt("link"); s != "a.txt" || err != nil {
		t.Errorf("ReadlinkAt = %q, %v", s, err)
	}
	if _, err := d.ReadlinkAt("a.txt"); err == nil {
		t.Error("ReadlinkAt(regular file): no error")
	}
	other := NewFSDir(testFS())
	b, _ := other.StatAt("a.txt", true)
	if b.Dev == a.Dev {
		t.Error("two fs.FS trees share a device number")
	}
}

// A file without ReaderAt or Seeker still reads; positional reads say ESPIPE.
type plainFS struct{}

type plainFile struct{ r io.Reader }

func (plainFS) Open(name string) (fs.File, error) {
	if name == "." {
		return nil, fs.ErrNotExist
	}
	return &plainFile{r: &limited{n: 10}}, nil
}
func (f *plainFile) Stat() (fs.FileInfo, error) { return plainInfo{}, nil }
func (f *plainFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *plainFile) Close() error               { return nil }

type plainInfo struct{}

func (plainInfo) Name() string       { return "f" }
func (plainInfo) Size() int64        { return 10 }
func (plainInfo) Mode() fs.FileMode  { return 0o444 }
func (plainInfo) ModTime() time.Time { return time.Time{} }
func (plainInfo) IsDir() bool        { return false }
func (plainInfo) Sys() any           { return nil }

type limited struct{ n int }

func (l *limited) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), l.n)
	for i := range k {
		p[i] = 'x'
	}
	l.n -= k
	return k, nil
}

func TestFSDirPlainFile(t *testing.T) {
	d := NewFSDir(plainFS{})
	n, err := d.OpenAt("f", OpenFlags{})
	if err != nil {
		t.Fatal(err)
	}
	f := n.(File)
	if _, err := f.Readv([][]byte{make([]byte, 4)}, 0); err != ESPIPE {
		t.Errorf("pread = %v, want ESPIPE", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != ESPIPE {
		t.Errorf("seek = %v, want ESPIPE", err)
	}
	if got := readAll(t, f); got != "xxxxxxxxxx" {
		t.Errorf("read %q", got)
	}
}

// seekFS serves files that can Seek but not ReadAt, and directories without ReadDirFile.
type seekFS struct{ fstest.MapFS }

type seekOnly struct {
	f fs.File
	s io.Seeker
}

func (f seekOnly) Stat() (fs.FileInfo, error)            { return f.f.Stat() }
func (f seekOnly) Read(p []byte) (int, error)            { return f.f.Read(p) }
func (f seekOnly) Close() error                          { return f.f.Close() }
func (f seekOnly) Seek(off int64, wh int) (int64, error) { return f.s.Seek(off, wh) }

type noReadDir struct{ fs.File }

func (s seekFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, _ := f.Stat(); fi.IsDir() {
		return noReadDir{f}, nil
	}
	return seekOnly{f: f, s: f.(io.Seeker)}, nil
}

func (s seekFS) ReadDir(name string) ([]fs.DirEntry, error) { return s.MapFS.ReadDir(name) }

func TestFSDirSeekOnlyFiles(t *testing.T) {
	d := NewFSDir(seekFS{fstest.MapFS{"f": {Data: []byte("0123456789")}, "d/x": {}}})
	n, err := d.OpenAt("f", OpenFlags{})
	if err != nil {
		t.Fatal(err)
	}
	f := n.(File)
	buf := make([]byte, 3)
	if k, err := f.Readv([][]byte{buf}, -1); k != 3 || err != nil || string(buf) != "012" {
		t.Fatalf("read %q %v", buf[:k], err)
	}
	// pread is emulated with Seek and leaves the offset where it was.
	if k, err := f.Readv([][]byte{buf}, 8); k != 2 || err != nil || string(buf[:2]) != "89" {
		t.Fatalf("pread %q %v", buf[:k], err)
	}
	if k, _ := f.Readv([][]byte{buf}, -1); string(buf[:k]) != "345" {
		t.Errorf("read after pread %q", buf[:k])
	}
	if pos, err := f.Seek(-1, io.SeekEnd); pos != 9 || err != nil {
		t.Errorf("seek %d %v", pos, err)
	}
	if st, err := f.Stat(); err != nil || st.Size != 10 {
		t.Errorf("stat %+v %v", st, err)
	}
	if f.Sync() != nil {
		t.Error("sync")
	}
	// Directories without ReadDirFile are listed through fs.ReadDirFS.
	r, err := d.ReadDir()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		e, err := r.Next()
		if err != nil {
			break
		}
		names = append(names, e.Name)
	}
	r.Close()
	if !equalStrings(names, []string{"d", "f"}) {
		t.Errorf("listing %v", names)
	}
	if st, err := d.Stat(); err != nil || st.Type != FiletypeDirectory {
		t.Errorf("dir stat %+v %v", st, err)
	}
}
