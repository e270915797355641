package abi

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// The typed path's direct conversions. Strings, lists, records and tuples go straight between Go
// values and guest memory or core values: a string is encoded into the memory realloc returns,
// a list of records is written element by element at the record's precomputed field offsets,
// and lifting builds the Go slice, struct and string without an intermediate Value. Every
// other type (scalars, which convert through a Value without allocating; variants, options,
// results, enums, flags and handles) converts through Value at its own node and then takes the
// dynamic path's store or load. Both paths share the checks they make on guest numbers
// (listBytes, liftStr, allocList, lowerString, the lifter's budget), so they accept and reject
// the same inputs with the same errors; FuzzTypedDirect and the property tests in
// typed_direct_test.go hold them to that.
//
// The four functions have the dynamic path's contracts: store writes into b, a view of at
// least the type's size, or straight into guest memory at ptr when b is nil (the value calls
// realloc, which may move memory); load reads from b, which holds the value; lower appends
// core values; lift consumes them from r, which holds enough. Each takes the WIT type it
// converts: codecs are cached by the type's structure, and a type with handles has resource
// types of its own in each instance, so the codec must not keep the first instance's.
type (
	storeFn func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error
	loadFn  func(l *lifter, t Type, b []byte, rv reflect.Value) error
	lowerFn func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error)
	liftFn  func(l *lifter, t Type, r *flatReader, rv reflect.Value) error
)

// viaValue gives c the direct functions it lacks, converting through Value.
func viaValue(c *goCodec) {
	if c.store == nil {
		c.store = func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error {
			v, err := c.enc(rv)
			if err != nil {
				return err
			}
			return s.store(t, v, b, ptr)
		}
	}
	if c.load == nil {
		c.load = func(l *lifter, t Type, b []byte, rv reflect.Value) error {
			v, err := l.load(t, b)
			if err != nil {
				return err
			}
			return c.dec(v, rv)
		}
	}
	if c.lower == nil {
		c.lower = func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error) {
			v, err := c.enc(rv)
			if err != nil {
				return out, err
			}
			return s.lowerFlat(t, v, out)
		}
	}
	if c.lift == nil {
		c.lift = func(l *lifter, t Type, r *flatReader, rv reflect.Value) error {
			v, err := l.liftFlat(t, r)
			if err != nil {
				return err
			}
			return c.dec(v, rv)
		}
	}
}

// stringDirect lowers a Go string with one realloc and one copy (or transcoding), and lifts
// one with one validation and one copy.
func stringDirect(c *goCodec) {
	c.store = func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error {
		p, n, err := s.lowerString(rv.String())
		if err != nil {
			return err
		}
		// The pointer and the length, little-endian, in one write.
		return s.put(b, ptr, 8, uint64(p)|uint64(n)<<32)
	}
	c.load = func(l *lifter, t Type, b []byte, rv reflect.Value) error {
		str, err := l.liftStr(le.Uint32(b), le.Uint32(b[4:]))
		if err != nil {
			return err
		}
		rv.SetString(str)
		return nil
	}
	c.lower = func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error) {
		p, n, err := s.lowerString(rv.String())
		if err != nil {
			return out, err
		}
		return append(out, uint64(p), uint64(n)), nil
	}
	c.lift = func(l *lifter, t Type, r *flatReader, rv reflect.Value) error {
		p, n := r.next32(), r.next32()
		str, err := l.liftStr(p, n)
		if err != nil {
			return err
		}
		rv.SetString(str)
		return nil
	}
}

// listFuncs gives a list codec its direct functions from the two that move the elements.
func listFuncs(c *goCodec, lower func(s *storer, elem Type, rv reflect.Value) (uint32, uint32, error),
	lift func(l *lifter, elem Type, ptr, n uint32, rv reflect.Value) error) {
	c.store = func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error {
		p, n, err := lower(s, t.(*ListType).elem, rv)
		if err != nil {
			return err
		}
		return s.put(b, ptr, 8, uint64(p)|uint64(n)<<32)
	}
	c.load = func(l *lifter, t Type, b []byte, rv reflect.Value) error {
		return lift(l, t.(*ListType).elem, le.Uint32(b), le.Uint32(b[4:]), rv)
	}
	c.lower = func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error) {
		p, n, err := lower(s, t.(*ListType).elem, rv)
		if err != nil {
			return out, err
		}
		return append(out, uint64(p), uint64(n)), nil
	}
	c.lift = func(l *lifter, t Type, r *flatReader, rv reflect.Value) error {
		p, n := r.next32(), r.next32()
		return lift(l, t.(*ListType).elem, p, n, rv)
	}
}

// listDirect moves a Go slice element by element with the element codec ec: one realloc for
// the list, then each element stored at its offset (lowerList's order, so the guest sees the same
// realloc calls); lifting checks the whole range once and loads each element into the new slice.
func listDirect(c *goCodec, gt reflect.Type, lt *ListType, ec *goCodec) {
	es := uint64(lt.elem.Size())
	listFuncs(c, func(s *storer, elem Type, rv reflect.Value) (uint32, uint32, error) {
		mem, err := s.cx.memory()
		if err != nil {
			return 0, 0, err
		}
		n := rv.Len()
		p, dst, err := s.allocList(mem, elem, n)
		if err != nil {
			return 0, 0, err
		}
		if lp := ec.leaf; lp != nil && n > 0 {
			// rv is a slice, so UnsafePointer is its first element (see typed_leaf.go).
			base, stride := rv.UnsafePointer(), gt.Elem().Size()
			for i := range n {
				off := uint32(uint64(i) * es)
				if err := lp.store(s, unsafe.Add(base, uintptr(i)*stride), sub(dst, off), p+off); err != nil {
					return 0, 0, at(err, listStep(uint64(i)))
				}
			}
			return p, uint32(n), nil
		}
		for i := range n {
			off := uint32(uint64(i) * es)
			if err := ec.store(s, elem, rv.Index(i), sub(dst, off), p+off); err != nil {
				return 0, 0, at(err, listStep(uint64(i)))
			}
		}
		return p, uint32(n), nil
	}, func(l *lifter, elem Type, ptr, n uint32, rv reflect.Value) error {
		b, err := l.listBytes(elem, ptr, n)
		if err != nil {
			return err
		}
		if err := l.charge(uint64(n) * liftNodeCost); err != nil {
			return err
		}
		out := reflect.MakeSlice(gt, int(n), int(n))
		if lp := ec.leaf; lp != nil && n > 0 {
			// out is a new slice of n elements; UnsafePointer is its first (see typed_leaf.go).
			base, stride := out.UnsafePointer(), gt.Elem().Size()
			for i := range uintptr(n) {
				if err := lp.load(l, b[uint64(i)*es:], unsafe.Add(base, i*stride)); err != nil {
					return at(err, listStep(uint64(i)))
				}
			}
			rv.Set(out)
			return nil
		}
		for i := range int(n) {
			if err := ec.load(l, elem, b[uint64(i)*es:], out.Index(i)); err != nil {
				return at(err, listStep(uint64(i)))
			}
		}
		rv.Set(out)
		return nil
	})
}

// packedDirect moves a numeric slice as one block: []byte with one copy each way, other widths
// element by element, with float NaNs canonicalised as the dynamic path does.
func packedDirect(c *goCodec, gt reflect.Type, lt *ListType, ek Kind, sz uint32) {
	isBytes := ek == KindU8 && gt.Elem() == reflect.TypeFor[byte]()
	listFuncs(c, func(s *storer, elem Type, rv reflect.Value) (uint32, uint32, error) {
		mem, err := s.cx.memory()
		if err != nil {
			return 0, 0, err
		}
		n := rv.Len()
		p, dst, err := s.allocPacked(mem, elem, uint64(n)*uint64(sz))
		if err != nil {
			return 0, 0, err
		}
		if isBytes {
			copy(dst, rv.Bytes())
			return p, uint32(n), nil
		}
		for i := range n {
			putPacked(ek, dst[i*int(sz):], rv.Index(i))
		}
		canonPacked(ek, dst)
		return p, uint32(n), nil
	}, func(l *lifter, elem Type, ptr, n uint32, rv reflect.Value) error {
		b, err := l.listBytes(elem, ptr, n)
		if err != nil {
			return err
		}
		if err := l.charge(uint64(len(b)) + liftNodeCost); err != nil {
			return err
		}
		if isBytes {
			raw := slices.Clone(b)
			if raw == nil {
				raw = []byte{}
			}
			rv.SetBytes(raw)
			return nil
		}
		out := reflect.MakeSlice(gt, int(n), int(n))
		for i := range int(n) {
			x := decodePacked(ek, b[i*int(sz):]).num
			switch ek {
			case KindF32:
				x = uint64(canon32(uint32(x)))
			case KindF64:
				x = canon64(x)
			}
			setNum(ek, out.Index(i), x)
		}
		rv.Set(out)
		return nil
	})
}

// structDirect moves a record or tuple field by field at the type's precomputed offsets (or
// flat positions), each field with its own codec.
func structDirect(c *goCodec, offsets []uint32, goIdx []int, codecs []*goCodec, step func(int) string) {
	// offsets depend only on the structure; the member types are taken from the call's t.
	nodes := uint64(len(codecs)) * liftNodeCost
	c.store = func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error {
		for i, fc := range codecs {
			if err := fc.store(s, memberType(t, i), rv.Field(goIdx[i]), sub(b, offsets[i]), ptr+offsets[i]); err != nil {
				return at(err, step(i))
			}
		}
		return nil
	}
	c.load = func(l *lifter, t Type, b []byte, rv reflect.Value) error {
		if err := l.charge(nodes); err != nil {
			return err
		}
		for i, fc := range codecs {
			if err := fc.load(l, memberType(t, i), b[offsets[i]:], rv.Field(goIdx[i])); err != nil {
				return at(err, step(i))
			}
		}
		return nil
	}
	c.lower = func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error) {
		var err error
		for i, fc := range codecs {
			if out, err = fc.lower(s, memberType(t, i), rv.Field(goIdx[i]), out); err != nil {
				return out, at(err, step(i))
			}
		}
		return out, nil
	}
	c.lift = func(l *lifter, t Type, r *flatReader, rv reflect.Value) error {
		if err := l.charge(nodes); err != nil {
			return err
		}
		for i, fc := range codecs {
			if err := fc.lift(l, memberType(t, i), r, rv.Field(goIdx[i])); err != nil {
				return at(err, step(i))
			}
		}
		return nil
	}
}

// memberType returns field or element i of a record or tuple type.
func memberType(t Type, i int) Type {
	switch x := t.(type) {
	case *RecordType:
		return x.fields[i].Type
	case *TupleType:
		return x.elems[i]
	}
	panic("BUG: memberType of " + t.Kind().String())
}

// GoFunc is a component function type bound to Go parameter and result types: the typed
// path's plan for one function, made once (when a host binds an export) and used for every
// call. Its calls lower the Go arguments straight into core values and guest memory and lift
// the results straight into Go values, with the checks and errors of FuncType's dynamic
// CallExport.
type GoFunc struct {
	ft      *FuncType
	params  []*Codec
	results []*Codec
	// checked lists the parameters whose Go values CheckArgs converts (see there).
	checked []int
}

// NewGoFunc binds ft to the codecs of its parameters and results, which must have been made for
// ft's own parameter and result types.
func NewGoFunc(ft *FuncType, params, results []*Codec) (*GoFunc, error) {
	if len(params) != len(ft.params) || len(results) != len(ft.results) {
		return nil, errorf(ErrTypeMismatch, "%d parameter and %d result codecs for %s", len(params), len(results), ft)
	}
	for i, c := range params {
		if c == nil || c.t != ft.params[i].Type {
			return nil, errorf(ErrTypeMismatch, "parameter %d codec is not for %s's parameter type", i, ft)
		}
	}
	for i, c := range results {
		if c == nil || c.t != ft.results[i] {
			return nil, errorf(ErrTypeMismatch, "result %d codec is not for %s's result type", i, ft)
		}
	}
	g := &GoFunc{ft: ft, params: params, results: results}
	for i, c := range params {
		if hasEnum(c.t) {
			g.checked = append(g.checked, i)
		}
	}
	return g, nil
}

// CheckArgs reports the Go argument values that name no enum case, as converting them to
// Values would, before a call starts: lowering finds them only part way, after realloc calls,
// with ErrDiscriminant, which is otherwise a guest's breach (component turns it into a trap),
// while here it is the host's mistake. It converts only the parameters whose types contain an
// enum.
func (g *GoFunc) CheckArgs(args []reflect.Value) error {
	for _, i := range g.checked {
		if i >= len(args) {
			break
		}
		c := g.params[i]
		if !args[i].IsValid() || args[i].Type() != c.gt {
			continue // lowering reports it
		}
		if _, err := c.c.enc(args[i]); err != nil {
			return finishErr("lower", at(err, g.ft.paramStep(i)))
		}
	}
	return nil
}

// hasEnum says whether t is or contains an enum.
func hasEnum(t Type) bool {
	switch x := t.(type) {
	case *EnumType:
		return true
	case *ListType:
		return hasEnum(x.elem)
	case *RecordType:
		for _, f := range x.fields {
			if hasEnum(f.Type) {
				return true
			}
		}
	case *TupleType:
		return slices.ContainsFunc(x.elems, hasEnum)
	case *VariantType:
		return slices.ContainsFunc(x.payloads, func(p Type) bool { return p != nil && hasEnum(p) })
	case *OptionType:
		return slices.ContainsFunc(x.payloads, func(p Type) bool { return p != nil && hasEnum(p) })
	case *ResultType:
		return slices.ContainsFunc(x.payloads, func(p Type) bool { return p != nil && hasEnum(p) })
	}
	return false
}

// Type returns the function type.
func (g *GoFunc) Type() *FuncType { return g.ft }

// CallExport is FuncType.CallExport for Go values: args hold the arguments, of the parameter
// codecs' Go types, and the results are lifted into results, settable values of the result
// codecs' Go types (on failure they may be partly written).
func (g *GoFunc) CallExport(cx *CallContext, args, results []reflect.Value, core func(flat []uint64) ([]uint64, error)) error {
	if err := cx.checkAsync(); err != nil {
		return finishErr("call", err)
	}
	if cx.Scope == nil {
		cx.Scope = &BorrowScope{}
		defer func() { cx.Scope = nil }()
	}
	flat, err := g.lowerParams(cx, args, cx.flat)
	cx.flat = nil
	if err != nil {
		_ = cx.Scope.End()
		return finishErr("lower", err)
	}
	defer func() { cx.flat = flat }()
	res, err := core(flat)
	if err != nil {
		_ = cx.Scope.End()
		return err
	}
	if err := g.liftResults(cx, res, results); err != nil {
		_ = cx.Scope.End()
		return finishErr("lift", err)
	}
	if err := cx.Scope.End(); err != nil {
		return finishErr("call", err)
	}
	if cx.PostReturn != nil {
		if err := cx.PostReturn(res); err != nil {
			return finishErr("call", fmt.Errorf("%w: %w", ErrPostReturn, err))
		}
	}
	return nil
}

// lowerParams is FuncType.lowerParams from Go values.
func (g *GoFunc) lowerParams(cx *CallContext, args []reflect.Value, dst []uint64) ([]uint64, error) {
	ft := g.ft
	if len(args) != len(ft.params) {
		return nil, errorf(ErrTypeMismatch, "expected %d arguments, found %d", len(ft.params), len(args))
	}
	for i, c := range g.params {
		if !args[i].IsValid() || args[i].Type() != c.gt {
			return nil, at(errorf(ErrTypeMismatch, "expected Go %s", c.gt), ft.paramStep(i))
		}
	}
	s := &cx.typedStorer
	s.cx = cx
	if ft.paramTuple == nil {
		out := dst[:0]
		if cap(out) < len(ft.flatParams) {
			out = make([]uint64, 0, len(ft.flatParams))
		}
		for i, c := range g.params {
			var err error
			if out, err = c.c.lower(s, c.t, args[i], out); err != nil {
				return nil, at(err, ft.paramStep(i))
			}
		}
		return out, nil
	}
	tt := ft.paramTuple
	ptr, err := cx.alloc(tt.layout.align, tt.layout.size)
	if err != nil {
		return nil, at(err, "params")
	}
	if err := storeGoValues(s, g.params, tt, ptr, args, ft.paramStep); err != nil {
		return nil, err
	}
	return append(dst[:0], uint64(ptr)), nil
}

// liftResults is FuncType.liftResults into Go values.
func (g *GoFunc) liftResults(cx *CallContext, flat []uint64, results []reflect.Value) error {
	ft := g.ft
	if len(flat) != len(ft.lift.Results) {
		return errorf(ErrCoreValues, "expected %d core results, got %d", len(ft.lift.Results), len(flat))
	}
	if len(results) != len(g.results) {
		return errorf(ErrTypeMismatch, "expected %d results, found %d", len(g.results), len(results))
	}
	return liftGoValues(cx, flat, g.results, ft.resultTuple, results, resultSteps(len(ft.results)).step)
}

// liftGoValues lifts a function's parameters or results into vals: from the flat core values,
// or, when spill is not nil, from the tuple in guest memory that flat[0] points to.
func liftGoValues(cx *CallContext, flat []uint64, codecs []*Codec, spill *TupleType, vals []reflect.Value, step func(int) string) error {
	l := &cx.typedLifter
	*l = *newLifter(cx)
	if spill == nil {
		r := &flatReader{vals: flat}
		for i, c := range codecs {
			if err := c.c.lift(l, c.t, r, vals[i]); err != nil {
				return at(err, step(i))
			}
		}
		return nil
	}
	mem, err := cx.memory()
	if err != nil {
		return err
	}
	ptr := uint32(flat[0])
	if err := checkAlign(ptr, spill.layout.align, "spilled values"); err != nil {
		return err
	}
	b, err := view(mem, ptr, uint64(spill.layout.size))
	if err != nil {
		return fmt.Errorf("spilled values: %w", err)
	}
	for i, c := range codecs {
		if err := c.c.load(l, c.t, b[spill.offsets[i]:], vals[i]); err != nil {
			return at(err, step(i))
		}
	}
	return nil
}

// ServeImport is FuncType.ServeImport for Go values: the guest's core arguments are lifted
// straight into args, settable values of the parameter codecs' Go types; host runs with them
// and returns the results, of the result codecs' Go types, which are lowered straight into core
// values or through the guest's return pointer.
func (g *GoFunc) ServeImport(cx *CallContext, flat []uint64, args []reflect.Value, host func(args []reflect.Value) ([]reflect.Value, error)) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, finishErr("call", err)
	}
	if cx.Scope == nil {
		cx.Scope = &BorrowScope{}
		defer func() { cx.Scope = nil }()
	}
	scope := cx.Scope
	if err := g.liftParams(cx, flat, args); err != nil {
		_ = scope.End()
		return nil, finishErr("lift", err)
	}
	results, err := host(args)
	if err != nil {
		_ = scope.End()
		return nil, err
	}
	out, err := g.lowerResults(cx, results, flat)
	err = finishErr("lower", err)
	if endErr := scope.End(); err == nil && endErr != nil {
		return nil, finishErr("call", endErr)
	}
	return out, err
}

// liftParams is FuncType.liftParams into Go values.
func (g *GoFunc) liftParams(cx *CallContext, flat []uint64, args []reflect.Value) error {
	ft := g.ft
	if len(flat) != len(ft.lower.Params) {
		return errorf(ErrCoreValues, "expected %d core arguments, got %d", len(ft.lower.Params), len(flat))
	}
	if len(args) != len(g.params) {
		return errorf(ErrTypeMismatch, "expected %d arguments, found %d", len(g.params), len(args))
	}
	return liftGoValues(cx, flat, g.params, ft.paramTuple, args, ft.paramStep)
}

// lowerResults is FuncType.lowerResults from Go values.
func (g *GoFunc) lowerResults(cx *CallContext, results []reflect.Value, flatArgs []uint64) ([]uint64, error) {
	ft := g.ft
	if len(results) != len(g.results) {
		return nil, errorf(ErrTypeMismatch, "expected %d results, found %d", len(g.results), len(results))
	}
	steps := resultSteps(len(ft.results))
	for i, c := range g.results {
		if !results[i].IsValid() || results[i].Type() != c.gt {
			return nil, at(errorf(ErrTypeMismatch, "expected Go %s", c.gt), steps.step(i))
		}
	}
	s := &cx.typedStorer
	s.cx = cx
	if ft.resultTuple == nil {
		out := make([]uint64, 0, len(ft.flatResults))
		for i, c := range g.results {
			var err error
			if out, err = c.c.lower(s, c.t, results[i], out); err != nil {
				return nil, at(err, steps.step(i))
			}
		}
		return out, nil
	}
	tt := ft.resultTuple
	ptr, err := ft.returnPointer(flatArgs)
	if err != nil {
		return nil, err
	}
	if err := storeGoValues(s, g.results, tt, ptr, results, steps.step); err != nil {
		return nil, err
	}
	return []uint64{}, nil
}

// storeGoValues stores a function's parameters or results, vals, as the tuple tt at ptr. A tuple
// holding strings or lists is written scalar by scalar (no view kept across the reallocs its
// members make, which may move memory).
func storeGoValues(s *storer, codecs []*Codec, tt *TupleType, ptr uint32, vals []reflect.Value, step func(int) string) error {
	mem, err := s.cx.memory()
	if err != nil {
		return err
	}
	b, err := view(mem, ptr, uint64(tt.layout.size))
	if err != nil {
		return err
	}
	if tt.hasPtr {
		b = nil
	}
	for i, c := range codecs {
		if err := c.c.store(s, c.t, vals[i], sub(b, tt.offsets[i]), ptr+tt.offsets[i]); err != nil {
			return at(err, step(i))
		}
	}
	return nil
}

// scalarSize is the byte size of a scalar kind in memory.
func scalarSize(k Kind) uint32 {
	switch k {
	case KindBool, KindS8, KindU8:
		return 1
	case KindS16, KindU16:
		return 2
	case KindS64, KindU64, KindF64:
		return 8
	}
	return 4
}

// scalarBits returns the bits lowering writes for a Go scalar of kind k: what store and lowerFlat
// make of the Value the codec's enc would build.
func scalarBits(k Kind, rv reflect.Value) (uint64, error) {
	switch k {
	case KindBool:
		if rv.Bool() {
			return 1, nil
		}
		return 0, nil
	case KindS8, KindS16, KindS32, KindS64:
		return uint64(rv.Int()), nil
	case KindU8, KindU16, KindU32, KindU64:
		return rv.Uint(), nil
	case KindF32:
		return uint64(canon32(math.Float32bits(float32(rv.Float())))), nil
	case KindF64:
		return canon64(math.Float64bits(rv.Float())), nil
	}
	c, err := lowerChar(CharValue(rune(rv.Int())))
	return uint64(c), err
}

// setScalar stores the lifted bits x of kind k into a Go scalar, checking a char as liftChar does.
func setScalar(k Kind, rv reflect.Value, x uint64) error {
	switch k {
	case KindBool:
		rv.SetBool(x != 0)
	case KindS8:
		rv.SetInt(int64(int8(x)))
	case KindS16:
		rv.SetInt(int64(int16(x)))
	case KindS32:
		rv.SetInt(int64(int32(x)))
	case KindS64:
		rv.SetInt(int64(x))
	case KindU8:
		rv.SetUint(uint64(uint8(x)))
	case KindU16:
		rv.SetUint(uint64(uint16(x)))
	case KindU32:
		rv.SetUint(uint64(uint32(x)))
	case KindU64:
		rv.SetUint(x)
	case KindF32:
		rv.SetFloat(float64(math.Float32frombits(canon32(uint32(x)))))
	case KindF64:
		rv.SetFloat(math.Float64frombits(canon64(x)))
	case KindChar:
		v, err := liftChar(uint32(x))
		if err != nil {
			return err
		}
		rv.SetInt(int64(int32(uint32(v.num))))
	}
	return nil
}

// scalarDirect moves bool, numbers and char without a Value.
func scalarDirect(c *goCodec, k Kind) {
	size := scalarSize(k)
	c.store = func(s *storer, t Type, rv reflect.Value, b []byte, ptr uint32) error {
		x, err := scalarBits(k, rv)
		if err != nil {
			return err
		}
		return s.put(b, ptr, size, x)
	}
	c.load = func(l *lifter, t Type, b []byte, rv reflect.Value) error {
		return setScalar(k, rv, loadBits(b, size))
	}
	c.lower = func(s *storer, t Type, rv reflect.Value, out []uint64) ([]uint64, error) {
		x, err := scalarBits(k, rv)
		if err != nil {
			return out, err
		}
		if size < 8 {
			x = uint64(uint32(x)) & widthMask(k)
		}
		return append(out, x), nil
	}
	c.lift = func(l *lifter, t Type, r *flatReader, rv reflect.Value) error {
		if size < 8 {
			return setScalar(k, rv, uint64(r.next32()))
		}
		return setScalar(k, rv, r.next64())
	}
}
