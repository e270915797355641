package engine

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// A snapshot instance's memory comes from the image, in a fresh or a recycled buffer: either way
// it holds exactly what a normal instantiation leaves, pages it grows into are zero whatever an
// earlier instance wrote there, and the store's memory limit holds although a recycled buffer
// may have more capacity than the limit allows.
func TestSnapshotMemoryRecycled(t *testing.T) {
	ctx := context.Background()
	wasmBytes, err := os.ReadFile("testdata/snapshot.wasm")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	imports := Imports{"env": &HostModule{Name: "env", Funcs: []HostFunc{{
		Name: "seed", Results: []ValueType{I32},
		Fn: func(_ context.Context, _ *Caller, stack []uint64) { stack[0] = 7 },
	}}}}
	lim := DefaultLimits()
	lim.MemoryBytes = 16 * wasmPage
	sn, err := e.Snapshot(ctx, wasmBytes, SnapshotConfig{Limits: lim, Imports: imports, InitExport: "_initialize"})
	if err != nil {
		t.Fatal(err)
	}
	if sn.module.image == nil {
		t.Fatal("the restored module has no memory image")
	}

	// What a normal instantiation and init call leave in memory.
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	nin, err := ns.Instantiate(ctx, m, imports)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nin.Call(ctx, "_initialize"); err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(readAll(t, nin))
	_ = ns.Close(ctx)
	pages := uint64(len(want) / wasmPage)

	instantiate := func(lim Limits) (*Store, *Instance) {
		t.Helper()
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.InstantiateSnapshot(ctx, sn, imports)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, in); !bytes.Equal(got, want) {
			t.Fatalf("snapshot memory (recycled %v) differs from a normal instance's", s.memories[0].recycled)
		}
		return s, in
	}
	grow := func(in *Instance, n uint64) uint64 {
		t.Helper()
		r, err := in.Call(ctx, "grow", n)
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	// dirty grows the memory by 4 pages (within what a buffer may keep for reuse), writes over
	// every byte and closes the store.
	dirty := func() {
		s, in := instantiate(lim)
		if got := grow(in, 4); got != pages {
			t.Fatalf("grow returned %d, want %d", got, pages)
		}
		mem := in.Memory("memory")
		if !mem.Write(0, bytes.Repeat([]byte{0xa5}, int(mem.Size()))) {
			t.Fatal("write failed")
		}
		_ = s.Close(ctx)
	}

	// A store with another table limit instantiates a variant of the restored module, compiled
	// for that limit: it starts from the same image.
	other := lim
	other.TableElements = 100
	s, in := instantiate(other)
	if in.module == sn.module || in.module.image != sn.module.image {
		t.Fatal("the instance is not of a variant sharing the snapshot's image")
	}
	_ = s.Close(ctx)

	var recycled, limited bool
	// The race detector makes sync.Pool drop some buffers: try a few times.
	for range 20 {
		dirty()
		s, in := instantiate(lim)
		recycled = recycled || s.memories[0].recycled
		if got := grow(in, 3); got != pages {
			t.Fatalf("grow returned %d, want %d", got, pages)
		}
		b := readAll(t, in)
		if !bytes.Equal(b[:len(want)], want) || !bytes.Equal(b[len(want):], make([]byte, 3*wasmPage)) {
			t.Fatalf("after growing (recycled %v): memory differs from the image followed by zero pages", s.memories[0].recycled)
		}
		_ = s.Close(ctx)

		// One page more than the image allows: the second page is refused.
		dirty()
		small := lim
		small.MemoryBytes = (pages + 1) * wasmPage
		s, in = instantiate(small)
		isRecycled := s.memories[0].recycled
		if got := grow(in, 1); got != pages {
			t.Fatalf("grow within the limit returned %d, want %d", got, pages)
		}
		if got := grow(in, 1); got != 0xffffffff {
			t.Fatalf("grow past the limit (recycled %v) returned %d, want -1", isRecycled, got)
		}
		if got := in.Memory("memory").Size(); got != uint32((pages+1)*wasmPage) {
			t.Fatalf("memory size %d after a refused grow", got)
		}
		_ = s.Close(ctx)
		limited = limited || isRecycled
		if recycled && limited {
			return
		}
	}
	t.Fatalf("no instance got a recycled buffer (recycled %v, under a limit %v)", recycled, limited)
}

func readAll(t *testing.T, in *Instance) []byte {
	t.Helper()
	mem := in.Memory("memory")
	b, ok := mem.Read(0, mem.Size())
	if !ok {
		t.Fatal("memory unreadable")
	}
	return b
}
