package abi

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Value is a dynamically typed component model value. The zero Value has KindInvalid and stands
// for "no payload" in variants, options and results.
//
// Values do not carry their Type: the same Value lowers as any type of its kind and shape, and
// lifting produces Values of the kinds the Type says. Construct them with the XxxValue functions;
// read them with the accessors, which panic (like reflect.Value's) when called on a Value of
// another kind — a programming error, never a consequence of guest input, because lifting always
// produces the kinds its type dictates.
//
// Lists of fixed-size numbers (u8…u64, s8…s64, f32, f64) are kept packed as their little-endian
// canonical ABI bytes, so list<u8> lifts and lowers as one copy; Elems and Index decode them.
// Value is a small struct (48 bytes), cheap to copy; compound Values share their element slices, so treat
// them as immutable.
type Value struct {
	kind Kind
	num  uint64
	// str holds a string's text: kept out of ref so that strings are not boxed (an allocation
	// per string when lifting lists of records).
	str string
	// ref holds []Value (list, record, tuple), *packed (numeric list) or *Value (variant, option,
	// result payload).
	ref any
}

// packed is a list of fixed-size numbers in canonical little-endian layout.
type packed struct {
	elem Kind
	raw  []byte
}

// Kind returns the value's kind; KindInvalid for the zero Value.
func (v Value) Kind() Kind { return v.kind }

// IsValid reports whether v is not the zero Value.
func (v Value) IsValid() bool { return v.kind != KindInvalid }

// Constructors.

// BoolValue returns a bool.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: KindBool, num: 1}
	}
	return Value{kind: KindBool}
}

// S8Value returns an s8.
func S8Value(x int8) Value { return Value{kind: KindS8, num: uint64(int64(x))} }

// U8Value returns a u8.
func U8Value(x uint8) Value { return Value{kind: KindU8, num: uint64(x)} }

// S16Value returns an s16.
func S16Value(x int16) Value { return Value{kind: KindS16, num: uint64(int64(x))} }

// U16Value returns a u16.
func U16Value(x uint16) Value { return Value{kind: KindU16, num: uint64(x)} }

// S32Value returns an s32.
func S32Value(x int32) Value { return Value{kind: KindS32, num: uint64(int64(x))} }

// U32Value returns a u32.
func U32Value(x uint32) Value { return Value{kind: KindU32, num: uint64(x)} }

// S64Value returns an s64.
func S64Value(x int64) Value { return Value{kind: KindS64, num: uint64(x)} }

// U64Value returns a u64.
func U64Value(x uint64) Value { return Value{kind: KindU64, num: x} }

// F32Value returns an f32. The bits are kept as given; lowering and lifting canonicalise NaNs.
func F32Value(x float32) Value { return Value{kind: KindF32, num: uint64(math.Float32bits(x))} }

// F64Value returns an f64. The bits are kept as given; lowering and lifting canonicalise NaNs.
func F64Value(x float64) Value { return Value{kind: KindF64, num: math.Float64bits(x)} }

// CharValue returns a char. Lowering rejects surrogates and values above U+10FFFF.
func CharValue(r rune) Value { return Value{kind: KindChar, num: uint64(uint32(r))} }

// StringValue returns a string. Lowering rejects strings that are not valid UTF-8.
func StringValue(s string) Value { return Value{kind: KindString, str: s} }

// ListValue returns a list of the given elements (which it keeps, not copies).
func ListValue(elems ...Value) Value { return Value{kind: KindList, ref: elems} }

// BytesValue returns a list<u8> holding b (kept, not copied).
func BytesValue(b []byte) Value { return Value{kind: KindList, ref: &packed{elem: KindU8, raw: b}} }

// RecordValue returns a record with the given field values in declaration order.
func RecordValue(fields ...Value) Value { return Value{kind: KindRecord, ref: fields} }

// TupleValue returns a tuple.
func TupleValue(elems ...Value) Value { return Value{kind: KindTuple, ref: elems} }

// VariantValue returns case number c of a variant, with payload p (the zero Value for none).
func VariantValue(c uint32, p Value) Value { return payloadValue(KindVariant, uint64(c), p) }

// EnumValue returns case number c of an enum.
func EnumValue(c uint32) Value { return Value{kind: KindEnum, num: uint64(c)} }

// SomeValue returns option some(p).
func SomeValue(p Value) Value { return payloadValue(KindOption, 1, p) }

// NoneValue returns option none.
func NoneValue() Value { return Value{kind: KindOption} }

// OkValue returns result ok(p); pass the zero Value for a result without ok payload.
func OkValue(p Value) Value { return payloadValue(KindResult, 0, p) }

// ErrValue returns result error(p); pass the zero Value for a result without error payload.
func ErrValue(p Value) Value { return payloadValue(KindResult, 1, p) }

// FlagsValue returns a flags value: bit i set means label i is present.
func FlagsValue(bits uint32) Value { return Value{kind: KindFlags, num: uint64(bits)} }

// OwnValue returns an owned resource, identified by its representation (CanonicalABI.md: the
// lifted value of a handle is the resource's rep).
func OwnValue(rep uint32) Value { return Value{kind: KindOwn, num: uint64(rep)} }

// BorrowValue returns a borrowed resource, identified by its representation.
func BorrowValue(rep uint32) Value { return Value{kind: KindBorrow, num: uint64(rep)} }

func payloadValue(k Kind, c uint64, p Value) Value {
	if p.kind == KindInvalid {
		return Value{kind: k, num: c}
	}
	return Value{kind: k, num: c, ref: &p}
}

// packedValue wraps canonical little-endian bytes of a numeric list.
func packedValue(elem Kind, raw []byte) Value {
	return Value{kind: KindList, ref: &packed{elem: elem, raw: raw}}
}

// Accessors.

func (v Value) must(k Kind, what string) {
	if v.kind != k {
		panic(fmt.Sprintf("abi: Value.%s called on %s value", what, v.kind))
	}
}

// Bool returns the value of a bool.
func (v Value) Bool() bool { v.must(KindBool, "Bool"); return v.num != 0 }

// Int returns the value of an s8, s16, s32 or s64.
func (v Value) Int() int64 {
	switch v.kind {
	case KindS8, KindS16, KindS32, KindS64:
		return int64(v.num)
	}
	panic(fmt.Sprintf("abi: Value.Int called on %s value", v.kind))
}

// Uint returns the value of a u8, u16, u32 or u64.
func (v Value) Uint() uint64 {
	switch v.kind {
	case KindU8, KindU16, KindU32, KindU64:
		return v.num
	}
	panic(fmt.Sprintf("abi: Value.Uint called on %s value", v.kind))
}

// Float returns the value of an f32 or f64.
func (v Value) Float() float64 {
	switch v.kind {
	case KindF32:
		return float64(math.Float32frombits(uint32(v.num)))
	case KindF64:
		return math.Float64frombits(v.num)
	}
	panic(fmt.Sprintf("abi: Value.Float called on %s value", v.kind))
}

// Char returns the value of a char.
func (v Value) Char() rune { v.must(KindChar, "Char"); return rune(uint32(v.num)) }

// Str returns the value of a string. (String renders any Value for printing.)
func (v Value) Str() string { v.must(KindString, "Str"); return v.str }

// Len returns the number of elements of a list, record or tuple.
func (v Value) Len() int {
	switch v.kind {
	case KindList, KindRecord, KindTuple:
		switch r := v.ref.(type) {
		case []Value:
			return len(r)
		case *packed:
			return len(r.raw) / int(packedSize(r.elem))
		}
		return 0
	}
	panic(fmt.Sprintf("abi: Value.Len called on %s value", v.kind))
}

// Index returns element i of a list, record or tuple.
func (v Value) Index(i int) Value {
	switch v.kind {
	case KindList, KindRecord, KindTuple:
		switch r := v.ref.(type) {
		case []Value:
			return r[i]
		case *packed:
			sz := int(packedSize(r.elem))
			return decodePacked(r.elem, r.raw[i*sz:(i+1)*sz])
		}
		panic(fmt.Sprintf("abi: Value.Index %d out of range 0", i))
	}
	panic(fmt.Sprintf("abi: Value.Index called on %s value", v.kind))
}

// Elems returns the elements of a list, record or tuple. For a packed numeric list it decodes a
// new slice; otherwise it returns the Value's own slice.
func (v Value) Elems() []Value {
	switch v.kind {
	case KindList, KindRecord, KindTuple:
		switch r := v.ref.(type) {
		case []Value:
			return r
		case *packed:
			n := v.Len()
			out := make([]Value, n)
			for i := range out {
				out[i] = v.Index(i)
			}
			return out
		}
		return nil
	}
	panic(fmt.Sprintf("abi: Value.Elems called on %s value", v.kind))
}

// Bytes returns the contents of a list<u8> (sharing memory with the Value) and true, or nil and
// false when v is a list stored element by element. It panics on non-lists.
func (v Value) Bytes() ([]byte, bool) {
	v.must(KindList, "Bytes")
	if p, ok := v.ref.(*packed); ok && p.elem == KindU8 {
		return p.raw, true
	}
	return nil, false
}

// Case returns the case number of a variant or enum, 1 for option some / 0 for none, and 0 for
// result ok / 1 for result error.
func (v Value) Case() uint32 {
	switch v.kind {
	case KindVariant, KindEnum, KindOption, KindResult:
		return uint32(v.num)
	}
	panic(fmt.Sprintf("abi: Value.Case called on %s value", v.kind))
}

// Payload returns the payload of a variant, option or result, or the zero Value when the case has
// none.
func (v Value) Payload() Value {
	switch v.kind {
	case KindVariant, KindOption, KindResult:
		if p, ok := v.ref.(*Value); ok {
			return *p
		}
		return Value{}
	}
	panic(fmt.Sprintf("abi: Value.Payload called on %s value", v.kind))
}

// IsSome reports whether an option is some.
func (v Value) IsSome() bool { v.must(KindOption, "IsSome"); return v.num == 1 }

// IsErr reports whether a result is an error.
func (v Value) IsErr() bool { v.must(KindResult, "IsErr"); return v.num == 1 }

// FlagBits returns the bits of a flags value.
func (v Value) FlagBits() uint32 { v.must(KindFlags, "FlagBits"); return uint32(v.num) }

// Rep returns the resource representation of an own or borrow.
func (v Value) Rep() uint32 {
	if v.kind != KindOwn && v.kind != KindBorrow {
		panic(fmt.Sprintf("abi: Value.Rep called on %s value", v.kind))
	}
	return uint32(v.num)
}

// packedSize is the element size of a numeric kind, 0 for other kinds.
func packedSize(k Kind) uint32 {
	switch k {
	case KindS8, KindU8:
		return 1
	case KindS16, KindU16:
		return 2
	case KindS32, KindU32, KindF32:
		return 4
	case KindS64, KindU64, KindF64:
		return 8
	}
	return 0
}

func decodePacked(k Kind, b []byte) Value {
	switch k {
	case KindU8:
		return U8Value(b[0])
	case KindS8:
		return S8Value(int8(b[0]))
	case KindU16:
		return U16Value(binary.LittleEndian.Uint16(b))
	case KindS16:
		return S16Value(int16(binary.LittleEndian.Uint16(b)))
	case KindU32:
		return U32Value(binary.LittleEndian.Uint32(b))
	case KindS32:
		return S32Value(int32(binary.LittleEndian.Uint32(b)))
	case KindF32:
		return Value{kind: KindF32, num: uint64(binary.LittleEndian.Uint32(b))}
	case KindU64:
		return U64Value(binary.LittleEndian.Uint64(b))
	case KindS64:
		return S64Value(int64(binary.LittleEndian.Uint64(b)))
	case KindF64:
		return Value{kind: KindF64, num: binary.LittleEndian.Uint64(b)}
	}
	return Value{}
}

// Canonical NaNs (CANONICAL_FLOAT32_NAN, CANONICAL_FLOAT64_NAN).
const (
	canonicalNaN32 = 0x7fc00000
	canonicalNaN64 = 0x7ff8000000000000
)

// canon32 canonicalises an f32 bit pattern: every NaN becomes the one canonical NaN.
func canon32(bits uint32) uint32 {
	if bits&0x7f800000 == 0x7f800000 && bits&0x007fffff != 0 {
		return canonicalNaN32
	}
	return bits
}

// canon64 canonicalises an f64 bit pattern.
func canon64(bits uint64) uint64 {
	if bits&0x7ff0000000000000 == 0x7ff0000000000000 && bits&0x000fffffffffffff != 0 {
		return canonicalNaN64
	}
	return bits
}

// Equal reports whether a and b are the same value: same kind and shape, with floats compared by
// bit pattern except that all NaNs are equal (the component model has a single NaN). A packed
// list equals an element-by-element list with the same elements.
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindF32:
		return canon32(uint32(a.num)) == canon32(uint32(b.num))
	case KindF64:
		return canon64(a.num) == canon64(b.num)
	case KindString:
		return a.Str() == b.Str()
	case KindList, KindRecord, KindTuple:
		pa, aok := a.ref.(*packed)
		pb, bok := b.ref.(*packed)
		if aok && bok && pa.elem == pb.elem && pa.elem != KindF32 && pa.elem != KindF64 {
			return string(pa.raw) == string(pb.raw)
		}
		n := a.Len()
		if n != b.Len() {
			return false
		}
		for i := 0; i < n; i++ {
			if !Equal(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case KindVariant, KindOption, KindResult:
		return a.num == b.num && Equal(a.Payload(), b.Payload())
	}
	return a.num == b.num
}
