package preview2

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/wasi"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

// okCode stands, in the tables below, for a call that must succeed.
const okCode errorCode = 255

// fsWorld is a Host with four preopens and a few descriptors opened beneath them:
//
//	rw     a writable host directory: file ("hello"), dir/inner, empty/, in -> file, and three
//	       symbolic links that lead outside: out (absolute, to outside/secret), rel-out (relative,
//	       to the same file) and outdir (to outside itself)
//	ro     a read-only host directory: file, dir/, emptydir/, in -> file
//	fs     a read-only fs.FS: file ("data"), dir/inner, link -> file
//	other  a second writable host directory, another tree: file
//
// outside is a directory next to them that no path may reach: secret, victim/.
type fsWorld struct {
	h                     *Host
	clock                 *wasi.FakeClock
	rw, ro, fs, other     descHandle
	file                  descHandle // rw/file opened for reading
	roFile                descHandle // ro/file opened for reading
	dirNoMut, dirMut      descHandle // rw/dir without and with mutate-directory
	rwDir, roDir, outside string
}

var worldEpoch = time.Unix(1_700_000_000, 0)

func newFSWorld(t *testing.T) *fsWorld {
	t.Helper()
	w := &fsWorld{rwDir: t.TempDir(), roDir: t.TempDir(), outside: t.TempDir(), clock: wasi.NewFakeClock(worldEpoch, 0)}
	otherDir := t.TempDir()
	secret := filepath.Join(w.outside, "secret")
	relOut, err := filepath.Rel(w.rwDir, secret)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, w.outside, map[string]string{"secret": "secret", "victim/": ""})
	writeFiles(t, w.rwDir, map[string]string{"file": "hello", "dir/inner": "x", "empty/": "",
		"in": "->file", "out": "->" + secret, "rel-out": "->" + relOut, "outdir": "->" + w.outside})
	writeFiles(t, w.roDir, map[string]string{"file": "ro", "dir/inner": "x", "emptydir/": "", "in": "->file"})
	writeFiles(t, otherDir, map[string]string{"file": "other"})
	// Old times everywhere, so that a change made by a test cannot be mistaken for the present.
	for _, p := range []string{secret, filepath.Join(w.rwDir, "file"), filepath.Join(w.roDir, "file")} {
		if err := os.Chtimes(p, time.Unix(1000, 0), time.Unix(2000, 0)); err != nil {
			t.Fatal(err)
		}
	}
	w.h = newTestHost(t, Config{Clock: w.clock, Preopens: []wasi.Preopen{
		{GuestPath: "/rw", HostDir: w.rwDir},
		{GuestPath: "/ro", HostDir: w.roDir, ReadOnly: true},
		{GuestPath: "/fs", FS: fstest.MapFS{
			"file":      {Data: []byte("data"), ModTime: time.Unix(3000, 0)},
			"dir/inner": {Data: []byte("x")},
			"link":      {Data: []byte("file"), Mode: fs.ModeSymlink},
		}},
		{GuestPath: "/other", HostDir: otherDir},
	}})
	dirs, err := w.h.getDirectories()
	if err != nil || len(dirs) != 4 {
		t.Fatalf("get-directories = %v, %v", dirs, err)
	}
	w.rw, w.ro, w.fs, w.other = lend(dirs[0].Desc), lend(dirs[1].Desc), lend(dirs[2].Desc), lend(dirs[3].Desc)
	w.file = w.open(t, w.rw, "file", 0, flagRead)
	w.roFile = w.open(t, w.ro, "file", 0, flagRead)
	w.dirNoMut = w.open(t, w.rw, "dir", 2, flagRead)
	w.dirMut = w.open(t, w.rw, "dir", 2, flagRead|flagMutateDirectory)
	return w
}

// writeFiles makes files under dir: a name ending in "/" is a directory, contents starting with
// "->" make a symbolic link to the rest.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case name[len(name)-1] == '/':
			err = os.MkdirAll(p, 0o755)
		case len(data) >= 2 && data[:2] == "->":
			err = os.Symlink(data[2:], p)
		default:
			err = os.WriteFile(p, []byte(data), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (w *fsWorld) open(t *testing.T, dir descHandle, path string, openFlags, flags uint8) descHandle {
	t.Helper()
	r, err := w.h.openAt(dir, 1, path, openFlags, flags)
	if err != nil || r.IsErr {
		t.Fatalf("open-at %q = %+v, %v", path, r, err)
	}
	return lend(r.Ok)
}

// desc names the descriptors of w for the tables.
func (w *fsWorld) desc(name string) descHandle {
	return map[string]descHandle{"rw": w.rw, "ro": w.ro, "fs": w.fs, "other": w.other, "file": w.file,
		"ro-file": w.roFile, "dir-no-mutate": w.dirNoMut, "dir-mutate": w.dirMut}[name]
}

// checkResult fails unless r is what want says: a success (okCode) or that error-code.
func checkResult[T any](t *testing.T, what string, r fsResult[T], err error, want errorCode) {
	t.Helper()
	switch {
	case err != nil:
		t.Fatalf("%s: trap %v, want error-code %d", what, err, want)
	case want == okCode && r.IsErr:
		t.Fatalf("%s: error-code %d, want success", what, r.Err)
	case want != okCode && !r.IsErr:
		t.Fatalf("%s: success (%+v), want error-code %d", what, r.Ok, want)
	case want != okCode && r.Err != want:
		t.Fatalf("%s: error-code %d, want %d", what, r.Err, want)
	}
}

func exists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Lstat(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// mutation is one case of the tables of calls that change a directory: the call, the outcome,
// and what the host directories must then look like.
type mutation struct {
	name  string
	call  func(w *fsWorld) (fsResult[struct{}], error)
	want  errorCode
	check func(t *testing.T, w *fsWorld)
}

func runMutations(t *testing.T, tests []mutation) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newFSWorld(t)
			r, err := tt.call(w)
			checkResult(t, tt.name, r, err, tt.want)
			if tt.check != nil {
				tt.check(t, w)
			}
			// Whatever the call, nothing outside the preopens changes.
			if !exists(t, filepath.Join(w.outside, "secret")) || !exists(t, filepath.Join(w.outside, "victim")) {
				t.Fatal("a file outside the preopens was removed")
			}
			if ents, _ := os.ReadDir(w.outside); len(ents) != 2 {
				t.Fatalf("outside holds %d entries, want 2", len(ents))
			}
		})
	}
}

// present and absent check host paths relative to the writable preopen.
func present(paths ...string) func(*testing.T, *fsWorld) {
	return func(t *testing.T, w *fsWorld) {
		t.Helper()
		for _, p := range paths {
			if !exists(t, filepath.Join(w.rwDir, p)) {
				t.Fatalf("%s is missing", p)
			}
		}
	}
}

func absent(paths ...string) func(*testing.T, *fsWorld) {
	return func(t *testing.T, w *fsWorld) {
		t.Helper()
		for _, p := range paths {
			if exists(t, filepath.Join(w.rwDir, p)) {
				t.Fatalf("%s exists", p)
			}
		}
	}
}

func both(a, b func(*testing.T, *fsWorld)) func(*testing.T, *fsWorld) {
	return func(t *testing.T, w *fsWorld) { t.Helper(); a(t, w); b(t, w) }
}

func TestCreateDirectoryAt(t *testing.T) {
	mk := func(desc, path string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) { return w.h.createDirectoryAt(w.desc(desc), path) }
	}
	runMutations(t, []mutation{
		{"new", mk("rw", "new"), okCode, func(t *testing.T, w *fsWorld) {
			if fi, err := os.Stat(filepath.Join(w.rwDir, "new")); err != nil || !fi.IsDir() {
				t.Fatalf("new: %v, %v", fi, err)
			}
		}},
		{"nested", mk("rw", "dir/new"), okCode, present("dir/new")},
		{"exists", mk("rw", "dir"), codeExist, nil},
		{"over a file", mk("rw", "file"), codeExist, nil},
		{"dot", mk("rw", "."), codeExist, nil},
		{"missing parent", mk("rw", "missing/new"), codeNoEntry, absent("missing")},
		{"empty path", mk("rw", ""), codeNoEntry, nil},
		{"NUL", mk("rw", "a\x00b"), codeInvalid, nil},
		{"dot-dot", mk("rw", "../escape"), codeNotPermitted, nil},
		{"dot-dot inside", mk("rw", "dir/../new"), okCode, present("new")},
		{"absolute", mk("rw", filepath.Join(os.TempDir(), "kobako-escape")), codeNotPermitted, nil},
		{"through a symlink out", mk("rw", "outdir/new"), codeNotPermitted, nil},
		{"read-only preopen", mk("ro", "new"), codeNotPermitted, func(t *testing.T, w *fsWorld) {
			if exists(t, filepath.Join(w.roDir, "new")) {
				t.Fatal("created in the read-only preopen")
			}
		}},
		{"fs preopen", mk("fs", "new"), codeNotPermitted, nil},
		{"on a file descriptor", mk("file", "new"), codeNotDirectory, absent("new")},
		{"without mutate-directory", mk("dir-no-mutate", "new"), codeNotPermitted, absent("dir/new")},
		{"with mutate-directory", mk("dir-mutate", "new"), okCode, present("dir/new")},
	})
}

func TestRemoveDirectoryAt(t *testing.T) {
	rm := func(desc, path string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) { return w.h.removeDirectoryAt(w.desc(desc), path) }
	}
	runMutations(t, []mutation{
		{"empty", rm("rw", "empty"), okCode, absent("empty")},
		{"trailing slash", rm("rw", "empty/"), okCode, absent("empty")},
		{"not empty", rm("rw", "dir"), codeNotEmpty, present("dir/inner")},
		{"file", rm("rw", "file"), codeNotDirectory, present("file")},
		{"symlink to a file", rm("rw", "in"), codeNotDirectory, present("in", "file")},
		{"symlink to a dir outside", rm("rw", "outdir"), codeNotDirectory, present("outdir")},
		{"missing", rm("rw", "missing"), codeNoEntry, nil},
		{"dot", rm("rw", "."), codeInvalid, nil},
		{"dot-dot", rm("rw", ".."), codeNotPermitted, nil},
		{"through a symlink out", rm("rw", "outdir/victim"), codeNotPermitted, nil},
		{"absolute", rm("rw", "/tmp"), codeNotPermitted, nil},
		{"read-only preopen", rm("ro", "emptydir"), codeNotPermitted, func(t *testing.T, w *fsWorld) {
			if !exists(t, filepath.Join(w.roDir, "emptydir")) {
				t.Fatal("removed from the read-only preopen")
			}
		}},
		{"fs preopen", rm("fs", "dir"), codeNotPermitted, nil},
		{"on a file descriptor", rm("file", "x"), codeNotDirectory, nil},
		{"without mutate-directory", rm("dir-no-mutate", "inner"), codeNotPermitted, present("dir/inner")},
	})
}

func TestUnlinkFileAt(t *testing.T) {
	rm := func(desc, path string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) { return w.h.unlinkFileAt(w.desc(desc), path) }
	}
	runMutations(t, []mutation{
		{"file", rm("rw", "file"), okCode, absent("file")},
		{"nested", rm("rw", "dir/inner"), okCode, both(absent("dir/inner"), present("dir"))},
		// Unlinking a symbolic link removes the link, never what it points to: the secret stays
		// (runMutations checks it).
		{"symlink out", rm("rw", "out"), okCode, absent("out")},
		{"symlink to a dir out", rm("rw", "outdir"), okCode, absent("outdir")},
		{"symlink in", rm("rw", "in"), okCode, both(absent("in"), present("file"))},
		{"directory", rm("rw", "dir"), codeIsDirectory, present("dir")},
		{"dot", rm("rw", "."), codeIsDirectory, nil},
		{"trailing slash on a file", rm("rw", "file/"), codeNotDirectory, present("file")},
		{"missing", rm("rw", "missing"), codeNoEntry, nil},
		{"through a symlink out", rm("rw", "outdir/secret"), codeNotPermitted, nil},
		{"dot-dot", rm("rw", "../secret"), codeNotPermitted, nil},
		{"read-only preopen", rm("ro", "file"), codeNotPermitted, func(t *testing.T, w *fsWorld) {
			if !exists(t, filepath.Join(w.roDir, "file")) {
				t.Fatal("removed from the read-only preopen")
			}
		}},
		{"fs preopen", rm("fs", "file"), codeNotPermitted, nil},
		{"without mutate-directory", rm("dir-no-mutate", "inner"), codeNotPermitted, present("dir/inner")},
		{"with mutate-directory", rm("dir-mutate", "inner"), okCode, absent("dir/inner")},
	})
}

func TestSymlinkAt(t *testing.T) {
	ln := func(desc, target, path string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) { return w.h.symlinkAt(w.desc(desc), target, path) }
	}
	linksTo := func(path, target string) func(*testing.T, *fsWorld) {
		return func(t *testing.T, w *fsWorld) {
			t.Helper()
			if got, err := os.Readlink(filepath.Join(w.rwDir, path)); err != nil || got != target {
				t.Fatalf("%s -> %q, %v; want %q", path, got, err, target)
			}
		}
	}
	runMutations(t, []mutation{
		{"to a file", ln("rw", "file", "l"), okCode, linksTo("l", "file")},
		{"nested target", ln("rw", "dir/inner", "l"), okCode, linksTo("l", "dir/inner")},
		{"up one level, inside", ln("rw", "../file", "dir/l"), okCode, linksTo("dir/l", "../file")},
		{"dangling", ln("rw", "missing", "l"), okCode, linksTo("l", "missing")},
		{"from a subdirectory descriptor", ln("dir-mutate", "../file", "l"), okCode, linksTo("dir/l", "../file")},
		{"absolute target", ln("rw", "/etc/passwd", "l"), codeNotPermitted, absent("l")},
		{"target climbs out", ln("rw", "../secret", "l"), codeNotPermitted, absent("l")},
		{"target climbs out later", ln("rw", "dir/../../secret", "l"), codeNotPermitted, absent("l")},
		{"target climbs out of a subdirectory", ln("rw", "../../secret", "dir/l"), codeNotPermitted, absent("dir/l")},
		{"subdirectory descriptor, target out", ln("dir-mutate", "../../secret", "l"), codeNotPermitted, absent("dir/l")},
		{"link outside", ln("rw", "file", "../l"), codeNotPermitted, nil},
		{"link through a symlink out", ln("rw", "file", "outdir/l"), codeNotPermitted, nil},
		{"exists", ln("rw", "dir", "file"), codeExist, nil},
		{"empty target", ln("rw", "", "l"), codeNoEntry, absent("l")},
		{"read-only preopen", ln("ro", "file", "l"), codeNotPermitted, func(t *testing.T, w *fsWorld) {
			if exists(t, filepath.Join(w.roDir, "l")) {
				t.Fatal("created in the read-only preopen")
			}
		}},
		{"fs preopen", ln("fs", "file", "l"), codeNotPermitted, nil},
		{"without mutate-directory", ln("dir-no-mutate", "inner", "l"), codeNotPermitted, absent("dir/l")},
		{"on a file descriptor", ln("file", "x", "l"), codeNotDirectory, absent("l")},
	})
}

func TestRenameAt(t *testing.T) {
	mv := func(from, oldPath, to, newPath string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) {
			return w.h.renameAt(w.desc(from), oldPath, w.desc(to), newPath)
		}
	}
	runMutations(t, []mutation{
		{"file", mv("rw", "file", "rw", "moved"), okCode, both(absent("file"), present("moved"))},
		{"into a subdirectory", mv("rw", "file", "rw", "dir/moved"), okCode, both(absent("file"), present("dir/moved"))},
		{"to a subdirectory descriptor", mv("rw", "file", "dir-mutate", "moved"), okCode, both(absent("file"), present("dir/moved"))},
		{"from a subdirectory descriptor", mv("dir-mutate", "inner", "rw", "moved"), okCode, both(absent("dir/inner"), present("moved"))},
		{"symlink out, moved", mv("rw", "out", "rw", "dir/out"), okCode, present("dir/out")},
		{"over an existing file", mv("rw", "in", "rw", "file"), okCode, absent("in")},
		{"missing", mv("rw", "missing", "rw", "x"), codeNoEntry, absent("x")},
		// Onto an existing directory, as POSIX and wasmtime do (Go's os.Rename refuses them all).
		{"directory over an empty directory", mv("rw", "dir", "rw", "empty"), okCode, both(absent("dir"), present("empty/inner"))},
		{"directory over a non-empty directory", mv("rw", "empty", "rw", "dir"), codeNotEmpty, both(present("empty"), present("dir/inner"))},
		{"file over a directory", mv("rw", "file", "rw", "empty"), codeIsDirectory, present("file")},
		{"directory over a file", mv("rw", "dir", "rw", "file"), codeNotDirectory, present("dir/inner")},
		{"directory into itself", mv("rw", "dir", "rw", "dir/sub"), codeInvalid, present("dir/inner")},
		{"dot", mv("rw", ".", "rw", "x"), codeBusy, nil},
		{"new path out", mv("rw", "file", "rw", "../x"), codeNotPermitted, present("file")},
		{"old path out", mv("rw", "../secret", "rw", "x"), codeNotPermitted, absent("x")},
		{"new path through a symlink out", mv("rw", "file", "rw", "outdir/x"), codeNotPermitted, present("file")},
		{"old path through a symlink out", mv("rw", "outdir/secret", "rw", "x"), codeNotPermitted, absent("x")},
		{"another preopen", mv("rw", "file", "other", "x"), codeCrossDevice, present("file")},
		{"into the read-only preopen", mv("rw", "file", "ro", "x"), codeNotPermitted, present("file")},
		{"out of the read-only preopen", mv("ro", "file", "rw", "x"), codeNotPermitted, absent("x")},
		{"fs preopen", mv("fs", "file", "fs", "x"), codeNotPermitted, nil},
		{"old descriptor without mutate-directory", mv("dir-no-mutate", "inner", "rw", "x"), codeNotPermitted, both(present("dir/inner"), absent("x"))},
		// The new descriptor's directory changes too: it needs mutate-directory as much as the
		// old one does.
		{"new descriptor without mutate-directory", mv("rw", "file", "dir-no-mutate", "x"), codeNotPermitted, both(present("file"), absent("dir/x"))},
		{"new descriptor is a file", mv("rw", "file", "file", "x"), codeNotDirectory, present("file")},
		{"old descriptor is a file", mv("file", "x", "rw", "y"), codeNotDirectory, nil},
	})
}

func TestLinkAt(t *testing.T) {
	ln := func(from string, pf uint8, oldPath, to, newPath string) func(*fsWorld) (fsResult[struct{}], error) {
		return func(w *fsWorld) (fsResult[struct{}], error) {
			return w.h.linkAt(w.desc(from), pf, oldPath, w.desc(to), newPath)
		}
	}
	sameFile := func(a, b string) func(*testing.T, *fsWorld) {
		return func(t *testing.T, w *fsWorld) {
			t.Helper()
			fa, err1 := os.Lstat(filepath.Join(w.rwDir, a))
			fb, err2 := os.Lstat(filepath.Join(w.rwDir, b))
			if err1 != nil || err2 != nil || !os.SameFile(fa, fb) {
				t.Fatalf("%s and %s are not one file (%v, %v)", a, b, err1, err2)
			}
		}
	}
	runMutations(t, []mutation{
		{"file", ln("rw", 0, "file", "rw", "hard"), okCode, sameFile("file", "hard")},
		{"into a subdirectory", ln("rw", 0, "file", "rw", "dir/hard"), okCode, sameFile("file", "dir/hard")},
		{"to a subdirectory descriptor", ln("rw", 0, "file", "dir-mutate", "hard"), okCode, sameFile("file", "dir/hard")},
		{"from a subdirectory descriptor", ln("dir-mutate", 0, "inner", "rw", "hard"), okCode, sameFile("dir/inner", "hard")},
		{"symlink-follow", ln("rw", 1, "file", "rw", "hard"), codeInvalid, absent("hard")},
		{"exists", ln("rw", 0, "file", "rw", "in"), codeExist, nil},
		{"missing", ln("rw", 0, "missing", "rw", "hard"), codeNoEntry, absent("hard")},
		{"directory", ln("rw", 0, "dir", "rw", "hard"), codeNotPermitted, absent("hard")},
		{"old path out", ln("rw", 0, "../secret", "rw", "hard"), codeNotPermitted, absent("hard")},
		{"old path through a symlink out", ln("rw", 0, "outdir/secret", "rw", "hard"), codeNotPermitted, absent("hard")},
		{"new path out", ln("rw", 0, "file", "rw", "../hard"), codeNotPermitted, nil},
		{"new path through a symlink out", ln("rw", 0, "file", "rw", "outdir/hard"), codeNotPermitted, nil},
		{"another preopen", ln("rw", 0, "file", "other", "hard"), codeCrossDevice, nil},
		{"into the read-only preopen", ln("rw", 0, "file", "ro", "hard"), codeNotPermitted, nil},
		{"out of the read-only preopen", ln("ro", 0, "file", "rw", "hard"), codeNotPermitted, absent("hard")},
		{"fs preopen", ln("fs", 0, "file", "fs", "hard"), codeNotPermitted, nil},
		{"old descriptor without mutate-directory", ln("dir-no-mutate", 0, "inner", "rw", "hard"), codeNotPermitted, absent("hard")},
		{"new descriptor without mutate-directory", ln("rw", 0, "file", "dir-no-mutate", "hard"), codeNotPermitted, absent("dir/hard")},
		{"new descriptor is a file", ln("rw", 0, "file", "file", "hard"), codeNotDirectory, nil},
	})
}

// A symbolic link that leads out of the preopen, whether the host made it or the guest
// hard-linked a host-made one, can be listed, read, moved and removed, but never followed; a
// link the guest made cannot be moved to where it would lead out.
func TestSymlinkOutIsNotFollowed(t *testing.T) {
	w := newFSWorld(t)
	// A link the guest may make in a subdirectory (it stays inside from there)…
	r, err := w.h.symlinkAt(w.rw, "../file", "dir/up")
	checkResult(t, "symlink-at ../file in dir", r, err, okCode)
	// …would lead out moved up a level: refused, as creating it there is.
	r, err = w.h.renameAt(w.rw, "dir/up", w.rw, "up")
	checkResult(t, "rename-at dir/up", r, err, codeNotPermitted)
	r, err = w.h.linkAt(w.rw, 0, "dir/up", w.rw, "up")
	checkResult(t, "link-at dir/up", r, err, codeNotPermitted)
	if _, err := os.Lstat(filepath.Join(w.rwDir, "up")); err == nil {
		t.Fatal("the moved link landed at the top")
	}
	// A hard link to an outside link the host made is an outside link.
	r, err = w.h.linkAt(w.rw, 0, "out", w.rw, "out-hard")
	checkResult(t, "link-at out", r, err, okCode)
	for _, name := range []string{"out", "rel-out", "outdir", "out-hard"} {
		t.Run(name, func(t *testing.T) {
			st, err := w.h.statAt(w.rw, 0, name)
			checkResult(t, "stat-at without follow", st, err, okCode)
			if st.Ok.Type != typeSymbolicLink {
				t.Fatalf("stat-at without follow: type %d, want symbolic-link", st.Ok.Type)
			}
			st, err = w.h.statAt(w.rw, 1, name)
			checkResult(t, "stat-at follow", st, err, codeNotPermitted)
			mh, err := w.h.metadataHashAt(w.rw, 1, name)
			checkResult(t, "metadata-hash-at follow", mh, err, codeNotPermitted)
			o, err := w.h.openAt(w.rw, 1, name, 0, flagRead)
			checkResult(t, "open-at follow", o, err, codeNotPermitted)
			o, err = w.h.openAt(w.rw, 0, name, 0, flagRead)
			checkResult(t, "open-at without follow", o, err, codeLoop)
			o, err = w.h.openAt(w.rw, 1, name, 1|8, flagWrite)
			checkResult(t, "open-at create|truncate", o, err, codeNotPermitted)
			u, err := w.h.setTimesAt(w.rw, 1, name, newTimestamp{Now: true}, newTimestamp{Now: true})
			checkResult(t, "set-times-at follow", u, err, codeNotPermitted)
			u, err = w.h.createDirectoryAt(w.rw, name+"/x")
			checkResult(t, "create-directory-at beneath", u, err, codeNotPermitted)
		})
	}
	fi, err := os.Stat(filepath.Join(w.outside, "secret"))
	if err != nil || fi.Size() != int64(len("secret")) || !fi.ModTime().Equal(time.Unix(2000, 0)) {
		t.Fatalf("the outside file changed: %v, %v", fi, err)
	}
}

func TestStatAt(t *testing.T) {
	tests := []struct {
		name     string
		desc     string
		pf       uint8
		path     string
		want     errorCode
		wantType b.DescriptorType
		wantSize uint64
	}{
		{"file", "rw", 0, "file", okCode, typeRegularFile, 5},
		{"directory", "rw", 0, "dir", okCode, typeDirectory, 0},
		{"dot", "rw", 0, ".", okCode, typeDirectory, 0},
		{"dot-dot inside", "rw", 0, "dir/../file", okCode, typeRegularFile, 5},
		{"symlink, no follow", "rw", 0, "in", okCode, typeSymbolicLink, 0},
		{"symlink, follow", "rw", 1, "in", okCode, typeRegularFile, 5},
		{"symlink out, no follow", "rw", 0, "out", okCode, typeSymbolicLink, 0},
		{"symlink out, follow", "rw", 1, "out", codeNotPermitted, 0, 0},
		{"relative symlink out, follow", "rw", 1, "rel-out", codeNotPermitted, 0, 0},
		{"through a symlink out", "rw", 0, "outdir/secret", codeNotPermitted, 0, 0},
		{"dot-dot", "rw", 0, "..", codeNotPermitted, 0, 0},
		{"dot-dot out", "rw", 0, "dir/../../x", codeNotPermitted, 0, 0},
		{"absolute", "rw", 0, "/etc/passwd", codeNotPermitted, 0, 0},
		{"missing", "rw", 0, "missing", codeNoEntry, 0, 0},
		{"beneath a file", "rw", 0, "file/x", codeNotDirectory, 0, 0},
		{"empty", "rw", 0, "", codeNoEntry, 0, 0},
		{"subdirectory descriptor", "dir-no-mutate", 0, "inner", okCode, typeRegularFile, 1},
		{"subdirectory descriptor, dot-dot", "dir-no-mutate", 0, "../file", codeNotPermitted, 0, 0},
		{"read-only preopen", "ro", 0, "file", okCode, typeRegularFile, 2},
		{"fs file", "fs", 0, "file", okCode, typeRegularFile, 4},
		{"fs directory", "fs", 0, "dir", okCode, typeDirectory, 0},
		{"fs symlink, no follow", "fs", 0, "link", okCode, typeSymbolicLink, 0},
		{"fs symlink, follow", "fs", 1, "link", okCode, typeRegularFile, 4},
		{"fs dot-dot", "fs", 0, "../x", codeNotPermitted, 0, 0},
		{"fs missing", "fs", 0, "missing", codeNoEntry, 0, 0},
		{"on a file descriptor", "file", 0, "x", codeNotDirectory, 0, 0},
	}
	w := newFSWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := w.h.statAt(w.desc(tt.desc), tt.pf, tt.path)
			checkResult(t, "stat-at", r, err, tt.want)
			if tt.want != okCode {
				return
			}
			if r.Ok.Type != tt.wantType {
				t.Fatalf("type %d, want %d", r.Ok.Type, tt.wantType)
			}
			if tt.wantType == typeRegularFile && r.Ok.Size != tt.wantSize {
				t.Fatalf("size %d, want %d", r.Ok.Size, tt.wantSize)
			}
			if r.Ok.LinkCount == 0 || r.Ok.DataModificationTimestamp == nil {
				t.Fatalf("stat %+v lacks a link count or modification time", r.Ok)
			}
		})
	}
	// The times are the host's.
	r, err := w.h.statAt(w.rw, 0, "file")
	checkResult(t, "stat-at file", r, err, okCode)
	if m, a := r.Ok.DataModificationTimestamp, r.Ok.DataAccessTimestamp; !sameTime(m, 2000) || !sameTime(a, 1000) {
		t.Fatalf("times: modified %+v, accessed %+v; want 2000 s and 1000 s", m, a)
	}
	r, err = w.h.statAt(w.fs, 0, "file")
	checkResult(t, "stat-at fs file", r, err, okCode)
	if !sameTime(r.Ok.DataModificationTimestamp, 3000) {
		t.Fatalf("fs modification time %+v, want 3000 s", r.Ok.DataModificationTimestamp)
	}
	// A hard link shows in the link count.
	u, err := w.h.linkAt(w.rw, 0, "file", w.rw, "hard")
	checkResult(t, "link-at", u, err, okCode)
	r, err = w.h.statAt(w.rw, 0, "hard")
	checkResult(t, "stat-at hard", r, err, okCode)
	if r.Ok.LinkCount != 2 {
		t.Fatalf("link count %d after link-at, want 2", r.Ok.LinkCount)
	}
	// A bad rep traps.
	if _, err := w.h.statAt(descHandle{Rep: 9999}, 0, "file"); !errors.Is(err, ErrHandle) {
		t.Fatalf("stat-at on an unknown rep: %v, want ErrHandle", err)
	}
}

func TestReadlinkAt(t *testing.T) {
	tests := []struct {
		name string
		desc string
		path string
		want errorCode
		got  string
	}{
		{"inside", "rw", "in", okCode, "file"},
		{"read-only preopen", "ro", "in", okCode, "file"},
		{"fs", "fs", "link", okCode, "file"},
		// Reading a link is not following it: its text is the guest's to see.
		{"leading out", "rw", "rel-out", okCode, ""},
		{"not a link", "rw", "file", codeInvalid, ""},
		{"directory", "rw", "dir", codeInvalid, ""},
		{"fs not a link", "fs", "file", codeInvalid, ""},
		{"missing", "rw", "missing", codeNoEntry, ""},
		{"fs missing", "fs", "missing", codeNoEntry, ""},
		{"through a symlink out", "rw", "outdir/x", codeNotPermitted, ""},
		{"dot-dot", "rw", "../x", codeNotPermitted, ""},
		{"absolute", "rw", "/x", codeNotPermitted, ""},
		{"on a file descriptor", "file", "x", codeNotDirectory, ""},
	}
	w := newFSWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := w.h.readlinkAt(w.desc(tt.desc), tt.path)
			checkResult(t, "readlink-at", r, err, tt.want)
			want := tt.got
			if tt.path == "rel-out" {
				want, _ = os.Readlink(filepath.Join(w.rwDir, "rel-out"))
			}
			if tt.want == okCode && r.Ok != want {
				t.Fatalf("readlink-at = %q, want %q", r.Ok, want)
			}
		})
	}
}

// A link whose text is not UTF-8 (which only the host can make) cannot be a WIT string: the guest
// gets illegal-byte-sequence, not a trap from lowering the result.
func TestReadlinkAtNotUTF8(t *testing.T) {
	w := newFSWorld(t)
	if err := os.Symlink("bad\xff", filepath.Join(w.rwDir, "bad")); err != nil {
		t.Skipf("the host file system refuses a non-UTF-8 link: %v", err)
	}
	r, err := w.h.readlinkAt(w.rw, "bad")
	checkResult(t, "readlink-at", r, err, codeIllegalByteSequence)
}

// readAll lists a directory with read-directory and read-directory-entry, by name.
func readAll(t *testing.T, h *Host, dir descHandle) map[string]b.DescriptorType {
	t.Helper()
	s, err := h.readDirectory(dir)
	checkResult(t, "read-directory", s, err, okCode)
	got := map[string]b.DescriptorType{}
	for range 1000 {
		e, err := h.readDirectoryEntry(lend(s.Ok))
		checkResult(t, "read-directory-entry", e, err, okCode)
		if !e.Ok.IsSome {
			// The end stays the end.
			e, err = h.readDirectoryEntry(lend(s.Ok))
			if err != nil || e.IsErr || !!e.Ok.IsSome {
				t.Fatalf("read-directory-entry after the end = %+v, %v", e, err)
			}
			return got
		}
		ent := e.Ok.Value
		if _, dup := got[ent.Name]; dup {
			t.Fatalf("%q listed twice", ent.Name)
		}
		got[ent.Name] = ent.Type
	}
	t.Fatal("read-directory-entry never ended")
	return nil
}

func TestReadDirectory(t *testing.T) {
	tests := []struct {
		name string
		desc string
		want map[string]b.DescriptorType
	}{
		{"writable preopen", "rw", map[string]b.DescriptorType{"file": typeRegularFile, "dir": typeDirectory,
			"empty": typeDirectory, "in": typeSymbolicLink, "out": typeSymbolicLink,
			"rel-out": typeSymbolicLink, "outdir": typeSymbolicLink}},
		{"subdirectory", "dir-no-mutate", map[string]b.DescriptorType{"inner": typeRegularFile}},
		{"read-only preopen", "ro", map[string]b.DescriptorType{"file": typeRegularFile, "dir": typeDirectory,
			"emptydir": typeDirectory, "in": typeSymbolicLink}},
		{"fs", "fs", map[string]b.DescriptorType{"file": typeRegularFile, "dir": typeDirectory, "link": typeSymbolicLink}},
	}
	w := newFSWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, w.h, w.desc(tt.desc))
			if len(got) != len(tt.want) {
				t.Fatalf("listed %v, want %v", got, tt.want)
			}
			for name, typ := range tt.want {
				if g, ok := got[name]; !ok || g != typ {
					t.Fatalf("listed %v, want %v", got, tt.want)
				}
			}
		})
	}
	t.Run("empty directory", func(t *testing.T) {
		d := w.open(t, w.rw, "empty", 2, flagRead)
		if got := readAll(t, w.h, d); len(got) != 0 {
			t.Fatalf("listed %v in an empty directory", got)
		}
	})
	t.Run("a stream outlives its descriptor", func(t *testing.T) {
		d := w.open(t, w.rw, "dir", 2, flagRead)
		s, err := w.h.readDirectory(d)
		checkResult(t, "read-directory", s, err, okCode)
		if err := drop[*descriptor](w.h, d.Rep); err != nil {
			t.Fatal(err)
		}
		e, err := w.h.readDirectoryEntry(lend(s.Ok))
		checkResult(t, "read-directory-entry", e, err, okCode)
		if !e.Ok.IsSome || e.Ok.Value.Name != "inner" {
			t.Fatalf("read-directory-entry = %+v, want inner", e.Ok)
		}
	})
	t.Run("sees changes made before it starts", func(t *testing.T) {
		r, err := w.h.createDirectoryAt(w.dirMut, "new")
		checkResult(t, "create-directory-at", r, err, okCode)
		if got := readAll(t, w.h, w.dirMut); got["new"] != typeDirectory || len(got) != 2 {
			t.Fatalf("listed %v, want inner and new", got)
		}
	})
	t.Run("on a file descriptor", func(t *testing.T) {
		r, err := w.h.readDirectory(w.file)
		checkResult(t, "read-directory", r, err, codeNotDirectory)
	})
	t.Run("unknown reps trap", func(t *testing.T) {
		if _, err := w.h.readDirectory(descHandle{Rep: 9999}); !errors.Is(err, ErrHandle) {
			t.Fatalf("read-directory on an unknown rep: %v", err)
		}
		if _, err := w.h.readDirectoryEntry(abi.Borrow[*dirStream]{Rep: w.rw.Rep}); !errors.Is(err, ErrHandle) {
			t.Fatalf("read-directory-entry on a descriptor: %v", err)
		}
	})
	t.Run("dropped stream", func(t *testing.T) {
		s, err := w.h.readDirectory(w.rw)
		checkResult(t, "read-directory", s, err, okCode)
		if err := drop[*dirStream](w.h, s.Ok.Rep); err != nil {
			t.Fatal(err)
		}
		if _, err := w.h.readDirectoryEntry(lend(s.Ok)); !errors.Is(err, ErrHandle) {
			t.Fatalf("read-directory-entry after the drop: %v, want ErrHandle", err)
		}
	})
}

// The stream is a host resource like any other: past MaxResources read-directory traps and
// leaves nothing open.
func TestReadDirectoryResourceLimit(t *testing.T) {
	h := newTestHost(t, Config{MaxHandles: 1, Preopens: []wasi.Preopen{{GuestPath: "/", HostDir: t.TempDir()}}})
	dirs, err := h.getDirectories()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.readDirectory(lend(dirs[0].Desc)); !errors.Is(err, ErrTooManyResources) {
		t.Fatalf("read-directory past the limit: %v, want ErrTooManyResources", err)
	}
	if h.res.Len() != 1 {
		t.Fatalf("%d resources held, want 1", h.res.Len())
	}
}

// A name that is not UTF-8 (which only the host can make) cannot be a WIT string: that entry is
// illegal-byte-sequence, and the listing goes on past it.
func TestReadDirectoryNotUTF8(t *testing.T) {
	w := newFSWorld(t)
	if err := os.WriteFile(filepath.Join(w.rwDir, "empty", "bad\xff"), nil, 0o644); err != nil {
		t.Skipf("the host file system refuses a non-UTF-8 name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(w.rwDir, "empty", "good"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := w.open(t, w.rw, "empty", 2, flagRead)
	s, err := w.h.readDirectory(d)
	checkResult(t, "read-directory", s, err, okCode)
	var names []string
	bad := 0
	for range 10 {
		e, err := w.h.readDirectoryEntry(lend(s.Ok))
		if err != nil {
			t.Fatal(err)
		}
		if e.IsErr {
			if e.Err != codeIllegalByteSequence {
				t.Fatalf("error-code %d, want illegal-byte-sequence", e.Err)
			}
			bad++
			continue
		}
		if !e.Ok.IsSome {
			break
		}
		names = append(names, e.Ok.Value.Name)
	}
	if bad != 1 || !slices.Equal(names, []string{"good"}) {
		t.Fatalf("listed %q and %d bad names, want [good] and 1", names, bad)
	}
}

func ts(sec uint64, ns uint32) newTimestamp {
	return newTimestamp{Timestamp: &datetime{Seconds: sec, Nanoseconds: ns}}
}

var (
	noChange = newTimestamp{NoChange: true}
	now      = newTimestamp{Now: true}
)

func TestSetTimesAt(t *testing.T) {
	tests := []struct {
		name       string
		desc       string
		pf         uint8
		path       string
		atim, mtim newTimestamp
		want       errorCode
		// wantA and wantM are the times the host then shows for rw/file, in seconds.
		wantA, wantM int64
	}{
		{"both", "rw", 0, "file", ts(5000, 0), ts(6000, 7), okCode, 5000, 6000},
		{"access only", "rw", 0, "file", ts(5000, 0), noChange, okCode, 5000, 2000},
		{"modification only", "rw", 0, "file", noChange, ts(6000, 0), okCode, 1000, 6000},
		{"no change", "rw", 0, "file", noChange, noChange, okCode, 1000, 2000},
		{"now", "rw", 0, "file", now, now, okCode, worldEpoch.Unix(), worldEpoch.Unix()},
		{"follow a symlink", "rw", 1, "in", ts(5000, 0), ts(6000, 0), okCode, 5000, 6000},
		{"a symlink itself", "rw", 0, "in", ts(5000, 0), ts(6000, 0), codeUnsupported, 1000, 2000},
		{"subdirectory descriptor", "dir-mutate", 0, "../file", ts(5000, 0), ts(6000, 0), codeNotPermitted, 1000, 2000},
		{"nanoseconds out of range", "rw", 0, "file", ts(5000, 1e9), noChange, codeInvalid, 1000, 2000},
		// Past what a host time can hold (year 2262): refused rather than set to some other time.
		{"seconds out of range", "rw", 0, "file", noChange, ts(1<<40, 0), codeOverflow, 1000, 2000},
		{"largest seconds", "rw", 0, "file", noChange, ts(1<<62, 0), codeOverflow, 1000, 2000},
		{"missing", "rw", 0, "missing", now, now, codeNoEntry, 1000, 2000},
		{"symlink out, follow", "rw", 1, "out", now, now, codeNotPermitted, 1000, 2000},
		{"through a symlink out", "rw", 0, "outdir/secret", now, now, codeNotPermitted, 1000, 2000},
		{"dot-dot", "rw", 0, "../secret", now, now, codeNotPermitted, 1000, 2000},
		{"read-only preopen", "ro", 0, "file", now, now, codeNotPermitted, 1000, 2000},
		{"fs preopen", "fs", 0, "file", now, now, codeNotPermitted, 1000, 2000},
		{"without mutate-directory", "dir-no-mutate", 0, "inner", now, now, codeNotPermitted, 1000, 2000},
		{"on a file descriptor", "file", 0, "x", now, now, codeNotDirectory, 1000, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newFSWorld(t)
			r, err := w.h.setTimesAt(w.desc(tt.desc), tt.pf, tt.path, tt.atim, tt.mtim)
			checkResult(t, "set-times-at", r, err, tt.want)
			checkTimes(t, filepath.Join(w.rwDir, "file"), tt.wantA, tt.wantM)
			checkTimes(t, filepath.Join(w.outside, "secret"), 1000, 2000)
			checkTimes(t, filepath.Join(w.roDir, "file"), 1000, 2000)
		})
	}
}

func TestSetTimes(t *testing.T) {
	tests := []struct {
		name       string
		desc       string
		atim, mtim newTimestamp
		want       errorCode
		path       func(w *fsWorld) string // the host file that changes
		changed    bool
	}{
		{"file", "file", ts(5000, 0), ts(6000, 0), okCode, rwFile, true},
		{"file opened read-only, writable preopen", "file", noChange, ts(6000, 0), okCode, rwFile, true},
		{"writable preopen", "rw", ts(5000, 0), ts(6000, 0), okCode, func(w *fsWorld) string { return w.rwDir }, true},
		{"subdirectory with mutate-directory", "dir-mutate", ts(5000, 0), ts(6000, 0), okCode, rwSubdir, true},
		// set-times-at "." on this descriptor is not-permitted; set-times must agree.
		{"subdirectory without mutate-directory", "dir-no-mutate", ts(5000, 0), ts(6000, 0), codeNotPermitted, rwSubdir, false},
		{"read-only preopen", "ro", ts(5000, 0), ts(6000, 0), codeNotPermitted, func(w *fsWorld) string { return w.roDir }, false},
		{"file of the read-only preopen", "ro-file", ts(5000, 0), ts(6000, 0), codeNotPermitted, func(w *fsWorld) string { return filepath.Join(w.roDir, "file") }, false},
		{"fs preopen", "fs", now, now, codeNotPermitted, nil, false},
		{"nanoseconds out of range", "file", ts(0, 1e9), noChange, codeInvalid, rwFile, false},
		{"seconds out of range", "file", ts(1<<40, 0), noChange, codeOverflow, rwFile, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newFSWorld(t)
			var before time.Time
			if tt.path != nil {
				before = mtime(t, tt.path(w))
			}
			r, err := w.h.setTimes(w.desc(tt.desc), tt.atim, tt.mtim)
			checkResult(t, "set-times", r, err, tt.want)
			if tt.path == nil {
				return
			}
			after := mtime(t, tt.path(w))
			switch {
			case tt.changed && !after.Equal(time.Unix(6000, 0)):
				t.Fatalf("modification time %v, want 6000 s", after)
			case !tt.changed && !after.Equal(before):
				t.Fatalf("modification time changed from %v to %v", before, after)
			}
		})
	}
	w := newFSWorld(t)
	if _, err := w.h.setTimes(descHandle{Rep: 9999}, now, now); !errors.Is(err, ErrHandle) {
		t.Fatalf("set-times on an unknown rep: %v, want ErrHandle", err)
	}
}

func rwFile(w *fsWorld) string   { return filepath.Join(w.rwDir, "file") }
func rwSubdir(w *fsWorld) string { return filepath.Join(w.rwDir, "dir") }

func mtime(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// checkTimes checks the access and modification times of host file p, in seconds.
func checkTimes(t *testing.T, p string, atime, mtime int64) {
	t.Helper()
	d, err := wasi.OpenHostDir(filepath.Dir(p), wasi.HostDirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.StatAt(filepath.Base(p), false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Atime.Unix() != atime || st.Mtime.Unix() != mtime {
		t.Fatalf("%s: accessed %d, modified %d; want %d and %d", filepath.Base(p), st.Atime.Unix(), st.Mtime.Unix(), atime, mtime)
	}
}

func TestIsSameObject(t *testing.T) {
	w := newFSWorld(t)
	again, err := w.h.getDirectories()
	if err != nil {
		t.Fatal(err)
	}
	fileAgain := w.open(t, w.rw, "file", 0, flagRead|flagWrite)
	viaLink := w.open(t, w.rw, "in", 0, flagRead)
	viaDotDot := w.open(t, w.dirNoMut, "inner", 0, flagRead)
	inner := w.open(t, w.rw, "dir/inner", 0, flagRead)
	fsFile := w.open(t, w.fs, "file", 0, flagRead)
	// Opened as "file" again, not through "link": an fs.FS file's identity is the path it was
	// opened by (see wasi.NewFSDir), so the two would differ.
	fsFileAgain := w.open(t, w.fs, "file", 0, flagRead)
	fsDir := w.open(t, w.fs, "dir", 2, flagRead)
	tests := []struct {
		name string
		a, b descHandle
		want bool
	}{
		{"itself", w.file, w.file, true},
		{"file opened twice", w.file, fileAgain, true},
		{"file through a symlink", w.file, viaLink, true},
		{"file through a subdirectory", viaDotDot, inner, true},
		{"preopen from two get-directories calls", w.rw, lend(again[0].Desc), true},
		{"subdirectory opened twice", w.dirNoMut, w.dirMut, true},
		{"two files", w.file, inner, false},
		{"file and its directory", w.file, w.rw, false},
		{"two preopens", w.rw, w.ro, false},
		{"two trees, same name", w.file, w.roFile, false},
		{"fs file opened twice", fsFile, fsFileAgain, true},
		{"fs file and directory", fsFile, fsDir, false},
		{"fs and host", fsFile, w.file, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ab := range [][2]descHandle{{tt.a, tt.b}, {tt.b, tt.a}} {
				got, err := w.h.isSameObject(ab[0], ab[1])
				if err != nil || got != tt.want {
					t.Fatalf("is-same-object(%d, %d) = %v, %v; want %v", ab[0].Rep, ab[1].Rep, got, err, tt.want)
				}
			}
		})
	}
	if _, err := w.h.isSameObject(w.file, descHandle{Rep: 9999}); !errors.Is(err, ErrHandle) {
		t.Fatalf("is-same-object with an unknown rep: %v, want ErrHandle", err)
	}
	if _, err := w.h.isSameObject(descHandle{Rep: 9999}, w.file); !errors.Is(err, ErrHandle) {
		t.Fatalf("is-same-object with an unknown rep: %v, want ErrHandle", err)
	}
}

func TestMetadataHash(t *testing.T) {
	w := newFSWorld(t)
	hash := func(t *testing.T, desc descHandle) hashValue {
		t.Helper()
		r, err := w.h.metadataHash(desc)
		checkResult(t, "metadata-hash", r, err, okCode)
		return r.Ok
	}
	hashAt := func(t *testing.T, desc descHandle, pf uint8, path string) hashValue {
		t.Helper()
		r, err := w.h.metadataHashAt(desc, pf, path)
		checkResult(t, "metadata-hash-at", r, err, okCode)
		return r.Ok
	}
	u, err := w.h.linkAt(w.rw, 0, "file", w.rw, "hard")
	checkResult(t, "link-at", u, err, okCode)
	fsFile := w.open(t, w.fs, "file", 0, flagRead)
	tests := []struct {
		name string
		a, b func(t *testing.T) hashValue
		same bool
	}{
		{"descriptor and path", func(t *testing.T) hashValue { return hash(t, w.file) },
			func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "file") }, true},
		{"hard link", func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "hard") },
			func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "file") }, true},
		{"symlink followed", func(t *testing.T) hashValue { return hashAt(t, w.rw, 1, "in") },
			func(t *testing.T) hashValue { return hash(t, w.file) }, true},
		{"symlink itself", func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "in") },
			func(t *testing.T) hashValue { return hash(t, w.file) }, false},
		{"preopen and dot", func(t *testing.T) hashValue { return hash(t, w.rw) },
			func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, ".") }, true},
		{"subdirectory", func(t *testing.T) hashValue { return hash(t, w.dirNoMut) },
			func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "dir") }, true},
		{"two files", func(t *testing.T) hashValue { return hashAt(t, w.rw, 0, "dir/inner") },
			func(t *testing.T) hashValue { return hash(t, w.file) }, false},
		{"two trees", func(t *testing.T) hashValue { return hash(t, w.roFile) },
			func(t *testing.T) hashValue { return hash(t, w.file) }, false},
		{"fs descriptor and path", func(t *testing.T) hashValue { return hash(t, fsFile) },
			func(t *testing.T) hashValue { return hashAt(t, w.fs, 0, "file") }, true},
		{"fs symlink itself", func(t *testing.T) hashValue { return hashAt(t, w.fs, 0, "link") },
			func(t *testing.T) hashValue { return hash(t, fsFile) }, false},
		{"fs two files", func(t *testing.T) hashValue { return hashAt(t, w.fs, 0, "dir/inner") },
			func(t *testing.T) hashValue { return hash(t, fsFile) }, false},
		{"fs and host", func(t *testing.T) hashValue { return hash(t, w.fs) },
			func(t *testing.T) hashValue { return hash(t, w.rw) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tt.a(t), tt.b(t)
			if (a == b) != tt.same {
				t.Fatalf("hashes %+v and %+v: equal %v, want %v", a, b, a == b, tt.same)
			}
		})
	}
	errs := []struct {
		name string
		desc descHandle
		pf   uint8
		path string
		want errorCode
	}{
		{"missing", w.rw, 0, "missing", codeNoEntry},
		{"dot-dot", w.rw, 0, "../secret", codeNotPermitted},
		{"through a symlink out", w.rw, 0, "outdir/secret", codeNotPermitted},
		{"symlink out, followed", w.rw, 1, "out", codeNotPermitted},
		{"fs missing", w.fs, 0, "missing", codeNoEntry},
		{"on a file descriptor", w.file, 0, "x", codeNotDirectory},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			r, err := w.h.metadataHashAt(tt.desc, tt.pf, tt.path)
			checkResult(t, "metadata-hash-at", r, err, tt.want)
		})
	}
	if _, err := w.h.metadataHash(descHandle{Rep: 9999}); !errors.Is(err, ErrHandle) {
		t.Fatalf("metadata-hash on an unknown rep: %v, want ErrHandle", err)
	}
}

// sameTime reports whether an optional datetime is sec seconds.
func sameTime(d *datetime, sec uint64) bool { return d != nil && *d == datetime{Seconds: sec} }
