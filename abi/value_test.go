package abi

import (
	"math"
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	nan1 := F32Value(math.Float32frombits(0x7fc00001))
	nan2 := F32Value(math.Float32frombits(0xffc00000))
	tests := []struct {
		a, b Value
		want bool
	}{
		{nan1, nan2, true},
		{F64Value(math.NaN()), F64Value(math.Float64frombits(0xfff0000000000001)), true},
		{F64Value(0), F64Value(math.Copysign(0, -1)), false},
		{F32Value(1), F64Value(1), false},
		{BytesValue([]byte{1, 2}), ListValue(U8Value(1), U8Value(2)), true},
		{BytesValue([]byte{1, 2}), ListValue(U8Value(1), U8Value(3)), false},
		{BytesValue([]byte{1}), ListValue(S8Value(1)), false},
		{packedValue(KindF32, []byte{1, 0, 0xc0, 0x7f}), ListValue(nan2), true},
		{RecordValue(U8Value(1)), TupleValue(U8Value(1)), false},
		{RecordValue(U8Value(1)), RecordValue(U8Value(1), U8Value(2)), false},
		{SomeValue(U8Value(1)), SomeValue(U8Value(1)), true},
		{SomeValue(U8Value(1)), NoneValue(), false},
		{OkValue(Value{}), ErrValue(Value{}), false},
		{OkValue(Value{}), OkValue(Value{}), true},
		{VariantValue(1, StringValue("a")), VariantValue(1, StringValue("b")), false},
		{OwnValue(1), BorrowValue(1), false},
		{StringValue(""), StringValue(""), true},
		{Value{}, Value{}, true},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v", tt.a, tt.b, got)
		}
		if got := Equal(tt.b, tt.a); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v (reversed)", tt.b, tt.a, got)
		}
	}
}

func TestAccessors(t *testing.T) {
	if S8Value(-3).Int() != -3 || U64Value(math.MaxUint64).Uint() != math.MaxUint64 || F32Value(0.5).Float() != 0.5 ||
		CharValue('é').Char() != 'é' || StringValue("x").Str() != "x" || !BoolValue(true).Bool() {
		t.Error("scalar accessors")
	}
	l := packedValue(KindS16, []byte{0xff, 0xff, 2, 0})
	if l.Len() != 2 || l.Index(0).Int() != -1 || l.Elems()[1].Int() != 2 {
		t.Errorf("packed list %s", l)
	}
	if b, ok := BytesValue([]byte("hi")).Bytes(); !ok || string(b) != "hi" {
		t.Error("Bytes")
	}
	if _, ok := ListValue(U8Value(1)).Bytes(); ok {
		t.Error("Bytes of an element list")
	}
	v := VariantValue(2, U8Value(5))
	if v.Case() != 2 || v.Payload().Uint() != 5 || EnumValue(1).Case() != 1 {
		t.Error("variant accessors")
	}
	if NoneValue().IsSome() || !SomeValue(U8Value(1)).IsSome() || !ErrValue(Value{}).IsErr() || OkValue(Value{}).Payload().IsValid() {
		t.Error("option/result accessors")
	}
	if FlagsValue(5).FlagBits() != 5 || OwnValue(3).Rep() != 3 || BorrowValue(4).Rep() != 4 {
		t.Error("flags/handle accessors")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Value.Str called on u8 value") {
			t.Errorf("wrong-kind accessor: recover() = %v", r)
		}
	}()
	_ = U8Value(1).Str()
}

func TestFormat(t *testing.T) {
	v := sampleItemValue()
	want := `{name: "box", age: 7, tags: ["a", "ü"], data: [1, 2, 3], samples: [-1, 5], score: -inf, ` +
		`nick: some("bo"), count: some(9), outcome: err("bad"), done: ok, color: blue, perms: {read, exec}, ` +
		`letter: '€', pair: (3, "x"), shape: circle(1.5), handle: own(44), any: [true], other-name: -9, http-code: 404}`
	if got := Format(itemT, v); got != want {
		t.Errorf("Format:\n got %s\nwant %s", got, want)
	}
	wantPlain := `{"box", 7, ["a", "ü"], [1, 2, 3], [-1, 5], -inf, some("bo"), some(9), err("bad"), ok, #2, {#0, #2}, ` +
		`'€', (3, "x"), #0(1.5), own(44), [true], -9, 404}`
	if got := v.String(); got != wantPlain {
		t.Errorf("String:\n got %s\nwant %s", got, wantPlain)
	}
	if got := Format(rec(Field{"a", U8}), RecordValue(StringValue("x"))); got != "{a: !{expected u8, found string}}" {
		t.Errorf("mismatch rendering %s", got)
	}
	if got := F64Value(math.NaN()).String(); got != "nan" {
		t.Errorf("nan renders as %s", got)
	}
}
