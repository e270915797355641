package abi

import (
	"fmt"
	"math"
)

// storer lowers host values into guest memory and core values (CanonicalABI.md#storing and
// #flat-lowering). Host values are checked against their type as they are lowered.
type storer struct {
	cx *CallContext
}

func mismatch(t Type, v Value) error {
	return errorf(ErrTypeMismatch, "expected `%s`, found `%s`", t.Kind(), v.Kind())
}

func lowerChar(v Value) (uint32, error) {
	c := v.num
	if c >= 0x110000 || (c >= 0xD800 && c <= 0xDFFF) {
		return 0, errorf(ErrInvalidChar, "char %#x is not a Unicode scalar value", c)
	}
	return uint32(c), nil
}

// put writes the n-byte little-endian integer x (n is 1, 2, 4 or 8) into b, or, when b is nil,
// straight into guest memory at ptr. Storing writes only the bytes the specification's store
// writes: padding and the unused bytes of a variant's payload keep what the guest had there.
func (s *storer) put(b []byte, ptr uint32, n uint32, x uint64) error {
	if b == nil {
		return s.direct(ptr, n, x)
	}
	switch n {
	case 1:
		b[0] = byte(x)
	case 2:
		le.PutUint16(b, uint16(x))
	case 4:
		le.PutUint32(b, uint32(x))
	default:
		le.PutUint64(b, x)
	}
	return nil
}

// direct writes the n low bytes of x, little-endian, into guest memory at ptr. It serves values
// whose lowering calls realloc (strings, lists, and what contains them): realloc may grow, and so
// move, memory, which would strand a view taken before it, and the spec writes each scalar when
// it reaches it, after the reallocs of the values before it.
func (s *storer) direct(ptr uint32, n uint32, x uint64) error {
	buf := s.cx.scratch[:]
	le.PutUint64(buf, x)
	if !s.cx.Memory.Write(ptr, buf[:n]) {
		return errorf(ErrOutOfBounds, "write [%#x, +%d) beyond memory size %d", ptr, n, s.cx.Memory.Size())
	}
	return nil
}

// sub returns b from off on, or nil (guest memory, written directly) when b is nil.
func sub(b []byte, off uint32) []byte {
	if b == nil {
		return nil
	}
	return b[off:]
}

// elems returns the element slice of a record or tuple value of the expected length.
func structElems(t Type, v Value, n int) ([]Value, error) {
	if v.kind != t.Kind() {
		return nil, mismatch(t, v)
	}
	es, _ := v.ref.([]Value)
	if len(es) != n {
		return nil, errorf(ErrTypeMismatch, "expected %d %s elements, found %d", n, t.Kind(), len(es))
	}
	return es, nil
}

// caseOf checks a variant-like value against its type and returns the case number and payload.
func caseOf(t Type, c *cases, v Value) (uint32, Value, error) {
	if v.kind != t.Kind() {
		return 0, Value{}, mismatch(t, v)
	}
	if v.num >= uint64(c.numCases()) {
		return 0, Value{}, errorf(ErrDiscriminant, "%s case %d out of range (%d cases)", t.Kind(), v.num, c.numCases())
	}
	d := uint32(v.num)
	var p Value
	if pp, ok := v.ref.(*Value); ok {
		p = *pp
	}
	switch {
	case c.payloads[d] == nil && p.kind != KindInvalid:
		return 0, Value{}, errorf(ErrTypeMismatch, "%s case %d has no payload, found `%s`", t.Kind(), d, p.kind)
	case c.payloads[d] != nil && p.kind == KindInvalid:
		return 0, Value{}, errorf(ErrTypeMismatch, "%s case %d needs a `%s` payload", t.Kind(), d, c.payloads[d].Kind())
	}
	return d, p, nil
}

// store lowers v as type t at ptr: into b, a view of guest memory or a host buffer with at least
// t.Size() bytes, or, when b is nil, straight into guest memory. A value that contains strings or
// lists must be stored with b nil: lowering them calls realloc, which may move memory.
func (s *storer) store(t Type, v Value, b []byte, ptr uint32) error {
	if v.kind != t.Kind() {
		return mismatch(t, v)
	}
	var n uint32 // the scalar to write below: n bytes of x
	var x uint64
	switch t.Kind() {
	case KindBool:
		n = 1
		if v.num != 0 {
			x = 1
		}
	case KindS8, KindU8:
		n, x = 1, v.num
	case KindS16, KindU16:
		n, x = 2, v.num
	case KindS32, KindU32:
		n, x = 4, v.num
	case KindS64, KindU64:
		n, x = 8, v.num
	case KindF32:
		n, x = 4, uint64(canon32(uint32(v.num)))
	case KindF64:
		n, x = 8, canon64(v.num)
	case KindChar:
		c, err := lowerChar(v)
		if err != nil {
			return err
		}
		n, x = 4, uint64(c)
	case KindString:
		p, l, err := s.lowerString(v.str)
		if err != nil {
			return err
		}
		if err := s.put(b, ptr, 4, uint64(p)); err != nil {
			return err
		}
		n, x = 4, uint64(l)
		b, ptr = sub(b, 4), ptr+4
	case KindList:
		p, l, err := s.lowerList(t.(*ListType), v)
		if err != nil {
			return err
		}
		if err := s.put(b, ptr, 4, uint64(p)); err != nil {
			return err
		}
		n, x = 4, uint64(l)
		b, ptr = sub(b, 4), ptr+4
	case KindRecord:
		r := t.(*RecordType)
		es, err := structElems(t, v, len(r.fields))
		if err != nil {
			return err
		}
		for i, f := range r.fields {
			if err := s.store(f.Type, es[i], sub(b, r.offsets[i]), ptr+r.offsets[i]); err != nil {
				return at(err, fieldStep(f.Name))
			}
		}
		return nil
	case KindTuple:
		tt := t.(*TupleType)
		es, err := structElems(t, v, len(tt.elems))
		if err != nil {
			return err
		}
		for i, e := range tt.elems {
			if err := s.store(e, es[i], sub(b, tt.offsets[i]), ptr+tt.offsets[i]); err != nil {
				return at(err, tupleStep(i))
			}
		}
		return nil
	case KindVariant, KindEnum, KindOption, KindResult:
		c := casesOf(t)
		d, p, err := caseOf(t, c, v)
		if err != nil {
			return err
		}
		if err := s.put(b, ptr, c.discSize, uint64(d)); err != nil {
			return err
		}
		if pt := c.payloads[d]; pt != nil {
			if err := s.store(pt, p, sub(b, c.payloadOff), ptr+c.payloadOff); err != nil {
				return at(err, c.steps[d])
			}
		}
		return nil
	case KindFlags:
		f := t.(*FlagsType)
		bits, err := flagBits(f, v)
		if err != nil {
			return err
		}
		n, x = f.layout.size, uint64(bits)
	case KindOwn, KindBorrow:
		h, err := s.lowerHandle(t.(*HandleType), v)
		if err != nil {
			return err
		}
		n, x = 4, uint64(h)
	default:
		return fmt.Errorf("BUG: store of unknown kind %s", t.Kind())
	}
	return s.put(b, ptr, n, x)
}

func flagBits(f *FlagsType, v Value) (uint32, error) {
	if v.num > math.MaxUint32 || uint32(v.num)&^flagsMask(len(f.labels)) != 0 {
		return 0, errorf(ErrFlags, "bits %#x set beyond the %d declared flags", v.num, len(f.labels))
	}
	return uint32(v.num), nil
}

func (s *storer) lowerHandle(h *HandleType, v Value) (uint32, error) {
	if s.cx.Handles == nil {
		return 0, errorf(ErrMissingOption, "handle table required for %s", h)
	}
	rep := uint32(v.num)
	if h.kind == KindOwn {
		idx, err := s.cx.Handles.LowerOwn(h.rt, rep)
		if err != nil {
			return 0, fmt.Errorf("%s rep %d: %w", h, rep, err)
		}
		return idx, nil
	}
	if s.cx.Scope == nil {
		return 0, errorf(ErrMissingOption, "borrow scope required for %s", h)
	}
	idx, err := s.cx.Handles.LowerBorrow(h.rt, rep, s.cx.Scope)
	if err != nil {
		return 0, fmt.Errorf("%s rep %d: %w", h, rep, err)
	}
	return idx, nil
}

// lowerList is store_list_into_range: it checks the byte length, allocates once, and writes the
// elements. Packed numeric lists are written with a single copy.
func (s *storer) lowerList(lt *ListType, v Value) (ptr, n uint32, err error) {
	mem, err := s.cx.memory()
	if err != nil {
		return 0, 0, err
	}
	elem := lt.elem
	es := uint64(elem.Size())
	if pk, ok := v.ref.(*packed); ok {
		if pk.elem != elem.Kind() {
			return 0, 0, errorf(ErrTypeMismatch, "expected `list<%s>`, found `list<%s>`", elem.Kind(), pk.elem)
		}
		p, dst, err := s.allocPacked(mem, elem, uint64(len(pk.raw)))
		if err != nil {
			return 0, 0, err
		}
		copy(dst, pk.raw)
		canonPacked(pk.elem, dst)
		return p, uint32(uint64(len(pk.raw)) / es), nil
	}
	es2, _ := v.ref.([]Value)
	p, dst, err := s.allocList(mem, elem, len(es2))
	if err != nil {
		return 0, 0, err
	}
	for i, e := range es2 {
		off := uint32(uint64(i) * es)
		if err := s.store(elem, e, sub(dst, off), p+off); err != nil {
			return 0, 0, at(err, listStep(uint64(i)))
		}
	}
	return p, uint32(len(es2)), nil
}

// allocPacked checks the byte length of a packed numeric list, allocates it with one realloc
// call and returns the view to copy its bytes into (no element calls realloc, so the view stays
// valid).
func (s *storer) allocPacked(mem Memory, elem Type, byteLen uint64) (uint32, []byte, error) {
	if byteLen > MaxListByteLength {
		return 0, nil, errorf(ErrTooLong, "list of %d bytes is above 2^28-1", byteLen)
	}
	p, err := s.cx.alloc(elem.Align(), uint32(byteLen))
	if err != nil {
		return 0, nil, err
	}
	dst, err := view(mem, p, byteLen)
	if err != nil {
		return 0, nil, err
	}
	return p, dst, nil
}

// allocList checks the byte length of a list of count elements, allocates it with one realloc
// call, and returns where to write the elements: a view of guest memory, or nil when elements
// call realloc themselves and so must be written straight into memory (memory may move). Either
// way only the bytes the spec writes change.
func (s *storer) allocList(mem Memory, elem Type, count int) (uint32, []byte, error) {
	es := uint64(elem.Size())
	byteLen := uint64(count) * es
	if uint64(count) > MaxListByteLength || byteLen > MaxListByteLength {
		return 0, nil, errorf(ErrTooLong, "list of %d × %d-byte elements is above 2^28-1 bytes", count, es)
	}
	p, err := s.cx.alloc(elem.Align(), uint32(byteLen))
	if err != nil {
		return 0, nil, err
	}
	if elem.base().hasPtr {
		return p, nil, nil
	}
	dst, err := view(mem, p, byteLen)
	return p, dst, err
}

// lowerFlat appends the core values of v as type t to out. i32 and f32 slots hold zero-extended
// 32-bit patterns, so a case's values already have the bits lower_flat_variant's coercions
// (f32→i32, i32→i64, f32→i64, f64→i64) would produce.
func (s *storer) lowerFlat(t Type, v Value, out []uint64) ([]uint64, error) {
	if v.kind != t.Kind() {
		return out, mismatch(t, v)
	}
	switch t.Kind() {
	case KindBool:
		if v.num != 0 {
			return append(out, 1), nil
		}
		return append(out, 0), nil
	case KindS8, KindS16, KindS32, KindU8, KindU16, KindU32:
		return append(out, uint64(uint32(v.num))&widthMask(t.Kind())), nil
	case KindS64, KindU64:
		return append(out, v.num), nil
	case KindF32:
		return append(out, uint64(canon32(uint32(v.num)))), nil
	case KindF64:
		return append(out, canon64(v.num)), nil
	case KindChar:
		c, err := lowerChar(v)
		if err != nil {
			return out, err
		}
		return append(out, uint64(c)), nil
	case KindString:
		str := v.str
		p, n, err := s.lowerString(str)
		if err != nil {
			return out, err
		}
		return append(out, uint64(p), uint64(n)), nil
	case KindList:
		p, n, err := s.lowerList(t.(*ListType), v)
		if err != nil {
			return out, err
		}
		return append(out, uint64(p), uint64(n)), nil
	case KindRecord:
		r := t.(*RecordType)
		es, err := structElems(t, v, len(r.fields))
		if err != nil {
			return out, err
		}
		for i, f := range r.fields {
			if out, err = s.lowerFlat(f.Type, es[i], out); err != nil {
				return out, at(err, fieldStep(f.Name))
			}
		}
		return out, nil
	case KindTuple:
		tt := t.(*TupleType)
		es, err := structElems(t, v, len(tt.elems))
		if err != nil {
			return out, err
		}
		for i, e := range tt.elems {
			if out, err = s.lowerFlat(e, es[i], out); err != nil {
				return out, at(err, tupleStep(i))
			}
		}
		return out, nil
	case KindVariant, KindEnum, KindOption, KindResult:
		c := casesOf(t)
		d, p, err := caseOf(t, c, v)
		if err != nil {
			return out, err
		}
		end := len(out) + t.base().layout.flatLen
		out = append(out, uint64(d))
		if pt := c.payloads[d]; pt != nil {
			if out, err = s.lowerFlat(pt, p, out); err != nil {
				return out, at(err, c.steps[d])
			}
		}
		for len(out) < end {
			out = append(out, 0)
		}
		return out, nil
	case KindFlags:
		bits, err := flagBits(t.(*FlagsType), v)
		if err != nil {
			return out, err
		}
		return append(out, uint64(bits)), nil
	case KindOwn, KindBorrow:
		h, err := s.lowerHandle(t.(*HandleType), v)
		if err != nil {
			return out, err
		}
		return append(out, uint64(h)), nil
	}
	return out, fmt.Errorf("BUG: flat lower of unknown kind %s", t.Kind())
}

// widthMask keeps a narrow integer's own bits in its i32 slot. Signed values are two's complement
// in 32 bits (lower_flat_signed), so -1 as s8 is 0xffffffff: only the unsigned kinds need a mask,
// and a well-formed unsigned Value never has high bits, so the mask is a safety net.
func widthMask(k Kind) uint64 {
	switch k {
	case KindU8:
		return 0xff
	case KindU16:
		return 0xffff
	}
	return 0xffffffff
}
