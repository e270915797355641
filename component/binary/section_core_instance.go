package binary

import "fmt"

// readCoreSort reads a core:sort byte.
func readCoreSort(r *reader) (Sort, error) {
	off := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return 0, err
	}
	switch b {
	case 0x00:
		return SortCoreFunc, nil
	case 0x01:
		return SortCoreTable, nil
	case 0x02:
		return SortCoreMemory, nil
	case 0x03:
		return SortCoreGlobal, nil
	case 0x04:
		return SortCoreTag, nil
	case 0x10:
		return SortCoreType, nil
	case 0x11:
		return SortCoreModule, nil
	case 0x12:
		return SortCoreInstance, nil
	}
	return 0, at(off, errf(ErrMalformed, "unknown core sort 0x%02x", b))
}

// coreExternOf returns the type of a core func, table, memory or global for a core instance.
func (s *scope) coreExternOf(sort Sort, idx uint32) (CoreExternType, error) {
	switch sort {
	case SortCoreFunc:
		ft, err := s.coreFunc(idx)
		return CoreExternType{Kind: CoreExternFunc, Func: ft}, err
	case SortCoreTable:
		if int64(idx) >= int64(len(s.c.CoreTables)) {
			return CoreExternType{}, outOfRange("core table", idx, len(s.c.CoreTables))
		}
		return CoreExternType{Kind: CoreExternTable, Table: s.c.CoreTables[idx].Type}, nil
	case SortCoreMemory:
		m, err := s.coreMemory(idx)
		return CoreExternType{Kind: CoreExternMemory, Memory: m}, err
	case SortCoreGlobal:
		if int64(idx) >= int64(len(s.c.CoreGlobals)) {
			return CoreExternType{}, outOfRange("core global", idx, len(s.c.CoreGlobals))
		}
		return CoreExternType{Kind: CoreExternGlobal, Global: s.c.CoreGlobals[idx].Type}, nil
	case SortCoreTag:
		return CoreExternType{}, unsupported("core tags (exception handling)")
	}
	return CoreExternType{}, errf(ErrInvalid, "a %s cannot be exported from a core instance", sort)
}

// coreInstance1 handles one core:instance: instantiating a module, or bundling exports.
func (s *scope) coreInstance1(r *reader, off int) error {
	tag, err := r.Byte()
	if err != nil {
		return err
	}
	def := &CoreInstance{Offset: off}
	switch tag {
	case 0x00:
		if def.Module, err = r.U32(); err != nil {
			return err
		}
		n, err := r.Count("instantiation argument", 3, 0)
		if err != nil {
			return err
		}
		for i := uint32(0); i < n; i++ {
			aoff := r.Offset()
			name, err := r.Name()
			if err != nil {
				return err
			}
			kind, err := r.Byte()
			if err != nil {
				return err
			}
			if kind != 0x12 {
				return at(aoff, errf(ErrInvalid, "core instantiation argument %q must be a core instance (0x12), found sort 0x%02x", name, kind))
			}
			idx, err := r.U32()
			if err != nil {
				return err
			}
			def.Args = append(def.Args, CoreInstantiateArg{Name: name, Instance: idx})
		}
		if def.Type, err = s.instantiateModule(def.Module, def.Args); err != nil {
			return err
		}
	case 0x01:
		def.FromExports = true
		n, err := r.Count("core export", 3, 0)
		if err != nil {
			return err
		}
		names := make(map[string]bool, n)
		it := &CoreInstanceType{}
		for i := uint32(0); i < n; i++ {
			eoff := r.Offset()
			name, err := r.Name()
			if err != nil {
				return err
			}
			sort, err := readCoreSort(r)
			if err != nil {
				return err
			}
			idx, err := r.U32()
			if err != nil {
				return err
			}
			if names[name] {
				return at(eoff, errf(ErrInvalid, "core instance exports %q twice", name))
			}
			names[name] = true
			et, err := s.coreExternOf(sort, idx)
			if err != nil {
				return at(eoff, within(fmt.Sprintf("core export %q", name), err))
			}
			def.Exports = append(def.Exports, CoreInlineExport{Name: name, Sort: sort, Index: idx})
			it.Exports = append(it.Exports, CoreExport{Name: name, Type: et})
		}
		it.index = indexCore(it.Exports)
		def.Type = it
	default:
		return at(off, errf(ErrMalformed, "unknown core instance opcode 0x%02x", tag))
	}
	s.addDef(def)
	s.c.CoreInstances = append(s.c.CoreInstances, Item[*CoreInstanceType]{def, def.Type})
	return nil
}

// instantiateModule checks core instantiation arguments against the module's imports: each
// import's module name selects an argument instance that must export the import's name with a
// matching type.
func (s *scope) instantiateModule(module uint32, args []CoreInstantiateArg) (*CoreInstanceType, error) {
	mt, err := s.coreModule(module)
	if err != nil {
		return nil, err
	}
	if err := s.d.spend(len(mt.Imports) + len(args)); err != nil {
		return nil, err
	}
	byName := make(map[string]*CoreInstanceType, len(args))
	for _, a := range args {
		if _, dup := byName[a.Name]; dup {
			return nil, errf(ErrInvalid, "duplicate core instantiation argument %q", a.Name)
		}
		it, err := s.coreInstance(a.Instance)
		if err != nil {
			return nil, within(fmt.Sprintf("core instantiation argument %q", a.Name), err)
		}
		byName[a.Name] = it
	}
	for _, im := range mt.Imports {
		it, ok := byName[im.Module]
		if !ok {
			return nil, errf(ErrInvalid, "instantiating core module %d: missing argument %q for import %q %q", module, im.Module, im.Module, im.Name)
		}
		ex, ok := it.Export(im.Name)
		if !ok {
			return nil, errf(ErrInvalid, "instantiating core module %d: argument %q has no export %q", module, im.Module, im.Name)
		}
		if !coreExternSubtype(ex.Type, im.Type) {
			return nil, errf(ErrInvalid, "instantiating core module %d: import %q %q: expected `%s`, found `%s`", module, im.Module, im.Name, im.Type, ex.Type)
		}
	}
	it := &CoreInstanceType{Exports: mt.Exports, index: mt.index}
	return it, nil
}
