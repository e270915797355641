package abi

import (
	"math"
	"reflect"
	"unsafe"
)

// A leaf plan serves the commonest list element of typed calls: a record or tuple whose fields are
// all scalars or strings, such as {id: u32, name: string, score: f64}. Moving such a list with the
// general codecs costs, per element, a reflect.Value for the element and for each field and one
// closure call per field; the plan walks the Go slice's backing array instead, reading and writing
// each field at its Go offset with a switch on the field's kind.
//
// Why unsafe is sound here (abi uses unsafe only for leaf plans, here and in listDirect):
//   - The Go type of every field is checked when the plan is made: a leaf of WIT kind k has exactly
//     the reflect.Kind the typed mapping requires for k (leafGoKind), so its memory is that of the
//     predeclared type of the same kind (a named type has its underlying type's layout). The plan
//     reads and writes fields only through pointers of those predeclared types.
//   - Addresses come from reflect: the slice's first element (reflect.Value.UnsafePointer of a
//     slice), the element size (reflect.Type.Size) and each field's offset (StructField.Offset),
//     and the index is below the slice's length, so every address lies inside the backing array,
//     which the base pointer keeps alive.
//   - Stores go through typed pointers (*string, *uint32, ...), so the compiler emits the write
//     barriers a string field needs.
//   - Guest numbers never reach an address computation on the Go side: they index guest memory
//     only, through the same checked helpers as the general path (listBytes, liftStr,
//     lowerString, storer.put).
//
// The plan keeps the general path's order of realloc calls, memory writes, lift budget charges
// and checks, and its errors (with the same paths), so the two agree byte for byte;
// TestTypedDirectAgrees and FuzzTypedDirect (which draw such lists one time in four, against a
// realloc that overwrites earlier allocations) hold them to that; TestLeafPlanChoice checks which
// element types get a plan.
type leafPlan struct {
	fields []leafField
	// nodes is what lifting one element charges to the lift budget before its fields, as
	// structDirect's load does.
	nodes uint64
	step  func(int) string
}

type leafField struct {
	k     Kind
	size  uint32  // the field's size in guest memory
	off   uint32  // its offset in the record's canonical layout
	goOff uintptr // its offset in the Go struct
}

// leafGoKind is the Go kind that the typed mapping requires for a leaf of kind k.
func leafGoKind(k Kind) (reflect.Kind, bool) {
	switch k {
	case KindBool:
		return reflect.Bool, true
	case KindChar:
		return reflect.Int32, true
	case KindString:
		return reflect.String, true
	}
	gk, ok := intKinds[k]
	return gk, ok
}

// newLeafPlan returns the plan for the record or tuple t mapped to the Go struct gt with field i
// of t in Go field goIdx[i], or nil when some field is not a leaf.
func newLeafPlan(gt reflect.Type, t Type, offsets []uint32, goIdx []int, step func(int) string) *leafPlan {
	if gt.Kind() != reflect.Struct {
		return nil
	}
	p := &leafPlan{fields: make([]leafField, len(goIdx)), nodes: uint64(len(goIdx)) * liftNodeCost, step: step}
	for i, gi := range goIdx {
		ft := memberType(t, i)
		k := ft.Kind()
		gk, ok := leafGoKind(k)
		sf := gt.Field(gi)
		if !ok || sf.Type.Kind() != gk || sf.Type == valueGoType || sf.Type.Implements(handleMarkerT) {
			return nil
		}
		p.fields[i] = leafField{k: k, size: ft.Size(), off: offsets[i], goOff: sf.Offset}
	}
	return p
}

// leafBits returns the bits lowering writes for the scalar of kind k at p: scalarBits without the
// reflect.Value.
func leafBits(k Kind, p unsafe.Pointer) (uint64, error) {
	switch k {
	case KindBool:
		if *(*bool)(p) {
			return 1, nil
		}
		return 0, nil
	case KindS8:
		return uint64(int64(*(*int8)(p))), nil
	case KindS16:
		return uint64(int64(*(*int16)(p))), nil
	case KindS32:
		return uint64(int64(*(*int32)(p))), nil
	case KindS64:
		return uint64(*(*int64)(p)), nil
	case KindU8:
		return uint64(*(*uint8)(p)), nil
	case KindU16:
		return uint64(*(*uint16)(p)), nil
	case KindU32:
		return uint64(*(*uint32)(p)), nil
	case KindU64:
		return *(*uint64)(p), nil
	case KindF32:
		return uint64(canon32(math.Float32bits(*(*float32)(p)))), nil
	case KindF64:
		return canon64(math.Float64bits(*(*float64)(p))), nil
	}
	c, err := lowerChar(CharValue(*(*int32)(p)))
	return uint64(c), err
}

// setLeaf stores the lifted bits x of kind k into the scalar at p: setScalar without the
// reflect.Value.
func setLeaf(k Kind, p unsafe.Pointer, x uint64) error {
	switch k {
	case KindBool:
		*(*bool)(p) = x != 0
	case KindS8, KindU8:
		*(*uint8)(p) = uint8(x)
	case KindS16, KindU16:
		*(*uint16)(p) = uint16(x)
	case KindS32, KindU32:
		*(*uint32)(p) = uint32(x)
	case KindS64, KindU64:
		*(*uint64)(p) = x
	case KindF32:
		*(*uint32)(p) = canon32(uint32(x))
	case KindF64:
		*(*uint64)(p) = canon64(x)
	case KindChar:
		v, err := liftChar(uint32(x))
		if err != nil {
			return err
		}
		*(*int32)(p) = int32(uint32(v.num))
	}
	return nil
}

// store writes the Go struct at e into guest memory at ptr, or into b when b is not nil (as
// structDirect's store does, field by field in order, so reallocs and writes interleave as the
// specification's store orders them).
func (lp *leafPlan) store(s *storer, e unsafe.Pointer, b []byte, ptr uint32) error {
	for i := range lp.fields {
		f := &lp.fields[i]
		fp := unsafe.Add(e, f.goOff)
		var x uint64
		if f.k == KindString {
			p, n, err := s.lowerString(*(*string)(fp))
			if err != nil {
				return at(err, lp.step(i))
			}
			x = uint64(p) | uint64(n)<<32
		} else {
			var err error
			if x, err = leafBits(f.k, fp); err != nil {
				return at(err, lp.step(i))
			}
		}
		if err := s.put(sub(b, f.off), ptr+f.off, f.size, x); err != nil {
			return at(err, lp.step(i))
		}
	}
	return nil
}

// load reads the Go struct at e from b, as structDirect's load does.
func (lp *leafPlan) load(l *lifter, b []byte, e unsafe.Pointer) error {
	if err := l.charge(lp.nodes); err != nil {
		return err
	}
	for i := range lp.fields {
		f := &lp.fields[i]
		fp := unsafe.Add(e, f.goOff)
		x := loadBits(b[f.off:], f.size)
		if f.k == KindString {
			str, err := l.liftStr(uint32(x), uint32(x>>32))
			if err != nil {
				return at(err, lp.step(i))
			}
			*(*string)(fp) = str
			continue
		}
		if err := setLeaf(f.k, fp, x); err != nil {
			return at(err, lp.step(i))
		}
	}
	return nil
}
