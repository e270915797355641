package abi

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// memWith returns a 64 KiB memory holding the given byte runs at their offsets.
func memWith(runs map[uint32][]byte) *SliceMemory {
	m := NewSliceMemory(1<<16, 1<<16)
	for off, b := range runs {
		copy(m.buf[off:], b)
	}
	m.next = 1 << 15 // allocations, if any, go above the test data
	return m
}

func u32s(xs ...uint32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func TestLoad_Errors(t *testing.T) {
	r := NewResourceType("r")
	charList := lst(Char)
	nested := res(rec(Field{"a", U8}, Field{"b", charList}), String)
	tests := []struct {
		name string
		typ  Type
		ptr  uint32
		runs map[uint32][]byte
		enc  StringEncoding
		cx   func(*CallContext)
		want error
		msg  string // substring of the message
	}{
		{name: "surrogate char", typ: Char, runs: map[uint32][]byte{0: u32s(0xD800)},
			want: ErrInvalidChar, msg: "lift: char 0xd800 is a surrogate: invalid char"},
		{name: "char above max", typ: Char, runs: map[uint32][]byte{0: u32s(0x110000)},
			want: ErrInvalidChar, msg: "0x110000 is above U+10FFFF"},
		{name: "variant discriminant", typ: vnt(Case{"a", nil}, Case{"b", U8}, Case{"c", nil}), runs: map[uint32][]byte{0: {7}},
			want: ErrDiscriminant, msg: "variant discriminant 7 out of range (3 cases)"},
		{name: "option in record", typ: rec(Field{"x", U8}, Field{"error", opt(U8)}), runs: map[uint32][]byte{0: {0, 7}},
			want: ErrDiscriminant, msg: `lift record field "error": option discriminant 7 out of range (2 cases)`},
		{name: "result discriminant", typ: res(nil, nil), runs: map[uint32][]byte{0: {2}}, want: ErrDiscriminant},
		{name: "enum u16 discriminant", typ: enm(300), runs: map[uint32][]byte{0: {0x2c, 0x01}}, want: ErrDiscriminant,
			msg: "enum discriminant 300 out of range (300 cases)"},
		{name: "string beyond memory", typ: String, runs: map[uint32][]byte{0: u32s(1<<16-2, 10)}, want: ErrOutOfBounds},
		{name: "string wraps uint32", typ: String, runs: map[uint32][]byte{0: u32s(0xFFFFFFF0, 0x20)}, want: ErrOutOfBounds},
		{name: "string too long", typ: String, runs: map[uint32][]byte{0: u32s(0, 1<<28)}, want: ErrTooLong},
		{name: "utf16 too long", typ: String, enc: UTF16, runs: map[uint32][]byte{0: u32s(0, 1<<27)}, want: ErrTooLong},
		{name: "tagged utf16 too long", typ: String, enc: Latin1UTF16, runs: map[uint32][]byte{0: u32s(0, UTF16Tag|1<<27)}, want: ErrTooLong},
		{name: "utf16 misaligned", typ: String, enc: UTF16, runs: map[uint32][]byte{0: u32s(101, 2)}, want: ErrMisaligned},
		{name: "latin1 misaligned", typ: String, enc: Latin1UTF16, runs: map[uint32][]byte{0: u32s(101, 2)}, want: ErrMisaligned},
		{name: "invalid utf8", typ: String, runs: map[uint32][]byte{0: u32s(100, 3), 100: {'a', 0xff, 'b'}},
			want: ErrInvalidString, msg: "invalid UTF-8 at byte 1 of 3"},
		{name: "utf8 surrogate encoding", typ: String, runs: map[uint32][]byte{0: u32s(100, 3), 100: {0xed, 0xa0, 0x80}}, want: ErrInvalidString},
		{name: "unpaired high surrogate", typ: String, enc: UTF16, runs: map[uint32][]byte{0: u32s(100, 2), 100: {'a', 0, 0x00, 0xd8}},
			want: ErrInvalidString, msg: "unpaired UTF-16 high surrogate 0xd800 at code unit 1"},
		{name: "high surrogate then letter", typ: String, enc: UTF16, runs: map[uint32][]byte{0: u32s(100, 2), 100: {0x00, 0xd8, 'a', 0}}, want: ErrInvalidString},
		{name: "lone low surrogate", typ: String, enc: Latin1UTF16, runs: map[uint32][]byte{0: u32s(100, UTF16Tag|1), 100: {0x00, 0xdc}}, want: ErrInvalidString},
		{name: "list length overflow", typ: lst(U64), runs: map[uint32][]byte{0: u32s(8, 0x40000000)}, want: ErrTooLong},
		{name: "list length × size wraps uint32", typ: lst(U64), runs: map[uint32][]byte{0: u32s(8, 0x20000001)}, want: ErrTooLong},
		{name: "list beyond memory", typ: lst(U32), runs: map[uint32][]byte{0: u32s(8, 1<<14)}, want: ErrOutOfBounds},
		{name: "list misaligned", typ: lst(U32), runs: map[uint32][]byte{0: u32s(2, 1)}, want: ErrMisaligned},
		{name: "list element path", typ: charList, runs: map[uint32][]byte{0: u32s(8, 5), 8: u32s('a', 'b', 'c', 0xDFFF, 'e')},
			want: ErrInvalidChar, msg: "lift list element 3: char 0xdfff is a surrogate: invalid char"},
		{name: "nested path", typ: nested,
			runs: map[uint32][]byte{0: append([]byte{0, 0, 0, 0, 1, 0, 0, 0}, u32s(100, 4)...), 100: u32s(1, 2, 3, 0xD800)},
			want: ErrInvalidChar, msg: `lift result ok: record field "b": list element 3: char 0xd800 is a surrogate`},
		{name: "top pointer misaligned", typ: U32, ptr: 2, want: ErrMisaligned},
		{name: "top pointer beyond memory", typ: U64, ptr: 1 << 16, want: ErrOutOfBounds},
		{name: "top pointer wraps", typ: String, ptr: 0xFFFFFFFC, want: ErrOutOfBounds},
		{name: "own without table", typ: Must(OwnOf(r)), cx: func(cx *CallContext) { cx.Handles = nil }, want: ErrMissingOption},
		{name: "own bad handle", typ: Must(OwnOf(r)), runs: map[uint32][]byte{0: u32s(5)}, want: ErrHandle, msg: "own<r> handle 5"},
		{name: "own handle zero", typ: Must(OwnOf(r)), want: ErrHandle},
		{name: "borrow without scope", typ: Must(BorrowOf(r)), runs: map[uint32][]byte{0: u32s(1)},
			cx: func(cx *CallContext) { cx.Scope = nil }, want: ErrMissingOption},
		{name: "string without memory", typ: String, cx: func(cx *CallContext) { cx.Memory = nil }, want: ErrMissingOption},
		{name: "async", typ: U8, cx: func(cx *CallContext) { cx.Async = true }, want: ErrAsync},
		{name: "lift limit", typ: lst(String), runs: map[uint32][]byte{0: u32s(8, 1000), 8: []byte(strings.Repeat(string(u32s(1<<14, 1<<15)), 1000))},
			cx: func(cx *CallContext) { cx.MaxLiftBytes = 1 << 20 }, want: ErrLiftLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memWith(tt.runs)
			cx := &CallContext{Memory: mem, Realloc: mem.Realloc, Encoding: tt.enc,
				Handles: NewHandles(), Scope: &BorrowScope{}}
			if tt.cx != nil {
				tt.cx(cx)
			}
			v, err := cx.Load(tt.typ, tt.ptr)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load %s = %s, %v; want %v", tt.typ, v, err, tt.want)
			}
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *PathError", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("message %q does not contain %q", err, tt.msg)
			}
			if tt.typ.FlatLen() > 2 || tt.cx != nil {
				return
			}
			// The same number through the flat form fails the same way.
			var flat []uint64
			if tt.ptr == 0 && len(tt.runs[0]) >= 4*tt.typ.FlatLen() {
				for i := 0; i < tt.typ.FlatLen(); i++ {
					flat = append(flat, uint64(binary.LittleEndian.Uint32(tt.runs[0][4*i:])))
				}
				if _, err := cx.LiftFlat(tt.typ, flat); !errors.Is(err, tt.want) {
					t.Fatalf("LiftFlat %s %v = %v; want %v", tt.typ, flat, err, tt.want)
				}
			}
		})
	}
}

func TestLoadLenient(t *testing.T) {
	mem := memWith(map[uint32][]byte{0: {0xfe}, 4: {0xff, 0xff}})
	cx := &CallContext{Memory: mem}
	if v, err := cx.Load(Bool, 0); err != nil || !v.Bool() {
		t.Errorf("bool 0xfe = %v, %v; want true (any non-zero byte)", v, err)
	}
	// Bits beyond the declared flags are ignored, as unpack_flags_from_int does.
	if v, err := cx.Load(flg(3), 0); err != nil || v.FlagBits() != 6 {
		t.Errorf("flags = %v, %v; want 6", v, err)
	}
	if v, err := cx.Load(flg(10), 4); err != nil || v.FlagBits() != 0x3ff {
		t.Errorf("flags10 = %v, %v; want 0x3ff", v, err)
	}
	// Flat: narrow integers ignore the high bits of their i32; i32 slots ignore the high half.
	tests := []struct {
		typ  Type
		flat uint64
		want Value
	}{
		{S8, 0x1ff, S8Value(-1)},
		{U8, 0x1ff, U8Value(0xff)},
		{S16, 0xfffe8000, S16Value(-32768)},
		{U16, 0x12345678, U16Value(0x5678)},
		{U32, 0xffffffff00000005, U32Value(5)},
		{Bool, 0x100000000, BoolValue(false)},
		{Bool, 2, BoolValue(true)},
		{flg(2), 0xff, FlagsValue(3)},
		{F32, 0x7fc00001, F32Value(float32FromBits(0x7fc00000))},
	}
	for _, tt := range tests {
		v, err := cx.LiftFlat(tt.typ, []uint64{tt.flat})
		if err != nil || !Equal(v, tt.want) || v.num != tt.want.num {
			t.Errorf("LiftFlat %s %#x = %s, %v; want %s", tt.typ, tt.flat, v, err, tt.want)
		}
	}
}

func TestLiftFlat_Errors(t *testing.T) {
	cx := &CallContext{}
	tests := []struct {
		typ  Type
		flat []uint64
		want error
	}{
		{U32, nil, ErrCoreValues},
		{U32, []uint64{1, 2}, ErrCoreValues},
		{opt(U64), []uint64{2, 0}, ErrDiscriminant},
		{opt(U64), []uint64{0x100000000, 0}, nil}, // the discriminant is an i32: high bits ignored
		{Char, []uint64{0xDC00}, ErrInvalidChar},
		{String, []uint64{0, 0}, ErrMissingOption},
	}
	for _, tt := range tests {
		_, err := cx.LiftFlat(tt.typ, tt.flat)
		if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("LiftFlat %s %v: %v, want %v", tt.typ, tt.flat, err, tt.want)
		}
	}
}

// TestLiftVariantFlatCoercion lifts cases whose payload occupies a wider joined slot.
func TestLiftVariantFlatCoercion(t *testing.T) {
	v := vnt(Case{"i", U32}, Case{"f", F32}, Case{"d", F64}, Case{"l", U64})
	cx := &CallContext{}
	tests := []struct {
		flat []uint64
		want Value
	}{
		{[]uint64{0, 0xffffffff00000007}, VariantValue(0, U32Value(7))},                   // i64 → i32 wraps
		{[]uint64{1, 0xdeadbeef3f800000}, VariantValue(1, F32Value(1))},                   // i64 → f32 via i32
		{[]uint64{2, 0x3ff0000000000000}, VariantValue(2, F64Value(1))},                   // i64 → f64
		{[]uint64{3, 0x123456789}, VariantValue(3, U64Value(0x123456789))},                // i64 as is
		{[]uint64{1, 0x7f800001}, VariantValue(1, F32Value(float32FromBits(0x7fc00000)))}, // NaN canonicalised
	}
	for _, tt := range tests {
		got, err := cx.LiftFlat(v, tt.flat)
		if err != nil || !Equal(got, tt.want) {
			t.Errorf("LiftFlat %v = %s, %v; want %s", tt.flat, got, err, tt.want)
		}
		back, err := cx.LowerFlat(v, got)
		if err != nil || back[0] != tt.flat[0] {
			t.Errorf("LowerFlat %s = %v, %v", got, back, err)
		}
	}
	// Lowering a case pads the remaining joined slots with zeros.
	r := rec(Field{"a", vnt(Case{"x", nil}, Case{"y", tup(U64, U64)})}, Field{"b", U8})
	flat, err := cx.LowerFlat(r, RecordValue(VariantValue(0, Value{}), U8Value(9)))
	if err != nil || len(flat) != 4 || flat[1] != 0 || flat[2] != 0 || flat[3] != 9 {
		t.Errorf("padded flat = %v, %v", flat, err)
	}
}
