package binary

import (
	"fmt"
	"math"
)

// rawValType is a decoded valtype before resolution: a primitive, or an index into the type
// index space.
type rawValType struct {
	prim  PrimType
	index uint32
}

// readValType reads `valtype ::= typeidx | primvaltype` (a non-negative s33 or a primitive code).
func readValType(r *reader) (rawValType, error) {
	off := r.Offset()
	b, err := r.Peek()
	if err != nil {
		return rawValType{}, err
	}
	if b >= byte(String) && b <= byte(Bool) {
		r.Pos++
		return rawValType{prim: PrimType(b)}, nil
	}
	if b == 0x64 {
		return rawValType{}, at(off, unsupported("the error-context type"))
	}
	v, err := r.Signed(33)
	if err != nil {
		return rawValType{}, err
	}
	if v < 0 || v > math.MaxUint32 {
		return rawValType{}, at(off, errf(ErrMalformed, "unknown value type 0x%02x", b))
	}
	return rawValType{index: uint32(v)}, nil
}

// resolveValType reads and resolves a valtype.
func (s *scope) resolveValType(r *reader) (ValType, error) {
	off := r.Offset()
	v, err := readValType(r)
	if err != nil {
		return nil, err
	}
	t, err := s.valType(v)
	return t, at(off, err)
}

// optValType reads `<valtype>?` (0x00 or 0x01 valtype).
func (s *scope) optValType(r *reader) (ValType, error) {
	off := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return nil, err
	}
	switch b {
	case 0x00:
		return nil, nil
	case 0x01:
		return s.resolveValType(r)
	}
	return nil, at(off, errf(ErrMalformed, "expected 0x00 or 0x01 for an optional type, found 0x%02x", b))
}

// readLabel reads a labellit and checks it is kebab-case and unique among seen.
func readLabel(r *reader, what string, seen map[string]string) (string, error) {
	off := r.Offset()
	l, err := r.Name()
	if err != nil {
		return "", err
	}
	if !IsLabel(l) {
		return "", at(off, errf(ErrInvalid, "%s name %s is not a kebab-case label", what, q(l)))
	}
	k := labelKey(l)
	if prev, dup := seen[k]; dup {
		return "", at(off, errf(ErrInvalid, "%s name `%s` conflicts with `%s`", what, l, prev))
	}
	seen[k] = l
	return l, nil
}

// typeDef handles one element of a type section (or a type declarator).
func (s *scope) typeDef(r *reader, off int) error {
	t, err := s.readDefType(r)
	if err != nil {
		return err
	}
	if s.kind != kindComponent {
		s.c.Types = append(s.c.Types, Item[Type]{nil, t})
		return nil
	}
	def := &TypeDef{Offset: off, Type: t}
	s.addDef(def)
	s.c.Types = append(s.c.Types, Item[Type]{def, t})
	return nil
}

// readDefType reads a deftype: a defined value type, function, component, instance or resource
// type.
func (s *scope) readDefType(r *reader) (Type, error) {
	off := r.Offset()
	op, err := r.Peek()
	if err != nil {
		return nil, err
	}
	switch op {
	case 0x40:
		r.Pos++
		return s.readFuncType(r)
	case 0x43:
		return nil, at(off, unsupported("async function types"))
	case 0x41:
		r.Pos++
		return s.readComponentType(r)
	case 0x42:
		r.Pos++
		return s.readInstanceType(r)
	case 0x3f:
		r.Pos++
		return s.readResourceType(r, off)
	case 0x3e:
		return nil, at(off, unsupported("resource types with async destructors"))
	}
	return s.readDefValType(r)
}

func (s *scope) readFuncType(r *reader) (*FuncType, error) {
	n, err := r.Count("parameter", 2, 0)
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	params := make([]Param, 0, n)
	for i := uint32(0); i < n; i++ {
		name, err := readLabel(r, "parameter", seen)
		if err != nil {
			return nil, err
		}
		t, err := s.resolveValType(r)
		if err != nil {
			return nil, within(fmt.Sprintf("parameter `%s`", name), err)
		}
		params = append(params, Param{Name: name, Type: t})
	}
	off := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return nil, err
	}
	var result ValType
	switch b {
	case 0x00:
		if result, err = s.resolveValType(r); err != nil {
			return nil, within("result", err)
		}
		if result.info().hasBorrow {
			return nil, at(off, errf(ErrInvalid, "function result `%s` contains a borrow handle", result))
		}
	case 0x01:
		m, err := r.U32()
		if err != nil {
			return nil, err
		}
		if m != 0 {
			return nil, at(off, unsupported("named or multiple function results (removed from the component model)"))
		}
	default:
		return nil, at(off, errf(ErrMalformed, "unknown result list encoding 0x%02x", b))
	}
	ft, err := newFunc(params, result)
	return ft, at(off, err)
}

func (s *scope) readResourceType(r *reader, off int) (*ResourceType, error) {
	if s.inType() {
		return nil, at(off, errf(ErrInvalid, "resource types cannot be defined inside component or instance types"))
	}
	repOff := r.Offset()
	rep, err := r.Byte()
	if err != nil {
		return nil, err
	}
	switch CoreValType(rep) {
	case CoreI32:
	case CoreI64:
		return nil, at(repOff, unsupported("64-bit resource representations (🐘)"))
	default:
		return nil, at(repOff, errf(ErrInvalid, "resource representation must be i32, found 0x%02x", rep))
	}
	res := &Resource{Local: true, Rep: CoreI32, definer: s}
	dtorOff := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return nil, err
	}
	switch b {
	case 0x00:
	case 0x01:
		idx, err := r.U32()
		if err != nil {
			return nil, err
		}
		ft, err := s.coreFunc(idx)
		if err != nil {
			return nil, at(dtorOff, within("resource destructor", err))
		}
		want := &CoreFuncType{Params: []CoreValType{CoreI32}, Results: []CoreValType{}}
		if !ft.Equal(want) {
			return nil, at(dtorOff, errf(ErrInvalid, "resource destructor (core func %d) has type `%s`, expected `%s`", idx, ft, want))
		}
		res.Dtor, res.HasDtor = idx, true
	default:
		return nil, at(dtorOff, errf(ErrMalformed, "expected 0x00 or 0x01 for an optional destructor, found 0x%02x", b))
	}
	s.defined = append(s.defined, resourcePath{Res: res})
	return &ResourceType{Resource: res}, nil
}

func (s *scope) readDefValType(r *reader) (ValType, error) {
	off := r.Offset()
	op, err := r.Byte()
	if err != nil {
		return nil, err
	}
	done := func(t ValType, err error) (ValType, error) {
		if err != nil {
			return nil, at(off, err)
		}
		return t, nil
	}
	if op >= byte(String) && op <= byte(Bool) {
		return PrimType(op), nil
	}
	switch op {
	case 0x72: // record
		n, err := r.Count("record field", 2, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, at(off, errf(ErrInvalid, "record type has no fields"))
		}
		seen := map[string]string{}
		fields := make([]Field, 0, n)
		for i := uint32(0); i < n; i++ {
			name, err := readLabel(r, "record field", seen)
			if err != nil {
				return nil, err
			}
			ft, err := s.resolveValType(r)
			if err != nil {
				return nil, within(fmt.Sprintf("record field `%s`", name), err)
			}
			fields = append(fields, Field{Name: name, Type: ft})
		}
		nt, nerr := newRecord(fields)
		return done(nt, nerr)
	case 0x71: // variant
		n, err := r.Count("variant case", 3, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, at(off, errf(ErrInvalid, "variant type has no cases"))
		}
		seen := map[string]string{}
		cases := make([]Case, 0, n)
		for i := uint32(0); i < n; i++ {
			name, err := readLabel(r, "variant case", seen)
			if err != nil {
				return nil, err
			}
			ct, err := s.optValType(r)
			if err != nil {
				return nil, within(fmt.Sprintf("variant case `%s`", name), err)
			}
			zoff := r.Offset()
			z, err := r.Byte()
			if err != nil {
				return nil, err
			}
			if z != 0 {
				return nil, at(zoff, errf(ErrMalformed, "variant case `%s` must end with 0x00 (case refinements were removed), found 0x%02x", name, z))
			}
			cases = append(cases, Case{Name: name, Type: ct})
		}
		nt, nerr := newVariant(cases)
		return done(nt, nerr)
	case 0x70: // list
		elem, err := s.resolveValType(r)
		if err != nil {
			return nil, within("list element", err)
		}
		nt, nerr := newList(elem)
		return done(nt, nerr)
	case 0x6f: // tuple
		n, err := r.Count("tuple element", 1, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, at(off, errf(ErrInvalid, "tuple type has no elements"))
		}
		elems := make([]ValType, 0, n)
		for i := uint32(0); i < n; i++ {
			e, err := s.resolveValType(r)
			if err != nil {
				return nil, within(fmt.Sprintf("tuple element %d", i), err)
			}
			elems = append(elems, e)
		}
		nt, nerr := newTuple(elems)
		return done(nt, nerr)
	case 0x6e, 0x6d: // flags, enum
		what := "flags"
		if op == 0x6d {
			what = "enum"
		}
		n, err := r.Count(what+" label", 2, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, at(off, errf(ErrInvalid, "%s type has no labels", what))
		}
		if op == 0x6e && n > 32 {
			return nil, at(off, errf(ErrInvalid, "flags type has %d labels, more than 32", n))
		}
		seen := map[string]string{}
		names := make([]string, 0, n)
		for i := uint32(0); i < n; i++ {
			l, err := readLabel(r, what, seen)
			if err != nil {
				return nil, err
			}
			names = append(names, l)
		}
		if op == 0x6e {
			nt, nerr := newFlags(names)
			return done(nt, nerr)
		}
		nt, nerr := newEnum(names)
		return done(nt, nerr)
	case 0x6b: // option
		elem, err := s.resolveValType(r)
		if err != nil {
			return nil, within("option payload", err)
		}
		nt, nerr := newOption(elem)
		return done(nt, nerr)
	case 0x6a: // result
		ok, err := s.optValType(r)
		if err != nil {
			return nil, within("result ok type", err)
		}
		e, err := s.optValType(r)
		if err != nil {
			return nil, within("result error type", err)
		}
		nt, nerr := newResult(ok, e)
		return done(nt, nerr)
	case 0x69, 0x68: // own, borrow
		ioff := r.Offset()
		idx, err := r.U32()
		if err != nil {
			return nil, err
		}
		rt, err := s.resourceType(idx)
		if err != nil {
			return nil, at(ioff, err)
		}
		if op == 0x69 {
			return newOwn(rt), nil
		}
		return newBorrow(rt), nil
	case 0x67:
		return nil, at(off, unsupported("fixed-length lists (🔧)"))
	case 0x66:
		return nil, at(off, unsupported("the stream type"))
	case 0x65:
		return nil, at(off, unsupported("the future type"))
	case 0x64:
		return nil, at(off, unsupported("the error-context type"))
	case 0x63:
		return nil, at(off, unsupported("the map type (🗺️)"))
	}
	return nil, at(off, errf(ErrMalformed, "unknown type opcode 0x%02x", op))
}

// readComponentType reads the declarators of a component type in a scope of their own.
func (s *scope) readComponentType(r *reader) (*ComponentType, error) {
	return s.readTypeScope(r, kindComponentType)
}

func (s *scope) readInstanceType(r *reader) (*InstanceType, error) {
	start := r.Offset()
	ct, err := s.readTypeScope(r, kindInstanceType)
	if err != nil {
		return nil, err
	}
	it, err := newInstanceType(ct.Exports, ct.defined)
	return it, at(start, err)
}

// readTypeScope reads component or instance type declarators (Binary.md: componentdecl,
// instancedecl) and returns the declared imports and exports.
func (s *scope) readTypeScope(r *reader, kind scopeKind) (*ComponentType, error) {
	start := r.Offset()
	ts, err := newScope(kind, s, s.d)
	if err != nil {
		return nil, at(start, err)
	}
	what := "component type declarator"
	if kind == kindInstanceType {
		what = "instance type declarator"
	}
	n, err := r.Count(what, 2, 0)
	if err != nil {
		return nil, err
	}
	for i := uint32(0); i < n; i++ {
		off := r.Offset()
		op, err := r.Byte()
		if err != nil {
			return nil, err
		}
		switch {
		case op == 0x03 && kind == kindComponentType:
			err = ts.importDecl(r, off)
		case op == 0x00:
			err = ts.coreTypeDef(r, off)
		case op == 0x01:
			err = ts.typeDef(r, off)
		case op == 0x02:
			err = ts.alias1(r, off)
		case op == 0x04:
			err = ts.exportDecl(r, off)
		default:
			err = at(off, errf(ErrMalformed, "unknown %s opcode 0x%02x", what, op))
		}
		if err != nil {
			return nil, at(off, err)
		}
	}
	if kind == kindInstanceType {
		return &ComponentType{Exports: ts.exports, defined: ts.defined}, nil
	}
	ct, err := newComponentType(ts.imports, ts.exports, ts.imported, ts.defined)
	return ct, at(start, err)
}
