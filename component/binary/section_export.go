package binary

import "fmt"

// export1 handles one export of the component (section 11): `(export "name" (sort i) type?)`.
// The export adds a new index for the item, and its type is the item's own type unless an
// ascribed type (a supertype of it) is given.
func (s *scope) export1(r *reader, off int) error {
	name, err := readExternName(r)
	if err != nil {
		return err
	}
	sort, err := readSort(r)
	if err != nil {
		return err
	}
	ioff := r.Offset()
	idx, err := r.U32()
	if err != nil {
		return err
	}
	ctx := fmt.Sprintf("export `%s`", name.Raw)
	actual, err := s.externOf(sort, idx)
	if err != nil {
		return at(ioff, within(ctx, err))
	}
	def := &Export{Offset: off, Name: name, Sort: sort, Index: idx}
	aoff := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return err
	}
	et := actual
	switch b {
	case 0x00:
	case 0x01:
		asc, fresh, err := s.readExternType(r, name.Raw)
		if err != nil {
			return within(ctx, err)
		}
		if et, err = s.ascribe(actual, asc, fresh); err != nil {
			return at(aoff, within(ctx, err))
		}
		def.Ascribed = true
	default:
		return at(aoff, errf(ErrMalformed, "expected 0x00 or 0x01 for an optional export type, found 0x%02x", b))
	}
	if et.Sort == SortType {
		et.Type = aliasNode(et.Type)
	}
	if err := s.checkName(asExport, name, et); err != nil {
		return err
	}
	if !s.registerNamed(asExport, et) {
		return errf(ErrInvalid, "export `%s`: its type uses a type that is not itself imported or exported by name (ascribe a type that uses exported names)", name.Raw)
	}
	if err := s.d.spend(0); err != nil {
		return err
	}
	def.Type = et
	s.addItem(def, et)
	s.addDef(def)
	s.c.Exports = append(s.c.Exports, def)
	return nil
}

// ascribe checks that the actual type of an exported item is a subtype of the ascribed type and
// returns the ascribed type with its abstract resources bound to the actual item's. An ascribed
// `(sub resource)` (fresh) is the exception: it introduces a new abstract type, distinct from
// the exported resource's for the validator (Explainer.md, type ascription of exports), that
// stands for that resource at run time.
func (s *scope) ascribe(actual, asc ExternType, fresh bool) (ExternType, error) {
	k := newChecker(s.d)
	if fresh {
		rt, ok := actual.Type.(*ResourceType)
		if actual.Sort != SortType || !ok {
			return asc, errf(ErrInvalid, "expected a resource type, found %s", actual)
		}
		res := asc.Type.(*ResourceType).Resource
		res.of = rt.Resource
		return asc, nil
	}
	if err := k.extern(actual, asc); err != nil {
		if isLimit(err) {
			return asc, err
		}
		return asc, errf(ErrInvalid, "the item's type does not match the ascribed type: %v", err)
	}
	out, err := newSubstituter(s.d, k.m).extern(asc)
	if err != nil {
		return asc, err
	}
	if out.Sort == SortInstance && len(out.Instance.defined) > 0 {
		bound := *out.Instance
		bound.defined = nil
		out.Instance = &bound
	}
	return out, nil
}
