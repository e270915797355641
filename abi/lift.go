package abi

import (
	"encoding/binary"
	"fmt"
	"slices"
)

var le = binary.LittleEndian

// lifter reads values out of guest memory and core values (CanonicalABI.md#loading and
// #flat-lifting). Every number it reads is checked before use; it charges what it materialises
// against the call's MaxLiftBytes.
type lifter struct {
	cx     *CallContext
	budget uint64
}

func newLifter(cx *CallContext) *lifter {
	b := cx.MaxLiftBytes
	if b == 0 {
		b = DefaultMaxLiftBytes
	}
	return &lifter{cx: cx, budget: b}
}

func (l *lifter) charge(n uint64) error {
	if n > l.budget {
		return errorf(ErrLiftLimit, "%d more bytes would exceed MaxLiftBytes", n)
	}
	l.budget -= n
	return nil
}

// loadBits reads the little-endian scalar of size bytes (1, 2, 4 or 8) at the start of b.
func loadBits(b []byte, size uint32) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(le.Uint16(b))
	case 4:
		return uint64(le.Uint32(b))
	}
	return le.Uint64(b)
}

func readDisc(b []byte, size uint32) uint32 { return uint32(loadBits(b, size)) }

func liftChar(c uint32) (Value, error) {
	if c >= 0x110000 {
		return Value{}, errorf(ErrInvalidChar, "char %#x is above U+10FFFF", c)
	}
	if c >= 0xD800 && c <= 0xDFFF {
		return Value{}, errorf(ErrInvalidChar, "char %#x is a surrogate", c)
	}
	return Value{kind: KindChar, num: uint64(c)}, nil
}

func discErr(what string, c uint32, n int) error {
	return errorf(ErrDiscriminant, "%s discriminant %d out of range (%d cases)", what, c, n)
}

// load lifts a value of type t from b, which holds at least t.Size() bytes at a suitably aligned
// address. Out-of-line data (strings, lists) is read through l.cx.Memory.
func (l *lifter) load(t Type, b []byte) (Value, error) {
	switch t.Kind() {
	case KindBool:
		return BoolValue(b[0] != 0), nil
	case KindS8:
		return S8Value(int8(b[0])), nil
	case KindU8:
		return U8Value(b[0]), nil
	case KindS16:
		return S16Value(int16(le.Uint16(b))), nil
	case KindU16:
		return U16Value(le.Uint16(b)), nil
	case KindS32:
		return S32Value(int32(le.Uint32(b))), nil
	case KindU32:
		return U32Value(le.Uint32(b)), nil
	case KindS64:
		return S64Value(int64(le.Uint64(b))), nil
	case KindU64:
		return U64Value(le.Uint64(b)), nil
	case KindF32:
		return Value{kind: KindF32, num: uint64(canon32(le.Uint32(b)))}, nil
	case KindF64:
		return Value{kind: KindF64, num: canon64(le.Uint64(b))}, nil
	case KindChar:
		return liftChar(le.Uint32(b))
	case KindString:
		return l.liftString(le.Uint32(b), le.Uint32(b[4:]))
	case KindList:
		return l.liftList(t.(*ListType).elem, le.Uint32(b), le.Uint32(b[4:]))
	case KindRecord:
		r := t.(*RecordType)
		if err := l.charge(uint64(len(r.fields)) * liftNodeCost); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(r.fields))
		for i, f := range r.fields {
			v, err := l.load(f.Type, b[r.offsets[i]:])
			if err != nil {
				return Value{}, at(err, fieldStep(f.Name))
			}
			out[i] = v
		}
		return RecordValue(out...), nil
	case KindTuple:
		tt := t.(*TupleType)
		if err := l.charge(uint64(len(tt.elems)) * liftNodeCost); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(tt.elems))
		for i, e := range tt.elems {
			v, err := l.load(e, b[tt.offsets[i]:])
			if err != nil {
				return Value{}, at(err, tupleStep(i))
			}
			out[i] = v
		}
		return TupleValue(out...), nil
	case KindVariant, KindEnum, KindOption, KindResult:
		c := casesOf(t)
		d := readDisc(b, c.discSize)
		if uint64(d) >= uint64(c.numCases()) {
			return Value{}, discErr(t.Kind().String(), d, c.numCases())
		}
		p := c.payloads[d]
		if p == nil {
			return Value{kind: t.Kind(), num: uint64(d)}, nil
		}
		if err := l.charge(liftNodeCost); err != nil {
			return Value{}, err
		}
		v, err := l.load(p, b[c.payloadOff:])
		if err != nil {
			return Value{}, at(err, c.steps[d])
		}
		return payloadValue(t.Kind(), uint64(d), v), nil
	case KindFlags:
		f := t.(*FlagsType)
		// Bits beyond the declared labels are ignored, as unpack_flags_from_int does: only the
		// labels' bits are read.
		return FlagsValue(readDisc(b, f.layout.size) & flagsMask(len(f.labels))), nil
	case KindOwn:
		return l.liftOwn(t.(*HandleType), le.Uint32(b))
	case KindBorrow:
		return l.liftBorrow(t.(*HandleType), le.Uint32(b))
	}
	return Value{}, fmt.Errorf("BUG: lift of unknown kind %s", t.Kind())
}

func casesOf(t Type) *cases {
	switch x := t.(type) {
	case *VariantType:
		return &x.cases
	case *EnumType:
		return &x.cases
	case *OptionType:
		return &x.cases
	case *ResultType:
		return &x.cases
	}
	return nil
}

func (l *lifter) liftOwn(h *HandleType, idx uint32) (Value, error) {
	if l.cx.Handles == nil {
		return Value{}, errorf(ErrMissingOption, "handle table required for own<%s>", h.rt.name)
	}
	rep, err := l.cx.Handles.LiftOwn(h.rt, idx)
	if err != nil {
		return Value{}, fmt.Errorf("own<%s> handle %d: %w", h.rt.name, idx, err)
	}
	return OwnValue(rep), nil
}

func (l *lifter) liftBorrow(h *HandleType, idx uint32) (Value, error) {
	if l.cx.Handles == nil {
		return Value{}, errorf(ErrMissingOption, "handle table required for borrow<%s>", h.rt.name)
	}
	if l.cx.Scope == nil {
		return Value{}, errorf(ErrMissingOption, "borrow scope required for borrow<%s>", h.rt.name)
	}
	rep, err := l.cx.Handles.LiftBorrow(h.rt, idx, l.cx.Scope)
	if err != nil {
		return Value{}, fmt.Errorf("borrow<%s> handle %d: %w", h.rt.name, idx, err)
	}
	return BorrowValue(rep), nil
}

// liftList is load_list_from_range: the byte length, alignment and bounds are checked before
// any element is read.
func (l *lifter) liftList(elem Type, ptr, n uint32) (Value, error) {
	b, err := l.listBytes(elem, ptr, n)
	if err != nil {
		return Value{}, err
	}
	es := uint64(elem.Size())
	byteLen := uint64(len(b))
	if k := elem.Kind(); packedSize(k) != 0 {
		if err := l.charge(byteLen + liftNodeCost); err != nil {
			return Value{}, err
		}
		raw := slices.Clone(b)
		if raw == nil {
			raw = []byte{}
		}
		canonPacked(k, raw)
		return packedValue(k, raw), nil
	}
	if err := l.charge(uint64(n) * liftNodeCost); err != nil {
		return Value{}, err
	}
	out := make([]Value, n)
	for i := range out {
		v, err := l.load(elem, b[uint64(i)*es:])
		if err != nil {
			return Value{}, at(err, listStep(uint64(i)))
		}
		out[i] = v
	}
	return ListValue(out...), nil
}

// listBytes checks a list's byte length, alignment and bounds, as load_list_from_range does
// before reading any element, and returns the view of its elements.
func (l *lifter) listBytes(elem Type, ptr, n uint32) ([]byte, error) {
	mem, err := l.cx.memory()
	if err != nil {
		return nil, err
	}
	es := uint64(elem.Size())
	byteLen := uint64(n) * es // < 2^32 · 2^28: no uint64 overflow
	if byteLen > MaxListByteLength {
		return nil, errorf(ErrTooLong, "list of %d × %d-byte elements is %d bytes, above 2^28-1", n, es, byteLen)
	}
	if err := checkAlign(ptr, elem.Align(), "list"); err != nil {
		return nil, err
	}
	b, err := view(mem, ptr, byteLen)
	if err != nil {
		return nil, fmt.Errorf("list of %d elements: %w", n, err)
	}
	return b, nil
}

// canonPacked canonicalises the NaNs of a packed float list in place.
func canonPacked(k Kind, raw []byte) {
	switch k {
	case KindF32:
		for i := 0; i+4 <= len(raw); i += 4 {
			if x := le.Uint32(raw[i:]); x&0x7f800000 == 0x7f800000 {
				le.PutUint32(raw[i:], canon32(x))
			}
		}
	case KindF64:
		for i := 0; i+8 <= len(raw); i += 8 {
			if x := le.Uint64(raw[i:]); x&0x7ff0000000000000 == 0x7ff0000000000000 {
				le.PutUint64(raw[i:], canon64(x))
			}
		}
	}
}

// flatReader walks core values (CoreValueIter). i32 and f32 slots are read as their low 32 bits,
// which is also exactly the coercion lift_flat_variant applies when a variant's joined slot is
// wider than the case's own type.
type flatReader struct {
	vals []uint64
	i    int
}

func (r *flatReader) next32() uint32 {
	v := r.vals[r.i]
	r.i++
	return uint32(v)
}

func (r *flatReader) next64() uint64 {
	v := r.vals[r.i]
	r.i++
	return v
}

// liftFlat lifts a value of type t from core values. The caller has checked that r holds at least
// t.FlatLen() more values.
func (l *lifter) liftFlat(t Type, r *flatReader) (Value, error) {
	switch t.Kind() {
	case KindBool:
		return BoolValue(r.next32() != 0), nil
	case KindS8:
		return S8Value(int8(r.next32())), nil
	case KindU8:
		return U8Value(uint8(r.next32())), nil
	case KindS16:
		return S16Value(int16(r.next32())), nil
	case KindU16:
		return U16Value(uint16(r.next32())), nil
	case KindS32:
		return S32Value(int32(r.next32())), nil
	case KindU32:
		return U32Value(r.next32()), nil
	case KindS64:
		return S64Value(int64(r.next64())), nil
	case KindU64:
		return U64Value(r.next64()), nil
	case KindF32:
		return Value{kind: KindF32, num: uint64(canon32(r.next32()))}, nil
	case KindF64:
		return Value{kind: KindF64, num: canon64(r.next64())}, nil
	case KindChar:
		return liftChar(r.next32())
	case KindString:
		p, n := r.next32(), r.next32()
		return l.liftString(p, n)
	case KindList:
		p, n := r.next32(), r.next32()
		return l.liftList(t.(*ListType).elem, p, n)
	case KindRecord:
		rt := t.(*RecordType)
		if err := l.charge(uint64(len(rt.fields)) * liftNodeCost); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(rt.fields))
		for i, f := range rt.fields {
			v, err := l.liftFlat(f.Type, r)
			if err != nil {
				return Value{}, at(err, fieldStep(f.Name))
			}
			out[i] = v
		}
		return RecordValue(out...), nil
	case KindTuple:
		tt := t.(*TupleType)
		if err := l.charge(uint64(len(tt.elems)) * liftNodeCost); err != nil {
			return Value{}, err
		}
		out := make([]Value, len(tt.elems))
		for i, e := range tt.elems {
			v, err := l.liftFlat(e, r)
			if err != nil {
				return Value{}, at(err, tupleStep(i))
			}
			out[i] = v
		}
		return TupleValue(out...), nil
	case KindVariant, KindEnum, KindOption, KindResult:
		c := casesOf(t)
		d := r.next32()
		if uint64(d) >= uint64(c.numCases()) {
			return Value{}, discErr(t.Kind().String(), d, c.numCases())
		}
		start := r.i
		// Every case consumes the same joined slots, whatever its payload uses.
		end := start + t.base().layout.flatLen - 1
		p := c.payloads[d]
		if p == nil {
			r.i = end
			return Value{kind: t.Kind(), num: uint64(d)}, nil
		}
		if err := l.charge(liftNodeCost); err != nil {
			return Value{}, err
		}
		v, err := l.liftFlat(p, r)
		r.i = end
		if err != nil {
			return Value{}, at(err, c.steps[d])
		}
		return payloadValue(t.Kind(), uint64(d), v), nil
	case KindFlags:
		return FlagsValue(r.next32() & flagsMask(len(t.(*FlagsType).labels))), nil
	case KindOwn:
		return l.liftOwn(t.(*HandleType), r.next32())
	case KindBorrow:
		return l.liftBorrow(t.(*HandleType), r.next32())
	}
	return Value{}, fmt.Errorf("BUG: flat lift of unknown kind %s", t.Kind())
}
