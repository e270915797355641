package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/kobako/kobako/engine"
)

// versionModule is version v of a small plugin: it imports host.h () -> i32 and exports
// v () -> i32 returning h() + v, with a data segment of 1 KiB filled with v's low byte. Every
// version is a different binary, as a rebuilt plugin is.
func versionModule(v int32) []byte {
	section := func(out []byte, id byte, body ...byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = section(out, 1, 1, 0x60, 0, 1, 0x7f)                           // type 0: () -> i32
	out = section(out, 2, 1, 4, 'h', 'o', 's', 't', 1, 'h', 0, 0)        // import host.h: type 0
	out = section(out, 3, 1, 0)                                          // func 1: type 0
	out = section(out, 5, 1, 0, 1)                                       // memory, 1 page
	out = section(out, 7, 1, 1, 'v', 0, 1)                               // export v: func 1
	body := []byte{0, 0x10, 0, 0x41}                                     // no locals; call 0; i32.const
	body = append(body, byte(v)|0x80, byte(v>>7)|0x80, byte(v>>14)&0x7f) // v < 1<<20, fixed width
	body = append(body, 0x6a, 0x0b)                                      // i32.add; end
	out = section(out, 10, append([]byte{1, byte(len(body))}, body...)...)
	data := []byte{1, 0, 0x41, 0, 0x0b, 0x80, 0x08} // segment 0 at offset 0, 1024 bytes
	for range 1024 {
		data = append(data, byte(v))
	}
	return section(out, 11, data...)
}

// hostH is a host module providing h, made afresh per version as a per-plugin host module is.
func hostH() *engine.HostModule {
	return &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{{Name: "h", Results: []engine.ValueType{engine.I32},
		Fn: func(_ context.Context, _ *engine.Caller, stack []uint64) { stack[0] = 1000 }}}}
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestModuleCloseHeap compiles 400 versions of a module in one engine, each importing a host
// module of its own, runs and closes each (module and host module), and checks that the Go
// heap stays flat.
func TestModuleCloseHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 400 modules")
	}
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	run := func(v int32) {
		t.Helper()
		m, err := e.Compile(ctx, versionModule(v))
		if err != nil {
			t.Fatal(err)
		}
		h := hostH()
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.Instantiate(ctx, m, engine.Imports{"host": h})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := in.Call(ctx, "v"); err != nil || res[0] != uint64(1000+v) {
			t.Fatalf("version %d: v() = %v, %v", v, res, err)
		}
		s.Close(ctx)
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.ReleaseHostModule(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	const warm, total = 20, 400
	for v := range int32(warm) {
		run(v)
	}
	before := heapAlloc()
	for v := int32(warm); v < total; v++ {
		run(v)
	}
	after := heapAlloc()
	growth := int64(after) - int64(before)
	t.Logf("heap %d KB after %d versions, %d KB after %d: %d bytes a version", before>>10, warm, after>>10, total, growth/(total-warm))
	if growth > 1<<20 {
		t.Errorf("the heap grew by %d KB over %d closed versions", growth>>10, total-warm)
	}
}

// TestModuleCloseShared: modules of the same bytes are one *Module, counted per Compile, so
// one holder's Close leaves the module to the others; the last Close releases it, while an
// instance made before keeps working.
func TestModuleCloseShared(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	b := fixture(t, "fib")
	m1, err := e.Compile(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := e.Compile(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if m1 != m2 {
		t.Fatal("same bytes compiled twice")
	}
	instantiate := func() (*engine.Instance, error) {
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(ctx) })
		return s.Instantiate(ctx, m1, nil)
	}
	if err := m1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	live, err := instantiate()
	if err != nil {
		t.Fatalf("instantiate after the first of two Closes: %v", err)
	}
	if err := m2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := instantiate(); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("instantiate after the last Close: %v, want ErrClosed", err)
	}
	if res, err := live.Call(ctx, "fib", 10); err != nil || res[0] != 55 {
		t.Fatalf("fib(10) on an instance made before the last Close = %v, %v", res, err)
	}
	if err := m1.Close(ctx); err != nil {
		t.Fatalf("Close of a released module: %v", err)
	}
	m3, err := e.Compile(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer m3.Close(ctx)
	if m3 == m1 {
		t.Fatal("released module still cached")
	}
}

// TestReleaseHostModule: instances that import a released host module keep calling it, and a
// store that imports it later gets a new instance of it.
func TestReleaseHostModule(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	m, err := e.Compile(ctx, versionModule(7))
	if err != nil {
		t.Fatal(err)
	}
	h := hostH()
	if err := e.ReleaseHostModule(ctx, h); err != nil {
		t.Fatalf("release of a host module never imported: %v", err)
	}
	instantiate := func() *engine.Instance {
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(ctx) })
		in, err := s.Instantiate(ctx, m, engine.Imports{"host": h})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	before := instantiate()
	if err := e.ReleaseHostModule(ctx, h); err != nil {
		t.Fatal(err)
	}
	after := instantiate()
	for name, in := range map[string]*engine.Instance{"before": before, "after": after} {
		if res, err := in.Call(ctx, "v"); err != nil || res[0] != 1007 {
			t.Errorf("instance made %s the release: v() = %v, %v", name, res, err)
		}
	}
}

// TestCallEnds_Errors pins the errors engine's package doc lists for a call that cannot run:
// they are not a *Trap, so a caller can tell a spent store from a failing guest.
func TestCallEnds_Errors(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.Config{})
	tests := []struct {
		name  string
		spend func(*engine.Store, *engine.Instance)
		args  []uint64
		want  error
	}{
		{"store closed", func(s *engine.Store, _ *engine.Instance) { s.Close(ctx) }, []uint64{3}, engine.ErrClosed},
		{"store discarded", func(s *engine.Store, _ *engine.Instance) { s.Discard() }, []uint64{3}, engine.ErrInstanceUnavailable},
		{"wrong parameter count", func(*engine.Store, *engine.Instance) {}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, in := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
			tt.spend(s, in)
			_, err := in.Call(ctx, "fib", tt.args...)
			if err == nil {
				t.Fatal("the call ran")
			}
			var trap *engine.Trap
			if errors.As(err, &trap) {
				t.Errorf("got a *Trap (%v), want a plain error", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}
