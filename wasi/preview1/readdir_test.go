package preview1

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kobako/kobako/wasi"
)

type dirent struct {
	next uint64
	ino  uint64
	typ  wasi.Filetype
	name string
}

// readdirAll lists fd the way wasi-libc and Go do: call with the cookie of the last complete
// entry, grow the buffer when not even one entry fits, stop when the buffer is not filled.
func (r *raw) readdirAll(fd uint32, bufSize uint32) []dirent {
	r.t.Helper()
	var out []dirent
	cookie := uint64(0)
	for calls := 0; calls < 10000; calls++ {
		if e := r.call("fd_readdir", uint64(fd), 4096, uint64(bufSize), cookie, 200); e != 0 {
			r.t.Fatalf("fd_readdir: %v", e)
		}
		used := r.u32(200)
		b := r.read(4096, used)
		complete := 0
		for len(b) >= direntSize {
			namlen := le32(b[16:])
			if uint32(len(b)) < direntSize+namlen {
				break
			}
			d := dirent{next: le64(b), ino: le64(b[8:]), typ: wasi.Filetype(b[20]), name: string(b[direntSize : direntSize+namlen])}
			out = append(out, d)
			cookie = d.next
			b = b[direntSize+namlen:]
			complete++
		}
		if used < bufSize {
			return out
		}
		if complete == 0 {
			bufSize *= 2
		}
	}
	r.t.Fatal("fd_readdir never ended")
	return nil
}

func TestReaddir(t *testing.T) {
	dir := t.TempDir()
	want := []string{".", ".."}
	for i := range 40 {
		name := fmt.Sprintf("f%02d%s", i, strings.Repeat("x", i*3))
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		want = append(want, name)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("f00", filepath.Join(dir, "link"))
	want = append(want, "link", "sub")
	sort.Strings(want)
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	for _, size := range []uint32{1, 23, 24, 30, 64, 200, 4096} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			got := r.readdirAll(3, size)
			var names []string
			for i, d := range got {
				names = append(names, d.name)
				if d.next != uint64(i+1) {
					t.Errorf("%s: d_next %d, want %d", d.name, d.next, i+1)
				}
				wantType := wasi.FiletypeRegularFile
				switch d.name {
				case ".", "..", "sub":
					wantType = wasi.FiletypeDirectory
				case "link":
					wantType = wasi.FiletypeSymbolicLink
				}
				if d.typ != wantType {
					t.Errorf("%s: type %d, want %d", d.name, d.typ, wantType)
				}
				if runtime.GOOS == "linux" && d.ino == 0 {
					t.Errorf("%s: no inode", d.name)
				}
			}
			sort.Strings(names)
			if strings.Join(names, "/") != strings.Join(want, "/") {
				t.Errorf("listing\n%v\nwant\n%v", names, want)
			}
		})
	}
	// A cookie from the middle resumes there, and going back restarts the listing.
	all := r.readdirAll(3, 4096)
	if e := r.call("fd_readdir", 3, 4096, 4096, 10, 200); e != 0 {
		t.Fatal(e)
	}
	if first := string(r.read(4096+direntSize, le32(r.read(4096+16, 4)))); first != all[10].name {
		t.Errorf("cookie 10 starts at %q, want %q", first, all[10].name)
	}
	if e := r.call("fd_readdir", 3, 4096, 4096, 3, 200); e != 0 {
		t.Fatal(e)
	}
	if first := string(r.read(4096+direntSize, le32(r.read(4096+16, 4)))); first != all[3].name {
		t.Errorf("cookie 3 starts at %q, want %q", first, all[3].name)
	}
	// Past the end: nothing.
	if e := r.call("fd_readdir", 3, 4096, 4096, 1000, 200); e != 0 || r.u32(200) != 0 {
		t.Errorf("cookie past the end: %v, %d bytes", e, r.u32(200))
	}
}

func TestReaddirFS(t *testing.T) {
	fsys := fstest.MapFS{"a": {}, "b/c": {}, "d": {}}
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/p", FS: fsys}}})
	var names []string
	for _, d := range r.readdirAll(3, 32) {
		names = append(names, d.name)
	}
	if strings.Join(names, ",") != ".,..,a,b,d" {
		t.Errorf("listing %v", names)
	}
}

func TestReaddir_Errors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	r := newRaw(t, Config{Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	f := r.openFile(3, "f", 0, rightsRead, 0)
	tests := []struct {
		name string
		args []uint64
		err  wasi.Errno
	}{
		{"file", []uint64{uint64(f), 4096, 100, 0, 200}, wasi.ENOTDIR},
		{"stdout", []uint64{1, 4096, 100, 0, 200}, wasi.EBADF},
		{"closed", []uint64{40, 4096, 100, 0, 200}, wasi.EBADF},
		{"buffer out of memory", []uint64{3, memSize - 10, 100, 0, 200}, wasi.EFAULT},
		{"bufused out of memory", []uint64{3, 4096, 100, 0, memSize - 1}, wasi.EFAULT},
	}
	for _, tt := range tests {
		if e := r.call("fd_readdir", tt.args...); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
}
