package component_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

const calcWasm = "testdata/runtime/calc.wasm"

func u32s(xs ...uint32) []abi.Value {
	out := make([]abi.Value, len(xs))
	for i, x := range xs {
		out[i] = abi.U32Value(x)
	}
	return out
}

func TestRuntimeCalcCalls(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	wide := make([]uint32, 17)
	for i := range wide {
		wide[i] = uint32(i * 1000)
	}
	long := strings.Repeat("ab€", 5000)
	tests := []struct {
		fn   string
		args []abi.Value
		want []abi.Value
	}{
		{"add", u32s(2, 40), u32s(42)},
		{"add", u32s(math.MaxUint32, 2), u32s(1)},
		{"docs:calc/api@0.1.0#add", u32s(1, 2), u32s(3)},
		{"docs:calc/api#add", u32s(5, 6), u32s(11)},
		{"concat", []abi.Value{abi.StringValue("héllo, "), abi.StringValue("wörld")}, []abi.Value{abi.StringValue("héllo, wörld")}},
		{"concat", []abi.Value{abi.StringValue(""), abi.StringValue("")}, []abi.Value{abi.StringValue("")}},
		{"concat", []abi.Value{abi.StringValue(long), abi.StringValue(long)}, []abi.Value{abi.StringValue(long + long)}},
		{"concat16", []abi.Value{abi.StringValue("日本"), abi.StringValue("語😀")}, []abi.Value{abi.StringValue("日本語😀")}},
		{"echo", []abi.Value{abi.StringValue("plain")}, []abi.Value{abi.StringValue("plain")}},
		{"echo16", []abi.Value{abi.StringValue("ünïcode 😀")}, []abi.Value{abi.StringValue("ünïcode 😀")}},
		{"echo-latin1", []abi.Value{abi.StringValue("café")}, []abi.Value{abi.StringValue("café")}},
		{"echo-latin1", []abi.Value{abi.StringValue("κόσμε 😀")}, []abi.Value{abi.StringValue("κόσμε 😀")}},
		{"sum", []abi.Value{abi.ListValue(u32s(1, 2, 3, math.MaxUint32)...)}, []abi.Value{abi.U64Value(6 + math.MaxUint32)}},
		{"sum", []abi.Value{abi.ListValue()}, []abi.Value{abi.U64Value(0)}},
		{"range", u32s(4), []abi.Value{abi.ListValue(u32s(0, 1, 2, 3)...)}},
		{"swap", []abi.Value{abi.RecordValue(abi.S32Value(-1), abi.S32Value(7))}, []abi.Value{abi.RecordValue(abi.S32Value(7), abi.S32Value(-1))}},
		{"inc-opt", []abi.Value{abi.SomeValue(abi.U32Value(41))}, []abi.Value{abi.SomeValue(abi.U32Value(42))}},
		{"inc-opt", []abi.Value{abi.NoneValue()}, []abi.Value{abi.NoneValue()}},
		{"id-result", []abi.Value{abi.OkValue(abi.U32Value(9))}, []abi.Value{abi.OkValue(abi.U32Value(9))}},
		{"id-result", []abi.Value{abi.ErrValue(abi.StringValue("bad"))}, []abi.Value{abi.ErrValue(abi.StringValue("bad"))}},
		{"id-shape", []abi.Value{abi.VariantValue(0, abi.F32Value(1.5))}, []abi.Value{abi.VariantValue(0, abi.F32Value(1.5))}},
		{"id-shape", []abi.Value{abi.VariantValue(1, abi.TupleValue(abi.F32Value(2), abi.F32Value(-3)))}, []abi.Value{abi.VariantValue(1, abi.TupleValue(abi.F32Value(2), abi.F32Value(-3)))}},
		{"id-shape", []abi.Value{abi.VariantValue(2, abi.Value{})}, []abi.Value{abi.VariantValue(2, abi.Value{})}},
		{"id-color", []abi.Value{abi.EnumValue(2)}, []abi.Value{abi.EnumValue(2)}},
		{"id-perms", []abi.Value{abi.FlagsValue(5)}, []abi.Value{abi.FlagsValue(5)}},
		{"id-char", []abi.Value{abi.CharValue('😀')}, []abi.Value{abi.CharValue('😀')}},
		{"id-s8", []abi.Value{abi.S8Value(-128)}, []abi.Value{abi.S8Value(-128)}},
		{"id-bool", []abi.Value{abi.BoolValue(true)}, []abi.Value{abi.BoolValue(true)}},
		{"id-s64", []abi.Value{abi.S64Value(math.MinInt64)}, []abi.Value{abi.S64Value(math.MinInt64)}},
		{"id-f64", []abi.Value{abi.F64Value(-0.25)}, []abi.Value{abi.F64Value(-0.25)}},
		{"many", u32s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17), u32s(153)},
		{"id-wide", []abi.Value{abi.TupleValue(u32s(wide...)...)}, []abi.Value{abi.TupleValue(u32s(wide...)...)}},
	}
	for _, tc := range tests {
		t.Run(tc.fn, func(t *testing.T) {
			got, err := in.Call(ctx, tc.fn, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d results, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !abi.Equal(got[i], tc.want[i]) {
					t.Fatalf("result %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
	// post-return runs after a string result: the bump allocator is back at its base.
	if _, err := in.Call(ctx, "concat", abi.StringValue("x"), abi.StringValue("y")); err != nil {
		t.Fatal(err)
	}
	res, err := in.Call(ctx, "heap")
	if err != nil || res[0].Uint() != 4096 {
		t.Fatalf("heap after post-return = %v, %v", res, err)
	}
}

func TestRuntimeCalcTyped(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	var add func(context.Context, uint32, uint32) (uint32, error)
	if err := in.Bind("docs:calc/api@0.1.0#add", &add); err != nil {
		t.Fatal(err)
	}
	if got, err := add(ctx, 20, 22); err != nil || got != 42 {
		t.Fatalf("add = %d, %v", got, err)
	}
	var concat func(context.Context, string, string) (string, error)
	if err := in.Bind("concat16", &concat); err != nil {
		t.Fatal(err)
	}
	if got, err := concat(ctx, "ab", "ç"); err != nil || got != "abç" {
		t.Fatalf("concat16 = %q, %v", got, err)
	}
	type point struct{ X, Y int32 }
	var swap func(context.Context, point) (point, error)
	if err := in.Bind("swap", &swap); err != nil {
		t.Fatal(err)
	}
	if got, err := swap(ctx, point{1, 2}); err != nil || got != (point{2, 1}) {
		t.Fatalf("swap = %v, %v", got, err)
	}
	var sum func(context.Context, []uint32) (uint64, error)
	if err := in.Bind("sum", &sum); err != nil {
		t.Fatal(err)
	}
	if got, err := sum(ctx, []uint32{10, 20, 30}); err != nil || got != 60 {
		t.Fatalf("sum = %d, %v", got, err)
	}
	var opt func(context.Context, abi.Option[uint32]) (abi.Option[uint32], error)
	if err := in.Bind("inc-opt", &opt); err != nil {
		t.Fatal(err)
	}
	if got, err := opt(ctx, abi.Some[uint32](1)); err != nil || got != abi.Some[uint32](2) {
		t.Fatalf("inc-opt = %v, %v", got, err)
	}
	var spin func(context.Context, uint32) error
	if err := in.Bind("spin", &spin); err != nil {
		t.Fatal(err)
	}
	if err := spin(ctx, 10); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeCalcTypedDirect runs calls whose strings and lists the typed path moves straight
// between Go values and guest memory, and the failures that must keep their kind: a host's
// bad Go value is an error and leaves the instance usable, a guest's bad result is a
// TrapCanonicalABI.
func TestRuntimeCalcTypedDirect(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	type rec struct {
		ID    uint32
		Name  string
		Score float64
	}
	var echoRecs func(context.Context, []rec) ([]rec, error)
	if err := in.Bind("echo-records", &echoRecs); err != nil {
		t.Fatal(err)
	}
	recs := []rec{{1, "one", 0.5}, {2, "", math.Inf(1)}, {3, "trois ✓", -2}}
	for range 3 { // warm calls reuse the plan and the call's buffers
		if got, err := echoRecs(ctx, recs); err != nil || len(got) != 3 || got[0] != recs[0] || got[1] != recs[1] || got[2] != recs[2] {
			t.Fatalf("echo-records = %v, %v", got, err)
		}
	}
	if got, err := echoRecs(ctx, nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("echo-records(nil) = %#v, %v", got, err)
	}
	var echo16 func(context.Context, string) (string, error)
	if err := in.Bind("echo16", &echo16); err != nil {
		t.Fatal(err)
	}
	if got, err := echo16(ctx, "héllo 🌍"); err != nil || got != "héllo 🌍" {
		t.Fatalf("echo16 = %q, %v", got, err)
	}

	var idColor func(context.Context, uint8) (uint8, error)
	if err := in.Bind("id-color", &idColor); err != nil {
		t.Fatal(err)
	}
	var trap *engine.Trap
	if _, err := idColor(ctx, 7); !errors.Is(err, abi.ErrDiscriminant) || errors.As(err, &trap) {
		t.Fatalf("id-color(7) = %v, want a host's ErrDiscriminant, not a trap", err)
	}
	if got, err := idColor(ctx, 2); err != nil || got != 2 {
		t.Fatalf("id-color(2) after a host mistake = %d, %v", got, err)
	}

	echo, err := component.Typed1[string, string](mustFunc(t, in, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := echo(ctx, "typed ✓"); err != nil || got != "typed ✓" {
		t.Fatalf("Typed1 echo = %q, %v", got, err)
	}
	if _, err := echo(ctx, "bad \xff"); !errors.Is(err, abi.ErrInvalidString) {
		t.Fatalf("Typed1 echo of invalid UTF-8 = %v, want ErrInvalidString", err)
	}
	in = instantiate(t, component.NewLinker(), calcWasm) // the failed lowering discarded the store
	recs1, err := component.Typed1[[]rec, []rec](mustFunc(t, in, "echo-records"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := recs1(ctx, recs); err != nil || len(got) != 3 || got[2] != recs[2] {
		t.Fatalf("Typed1 echo-records = %v, %v", got, err)
	}
	color1, err := component.Typed1[uint8, uint8](mustFunc(t, in, "id-color"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := color1(ctx, 9); !errors.Is(err, abi.ErrDiscriminant) || errors.As(err, &trap) {
		t.Fatalf("Typed1 id-color(9) = %v, want a host's ErrDiscriminant", err)
	}
	if _, err := component.Typed1[string, uint32](mustFunc(t, in, "echo")); !errors.Is(err, component.ErrBind) {
		t.Fatalf("Typed1[string, uint32] of echo = %v, want ErrBind", err)
	}

	var badString func(context.Context) (string, error)
	if err := in.Bind("bad-string", &badString); err != nil {
		t.Fatal(err)
	}
	if _, err := badString(ctx); !errors.As(err, &trap) || trap.Kind != engine.TrapCanonicalABI || !errors.Is(err, abi.ErrOutOfBounds) {
		t.Fatalf("bad-string = %v, want a TrapCanonicalABI for an out-of-bounds string", err)
	}
}

func TestRuntimeBind_Errors(t *testing.T) {
	in := instantiate(t, component.NewLinker(), calcWasm)
	var wrongArity func(context.Context, uint32) (uint32, error)
	var wrongType func(context.Context, string, uint32) (uint32, error)
	var noErr func(context.Context, uint32, uint32) uint32
	var noCtx func(uint32, uint32) (uint32, error)
	tests := []struct {
		name string
		ptr  any
	}{
		{"arity", &wrongArity},
		{"type", &wrongType},
		{"no error result", &noErr},
		{"no context", &noCtx},
		{"not a pointer", wrongArity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := in.Bind("add", tc.ptr); !errors.Is(err, component.ErrBind) {
				t.Fatalf("err = %v, want ErrBind", err)
			}
		})
	}
}

func TestRuntimeCalc_Errors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		fn   string
		args []abi.Value
		want error
		msg  string
	}{
		{"nope", nil, component.ErrNoExport, ""},
		{"docs:calc/api@0.1.0#nope", nil, component.ErrNoExport, ""},
		{"docs:other/api#add", nil, component.ErrNoExport, ""},
		{"add", u32s(1), abi.ErrTypeMismatch, ""},
		{"add", []abi.Value{abi.StringValue("x"), abi.U32Value(1)}, abi.ErrTypeMismatch, ""},
		{"bad-color", nil, nil, "enum"},
		{"bad-char", nil, nil, "char"},
		{"bad-string", nil, abi.ErrOutOfBounds, ""},
		{"boom", nil, engine.ErrUnreachable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.fn, func(t *testing.T) {
			in := instantiate(t, component.NewLinker(), calcWasm)
			_, err := in.Call(ctx, tc.fn, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.msg)
			}
		})
	}
}

func TestRuntimeTrapPoisonsInstance(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	if _, err := in.Call(ctx, "boom"); !errors.Is(err, engine.ErrUnreachable) {
		t.Fatalf("boom: %v", err)
	}
	if _, err := in.Call(ctx, "add", u32s(1, 2)...); !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Fatalf("call after trap: %v", err)
	}
}

func TestRuntimeFuelAndLimits(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, calcWasm)
	l := component.NewLinker()

	lim := engine.DefaultLimits()
	lim.Fuel = 50_000
	in, err := l.Instantiate(ctx, newStore(t, lim), cc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Call(ctx, "spin", abi.U32Value(100)); err != nil {
		t.Fatal(err)
	}
	if used := in.Store().FuelConsumed(); used == 0 || used > lim.Fuel {
		t.Fatalf("fuel consumed = %d", used)
	}
	if _, err := in.Call(ctx, "spin", abi.U32Value(10_000_000)); !errors.Is(err, engine.ErrFuelExhausted) {
		t.Fatalf("long spin: %v", err)
	}

	lim = engine.DefaultLimits()
	lim.Instances = 1 // the fuel module does not count; calc has one core instance
	if _, err := l.Instantiate(ctx, newStore(t, lim), cc); err != nil {
		t.Fatalf("one core instance under a limit of 1: %v", err)
	}
}

func TestRuntimeInstantiateWithLimits(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, calcWasm)
	in, err := component.NewLinker().InstantiateWithLimits(ctx, cc, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := in.Call(ctx, "add", u32s(1, 2)...); err != nil || res[0].Uint() != 3 {
		t.Fatalf("add = %v, %v", res, err)
	}
	if err := in.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Call(ctx, "add", u32s(1, 2)...); !errors.Is(err, engine.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
	bad := engine.DefaultLimits()
	bad.Fuel = engine.MaxFuel + 1 // zero would mean the default
	if _, err := component.NewLinker().InstantiateWithLimits(ctx, cc, bad); err == nil {
		t.Fatal("invalid limits accepted")
	}
}

// engine refuels every call it sees from the host, and lowering arguments calls the guest's
// realloc once per string: the component call must count them all against one budget.
func TestRuntimeFuelAcrossRealloc_Errors(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, calcWasm)
	l := component.NewLinker()
	probe, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probe.Call(ctx, "spin", abi.U32Value(2000)); err != nil {
		t.Fatal(err)
	}
	perRealloc := probe.Store().FuelConsumed() // slow-realloc spins as long

	lim := engine.DefaultLimits()
	lim.Fuel = 10 * perRealloc
	in, err := l.Instantiate(ctx, newStore(t, lim), cc)
	if err != nil {
		t.Fatal(err)
	}
	strs := func(n int) abi.Value {
		xs := make([]abi.Value, n)
		for i := range xs {
			xs[i] = abi.StringValue("s")
		}
		return abi.ListValue(xs...)
	}
	if res, err := in.Call(ctx, "count-strings", strs(2)); err != nil || res[0].Uint() != 2 {
		t.Fatalf("count-strings(2) = %v, %v", res, err)
	}
	_, err = in.Call(ctx, "count-strings", strs(30))
	if !errors.Is(err, engine.ErrFuelExhausted) {
		t.Fatalf("count-strings(30): %v, want fuel exhausted", err)
	}
	if _, err := in.Call(ctx, "add", u32s(1, 2)...); !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Fatalf("call after running out of fuel: %v", err)
	}
}

func mustFunc(t *testing.T, in *component.Instance, name string) *component.Func {
	t.Helper()
	f, err := in.Func(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
