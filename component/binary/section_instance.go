package binary

import "fmt"

// instance1 handles one component instance definition (section 5): instantiating a component,
// or bundling exports.
func (s *scope) instance1(r *reader, off int) error {
	tag, err := r.Byte()
	if err != nil {
		return err
	}
	def := &Instance{Offset: off}
	switch tag {
	case 0x00:
		if def.Component, err = r.U32(); err != nil {
			return err
		}
		n, err := r.Count("instantiation argument", 3, 0)
		if err != nil {
			return err
		}
		for i := uint32(0); i < n; i++ {
			name, err := r.Name()
			if err != nil {
				return err
			}
			sort, err := readSort(r)
			if err != nil {
				return err
			}
			idx, err := r.U32()
			if err != nil {
				return err
			}
			def.Args = append(def.Args, InstantiateArg{Name: name, Sort: sort, Index: idx})
		}
		if def.Type, err = s.instantiate(def.Component, def.Args); err != nil {
			return err
		}
	case 0x01:
		def.FromExports = true
		n, err := r.Count("instance export", 3, 0)
		if err != nil {
			return err
		}
		// A bundle of exports introduces no indices, so no resource is named in it (not even
		// by a type export beside them) and [constructor], [method] and [static] names cannot
		// be checked: they are refused, as in the reference validator.
		bag := &scope{bag: true}
		var exports []ExternDecl
		for i := uint32(0); i < n; i++ {
			eoff := r.Offset()
			name, err := readExternName(r)
			if err != nil {
				return err
			}
			sort, err := readSort(r)
			if err != nil {
				return err
			}
			idx, err := r.U32()
			if err != nil {
				return err
			}
			et, err := s.externOf(sort, idx)
			if err != nil {
				return at(eoff, within(fmt.Sprintf("instance export `%s`", name.Raw), err))
			}
			if err := bag.checkName(asExport, name, et); err != nil {
				return at(eoff, err)
			}
			def.Exports = append(def.Exports, InlineExport{Name: name, Sort: sort, Index: idx})
			exports = append(exports, ExternDecl{Name: name, Type: et})
		}
		if def.Type, err = newInstanceType(exports, nil); err != nil {
			return err
		}
	default:
		return at(off, errf(ErrMalformed, "unknown instance opcode 0x%02x", tag))
	}
	s.addDef(def)
	s.c.Instances = append(s.c.Instances, Item[*InstanceType]{def, def.Type})
	return nil
}

// instantiate checks the arguments of a component instantiation against the component's
// imports and computes the instance's type: the component's exports with its imported resources
// replaced by the arguments' and its own resources replaced by fresh ones, since every
// instantiation creates new resource types.
func (s *scope) instantiate(component uint32, args []InstantiateArg) (*InstanceType, error) {
	ct, err := s.component(component)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]ExternType, len(args))
	for _, a := range args {
		if _, dup := byName[a.Name]; dup {
			return nil, errf(ErrInvalid, "duplicate instantiation argument %s", q(a.Name))
		}
		et, err := s.externOf(a.Sort, a.Index)
		if err != nil {
			return nil, within(fmt.Sprintf("instantiation argument %s", q(a.Name)), err)
		}
		byName[a.Name] = et
	}
	for _, im := range ct.Imports {
		arg, ok := byName[im.Name.Raw]
		if !ok {
			return nil, errf(ErrInvalid, "instantiating component %d: missing argument for import `%s`", component, im.Name.Raw)
		}
		if arg.Sort != im.Type.Sort {
			return nil, errf(ErrInvalid, "instantiating component %d: argument `%s`: expected a %s, found a %s", component, im.Name.Raw, im.Type.Sort, arg.Sort)
		}
	}
	k := newChecker(s.d)
	err = k.bind(ct.imported, func(name string) (ExternType, bool) {
		et, ok := byName[name]
		return et, ok
	})
	if err != nil {
		return nil, errf(ErrInvalid, "instantiating component %d: %v", component, err)
	}
	for _, im := range ct.Imports {
		if err := k.extern(byName[im.Name.Raw], im.Type); err != nil {
			if isLimit(err) {
				return nil, err
			}
			return nil, errf(ErrInvalid, "instantiating component %d: argument `%s`: %v", component, im.Name.Raw, err)
		}
	}
	fresh := freshen(ct.defined)
	for _, p := range ct.defined {
		if f, ok := fresh[p.Res]; ok {
			k.m[p.Res] = f
			s.defined = append(s.defined, resourcePath{Res: f})
			delete(fresh, p.Res)
		}
	}
	u := newSubstituter(s.d, k.m)
	for _, im := range ct.Imports {
		u.renameImports(im.Type, byName[im.Name.Raw])
	}
	exports, changed, err := u.decls(ct.Exports)
	if err != nil {
		return nil, err
	}
	if !changed {
		// most instantiations involve no resources: share the component type's exports
		return &InstanceType{Exports: ct.Exports, index: ct.eindex, nodes: ct.nodes, depth: ct.depth}, nil
	}
	return newInstanceType(exports, nil)
}
