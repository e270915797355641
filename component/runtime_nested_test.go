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

func TestRuntimeNestedComponents_Errors(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, "testdata/runtime/nested-twice.wasm")
	_, err := component.NewLinker().Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if !errors.Is(err, component.ErrRuntimeUnsupported) || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v", err)
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
