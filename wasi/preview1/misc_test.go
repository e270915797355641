package preview1

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

func TestRandomGet(t *testing.T) {
	r := newRaw(t, Config{Random: bytes.NewReader(bytes.Repeat([]byte{7}, 64))})
	if e := r.call("random_get", 100, 16); e != 0 {
		t.Fatal(e)
	}
	if got := r.read(100, 17); !bytes.Equal(got, append(bytes.Repeat([]byte{7}, 16), 0)) {
		t.Errorf("random bytes %x", got)
	}
	if e := r.call("random_get", memSize-8, 16); e != wasi.EFAULT {
		t.Errorf("out of memory: %v", e)
	}
	if e := r.call("random_get", 100, 0); e != 0 {
		t.Errorf("zero length: %v", e)
	}
	// The reader has 48 bytes left: asking for more is EIO.
	if e := r.call("random_get", 100, 64); e != wasi.EIO {
		t.Errorf("short reader: %v", e)
	}
	d := newRaw(t, Config{})
	if e := d.call("random_get", 0, memSize); e != 0 {
		t.Errorf("crypto/rand over all memory: %v", e)
	}
}

func TestProc(t *testing.T) {
	r := newRaw(t, Config{})
	if e := r.call("sched_yield"); e != 0 {
		t.Errorf("sched_yield = %v", e)
	}
	if e := r.call("proc_raise", 6); e != wasi.ENOSYS {
		t.Errorf("proc_raise = %v", e)
	}
	err := r.callErr(context.Background(), "proc_exit", 7)
	var ee *engine.ExitError
	if !errors.As(err, &ee) || ee.Code != 7 {
		t.Fatalf("proc_exit(7) = %v", err)
	}
	if _, err := r.inst.Call(context.Background(), "t_sched_yield"); !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Errorf("call after exit = %v", err)
	}
}

func TestSockets(t *testing.T) {
	pre, _ := fsPreopens(t)
	r := newRaw(t, Config{Preopens: pre})
	calls := []struct {
		fn   string
		args func(fd uint64) []uint64
	}{
		{"sock_accept", func(fd uint64) []uint64 { return []uint64{fd, 0, 100} }},
		{"sock_recv", func(fd uint64) []uint64 { return []uint64{fd, 100, 1, 0, 200, 204} }},
		{"sock_send", func(fd uint64) []uint64 { return []uint64{fd, 100, 1, 0, 200} }},
		{"sock_shutdown", func(fd uint64) []uint64 { return []uint64{fd, 2} }},
	}
	for _, c := range calls {
		for _, fd := range []uint64{0, 1, 2, 3, 5} {
			if e := r.call(c.fn, c.args(fd)...); e != wasi.ENOTSOCK {
				t.Errorf("%s(fd %d) = %v, want ENOTSOCK", c.fn, fd, e)
			}
		}
		for _, fd := range []uint64{6, 1000, 0xFFFFFFFF} {
			if e := r.call(c.fn, c.args(fd)...); e != wasi.EBADF {
				t.Errorf("%s(fd %d) = %v, want EBADF", c.fn, fd, e)
			}
		}
	}
}

// Every function of the snapshot is there, with witx's signature: raw.wasm imports all 46.
func TestModuleFunctions(t *testing.T) {
	if n := len(Module.Funcs); n != 46 {
		t.Errorf("Module has %d functions, want 46", n)
	}
	seen := map[string]bool{}
	for _, f := range Module.Funcs {
		if seen[f.Name] {
			t.Errorf("%s defined twice", f.Name)
		}
		seen[f.Name] = true
	}
	m := compile(t, "raw.wasm")
	n := 0
	for _, im := range m.Imports() {
		if im.Module == ModuleName {
			n++
		}
	}
	if n != 46 {
		t.Errorf("raw.wasm imports %d functions", n)
	}
}

func TestNotBound(t *testing.T) {
	ctx := context.Background()
	s, err := testEngine(t).NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	inst, err := s.Instantiate(ctx, compile(t, "raw.wasm"), engine.Imports{ModuleName: Module})
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"t_sched_yield", "t_proc_exit"} {
		_, err = inst.Call(ctx, fn, make([]uint64, len(fnParams(fn)))...)
		var trap *engine.Trap
		if !errors.As(err, &trap) || trap.Kind != engine.TrapHost || !errors.Is(err, ErrNotBound) {
			t.Errorf("%s without Bind = %v", fn, err)
		}
		s2, _ := testEngine(t).NewStore(ctx, engine.DefaultLimits())
		defer s2.Close(ctx)
		inst, _ = s2.Instantiate(ctx, compile(t, "raw.wasm"), engine.Imports{ModuleName: Module})
	}
}

func fnParams(name string) []engine.ValueType {
	if name == "t_proc_exit" {
		return []engine.ValueType{engine.I32}
	}
	return nil
}

func TestBind_Errors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		cfg  Config
	}{
		{"NUL in arg", Config{Args: []string{"a\x00b"}}},
		{"NUL in env", Config{Env: []string{"A=\x00"}}},
		{"env without =", Config{Env: []string{"NOEQUALS"}}},
		{"negative budget", Config{WriteBudget: -1}},
		{"negative write cap", Config{MaxWriteSize: -1}},
		{"negative open files", Config{MaxHandles: -1}},
		{"preopen without source", Config{Preopens: []wasi.Preopen{{GuestPath: "/x"}}}},
		{"preopen with two sources", Config{Preopens: []wasi.Preopen{{GuestPath: "/x", HostDir: dir, FS: emptyFS{}}}}},
		{"preopen without name", Config{Preopens: []wasi.Preopen{{HostDir: dir}}}},
		{"preopen name with NUL", Config{Preopens: []wasi.Preopen{{GuestPath: "/\x00", HostDir: dir}}}},
		{"missing host dir", Config{Preopens: []wasi.Preopen{{GuestPath: "/x", HostDir: dir + "/missing"}}}},
		{"writable Dir asked read-only", Config{Preopens: []wasi.Preopen{{GuestPath: "/x", Dir: mustHostDir(t, dir), ReadOnly: true}}}},
	}
	for _, tt := range tests {
		s, _ := testEngine(t).NewStore(context.Background(), engine.DefaultLimits())
		h, err := Bind(s, tt.cfg)
		if err == nil {
			h.Close()
			t.Errorf("%s: Bind succeeded", tt.name)
		}
		s.Close(context.Background())
	}
	s, _ := testEngine(t).NewStore(context.Background(), engine.DefaultLimits())
	defer s.Close(context.Background())
	h, err := Bind(s, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := Bind(s, Config{}); !errors.Is(err, ErrAlreadyBound) {
		t.Errorf("second Bind = %v", err)
	}
	if got, ok := FromStore(s); !ok || got != h {
		t.Error("FromStore does not find the Host")
	}
}

type emptyFS struct{}

func (emptyFS) Open(string) (fs.File, error) { return nil, fs.ErrNotExist }

func mustHostDir(t *testing.T, dir string) wasi.Dir {
	d, err := wasi.OpenHostDir(dir, wasi.HostDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
