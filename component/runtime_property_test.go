package component_test

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

// Values lowered into a real guest and lifted back come out equal, in every string encoding and
// for lists, records, options and results; the guest's sums agree with Go's.
func TestRuntimeRoundTripProperty(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	call := func(t *rapid.T, fn string, args ...abi.Value) abi.Value {
		res, err := in.Call(ctx, fn, args...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return res[0]
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		u := rapid.String().Draw(t, "u")
		for _, fn := range []string{"echo", "echo16", "echo-latin1"} {
			if got := call(t, fn, abi.StringValue(s)).Str(); got != s {
				t.Fatalf("%s(%q) = %q", fn, s, got)
			}
		}
		for _, fn := range []string{"concat", "concat16"} {
			if got := call(t, fn, abi.StringValue(s), abi.StringValue(u)).Str(); got != s+u {
				t.Fatalf("%s(%q, %q) = %q", fn, s, u, got)
			}
		}
		xs := rapid.SliceOfN(rapid.Uint32(), 0, 300).Draw(t, "xs")
		var want uint64
		for _, x := range xs {
			want += uint64(x)
		}
		if got := call(t, "sum", abi.ListValue(u32s(xs...)...)).Uint(); got != want {
			t.Fatalf("sum = %d, want %d", got, want)
		}
		x, y := rapid.Int32().Draw(t, "x"), rapid.Int32().Draw(t, "y")
		p := call(t, "swap", abi.RecordValue(abi.S32Value(x), abi.S32Value(y)))
		if !abi.Equal(p, abi.RecordValue(abi.S32Value(y), abi.S32Value(x))) {
			t.Fatalf("swap(%d, %d) = %v", x, y, p)
		}
		r := abi.OkValue(abi.U32Value(rapid.Uint32().Draw(t, "ok")))
		if rapid.Bool().Draw(t, "err") {
			r = abi.ErrValue(abi.StringValue(s))
		}
		if got := call(t, "id-result", r); !abi.Equal(got, r) {
			t.Fatalf("id-result(%v) = %v", r, got)
		}
		c := rapid.Rune().Filter(func(r rune) bool { return r < 0xd800 || r > 0xdfff }).Draw(t, "c")
		if got := call(t, "id-char", abi.CharValue(c)).Char(); got != c {
			t.Fatalf("id-char(%q) = %q", c, got)
		}
	})
}
