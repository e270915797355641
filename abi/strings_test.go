package abi

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// recordingRealloc wraps SliceMemory.Realloc and records the alignment and size asked for.
type recordingRealloc struct {
	mem   *SliceMemory
	calls [][2]uint32
}

func (r *recordingRealloc) realloc(old, oldSize, align, size uint32) (uint32, error) {
	r.calls = append(r.calls, [2]uint32{align, size})
	return r.mem.Realloc(old, oldSize, align, size)
}

func TestStringEncodings(t *testing.T) {
	tests := []struct {
		enc    StringEncoding
		s      string
		length uint32
		bytes  []byte
		align  uint32
	}{
		{UTF8, "", 0, []byte{}, 1},
		{UTF8, "héllo", 6, []byte("héllo"), 1},
		{UTF8, "😀", 4, []byte{0xf0, 0x9f, 0x98, 0x80}, 1},
		{UTF16, "", 0, []byte{}, 2},
		{UTF16, "hé😀", 4, []byte{0x68, 0, 0xe9, 0, 0x3d, 0xd8, 0x00, 0xde}, 2},
		{UTF16, "€", 1, []byte{0xac, 0x20}, 2},
		{Latin1UTF16, "", 0, []byte{}, 2},
		{Latin1UTF16, "héllo", 5, []byte{0x68, 0xe9, 0x6c, 0x6c, 0x6f}, 2},
		{Latin1UTF16, "ÿ", 1, []byte{0xff}, 2},
		{Latin1UTF16, "h€", UTF16Tag | 2, []byte{0x68, 0, 0xac, 0x20}, 2},
		{Latin1UTF16, "Ā", UTF16Tag | 1, []byte{0x00, 0x01}, 2},
		{Latin1UTF16, "a😀", UTF16Tag | 3, []byte{0x61, 0, 0x3d, 0xd8, 0x00, 0xde}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.enc.String()+"/"+tt.s, func(t *testing.T) {
			mem := NewSliceMemory(1<<16, 1<<16)
			rec := &recordingRealloc{mem: mem}
			cx := &CallContext{Memory: mem, Realloc: rec.realloc, Encoding: tt.enc}
			flat, err := cx.LowerFlat(String, StringValue(tt.s))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(flat[1]) != tt.length {
				t.Errorf("length %#x, want %#x", flat[1], tt.length)
			}
			got, _ := mem.Read(uint32(flat[0]), uint32(len(tt.bytes)))
			if !bytes.Equal(got, tt.bytes) {
				t.Errorf("bytes % x, want % x", got, tt.bytes)
			}
			if len(rec.calls) != 1 || rec.calls[0] != [2]uint32{tt.align, uint32(len(tt.bytes))} {
				t.Errorf("realloc calls %v, want one of (align %d, size %d)", rec.calls, tt.align, len(tt.bytes))
			}
			back, err := cx.LiftFlat(String, flat)
			if err != nil || back.Str() != tt.s {
				t.Errorf("lift = %q, %v", back, err)
			}
		})
	}
}

func TestLiftLatin1(t *testing.T) {
	mem := memWith(map[uint32][]byte{100: {'c', 'a', 'f', 0xe9, 0x00, 0xff}})
	cx := &CallContext{Memory: mem, Encoding: Latin1UTF16}
	v, err := cx.LiftFlat(String, []uint64{100, 6})
	if err != nil || v.Str() != "café\x00ÿ" {
		t.Fatalf("latin1 = %q, %v", v, err)
	}
}

// TestTranscode lowers a string in one encoding, lifts it, and lowers it in another: the text
// survives every pair of encodings.
func TestTranscode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genString(t)
		src := rapid.SampledFrom(encodings).Draw(t, "src")
		dst := rapid.SampledFrom(encodings).Draw(t, "dst")
		a, b := newEnv(src), newEnv(dst)
		flat, err := a.cx.LowerFlat(String, StringValue(s))
		if err != nil {
			t.Fatal(err)
		}
		mid, err := a.cx.LiftFlat(String, flat)
		if err != nil {
			t.Fatal(err)
		}
		flat, err = b.cx.LowerFlat(String, mid)
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.cx.LiftFlat(String, flat)
		if err != nil || out.Str() != s {
			t.Fatalf("%s → %s: %q became %q (%v)", src, dst, s, out, err)
		}
		if dst == Latin1UTF16 {
			fitsLatin1 := true
			for _, r := range s {
				fitsLatin1 = fitsLatin1 && r < 0x100
			}
			if tagged := uint32(flat[1])&UTF16Tag != 0; tagged == fitsLatin1 && s != "" {
				t.Fatalf("latin1+utf16 chose utf16=%v for %q", tagged, s)
			}
		}
	})
}

func TestLower_Errors(t *testing.T) {
	r := NewResourceType("r")
	failing := func(uint32, uint32, uint32, uint32) (uint32, error) { return 0, errors.New("guest trapped") }
	tests := []struct {
		name string
		typ  Type
		v    Value
		ptr  uint32
		cx   func(*CallContext)
		want error
		msg  string
		// storeOnly: the flat form does not hit the error (no memory needed for scalars).
		storeOnly bool
	}{
		{name: "kind mismatch", typ: U32, v: StringValue("x"), want: ErrTypeMismatch, msg: "lower: expected `u32`, found `string`"},
		{name: "zero value", typ: U32, v: Value{}, want: ErrTypeMismatch},
		{name: "record arity", typ: rec(Field{"a", U8}, Field{"b", U8}), v: RecordValue(U8Value(1)), want: ErrTypeMismatch,
			msg: "expected 2 record elements, found 1"},
		{name: "tuple as record", typ: rec(Field{"a", U8}), v: TupleValue(U8Value(1)), want: ErrTypeMismatch},
		{name: "field path", typ: rec(Field{"a", U8}, Field{"b", lst(Char)}), v: RecordValue(U8Value(1), ListValue(CharValue('a'), CharValue(0xD800))),
			want: ErrInvalidChar, msg: `lower record field "b": list element 1: char 0xd800 is not a Unicode scalar value`},
		{name: "char too big", typ: Char, v: CharValue(0x110000), want: ErrInvalidChar},
		{name: "negative char", typ: Char, v: CharValue(-1), want: ErrInvalidChar},
		{name: "variant case", typ: vnt(Case{"a", nil}), v: VariantValue(3, Value{}), want: ErrDiscriminant},
		{name: "missing payload", typ: vnt(Case{"a", U8}), v: VariantValue(0, Value{}), want: ErrTypeMismatch},
		{name: "extra payload", typ: vnt(Case{"a", nil}), v: VariantValue(0, U8Value(1)), want: ErrTypeMismatch},
		{name: "payload path", typ: opt(rec(Field{"x", Char})), v: SomeValue(RecordValue(CharValue(0xDFFF))), want: ErrInvalidChar,
			msg: `lower option some: record field "x"`},
		{name: "enum case", typ: enm(3), v: EnumValue(3), want: ErrDiscriminant},
		{name: "flags bits", typ: flg(3), v: FlagsValue(8), want: ErrFlags},
		{name: "invalid utf8", typ: String, v: StringValue("a\xffb"), want: ErrInvalidString, msg: "at byte 1"},
		{name: "invalid utf8 to utf16", typ: String, v: StringValue("\xc0"), cx: func(cx *CallContext) { cx.Encoding = UTF16 }, want: ErrInvalidString},
		{name: "packed kind", typ: lst(U16), v: BytesValue([]byte{1, 2}), want: ErrTypeMismatch},
		{name: "list too long", typ: lst(tup(slicesRepeat(U64, 1<<17)...)), v: ListValue(make([]Value, 256)...), want: ErrTooLong},
		{name: "list element kind", typ: lst(U8), v: ListValue(U8Value(1), S8Value(1)), want: ErrTypeMismatch, msg: "list element 1"},
		{name: "realloc traps", typ: String, v: StringValue("x"), cx: func(cx *CallContext) { cx.Realloc = failing }, want: ErrRealloc,
			msg: "guest trapped"},
		{name: "realloc misaligned", typ: lst(U32), v: ListValue(U32Value(1)),
			cx: func(cx *CallContext) {
				cx.Realloc = func(uint32, uint32, uint32, uint32) (uint32, error) { return 2, nil }
			}, want: ErrMisaligned},
		{name: "realloc out of bounds", typ: String, v: StringValue("xyz"),
			cx: func(cx *CallContext) {
				cx.Realloc = func(uint32, uint32, uint32, uint32) (uint32, error) { return 1<<16 - 1, nil }
			}, want: ErrOutOfBounds},
		{name: "realloc wraps", typ: String, v: StringValue("xyz"),
			cx: func(cx *CallContext) {
				cx.Realloc = func(uint32, uint32, uint32, uint32) (uint32, error) { return 0xFFFFFFFF, nil }
			}, want: ErrOutOfBounds},
		{name: "no realloc", typ: String, v: StringValue("x"), cx: func(cx *CallContext) { cx.Realloc = nil }, want: ErrMissingOption},
		{name: "no memory", typ: U8, v: U8Value(1), cx: func(cx *CallContext) { cx.Memory = nil }, want: ErrMissingOption, storeOnly: true},
		{name: "misaligned store", typ: U32, v: U32Value(1), ptr: 2, want: ErrMisaligned},
		{name: "store beyond memory", typ: U32, v: U32Value(1), ptr: 1 << 16, want: ErrOutOfBounds},
		{name: "no handle table", typ: Must(OwnOf(r)), v: OwnValue(1), cx: func(cx *CallContext) { cx.Handles = nil }, want: ErrMissingOption},
		{name: "borrow without scope", typ: Must(BorrowOf(r)), v: BorrowValue(1), cx: func(cx *CallContext) { cx.Scope = nil }, want: ErrMissingOption},
		{name: "async", typ: U8, v: U8Value(1), cx: func(cx *CallContext) { cx.Async = true }, want: ErrAsync},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := NewSliceMemory(1<<16, 1<<16)
			cx := &CallContext{Memory: mem, Realloc: mem.Realloc, Handles: NewHandles(), Scope: &BorrowScope{}}
			if tt.cx != nil {
				tt.cx(cx)
			}
			err := cx.Store(tt.typ, tt.v, tt.ptr)
			if !errors.Is(err, tt.want) || !bytes.Contains([]byte(errString(err)), []byte(tt.msg)) {
				t.Fatalf("Store: %v; want %v containing %q", err, tt.want, tt.msg)
			}
			if tt.ptr != 0 || tt.storeOnly {
				return
			}
			if _, err := cx.LowerFlat(tt.typ, tt.v); !errors.Is(err, tt.want) {
				t.Fatalf("LowerFlat: %v; want %v", err, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func slicesRepeat(t Type, n int) []Type {
	out := make([]Type, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// TestTranscodeFastPaths puts one non-ASCII code point at every offset around the eight-byte
// (four-unit) chunks of the ASCII fast paths, in every encoding.
func TestTranscodeFastPaths(t *testing.T) {
	for _, special := range []string{"é", "ÿ", "€", "😀", "\x00"} {
		for k := 0; k < 20; k++ {
			s := strings.Repeat("a", k) + special + strings.Repeat("bcdefghi", 3)[:k%9+8]
			for _, enc := range encodings {
				mem := NewSliceMemory(1<<16, 1<<16)
				cx := &CallContext{Memory: mem, Realloc: mem.Realloc, Encoding: enc}
				flat, err := cx.LowerFlat(String, StringValue(s))
				if err != nil {
					t.Fatal(err)
				}
				back, err := cx.LiftFlat(String, flat)
				if err != nil || back.Str() != s {
					t.Fatalf("%s %q: got %q, %v", enc, s, back, err)
				}
			}
		}
	}
	// A surrogate after a run of ASCII units is still caught.
	for k := 0; k < 12; k++ {
		units := make([]byte, 0, 2*k+2)
		for i := 0; i < k; i++ {
			units = append(units, 'x', 0)
		}
		units = append(units, 0x00, 0xdc)
		mem := memWith(map[uint32][]byte{0: units})
		cx := &CallContext{Memory: mem, Encoding: UTF16}
		if _, err := cx.LiftFlat(String, []uint64{0, uint64(k + 1)}); !errors.Is(err, ErrInvalidString) {
			t.Fatalf("lone surrogate after %d units: %v", k, err)
		}
	}
}

// TestUTF8Chunks checks the chunked validate-and-copy of UTF-8 across chunk boundaries.
func TestUTF8Chunks(t *testing.T) {
	for _, tt := range []struct {
		s   string
		bad int // -1: valid
	}{
		{strings.Repeat("a", chunk-1) + "é" + strings.Repeat("b", 10), -1}, // straddles the boundary
		{strings.Repeat("a", chunk) + "😀", -1},
		{strings.Repeat("a", 3*chunk+5), -1},
		{strings.Repeat("a", chunk+7) + "\xff" + "b", chunk + 7},
		{strings.Repeat("a", 2*chunk-1) + "\xe2\x82", 2*chunk - 1}, // truncated at the end
		{"é" + strings.Repeat("a", chunk) + "\xc0", chunk + 2},
	} {
		mem := NewSliceMemory(1<<18, 1<<18)
		cx := &CallContext{Memory: mem, Realloc: mem.Realloc}
		flat, err := cx.LowerFlat(String, StringValue(tt.s))
		if tt.bad >= 0 {
			if !errors.Is(err, ErrInvalidString) || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d", tt.bad)) {
				t.Errorf("lower %d bytes: %v, want invalid at %d", len(tt.s), err, tt.bad)
			}
			// The same bytes in guest memory fail to lift at the same offset.
			mem.Write(0, []byte(tt.s))
			_, err = cx.LiftFlat(String, []uint64{0, uint64(len(tt.s))})
			if !errors.Is(err, ErrInvalidString) || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d of", tt.bad)) {
				t.Errorf("lift %d bytes: %v, want invalid at %d", len(tt.s), err, tt.bad)
			}
			continue
		}
		if err != nil {
			t.Fatalf("lower %d bytes: %v", len(tt.s), err)
		}
		back, err := cx.LiftFlat(String, flat)
		if err != nil || back.Str() != tt.s {
			t.Errorf("round trip of %d bytes: %v", len(tt.s), err)
		}
	}
}
