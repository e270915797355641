package engine

import (
	"context"
	"os"
	"testing"
)

// A snapshot compiles the module once, as Compile does (its capture is the cached module), and
// keeps only its restored module: never a capture copy beside the original.
func TestSnapshotCompilesOnce(t *testing.T) {
	ctx := context.Background()
	wasmBytes, err := os.ReadFile("testdata/snapshot.wasm")
	if err != nil {
		t.Fatal(err)
	}
	imports := Imports{"env": &HostModule{Name: "env", Funcs: []HostFunc{{
		Name: "seed", Results: []ValueType{I32},
		Fn: func(_ context.Context, _ *Caller, stack []uint64) { stack[0] = 7 },
	}}}}
	cfg := SnapshotConfig{Limits: DefaultLimits(), Imports: imports, InitExport: "_initialize"}
	for _, precompiled := range []bool{false, true} {
		e, err := New(ctx, Config{})
		if err != nil {
			t.Fatal(err)
		}
		want := 1 // the restored module
		var m *Module
		if precompiled {
			if m, err = e.Compile(ctx, wasmBytes); err != nil {
				t.Fatal(err)
			}
			want = 2 // the caller's own module, which the capture shared, and the restored one
		}
		sn, err := e.Snapshot(ctx, wasmBytes, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.compiledModules(); got != want {
			t.Fatalf("precompiled %v: the engine holds %d compiled modules after a snapshot, want %d", precompiled, got, want)
		}
		if precompiled {
			// The capture gave back only its own reference: the caller's module still works.
			s, err := e.NewStore(ctx, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Instantiate(ctx, m, imports); err != nil {
				t.Fatalf("the caller's module after a snapshot of it: %v", err)
			}
			_ = s.Close(ctx)
			_ = m.Close(ctx)
		}
		if err := sn.Module().Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got := e.compiledModules(); got != 0 {
			t.Fatalf("precompiled %v: %d compiled modules left after closing everything", precompiled, got)
		}
		_ = e.Close(ctx)
	}
}
