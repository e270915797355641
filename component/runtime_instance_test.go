package component_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// Outer aliases of core modules and components: every instantiation through an alias has its
// own state, and the component aliased from the root is instantiated in two places of the tree.
func TestRuntimeOuterAliases(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/outer-alias.wasm")
	steps := []struct {
		fn   string
		want uint64
	}{
		{"root-count", 1},
		{"root-count", 2},
		{"mid-count", 1},  // $counter through an alias of depth 1: a second instance
		{"inner-next", 1}, // through an alias of depth 2, in a component aliased at depth 0
		{"root-leaf-next", 101},
		{"root-leaf-next", 102},
		{"mid-leaf-next", 101}, // $Leaf through an outer alias: a second instance of it
		{"mid-count", 2},
		{"inner-next", 2},
		{"root-count", 3},
	}
	for i, st := range steps {
		res, err := in.Call(ctx, st.fn)
		if err != nil {
			t.Fatalf("step %d: %s: %v", i, st.fn, err)
		}
		if got := res[0].Uint(); got != st.want {
			t.Fatalf("step %d: %s = %d, want %d", i, st.fn, got, st.want)
		}
	}
}

const startWasm = "testdata/runtime/start.wasm"

// startLinker defines start.wasm's imports: log appends to *logs and fails for logErr; spins
// returns *spins.
func startLinker(t *testing.T, logs *[]uint32, spins *uint32, logErr uint32) *component.Linker {
	t.Helper()
	l := component.NewLinker()
	if err := l.DefineFunc("", "log", func(_ context.Context, _ *component.Caller, n uint32) error {
		if n == logErr {
			return fmt.Errorf("log %d refused", n)
		}
		*logs = append(*logs, n)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.DefineFunc("", "spins", func(context.Context) uint32 { return *spins }); err != nil {
		t.Fatal(err)
	}
	return l
}

// Start functions run during instantiation, in definition order: the root's after its core
// instance (whose core start function calls an import) and before the nested component, which
// is instantiated after it. A second instance in the same store runs its own.
func TestRuntimeStartFunctions(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, startWasm)
	s := newStore(t, engine.DefaultLimits())
	var logs []uint32
	var spins uint32 = 1000
	l := startLinker(t, &logs, &spins, 0)
	for i := range 2 {
		logs = nil
		in, err := l.Instantiate(ctx, s, cc)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		if !slices.Equal(logs, []uint32{3, 2, 1}) {
			t.Fatalf("instance %d: log calls %v, want [3 2 1]", i, logs)
		}
		if res, err := in.Call(ctx, "get"); err != nil || res[0].Uint() != 42 {
			t.Fatalf("instance %d: get = %v, %v: the start function did not run", i, res, err)
		}
	}
}

func TestRuntimeStartFunctions_Errors(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, startWasm)
	var logs []uint32
	var spins uint32

	// The start function runs on the store's fuel, in one engine frame.
	spins = 1 << 31
	lim := engine.DefaultLimits()
	lim.Fuel = 1_000_000
	_, err := startLinker(t, &logs, &spins, 0).Instantiate(ctx, newStore(t, lim), cc)
	if !errors.Is(err, engine.ErrFuelExhausted) || !strings.Contains(err.Error(), "start function") {
		t.Fatalf("spinning start function: %v, want fuel exhausted", err)
	}

	// A trap in the nested component's start function fails the instantiation.
	spins, logs = 0, nil
	_, err = startLinker(t, &logs, &spins, 1).Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if !errors.Is(err, engine.ErrHost) || !strings.Contains(err.Error(), "log 1 refused") || !strings.Contains(err.Error(), "nested component") {
		t.Fatalf("failing nested start function: %v", err)
	}

	// An instantiation that fails without breaking the store leaves it usable for another.
	s := newStore(t, engine.DefaultLimits())
	bad := component.NewLinker()
	if err := bad.DefineFunc("", "log", func(context.Context, string) {}); err != nil {
		t.Fatal(err)
	}
	if err := bad.DefineFunc("", "spins", func(context.Context) uint32 { return 0 }); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Instantiate(ctx, s, cc); !errors.Is(err, component.ErrLinkType) {
		t.Fatalf("log with a string parameter: %v", err)
	}
	logs = nil
	in, err := startLinker(t, &logs, &spins, 0).Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := in.Call(ctx, "get"); err != nil || res[0].Uint() != 42 || !slices.Equal(logs, []uint32{3, 2, 1}) {
		t.Fatalf("get = %v, %v; logs %v", res, err, logs)
	}
}

const liftLoweredWasm = "testdata/runtime/lift-lowered.wasm"

func liftLoweredLinker(t *testing.T) *component.Linker {
	t.Helper()
	l := component.NewLinker()
	if err := l.DefineFunc("", "double", func(_ context.Context, x uint32) uint32 { return 2 * x }); err != nil {
		t.Fatal(err)
	}
	if err := l.DefineFunc("", "len", func(_ context.Context, s string) uint32 { return uint32(len(s)) }); err != nil {
		t.Fatal(err)
	}
	return l
}

// A lift of a canon lower re-exports an import through the component's own ABI; a lift of
// resource.new or resource.drop exposes the built-in as a function.
func TestRuntimeLiftLowered(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, liftLoweredWasm)
	s := newStore(t, engine.DefaultLimits())
	l := liftLoweredLinker(t)
	// Two instances in one store: the trampolines the lifts reach tell them apart.
	a, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("ß", 5000)
	for _, in := range []*component.Instance{a, b} {
		tests := []struct {
			fn   string
			args []abi.Value
			want uint64
		}{
			{"double", []abi.Value{abi.U32Value(21)}, 42},
			{"len", []abi.Value{abi.StringValue("kobako")}, 6},
			{"len", []abi.Value{abi.StringValue(long)}, uint64(len(long))},
		}
		for _, tc := range tests {
			res, err := in.Call(ctx, tc.fn, tc.args...)
			if err != nil {
				t.Fatalf("%s: %v", tc.fn, err)
			}
			if got := res[0].Uint(); got != tc.want {
				t.Fatalf("%s = %d, want %d", tc.fn, got, tc.want)
			}
		}
	}
	// The second instance: a trampoline that took the first for its caller would run the
	// first's destructor.
	res, err := b.Call(ctx, "new", abi.U32Value(5))
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Kind() != abi.KindOwn || res[0].Rep() != 5 || b.Handles() != 0 {
		t.Fatalf("new(5) = %v with %d handles left in the guest", res[0], b.Handles())
	}
	if _, err := b.Call(ctx, "drop", res[0]); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[*component.Instance]uint64{a: 0, b: 1} {
		if res, err := in.Call(ctx, "dropped"); err != nil || res[0].Uint() != want {
			t.Fatalf("dropped = %v, %v; want %d", res, err, want)
		}
	}
	if b.Handles() != 0 {
		t.Fatalf("%d handles left after drop", b.Handles())
	}
}

// A nested component instantiates a core module and a component its parent passes for its
// imports, and a component nested in it instantiates them again through outer aliases of those
// imports, which resolve through the instance tree.
func TestRuntimeImportedModulesAndComponents(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/import-args.wasm")
	steps := []struct {
		fn   string
		want uint64
	}{
		{"c-next", 1},
		{"c-next", 2},
		{"d-next", 1},
		{"c-leaf-next", 101},
		{"d-leaf-next", 101},
		{"d-leaf-next", 102},
		{"c-leaf-next", 102},
		{"d-next", 2},
		{"c-next", 3},
	}
	for i, st := range steps {
		res, err := in.Call(ctx, st.fn)
		if err != nil {
			t.Fatalf("step %d: %s: %v", i, st.fn, err)
		}
		if got := res[0].Uint(); got != st.want {
			t.Fatalf("step %d: %s = %d, want %d", i, st.fn, got, st.want)
		}
	}
}

// What the runtime still refuses: a root component importing a core module (the linker defines
// none).
func TestRuntimeInstantiate_Errors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		path, want string
	}{
		{"testdata/runtime/refused-root-module.wasm", "import m of sort core module"},
	}
	for _, tc := range tests {
		cc := compileFixture(t, tc.path)
		_, err := component.NewLinker().Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
		if !errors.Is(err, component.ErrRuntimeUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

// Core imports from the empty module name, which the reference tests use throughout: the engine
// renames them when it rewrites the module, and the instantiation argument named "" supplies them.
func TestRuntimeEmptyModuleName(t *testing.T) {
	in := instantiate(t, component.NewLinker(), "testdata/runtime/empty-module.wasm")
	res, err := in.Call(context.Background(), "run", abi.U32Value(41))
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Uint(); got != 142 {
		t.Fatalf("run(41) = %d, want 142", got)
	}
}

// Items aliased from instance exports: a re-exported instance shares the original's state, an
// instance nested in an instance argument is reached from inside the importer, components
// exported by an instance keep the scope they were defined in, and a core module comes out of an
// instance.
func TestRuntimeExportAliases(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/export-alias.wasm")
	steps := []struct {
		fn   string
		want uint64
	}{
		{"bump-direct", 1},
		{"bump-forwarded", 2},
		{"bump-nested", 3},
		{"bump-direct", 4},
		{"get-one", 1},
		{"get-two", 2},
		{"get-m-two", 2},
	}
	for i, st := range steps {
		res, err := in.Call(ctx, st.fn)
		if err != nil {
			t.Fatalf("step %d: %s: %v", i, st.fn, err)
		}
		if got := res[0].Uint(); got != st.want {
			t.Fatalf("step %d: %s = %d, want %d", i, st.fn, got, st.want)
		}
	}
}

// Lowering writes only what the canonical ABI's store writes: the padding after a record's bool,
// in memory the guest's realloc filled with 0xAA, stays 0xAA.
func TestRuntimeLowerKeepsPadding(t *testing.T) {
	in := instantiate(t, component.NewLinker(), "testdata/runtime/padding.wasm")
	arg := abi.ListValue(abi.RecordValue(abi.BoolValue(true), abi.StringValue("x")))
	res, err := in.Call(context.Background(), "pad", arg)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Uint(); got != 0xAAAAAA01 {
		t.Fatalf("first word of the list = %#x, want 0xaaaaaa01 (bool 1, padding untouched)", got)
	}
}
