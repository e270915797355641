package preview1

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// runGuest runs a command module with cfg and returns its exit code, stdout and stderr.
func runGuest(t *testing.T, name string, cfg Config, lim engine.Limits) (uint32, string, string, error) {
	t.Helper()
	skipSlowGuest(t, name)
	var out, errb bytes.Buffer
	if cfg.Stdout == nil {
		cfg.Stdout = &out
	}
	if cfg.Stderr == nil {
		cfg.Stderr = &errb
	}
	code, err := Run(context.Background(), testEngine(t), readWasm(t, name), cfg, lim)
	return code, out.String(), errb.String(), err
}

// skipSlowGuest skips the 3 MB Go guest where wazero's interpreter itself runs interpreted
// (js/wasm under node, wasip1 under kobako): there one such test takes minutes. The C and WAT
// guests still run everywhere. -short skips it too.
func skipSlowGuest(t *testing.T, name string) {
	t.Helper()
	if !strings.HasPrefix(name, "gofs/") {
		return
	}
	if testing.Short() || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skipf("the Go guest is too slow under %s/%s or -short", runtime.GOOS, runtime.GOARCH)
	}
}

// fsPreopens builds /rw (empty, writable), /ro (read-only: ro.txt and a symbolic link "escape"
// to a file outside it) and /pkg (an fs.FS), and returns them with the host path of /rw.
func fsPreopens(t *testing.T) ([]wasi.Preopen, string) {
	base := t.TempDir()
	rw, ro := filepath.Join(base, "rw"), filepath.Join(base, "ro")
	for _, d := range []string{rw, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(base, "secret"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(ro, "ro.txt"), []byte("read only"), 0o644)
	if err := os.Symlink("../secret", filepath.Join(ro, "escape")); err != nil {
		t.Fatal(err)
	}
	pkg := fstest.MapFS{
		"info.txt":  {Data: []byte("package info")},
		"dir/a.txt": {Data: []byte("a")},
	}
	return []wasi.Preopen{
		{GuestPath: "/rw", HostDir: rw},
		{GuestPath: "/ro", HostDir: ro, ReadOnly: true},
		{GuestPath: "/pkg", FS: pkg},
	}, rw
}

const goFSWant = `write /rw/a.txt: ok
read /rw/a.txt "alpha\n": ok
open append: ok
append: ok
close: ok
read again "alpha\nbeta\n": ok
mkdir /rw/d: ok
mkdir /rw/d again: EEXIST
mkdir -p /rw/d/e/f: ok
write /rw/d/e/f/g: ok
rename a.txt -> d/b.txt: ok
stat d/b.txt size=11 dir=false mode=----------: ok
symlink d/link -> b.txt: ok
readlink d/link = b.txt: ok
read through link "alpha\nbeta\n": ok
symlink escaping: EPERM
symlink absolute: EPERM
lstat d/link symlink=true: ok
readdir /rw/d b.txt,e/,link: ok
walk /rw d,d/b.txt,d/e,d/e/f,d/e/f/g,d/link: ok
remove non-empty dir: ENOTEMPTY
removeall /rw/d/e: ok
remove d/link: ok
truncate d/b.txt: ok
read truncated "alp": ok
chtimes: ok
mtime 2020-01-02T03:04:05Z: ok
read /ro/ro.txt "read only": ok
write /ro/new.txt: EPERM
open /ro/ro.txt for writing: EPERM
mkdir /ro/x: EPERM
remove /ro/ro.txt: EPERM
read /ro/escape: EPERM
stat /ro/escape: EPERM
read /pkg/info.txt "package info": ok
read /pkg/dir/a.txt "a": ok
write /pkg/new: EPERM
readdir /pkg dir,info.txt: ok
read outside every preopen: EBADF
cwd /rw: ok
`

// A real Go program uses the os package on host directories, a read-only directory with a link
// leading out of it, and an fs.FS.
func TestGoGuestFS(t *testing.T) {
	pre, rw := fsPreopens(t)
	code, out, errOut, err := runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "fs"}, Preopens: pre}, engine.DefaultLimits())
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v; stderr %s", code, err, errOut)
	}
	if out != goFSWant {
		t.Errorf("output differs.\ngot:\n%s\nwant:\n%s", out, goFSWant)
	}
	if b, err := os.ReadFile(filepath.Join(rw, "d", "b.txt")); err != nil || string(b) != "alp" {
		t.Errorf("host file d/b.txt = %q, %v", b, err)
	}
	for _, p := range []string{filepath.Join(rw, "d", "bad"), filepath.Join(rw, "abs")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("escaping link %s was created", p)
		}
	}
}

func TestGoGuestStdio(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      []string
		stdin    string
		wantOut  string
		wantErr  string // substring of stderr
		wantCode uint32
	}{
		{"echo", []string{"gofs", "echo"}, []string{"A=1", "B=two"}, "some input\nmore", "some input\nmore",
			`args=["gofs" "echo"] env=["A=1" "B=two"]`, 0},
		{"empty stdin", []string{"gofs", "echo"}, nil, "", "", "copied 0 bytes", 0},
		{"lines", []string{"gofs", "lines"}, nil, "a\nb\n", "got \"a\"\ngot \"b\"\neof\n", "", 0},
		{"exit code", []string{"gofs", "exit", "7"}, nil, "", "exiting with 7\n", "", 7},
		{"bad scenario", []string{"gofs", "nope"}, nil, "", "", "unknown scenario nope", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Args: tt.args, Env: tt.env, Stdin: strings.NewReader(tt.stdin)}
			code, out, errOut, err := runGuest(t, "gofs/gofs.wasm", cfg, engine.DefaultLimits())
			if err != nil || code != tt.wantCode {
				t.Fatalf("exit %d, %v, want %d; stderr %s", code, err, tt.wantCode, errOut)
			}
			if out != tt.wantOut || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stdout %q stderr %q; want %q and %q", out, errOut, tt.wantOut, tt.wantErr)
			}
		})
	}
}

// The guest answers each line as soon as it arrives, before stdin ends, as an MCP server over
// stdio must.
func TestGoGuestInteractive(t *testing.T) {
	skipSlowGuest(t, "gofs/")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		code, err := Run(context.Background(), testEngine(t), readWasm(t, "gofs/gofs.wasm"),
			Config{Args: []string{"gofs", "lines"}, Stdin: inR, Stdout: outW}, engine.DefaultLimits())
		if err == nil && code != 0 {
			err = errors.New("non-zero exit")
		}
		outW.Close()
		done <- err
	}()
	buf := make([]byte, 64)
	for _, line := range []string{"first", "second"} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		n, err := outR.Read(buf)
		if err != nil || string(buf[:n]) != `got "`+line+"\"\n" {
			t.Fatalf("answer to %q: %q, %v", line, buf[:n], err)
		}
	}
	inW.Close()
	rest, _ := io.ReadAll(outR)
	if string(rest) != "eof\n" {
		t.Errorf("after EOF: %q", rest)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// time.Sleep goes through poll_oneoff; with a fake clock it takes no real time.
func TestGoGuestSleep(t *testing.T) {
	for _, c := range []struct {
		name  string
		clock wasi.Clock
	}{{"system", nil}, {"fake", wasi.NewFakeClock(time.Unix(1_700_000_000, 0), time.Microsecond)}} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			code, out, errOut, err := runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "sleep"}, Clock: c.clock}, engine.DefaultLimits())
			if err != nil || code != 0 || out != "slept at least 50ms: true\n" {
				t.Fatalf("exit %d, %v, out %q, stderr %q", code, err, out, errOut)
			}
			if c.clock != nil && time.Since(start) > 20*time.Second {
				t.Errorf("fake-clock sleep took %v", time.Since(start))
			}
		})
	}
}

func TestGoGuestRandom(t *testing.T) {
	seeded := func() io.Reader { return rand.NewChaCha8([32]byte{1, 2, 3}) }
	var outs []string
	for range 2 {
		_, out, _, err := runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "random"}, Random: seeded()}, engine.DefaultLimits())
		if err != nil || len(out) != 33 {
			t.Fatalf("random: %q, %v", out, err)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("seeded Random gave %q then %q", outs[0], outs[1])
	}
}

// A Go program writing until it fails meets EDQUOT at the write budget, and the file holds
// exactly what the budget allowed.
func TestGoGuestQuota(t *testing.T) {
	pre, rw := fsPreopens(t)
	cfg := Config{Args: []string{"gofs", "quota"}, Preopens: pre, WriteBudget: 10_000}
	code, out, errOut, err := runGuest(t, "gofs/gofs.wasm", cfg, engine.DefaultLimits())
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v; stderr %s", code, err, errOut)
	}
	if want := "after 8192 bytes: EDQUOT\nsize 8192\n"; out != want {
		t.Errorf("out %q, want %q", out, want)
	}
	if fi, err := os.Stat(filepath.Join(rw, "big")); err != nil || fi.Size() != 8192 {
		t.Errorf("host file: %v, %v", fi, err)
	}
}

// A guest that never yields is stopped by the deadline (and by fuel).
func TestGoGuestSpin(t *testing.T) {
	lim := engine.DefaultLimits()
	lim.Deadline = 100 * time.Millisecond
	lim.Fuel = engine.MaxFuel
	_, _, _, err := runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "spin"}}, lim)
	if !errors.Is(err, engine.ErrDeadlineExceeded) {
		t.Errorf("spin with deadline: %v", err)
	}
	lim = engine.DefaultLimits()
	lim.Fuel = 5_000_000
	_, _, _, err = runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "spin"}}, lim)
	if !errors.Is(err, engine.ErrFuelExhausted) {
		t.Errorf("spin with fuel: %v", err)
	}
}

// A guest blocked reading a stdin that never delivers is stopped by the deadline.
func TestGoGuestBlockedStdin(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	lim := engine.DefaultLimits()
	lim.Deadline = 100 * time.Millisecond
	start := time.Now()
	_, _, _, err := runGuest(t, "gofs/gofs.wasm", Config{Args: []string{"gofs", "lines"}, Stdin: inR}, lim)
	if !errors.Is(err, engine.ErrDeadlineExceeded) {
		t.Errorf("blocked stdin: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v", el)
	}
}

const cFSWant = `fopen /rw/c.txt w: ok
fclose: ok
read 7 bytes: from C
mkdir /rw/sub: ok
rename: ok
stat: ok
size 7 regular 1
readdir /rw/sub: . .. d.txt
open O_RDWR: ok
posix_fallocate: errno 58
lseek: ok
write at 2: ok
ftruncate: ok
fsync: ok
now frXY 
open /rw/../ro/ro.txt: errno 63
open /ro/ro.txt: ok
open /ro/new O_CREAT: errno 63
open /ro/escape: errno 63
open /nowhere/x: errno 76
symlink escaping: errno 63
unlink dir: errno 31
rmdir non-empty: errno 55
unlink file: ok
rmdir: ok
readdir /pkg: . .. dir info.txt
`

// A C program built against wasi-libc: stdio streams, POSIX file calls and dirent, with errno
// values in WASI numbering (58 ENOTSUP, 63 EPERM, 31 EISDIR, 55 ENOTEMPTY). A path under no
// preopen never reaches the host: this wasi-libc (Debian, 2022-05) answers ENOTCAPABLE (76)
// itself; later ones say ENOENT.
func TestCGuest(t *testing.T) {
	pre, _ := fsPreopens(t)
	code, out, errOut, err := runGuest(t, "cfs/cfs.wasm", Config{Args: []string{"cfs", "fs"}, Preopens: pre}, engine.DefaultLimits())
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v; stderr %s", code, err, errOut)
	}
	if out != cFSWant {
		t.Errorf("output differs.\ngot:\n%s\nwant:\n%s", out, cFSWant)
	}

	code, out, _, err = runGuest(t, "cfs/cfs.wasm", Config{Args: []string{"cfs", "echo"}, Stdin: strings.NewReader("one\ntwo\n")}, engine.DefaultLimits())
	if err != nil || code != 0 || out != "line 1: one\nline 2: two\neof after 2 lines\n" {
		t.Errorf("echo: %d, %v, %q", code, err, out)
	}

	code, out, _, err = runGuest(t, "cfs/cfs.wasm", Config{Args: []string{"cfs", "env", "x y"}, Env: []string{"HOME=/home/guest"}}, engine.DefaultLimits())
	want := "arg 0 cfs\narg 1 env\narg 2 x y\nHOME=/home/guest\nrealtime year>=2020 1\nnanosleep: ok\n"
	if err != nil || code != 0 || out != want {
		t.Errorf("env: %d, %v, %q", code, err, out)
	}

	code, _, _, err = runGuest(t, "cfs/cfs.wasm", Config{Args: []string{"cfs", "exit", "42"}}, engine.DefaultLimits())
	if err != nil || code != 42 {
		t.Errorf("exit: %d, %v", code, err)
	}
}
