package preview1

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

var (
	engineOnce sync.Once
	testEng    *engine.Engine
	engineErr  error
)

// testEngine is shared by all tests: compiling the Go guest once saves seconds per test.
func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	engineOnce.Do(func() { testEng, engineErr = engine.New(context.Background(), engine.Config{}) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return testEng
}

func readWasm(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compile(t testing.TB, name string) *engine.Module {
	t.Helper()
	m, err := testEngine(t).Compile(context.Background(), readWasm(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// raw is an instance of testdata/raw.wasm, which exports every WASI function as t_<name>, with a
// bound Host.
type raw struct {
	t    testing.TB
	s    *engine.Store
	h    *Host
	inst *engine.Instance
	mem  engine.Memory
}

func newRaw(t testing.TB, cfg Config) *raw {
	return newRawLimits(t, cfg, engine.DefaultLimits())
}

func newRawLimits(t testing.TB, cfg Config, lim engine.Limits) *raw {
	t.Helper()
	ctx := context.Background()
	m := compile(t, "raw.wasm")
	s, err := testEngine(t).NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	h, err := Bind(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	inst, err := s.Instantiate(ctx, m, engine.Imports{ModuleName: Module})
	if err != nil {
		t.Fatal(err)
	}
	return &raw{t: t, s: s, h: h, inst: inst, mem: inst.Memory("memory")}
}

// call calls a WASI function and returns its errno; a trap fails the test.
func (r *raw) call(name string, args ...uint64) wasi.Errno {
	r.t.Helper()
	res, err := r.inst.Call(context.Background(), "t_"+name, args...)
	if err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	return wasi.Errno(res[0])
}

func (r *raw) callErr(ctx context.Context, name string, args ...uint64) error {
	_, err := r.inst.Call(ctx, "t_"+name, args...)
	return err
}

func (r *raw) write(ptr uint32, b []byte) {
	r.t.Helper()
	if !r.mem.Write(ptr, b) {
		r.t.Fatalf("write %d bytes at %d", len(b), ptr)
	}
}

func (r *raw) read(ptr, n uint32) []byte {
	r.t.Helper()
	b, ok := r.mem.Read(ptr, n)
	if !ok {
		r.t.Fatalf("read %d bytes at %d", n, ptr)
	}
	return append([]byte(nil), b...)
}

func (r *raw) u32(ptr uint32) uint32 { return binary.LittleEndian.Uint32(r.read(ptr, 4)) }
func (r *raw) u64(ptr uint32) uint64 { return binary.LittleEndian.Uint64(r.read(ptr, 8)) }

func (r *raw) putU32(ptr, v uint32) {
	r.write(ptr, binary.LittleEndian.AppendUint32(nil, v))
}

// str stores s at ptr and returns the (ptr, len) argument pair.
func (r *raw) str(ptr uint32, s string) (uint64, uint64) {
	r.write(ptr, []byte(s))
	return uint64(ptr), uint64(len(s))
}

// iovecs writes an iovec array at at describing bufs (pointer, length pairs).
func (r *raw) iovecs(at uint32, bufs ...[2]uint32) {
	for i, b := range bufs {
		r.putU32(at+uint32(i)*8, b[0])
		r.putU32(at+uint32(i)*8+4, b[1])
	}
}

// memSize is the size of raw.wasm's memory (2 pages, fixed).
const memSize = 2 * 65536

// openFile opens path in directory fd with the given rights and oflags, failing the test on error.
func (r *raw) openFile(dirfd uint32, path string, oflags uint32, rights uint64, fdflags uint32) uint32 {
	r.t.Helper()
	p, n := r.str(60000, path)
	if e := r.call("path_open", uint64(dirfd), 1, p, n, uint64(oflags), rights, rights, uint64(fdflags), 59996); e != 0 {
		r.t.Fatalf("path_open(%q) = %v", path, e)
	}
	return r.u32(59996)
}

const (
	rightsRead  = rightFdRead | rightFdSeek | rightFdTell | rightFdFilestatGet | rightFdReaddir
	rightsWrite = rightFdWrite | rightFdSeek | rightFdTell | rightFdFilestatGet | rightFdFilestatSetSize
	rightsRW    = rightsRead | rightsWrite
)

func newPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// waitReady polls stdin readiness through the Host until the pending read has delivered.
func waitReady(t testing.TB, r *raw) {
	t.Helper()
	select {
	case <-r.h.stdin.ReadyChan():
	case <-time.After(10 * time.Second):
		t.Fatal("stdin never became ready")
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
