package component_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

func TestRuntimeNestedComponents(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/nested.wasm")
	long := strings.Repeat("ß→", 3000)
	tests := []struct {
		fn   string
		args []abi.Value
		want abi.Value
	}{
		{"add", u32s(1, 2), abi.U32Value(3)},
		{"add3", u32s(1, 2, 3), abi.U32Value(6)},
		{"relay", []abi.Value{abi.StringValue("through two components")}, abi.StringValue("through two components")},
		{"relay", []abi.Value{abi.StringValue(long)}, abi.StringValue(long)},
	}
	for _, tc := range tests {
		res, err := in.Call(ctx, tc.fn, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.fn, err)
		}
		if !abi.Equal(res[0], tc.want) {
			t.Fatalf("%s = %v, want %v", tc.fn, res[0], tc.want)
		}
	}
}

const nestedTwiceWasm = "testdata/runtime/nested-twice.wasm"

// The same nested component instantiated twice: each instance has its own core state, its own
// handle table and its own resource type.
func TestRuntimeNestedTwice(t *testing.T) {
	in := instantiate(t, component.NewLinker(), nestedTwiceWasm)
	checkNestedTwice(t, in)
}

// checkNestedTwice runs the tests of nested-twice.wasm on a fresh instance.
func checkNestedTwice(t *testing.T, in *component.Instance) {
	t.Helper()
	ctx := context.Background()
	call := func(fn string, args ...abi.Value) abi.Value {
		t.Helper()
		res, err := in.Call(ctx, fn, args...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return res[0]
	}
	steps := []struct {
		fn   string
		want uint64
	}{
		{"next1", 1}, {"next1", 2}, {"next2", 1}, {"next1", 3}, {"next2", 2},
	}
	for i, st := range steps {
		if got := call(st.fn).Uint(); got != st.want {
			t.Fatalf("step %d: %s = %d, want %d", i, st.fn, got, st.want)
		}
	}

	r1, err := in.ResourceType("r1")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := in.ResourceType("r2")
	if err != nil {
		t.Fatal(err)
	}
	if r1 == r2 {
		t.Fatal("both instances of $A have the same resource type")
	}
	// Each instance's destructor runs for its own resources only.
	h1 := call("make1", abi.U32Value(7))
	if err := in.DropResource(ctx, r1, h1.Rep()); err != nil {
		t.Fatal(err)
	}
	if d1, d2 := call("dropped1").Uint(), call("dropped2").Uint(); d1 != 1 || d2 != 0 {
		t.Fatalf("after dropping an r1: dropped1 = %d, dropped2 = %d", d1, d2)
	}
	h2 := call("make2", abi.U32Value(8))
	if err := in.DropResource(ctx, r2, h2.Rep()); err != nil {
		t.Fatal(err)
	}
	if d1, d2 := call("dropped1").Uint(), call("dropped2").Uint(); d1 != 1 || d2 != 1 {
		t.Fatalf("after dropping an r2: dropped1 = %d, dropped2 = %d", d1, d2)
	}
	// B's handle to an r1 works with A1's method and runs A1's destructor when dropped ...
	if got := call("same", abi.U32Value(9)).Uint(); got != 9 {
		t.Fatalf("same = %d", got)
	}
	if d1, d2 := call("dropped1").Uint(), call("dropped2").Uint(); d1 != 2 || d2 != 1 {
		t.Fatalf("after same: dropped1 = %d, dropped2 = %d", d1, d2)
	}
	// ... but is not an r2: resource types are generative.
	_, err = in.Call(ctx, "cross", abi.U32Value(10))
	if !errors.Is(err, abi.ErrHandle) {
		t.Fatalf("cross: %v, want a handle error", err)
	}
}

// Two instance trees in one store: the trampolines they share find their own instance.
func TestRuntimeTwoInstancesInOneStore(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{nestedTwiceWasm, "testdata/runtime/nested-resource.wasm"} {
		t.Run(path, func(t *testing.T) {
			cc := compileFixture(t, path)
			s := newStore(t, engine.DefaultLimits())
			l := component.NewLinker()
			a, err := l.Instantiate(ctx, s, cc)
			if err != nil {
				t.Fatal(err)
			}
			b, err := l.Instantiate(ctx, s, cc)
			if err != nil {
				t.Fatal(err)
			}
			if path == nestedTwiceWasm {
				if _, err := a.Call(ctx, "next1"); err != nil {
					t.Fatal(err)
				}
				checkNestedTwice(t, b) // b's counters start at 1: a's call did not touch them
				return
			}
			for _, in := range []*component.Instance{a, b, a} {
				if res, err := in.Call(ctx, "roundtrip", abi.U32Value(5)); err != nil || res[0].Uint() != 5 {
					t.Fatalf("roundtrip = %v, %v", res, err)
				}
			}
			for in, want := range map[*component.Instance]uint64{a: 2, b: 1} {
				if res, err := in.Call(ctx, "dropped"); err != nil || res[0].Uint() != want {
					t.Fatalf("dropped = %v, %v; want %d", res, err, want)
				}
			}
		})
	}
}

// A resource defined by one nested component and used by another: B's handles to A's counters
// live in B's table, A's destructor runs when B drops them, and an own the host got from A can
// be passed to B.
func TestRuntimeNestedResources(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/nested-resource.wasm")
	call := func(fn string, args ...abi.Value) abi.Value {
		t.Helper()
		res, err := in.Call(ctx, fn, args...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return res[0]
	}
	if got := call("roundtrip", abi.U32Value(42)).Uint(); got != 42 {
		t.Fatalf("roundtrip = %d", got)
	}
	if got := call("dropped").Uint(); got != 1 {
		t.Fatalf("dropped = %d after roundtrip", got)
	}
	c := call("[constructor]counter", abi.U32Value(7))
	if got := call("read", c).Uint(); got != 7 {
		t.Fatalf("read = %d", got)
	}
	if got := call("dropped").Uint(); got != 2 {
		t.Fatalf("dropped = %d after read", got)
	}
	rt, err := in.ResourceType("counter")
	if err != nil {
		t.Fatal(err)
	}
	c2 := call("[constructor]counter", abi.U32Value(1))
	if err := in.DropResource(ctx, rt, c2.Rep()); err != nil {
		t.Fatal(err)
	}
	if got := call("dropped").Uint(); got != 3 {
		t.Fatalf("dropped = %d after DropResource", got)
	}
}

// One store is one component instance tree: fuel is shared by every core instance a call runs
// in, here B's core module calling A's twice.
func TestRuntimeFuelSharedAcrossCoreInstances(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/nested.wasm")
	fuel := func(fn string, args ...abi.Value) uint64 {
		t.Helper()
		if _, err := in.Call(ctx, fn, args...); err != nil {
			t.Fatal(err)
		}
		return in.Store().FuelConsumed()
	}
	one := fuel("add", u32s(1, 2)...)
	three := fuel("add3", u32s(1, 2, 3)...)
	if one == 0 || three <= 2*one {
		t.Fatalf("fuel: add %d, add3 %d; add3 runs add twice plus its own code", one, three)
	}
}
