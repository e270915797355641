package preview2_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
)

// wasi:filesystem error-code cases, by number.
const (
	ecExist          = 7
	ecIllegalByteSeq = 9
	ecInvalid        = 12
	ecNoEntry        = 20
	ecNotEmpty       = 25
	ecOverflow       = 30
	ecNotPermitted   = 31
	unitOK           = -1 // a result<_, error-code> that is ok
	typeDirectory    = 3
	typeSymbolicLink = 5
	typeRegularFile  = 6
)

// fsProbe instantiates testdata/fs.wasm with preopen as its only preopen.
func fsProbe(t *testing.T, preopen string, readOnly bool, maxResources int) *component.Instance {
	t.Helper()
	ctx := context.Background()
	e := newEngine(t)
	cc, err := component.Compile(ctx, e, readFixture(t, "testdata/fs.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	if _, err := preview2.Bind(s, preview2.Config{MaxHandles: maxResources,
		Preopens: []wasi.Preopen{{GuestPath: "/data", HostDir: preopen, ReadOnly: readOnly}}}); err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func call(t *testing.T, in *component.Instance, name string, args ...abi.Value) abi.Value {
	t.Helper()
	res, err := in.Call(context.Background(), name, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res) != 1 {
		t.Fatalf("%s: %d results", name, len(res))
	}
	return res[0]
}

// okOrCode returns unitOK for an ok result, else its error-code, with the ok payload.
func okOrCode(t *testing.T, name string, v abi.Value) (int, abi.Value) {
	t.Helper()
	if v.Kind() != abi.KindResult {
		t.Fatalf("%s returned a %s, want a result", name, v.Kind())
	}
	if v.IsErr() {
		return int(v.Payload().Case()), abi.Value{}
	}
	return unitOK, v.Payload()
}

func str(s string) abi.Value { return abi.StringValue(s) }

func timestamp(sec uint64, ns uint32) abi.Value {
	return abi.VariantValue(2, abi.RecordValue(abi.U64Value(sec), abi.U32Value(ns)))
}

var noChange = abi.VariantValue(0, abi.Value{})

// Each directory operation, called by a component through the canonical ABI: arguments (flags,
// the new-timestamp variant, strings) reach the host as sent, and results (records, options,
// the error-code enum) come back as the host made them.
func TestFilesystemThroughComponent(t *testing.T) {
	tests := []struct {
		name     string
		readOnly bool
		call     string
		args     []abi.Value
		want     int
		check    func(t *testing.T, dir string, payload abi.Value)
	}{
		{"create-directory-at", false, "create-directory-at", []abi.Value{str("new")}, unitOK, isDir("new")},
		{"create-directory-at exists", false, "create-directory-at", []abi.Value{str("dir")}, ecExist, nil},
		{"create-directory-at read-only", true, "create-directory-at", []abi.Value{str("new")}, ecNotPermitted, missing("new")},
		{"create-directory-at dot-dot", false, "create-directory-at", []abi.Value{str("../new")}, ecNotPermitted, nil},
		{"remove-directory-at", false, "remove-directory-at", []abi.Value{str("empty")}, unitOK, missing("empty")},
		{"remove-directory-at not empty", false, "remove-directory-at", []abi.Value{str("dir")}, ecNotEmpty, nil},
		{"unlink-file-at", false, "unlink-file-at", []abi.Value{str("file")}, unitOK, missing("file")},
		{"unlink-file-at missing", false, "unlink-file-at", []abi.Value{str("nope")}, ecNoEntry, nil},
		{"symlink-at", false, "symlink-at", []abi.Value{str("file"), str("l")}, unitOK, func(t *testing.T, dir string, _ abi.Value) {
			if got, err := os.Readlink(filepath.Join(dir, "l")); err != nil || got != "file" {
				t.Fatalf("l -> %q, %v", got, err)
			}
		}},
		{"symlink-at out", false, "symlink-at", []abi.Value{str("../file"), str("l")}, ecNotPermitted, missing("l")},
		{"rename-at", false, "rename-at", []abi.Value{str("file"), str("dir/moved")}, unitOK, both(missing("file"), isFile("dir/moved"))},
		{"link-at", false, "link-at", []abi.Value{abi.FlagsValue(0), str("file"), str("hard")}, unitOK, isFile("hard")},
		{"link-at symlink-follow", false, "link-at", []abi.Value{abi.FlagsValue(1), str("file"), str("hard")}, ecInvalid, missing("hard")},
		{"readlink-at", false, "readlink-at", []abi.Value{str("in")}, unitOK, func(t *testing.T, _ string, p abi.Value) {
			if p.Str() != "file" {
				t.Fatalf("readlink-at = %q, want file", p.Str())
			}
		}},
		{"readlink-at not a link", false, "readlink-at", []abi.Value{str("file")}, ecInvalid, nil},
		{"stat-at", false, "stat-at", []abi.Value{abi.FlagsValue(0), str("file")}, unitOK, func(t *testing.T, _ string, p abi.Value) {
			checkStat(t, p, typeRegularFile, 5, 2000)
		}},
		{"stat-at symlink", false, "stat-at", []abi.Value{abi.FlagsValue(0), str("in")}, unitOK, func(t *testing.T, _ string, p abi.Value) {
			if typ := p.Index(0).Case(); typ != typeSymbolicLink {
				t.Fatalf("type %d, want symbolic-link", typ)
			}
		}},
		{"stat-at symlink followed", false, "stat-at", []abi.Value{abi.FlagsValue(1), str("in")}, unitOK, func(t *testing.T, _ string, p abi.Value) {
			checkStat(t, p, typeRegularFile, 5, 2000)
		}},
		{"stat-at directory", false, "stat-at", []abi.Value{abi.FlagsValue(0), str("dir")}, unitOK, func(t *testing.T, _ string, p abi.Value) {
			if typ := p.Index(0).Case(); typ != typeDirectory {
				t.Fatalf("type %d, want directory", typ)
			}
		}},
		{"stat-at missing", false, "stat-at", []abi.Value{abi.FlagsValue(0), str("nope")}, ecNoEntry, nil},
		{"set-times-at", false, "set-times-at", []abi.Value{abi.FlagsValue(0), str("file"), timestamp(5000, 0), timestamp(6000, 250)},
			unitOK, mtimeIs("file", time.Unix(6000, 250))},
		{"set-times-at no-change", false, "set-times-at", []abi.Value{abi.FlagsValue(0), str("file"), noChange, noChange},
			unitOK, mtimeIs("file", time.Unix(2000, 0))},
		{"set-times-at invalid nanoseconds", false, "set-times-at", []abi.Value{abi.FlagsValue(0), str("file"), noChange, timestamp(6000, 1e9)},
			ecInvalid, mtimeIs("file", time.Unix(2000, 0))},
		{"set-times-at past 2262", false, "set-times-at", []abi.Value{abi.FlagsValue(0), str("file"), noChange, timestamp(1<<40, 0)},
			ecOverflow, mtimeIs("file", time.Unix(2000, 0))},
		{"set-times", false, "set-times", []abi.Value{noChange, timestamp(7000, 0)}, unitOK, mtimeIs(".", time.Unix(7000, 0))},
		{"set-times read-only", true, "set-times", []abi.Value{noChange, timestamp(7000, 0)}, ecNotPermitted, nil},
		{"metadata-hash-at missing", false, "metadata-hash-at", []abi.Value{abi.FlagsValue(0), str("nope")}, ecNoEntry, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fsTree(t)
			in := fsProbe(t, dir, tt.readOnly, 0)
			code, payload := okOrCode(t, tt.call, call(t, in, tt.call, tt.args...))
			if code != tt.want {
				t.Fatalf("%s = error-code %d, want %d (-1 is ok)", tt.call, code, tt.want)
			}
			if tt.check != nil {
				tt.check(t, dir, payload)
			}
		})
	}
}

func TestFilesystemListAndIdentityThroughComponent(t *testing.T) {
	dir := fsTree(t)
	// Few resources: the probe must drop what it opens, or the calls below trap.
	in := fsProbe(t, dir, false, 4)

	code, list := okOrCode(t, "list", call(t, in, "list"))
	if code != unitOK {
		t.Fatalf("list = error-code %d", code)
	}
	got := map[string]uint32{}
	for _, e := range list.Elems() {
		got[e.Index(1).Str()] = e.Index(0).Case()
	}
	want := map[string]uint32{"file": typeRegularFile, "dir": typeDirectory, "empty": typeDirectory, "in": typeSymbolicLink}
	if len(got) != len(want) {
		t.Fatalf("list = %v, want %v", got, want)
	}
	for name, typ := range want {
		if got[name] != typ {
			t.Fatalf("list = %v, want %v", got, want)
		}
	}

	hash := func(v abi.Value) [2]uint64 {
		t.Helper()
		code, p := okOrCode(t, "metadata-hash", v)
		if code != unitOK {
			t.Fatalf("metadata-hash = error-code %d", code)
		}
		return [2]uint64{p.Index(0).Uint(), p.Index(1).Uint()}
	}
	self := hash(call(t, in, "metadata-hash"))
	dot := hash(call(t, in, "metadata-hash-at", abi.FlagsValue(0), str(".")))
	file := hash(call(t, in, "metadata-hash-at", abi.FlagsValue(0), str("file")))
	viaLink := hash(call(t, in, "metadata-hash-at", abi.FlagsValue(1), str("in")))
	link := hash(call(t, in, "metadata-hash-at", abi.FlagsValue(0), str("in")))
	if self != dot || file != viaLink || self == file || link == file {
		t.Fatalf("hashes: preopen %x, . %x, file %x, in followed %x, in %x", self, dot, file, viaLink, link)
	}

	for _, tt := range []struct {
		path string
		want uint32
	}{{".", 1}, {"dir/..", 1}, {"dir", 0}, {"file", 0}, {"nope", 100 + ecNoEntry}, {"..", 100 + ecNotPermitted}} {
		if got := uint32(call(t, in, "same-as-preopen", str(tt.path)).Uint()); got != tt.want {
			t.Fatalf("same-as-preopen(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
	// Each call drops the descriptor or stream it made, and the host forgets it: many calls fit
	// in a limit of four resources.
	for range 20 {
		call(t, in, "same-as-preopen", str("file"))
		call(t, in, "list")
	}
}

// Host names that are not UTF-8 cannot be WIT strings: the guest gets illegal-byte-sequence
// where lowering the name would trap.
func TestFilesystemNotUTF8ThroughComponent(t *testing.T) {
	dir := fsTree(t)
	if err := os.WriteFile(filepath.Join(dir, "empty", "bad\xff"), nil, 0o644); err != nil {
		t.Skipf("the host file system refuses a non-UTF-8 name: %v", err)
	}
	if err := os.Symlink("bad\xff", filepath.Join(dir, "badlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "empty"), filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	in := fsProbe(t, filepath.Join(dir, "x"), false, 0)
	if code, _ := okOrCode(t, "list", call(t, in, "list")); code != ecIllegalByteSeq {
		t.Fatalf("list = error-code %d, want illegal-byte-sequence", code)
	}
	in = fsProbe(t, dir, false, 0)
	if code, _ := okOrCode(t, "readlink-at", call(t, in, "readlink-at", str("badlink"))); code != ecIllegalByteSeq {
		t.Fatalf("readlink-at = error-code %d, want illegal-byte-sequence", code)
	}
}

// fsTree makes file ("hello", modified at 2000 s), dir/inner, empty/ and in -> file.
func fsTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"dir", "empty"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"file": "hello", "dir/inner": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(dir, "file"), time.Unix(1000, 0), time.Unix(2000, 0)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkStat checks a descriptor-stat record: type, size, a link count, and the modification
// time in seconds.
func checkStat(t *testing.T, st abi.Value, typ uint32, size, mtime uint64) {
	t.Helper()
	if st.Len() != 6 {
		t.Fatalf("descriptor-stat has %d fields", st.Len())
	}
	if got := st.Index(0).Case(); got != typ {
		t.Fatalf("type %d, want %d", got, typ)
	}
	if st.Index(1).Uint() < 1 {
		t.Fatalf("link-count %d", st.Index(1).Uint())
	}
	if got := st.Index(2).Uint(); got != size {
		t.Fatalf("size %d, want %d", got, size)
	}
	m := st.Index(4)
	if !m.IsSome() || m.Payload().Index(0).Uint() != mtime || m.Payload().Index(1).Uint() != 0 {
		t.Fatalf("data-modification-timestamp %v, want %d s", m, mtime)
	}
}

func isDir(p string) func(*testing.T, string, abi.Value) {
	return func(t *testing.T, dir string, _ abi.Value) {
		t.Helper()
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || !fi.IsDir() {
			t.Fatalf("%s is not a directory (%v)", p, err)
		}
	}
}

func isFile(p string) func(*testing.T, string, abi.Value) {
	return func(t *testing.T, dir string, _ abi.Value) {
		t.Helper()
		if fi, err := os.Lstat(filepath.Join(dir, p)); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file (%v)", p, err)
		}
	}
}

func missing(p string) func(*testing.T, string, abi.Value) {
	return func(t *testing.T, dir string, _ abi.Value) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Fatalf("%s exists (%v)", p, err)
		}
	}
}

func mtimeIs(p string, want time.Time) func(*testing.T, string, abi.Value) {
	return func(t *testing.T, dir string, _ abi.Value) {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || !fi.ModTime().Equal(want) {
			t.Fatalf("%s modified at %v (%v), want %v", p, fi.ModTime(), err, want)
		}
	}
}

func both(a, b func(*testing.T, string, abi.Value)) func(*testing.T, string, abi.Value) {
	return func(t *testing.T, dir string, p abi.Value) { t.Helper(); a(t, dir, p); b(t, dir, p) }
}
