package preview2_test

import (
	"context"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
)

// BenchmarkFilesystem calls wasi:filesystem through testdata/fs.wasm, a guest that imports it
// with its exact WIT types: each operation crosses the canonical ABI both ways, with the
// descriptor handles lifted and lowered as a compiled guest's would be. The fixture's bump
// allocator never frees, so the guest is instantiated afresh (outside the timer) before its
// memory runs out.
func BenchmarkFilesystem(b *testing.B) {
	dir := fsTree(b)
	ctx := context.Background()
	e := newEngine(b)
	cc, err := component.Compile(ctx, e, readFixture(b, "testdata/fs.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		b.Fatal(err)
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		b.Fatal(err)
	}
	var s *engine.Store
	b.Cleanup(func() {
		if s != nil {
			s.Close(ctx)
		}
	})
	fresh := func() *component.Instance {
		if s != nil {
			s.Close(ctx)
		}
		if s, err = e.NewStore(ctx, engine.DefaultLimits()); err != nil {
			b.Fatal(err)
		}
		if _, err := preview2.Bind(s, preview2.Config{Preopens: []wasi.Preopen{{GuestPath: "/data", HostDir: dir}}}); err != nil {
			b.Fatal(err)
		}
		in, err := pre.Instantiate(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		return in
	}
	for _, bm := range []struct {
		name string
		call string
		arg  []string
		// per is how many calls one instance's memory takes.
		per int
	}{
		// borrow<descriptor> in, a record out.
		{"op=metadata-hash", "metadata-hash", nil, 1 << 30},
		// open-at (own<descriptor> out), is-same-object (two borrows), the destructor.
		{"op=open-same-drop", "same-as-preopen", []string{"."}, 20000},
		// read-directory (own<directory-entry-stream> out), read-directory-entry until none.
		{"op=list", "list", nil, 40},
	} {
		b.Run(bm.name, func(b *testing.B) {
			args := make([]abi.Value, len(bm.arg))
			for i, a := range bm.arg {
				args[i] = abi.StringValue(a)
			}
			in := fresh()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%bm.per == 0 {
					b.StopTimer()
					in = fresh()
					b.StartTimer()
				}
				if _, err := in.Call(ctx, bm.call, args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
