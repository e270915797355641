package abi

import (
	"fmt"
	"slices"
)

// Layout is the canonical ABI layout of a value type: its elem_size and alignment, which place its
// values in linear memory, and flatten_type, the core value types it is passed as
// (CanonicalABI.md#element-size, #alignment and #flattening).
//
// It is kobako's one definition of that arithmetic. Every Type takes its layout from it, and so
// does the component decoder, which bounds each type's size and flattening while it decodes,
// before any Type exists; a component is therefore validated against the layout its values are
// lifted and lowered with.
//
// Layouts compose as the types they describe once despecialised (CanonicalABI.md#despecialization):
// Kind.Layout gives the layouts a kind fixes, FlagsLayout those of flags, RecordLayout those of
// records and tuples, and VariantLayout those of variants, enums, options and results. The zero
// Layout describes no type. A Layout is immutable and safe to copy and share.
type Layout struct {
	size, align uint32 // elem_size and alignment with 32-bit pointers
	// size64 and align64 are elem_size and alignment with 64-bit pointers (memory64), where
	// strings and lists take 16 bytes: the specification's bound on value size applies to them.
	size64  uint64
	align64 uint32
	// flatLen is the length of the flattening; flat holds it only when flatLen <= maxCachedFlat,
	// which covers every use in a call (at most MaxFlatParams values are ever passed flat). Large
	// types flatten to up to 2^28 core types; keeping those for every nesting level would let a
	// small component binary cost the host gigabytes. flat is never written once built, so
	// copies of a Layout share it.
	flatLen int
	flat    []CoreType
}

// maxCachedFlat bounds the flattenings kept in layouts.
const maxCachedFlat = 32

// maxFlatLen caps flatLen, so that summing the flattenings of many huge fields cannot overflow an
// int on 32-bit platforms. It changes no valid layout: one value takes at least a byte per core
// value, so a valid type flattens to at most MaxValueSize values.
const maxFlatLen = MaxValueSize + 1

// Size is elem_size with 32-bit pointers: the bytes a value takes in linear memory, and the
// stride of a list of them.
func (l Layout) Size() uint32 { return l.size }

// Align is alignment with 32-bit pointers: 1, 2, 4 or 8.
func (l Layout) Align() uint32 { return l.align }

// Size64 is elem_size with 64-bit pointers, where strings and lists take 16 bytes. The
// specification bounds it: a type whose Size64 exceeds MaxValueSize is invalid in any memory,
// and the Size and FlatLen of its layout are not meaningful.
func (l Layout) Size64() uint64 { return l.size64 }

// FlatLen is the number of core values the type flattens to.
func (l Layout) FlatLen() int { return l.flatLen }

// Flat returns a copy of the flattening (flatten_type), or nil when it is longer than 32 core
// types: a layout keeps only short flattenings, because no call passes more than MaxFlatParams
// values flat. (A Type's Flat method computes any flattening from the type itself.)
func (l Layout) Flat() []CoreType { return slices.Clone(l.flat) }

// The one-value flattenings, shared by every layout that has one (flat is never written).
var (
	flatI32 = []CoreType{CoreI32}
	flatI64 = []CoreType{CoreI64}
	flatF32 = []CoreType{CoreF32}
	flatF64 = []CoreType{CoreF64}
)

// scalar is the layout of a type of n bytes, n-aligned, that flattens to one core value.
func scalar(n uint32, flat []CoreType) Layout {
	return Layout{size: n, align: n, size64: uint64(n), align64: n, flatLen: 1, flat: flat}
}

// kindLayouts holds the layouts that a kind fixes; the others are zero.
var kindLayouts = [...]Layout{
	KindBool: scalar(1, flatI32), KindS8: scalar(1, flatI32), KindU8: scalar(1, flatI32),
	KindS16: scalar(2, flatI32), KindU16: scalar(2, flatI32),
	KindS32: scalar(4, flatI32), KindU32: scalar(4, flatI32), KindChar: scalar(4, flatI32),
	KindS64: scalar(8, flatI64), KindU64: scalar(8, flatI64),
	KindF32: scalar(4, flatF32), KindF64: scalar(8, flatF64),
	// A string or list is a pointer and a length.
	KindString: ptrLen, KindList: ptrLen,
	// A handle is an i32 index into the handle table.
	KindOwn: scalar(4, flatI32), KindBorrow: scalar(4, flatI32),
}

var ptrLen = Layout{size: 8, align: 4, size64: 16, align64: 8, flatLen: 2, flat: []CoreType{CoreI32, CoreI32}}

// flagsLayouts are the layouts of flags of up to 8, 16 and 32 labels.
var flagsLayouts = [...]Layout{scalar(1, flatI32), scalar(2, flatI32), scalar(4, flatI32)}

// Layout returns the layout of the types of kind k when the kind alone fixes it: bool, the
// integers, f32, f64, char, string, list (a pointer and a length, like string) and the handles own
// and borrow (an i32 index). It panics for the other kinds, whose layouts depend on their parts:
// RecordLayout computes those of record and tuple, VariantLayout those of variant, enum, option
// and result, and FlagsLayout those of flags.
func (k Kind) Layout() Layout {
	if int(k) >= len(kindLayouts) || kindLayouts[k].align == 0 {
		panic(fmt.Sprintf("abi: the layout of a %s type depends on more than its kind", k))
	}
	return kindLayouts[k]
}

// FlagsLayout returns the layout of flags with n labels, 1 <= n <= MaxFlags: the smallest of
// u8, u16 and u32 that holds a bit per label (elem_size_flags, alignment_flags, flatten_type).
// It panics for other n.
func FlagsLayout(n int) Layout {
	switch {
	case n < 1 || n > MaxFlags:
		panic(fmt.Sprintf("abi: flags with %d labels (want 1 to %d)", n, MaxFlags))
	case n <= 8:
		return flagsLayouts[0]
	case n <= 16:
		return flagsLayouts[1]
	}
	return flagsLayouts[2]
}

// RecordLayout returns the layout of a record (or tuple) whose fields, in order, have the given
// layouts: each field is aligned to its own alignment, the record to the largest, and the
// flattening is the fields' flattenings in order (elem_size_record, alignment_record,
// flatten_type). It panics with no fields, which the specification does not allow, or a zero
// Layout among them.
func RecordLayout(fields ...Layout) Layout {
	return recordLayout(len(fields), func(i int) Layout { return fields[i] }, nil)
}

// recordLayout is RecordLayout of n fields, field(i) giving the layout of field i. It stores
// the fields' offsets with 32-bit pointers in offsets when that is not nil.
func recordLayout(n int, field func(int) Layout, offsets []uint32) Layout {
	if n == 0 {
		panic("abi: a record with no fields")
	}
	flatLen := 0
	for i := range n {
		flatLen = min(flatLen+field(i).flatLen, maxFlatLen)
	}
	l := Layout{align: 1, align64: 1, flatLen: flatLen}
	if flatLen <= maxCachedFlat {
		l.flat = make([]CoreType, 0, flatLen)
	}
	var s, s64 uint64
	for i := range n {
		f := field(i)
		if f.align == 0 {
			panic("abi: the zero Layout as a record field")
		}
		s = alignTo(s, uint64(f.align))
		if offsets != nil {
			offsets[i] = uint32(s) // exact unless the record is too large, which its caller rejects
		}
		s += uint64(f.size)
		s64 = alignTo(s64, uint64(f.align64)) + f.size64
		l.align = max(l.align, f.align)
		l.align64 = max(l.align64, f.align64)
		if l.flat != nil {
			l.flat = append(l.flat, f.flat...)
		}
	}
	l.size = uint32(alignTo(s, uint64(l.align)))
	l.size64 = alignTo(s64, uint64(l.align64))
	return l
}

// VariantLayout returns the layout of a variant of the given number of cases, of which those
// that carry a payload have the given layouts, in any order: the discriminant (discriminant_type)
// is followed by room for the largest payload, aligned for the most aligned one, and the
// flattening is the discriminant's i32 followed by the payloads' flattenings joined position by
// position (elem_size_variant, alignment_variant, flatten_variant and join).
//
// An enum of n labels is VariantLayout(n), option<T> is VariantLayout(2, T) and result<T, E> is
// VariantLayout(2, T, E), leaving out an absent T or E. It panics when cases is less than one
// or than the number of payloads, or for a zero Layout among the payloads.
func VariantLayout(cases int, payloads ...Layout) Layout {
	if cases < len(payloads) {
		panic(fmt.Sprintf("abi: a variant of %d cases with %d payloads", cases, len(payloads)))
	}
	l, _ := variantLayout(cases, len(payloads), func(i int) (Layout, bool) { return payloads[i], true })
	return l
}

// variantLayout is VariantLayout for n cases or fewer, payload(i) giving the layout of case i's
// payload and whether it has one. It also returns the offset of the payload with 32-bit pointers.
func variantLayout(cases, n int, payload func(int) (Layout, bool)) (l Layout, payloadOff uint32) {
	if cases < 1 {
		panic(fmt.Sprintf("abi: a variant of %d cases", cases))
	}
	var maxSize, maxSize64 uint64
	var maxAlign, maxAlign64 uint32 = 1, 1
	maxFlat := 0
	for i := range n {
		p, ok := payload(i)
		if !ok {
			continue
		}
		if p.align == 0 {
			panic("abi: the zero Layout as a variant payload")
		}
		maxSize, maxSize64 = max(maxSize, uint64(p.size)), max(maxSize64, p.size64)
		maxAlign, maxAlign64 = max(maxAlign, p.align), max(maxAlign64, p.align64)
		maxFlat = max(maxFlat, p.flatLen)
	}
	disc := discriminantSize(cases)
	l = Layout{align: max(disc, maxAlign), align64: max(disc, maxAlign64), flatLen: min(1+maxFlat, maxFlatLen)}
	off := alignTo(uint64(disc), uint64(maxAlign))
	l.size = uint32(alignTo(off+maxSize, uint64(l.align)))
	l.size64 = alignTo(alignTo(uint64(disc), uint64(maxAlign64))+maxSize64, uint64(l.align64))
	switch {
	case maxFlat == 0:
		l.flat = flatI32
	case l.flatLen <= maxCachedFlat:
		l.flat = make([]CoreType, 1, l.flatLen)
		l.flat[0] = CoreI32
		for i := range n {
			if p, ok := payload(i); ok {
				l.flat = joinFlat(l.flat, p.flat)
			}
		}
	}
	return l, uint32(off)
}

// joinFlat joins a case's flattening into a variant's flattening, after its discriminant,
// growing it where the case is longer (flatten_variant).
func joinFlat(flat, case_ []CoreType) []CoreType {
	for i, ft := range case_ {
		if 1+i < len(flat) {
			flat[1+i] = join(flat[1+i], ft)
		} else {
			flat = append(flat, ft)
		}
	}
	return flat
}

// join is the flattening join of two core types (join in CanonicalABI.md#flattening): equal
// types stay, i32 and f32 share an i32, and anything else needs an i64.
func join(a, b CoreType) CoreType {
	if a == b {
		return a
	}
	if (a == CoreI32 && b == CoreF32) || (a == CoreF32 && b == CoreI32) {
		return CoreI32
	}
	return CoreI64
}

// discriminantSize is the byte size of discriminant_type: the smallest of u8, u16 and u32 that
// numbers n cases.
func discriminantSize(n int) uint32 {
	switch {
	case n <= 1<<8:
		return 1
	case n <= 1<<16:
		return 2
	}
	return 4
}

// alignTo rounds x up to a multiple of a, a power of two (align_to).
func alignTo(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }
