package binary

// coreTypeDef handles one element of a core type section (or a core type declarator).
func (s *scope) coreTypeDef(r *reader, off int) error {
	t, err := s.readCoreDefType(r, false)
	if err != nil {
		return err
	}
	if s.kind != kindComponent {
		s.c.CoreTypes = append(s.c.CoreTypes, Item[CoreType]{nil, t})
		return nil
	}
	def := &CoreTypeDef{Offset: off, Type: t}
	s.addDef(def)
	s.c.CoreTypes = append(s.c.CoreTypes, Item[CoreType]{def, t})
	return nil
}

// readCoreDefType reads a core:deftype: a function type or, unless inModule, a module type.
func (s *scope) readCoreDefType(r *reader, inModule bool) (CoreType, error) {
	off := r.Offset()
	op, err := r.Byte()
	if err != nil {
		return nil, err
	}
	switch op {
	case 0x60:
		return readCoreFuncSig(r)
	case 0x50:
		if inModule {
			return nil, at(off, errf(ErrInvalid, "module types cannot be defined inside module types"))
		}
		return s.readModuleType(r, off)
	case 0x4e, 0x4f, 0x5f, 0x5e, 0x5d, 0x00:
		return nil, at(off, unsupported("core GC, recursive or continuation types"))
	}
	return nil, at(off, errf(ErrMalformed, "unknown core type opcode 0x%02x", op))
}

// readModuleType reads a core module type's declarators. The module type starts with an empty
// core type index space of its own; outer aliases reach the enclosing scopes' core types.
func (s *scope) readModuleType(r *reader, start int) (*ModuleType, error) {
	if s.depth+1 > MaxNesting {
		return nil, at(start, errf(ErrLimit, "components and types nest more than %d levels deep", MaxNesting))
	}
	var types []*CoreFuncType
	funcType := func(idx uint32) (*CoreFuncType, error) {
		if int64(idx) >= int64(len(types)) {
			return nil, outOfRange("core type", idx, len(types))
		}
		return types[idx], nil
	}
	mt := &ModuleType{}
	exportNames := map[string]bool{}
	importNames := map[[2]string]bool{}
	n, err := r.Count("module type declarator", 2, 0)
	if err != nil {
		return nil, err
	}
	for i := uint32(0); i < n; i++ {
		off := r.Offset()
		op, err := r.Byte()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x00: // import
			mod, err := r.Name()
			if err != nil {
				return nil, err
			}
			name, err := r.Name()
			if err != nil {
				return nil, err
			}
			if err := checkImportName(importNames, mod, name); err != nil {
				return nil, at(off, err)
			}
			et, err := readCoreExternDesc(r, funcType)
			if err != nil {
				return nil, at(off, err)
			}
			mt.Imports = append(mt.Imports, CoreImport{Module: mod, Name: name, Type: et})
		case 0x01: // type
			t, err := s.readCoreDefType(r, true)
			if err != nil {
				return nil, err
			}
			types = append(types, t.(*CoreFuncType))
		case 0x02: // alias
			sort, err := r.Byte()
			if err != nil {
				return nil, err
			}
			kind, err := r.Byte()
			if err != nil {
				return nil, err
			}
			if sort != 0x10 || kind != 0x01 {
				return nil, at(off, errf(ErrMalformed, "module type alias must be an outer core type alias (0x10 0x01), found 0x%02x 0x%02x", sort, kind))
			}
			count, err := r.U32()
			if err != nil {
				return nil, err
			}
			idx, err := r.U32()
			if err != nil {
				return nil, err
			}
			var t CoreType
			if count == 0 {
				ft, err := funcType(idx)
				if err != nil {
					return nil, at(off, err)
				}
				t = ft
			} else {
				target, err := s.ancestor(count - 1)
				if err != nil {
					return nil, at(off, err)
				}
				if t, err = target.coreType(idx); err != nil {
					return nil, at(off, err)
				}
			}
			ft, ok := t.(*CoreFuncType)
			if !ok {
				return nil, at(off, errf(ErrInvalid, "module types cannot alias module types"))
			}
			types = append(types, ft)
		case 0x03: // export
			name, err := r.Name()
			if err != nil {
				return nil, err
			}
			et, err := readCoreExternDesc(r, funcType)
			if err != nil {
				return nil, at(off, err)
			}
			if exportNames[name] {
				return nil, at(off, errf(ErrInvalid, "module type exports %q twice", name))
			}
			exportNames[name] = true
			mt.Exports = append(mt.Exports, CoreExport{Name: name, Type: et})
		default:
			return nil, at(off, errf(ErrMalformed, "unknown module type declarator opcode 0x%02x", op))
		}
	}
	mt.index = indexCore(mt.Exports)
	return mt, nil
}
