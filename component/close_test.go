package component_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// hostVersions makes versions of host.wasm that differ in one data segment of the main core
// module, as a rebuilt plugin differs from the last: version i logs "hello from %05d" where the
// original logs "hello from guest". The memory and realloc modules stay the same in every
// version, so versions share those compiled modules through the engine's cache.
func hostVersions(t testing.TB) func(i int) ([]byte, string) {
	t.Helper()
	b, err := os.ReadFile(hostWasm)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(b, []byte("hello from guest"))
	if off < 0 || bytes.Count(b, []byte("hello from guest")) != 1 {
		t.Fatal("host.wasm does not hold its data segment exactly once")
	}
	return func(i int) ([]byte, string) {
		msg := fmt.Sprintf("hello from %05d", i)
		v := bytes.Clone(b)
		copy(v[off:], msg)
		return v, msg
	}
}

// heapAlloc returns the live Go heap after a full collection.
func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestCompiledCloseHeap compiles 400 versions of a component in one engine, runs and closes
// each, and checks that the Go heap stays flat: what a compile holds (its core modules, its
// trampoline host module, the engine's cache entries) goes with Close, as a host that reloads a
// plugin for months needs.
func TestCompiledCloseHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 400 components")
	}
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	version := hostVersions(t)
	l, h := newBlobLinker(t, "docs:host/api@0.2.1", true)
	run := func(i int) {
		t.Helper()
		b, msg := version(i)
		cc, err := component.Compile(ctx, e, b)
		if err != nil {
			t.Fatal(err)
		}
		in, err := l.InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		h.logs = h.logs[:0]
		if res, err := in.Call(ctx, "run", abi.U32Value(1)); err != nil || res[0].Uint() != 3 || len(h.logs) != 1 || h.logs[0] != msg {
			t.Fatalf("version %d: run = %v, %v, logs %q", i, res, err, h.logs)
		}
		if err := in.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := cc.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	const warm, total = 20, 400
	for i := range warm {
		run(i)
	}
	before := heapAlloc()
	for i := warm; i < total; i++ {
		run(i)
	}
	after := heapAlloc()
	growth := int64(after) - int64(before)
	t.Logf("heap %d KB after %d versions, %d KB after %d: %d bytes a version", before>>10, warm, after>>10, total, growth/(total-warm))
	if growth > 2<<20 {
		t.Errorf("the heap grew by %d KB over %d closed versions", growth>>10, total-warm)
	}
}

// TestCompiledClose: an instance made before Close keeps working, a second version sharing
// core modules with the closed one is untouched, and closing again does nothing.
func TestCompiledClose(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	version := hostVersions(t)
	l, h := newBlobLinker(t, "docs:host/api@0.2.1", true)
	compile := func(i int) (*component.Component, string) {
		b, msg := version(i)
		cc, err := component.Compile(ctx, e, b)
		if err != nil {
			t.Fatal(err)
		}
		return cc, msg
	}
	instantiate := func(cc *component.Component) *component.Instance {
		in, err := l.InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Close(ctx) })
		return in
	}
	run := func(what string, in *component.Instance, msg string) {
		t.Helper()
		h.logs = h.logs[:0]
		if res, err := in.Call(ctx, "run", abi.U32Value(4)); err != nil || res[0].Uint() != 9 || len(h.logs) != 1 || h.logs[0] != msg {
			t.Errorf("%s: run = %v, %v, logs %q", what, res, err, h.logs)
		}
	}
	v1, msg1 := compile(1)
	live := instantiate(v1)
	v2, msg2 := compile(2) // shares the memory and realloc modules with v1
	defer v2.Close(ctx)
	if err := v1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	run("instance of the closed version", live, msg1)
	run("new instance of the other version", instantiate(v2), msg2)
	if err := v1.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	v1again, _ := compile(1)
	defer v1again.Close(ctx)
	run("recompiled closed version", instantiate(v1again), msg1)
}

// TestCompiledClose_Errors: a closed component, and a closed snapshot, make no new instances.
func TestCompiledClose_Errors(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t)
	b, err := os.ReadFile(hostWasm)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
	// Each case gets a component prepared (and snapshotted, which needs its module bytes)
	// before close runs, then tries to instantiate it.
	type prepared struct {
		cc  *component.Component
		pre *component.InstancePre
		sn  *component.Snapshot
	}
	tests := map[string]struct {
		close func(p prepared) error
		use   func(p prepared) error
	}{
		"Linker.Instantiate": {
			close: func(p prepared) error { return p.cc.Close(ctx) },
			use: func(p prepared) error {
				_, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), p.cc)
				return err
			},
		},
		"Linker.Prepare": {
			close: func(p prepared) error { return p.cc.Close(ctx) },
			use: func(p prepared) error {
				_, err := l.Prepare(p.cc)
				return err
			},
		},
		"InstancePre.Instantiate": {
			close: func(p prepared) error { return p.cc.Close(ctx) },
			use: func(p prepared) error {
				_, err := p.pre.Instantiate(ctx, newStore(t, engine.DefaultLimits()))
				return err
			},
		},
		"InstancePre.Snapshot": {
			close: func(p prepared) error { return p.cc.Close(ctx) },
			use: func(p prepared) error {
				_, err := p.pre.Snapshot(ctx, newStore(t, engine.DefaultLimits()), component.SnapshotOptions{})
				return err
			},
		},
		"Snapshot.Instantiate of a closed component": {
			close: func(p prepared) error { return p.cc.Close(ctx) },
			use: func(p prepared) error {
				_, err := p.sn.Instantiate(ctx, newStore(t, engine.DefaultLimits()))
				return err
			},
		},
		"Snapshot.Instantiate of a closed snapshot": {
			close: func(p prepared) error { return p.sn.Close(ctx) },
			use: func(p prepared) error {
				_, err := p.sn.Instantiate(ctx, newStore(t, engine.DefaultLimits()))
				return err
			},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := binary.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			cc, err := component.CompileDecoded(ctx, e, c)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close(ctx)
			pre, err := l.Prepare(cc)
			if err != nil {
				t.Fatal(err)
			}
			sn, err := pre.Snapshot(ctx, newStore(t, engine.DefaultLimits()), component.SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Close(ctx)
			p := prepared{cc, pre, sn}
			// Made before close: keeps working after it.
			live, err := sn.Instantiate(ctx, newStore(t, engine.DefaultLimits()))
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.close(p); err != nil {
				t.Fatal(err)
			}
			if err := tt.use(p); !errors.Is(err, component.ErrClosed) {
				t.Fatalf("err = %v, want ErrClosed", err)
			}
			if res, err := live.Call(ctx, "run", abi.U32Value(1)); err != nil || res[0].Uint() != 3 {
				t.Fatalf("run on an instance made before close = %v, %v", res, err)
			}
		})
	}
}

// TestCompiledCloseShared compiles each nested and aliasing fixture twice in one engine (the
// two share every core module) and closes the first: the second must still instantiate, which
// fails if Close gave back a module more than once (a component reached through two aliases,
// say).
func TestCompiledCloseShared(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{
		"testdata/runtime/nested.wasm", nestedTwiceWasm, "testdata/runtime/nested-resource.wasm",
		"testdata/runtime/outer-alias.wasm", "testdata/runtime/import-args.wasm",
		"testdata/runtime/export-alias.wasm",
	} {
		t.Run(path, func(t *testing.T) {
			e, err := engine.New(ctx, engine.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(ctx)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ccs [2]*component.Component
			for i := range ccs {
				if ccs[i], err = component.Compile(ctx, e, b); err != nil {
					t.Fatal(err)
				}
			}
			if err := ccs[0].Close(ctx); err != nil {
				t.Fatal(err)
			}
			in, err := component.NewLinker().InstantiateWithLimits(ctx, ccs[1], engine.DefaultLimits())
			if err != nil {
				t.Fatalf("instantiate the other compile after closing one: %v", err)
			}
			_ = in.Close(ctx)
			if err := ccs[1].Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
