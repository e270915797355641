package binary

import "fmt"

// alias1 handles one alias definition (section 6) or alias declarator.
func (s *scope) alias1(r *reader, off int) error {
	sort, err := readSort(r)
	if err != nil {
		return err
	}
	toff := r.Offset()
	tag, err := r.Byte()
	if err != nil {
		return err
	}
	def := &Alias{Offset: off, Sort: sort}
	switch tag {
	case 0x00, 0x01:
		if def.Instance, err = r.U32(); err != nil {
			return err
		}
		if def.Name, err = r.Name(); err != nil {
			return err
		}
		if tag == 0x00 {
			def.Kind = AliasInstanceExport
			err = s.aliasInstanceExport(def)
		} else {
			def.Kind = AliasCoreInstanceExport
			err = s.aliasCoreInstanceExport(def)
		}
	case 0x02:
		def.Kind = AliasOuter
		if def.Count, err = r.U32(); err != nil {
			return err
		}
		if def.Index, err = r.U32(); err != nil {
			return err
		}
		err = s.aliasOuter(def)
	default:
		return at(toff, errf(ErrMalformed, "unknown alias target 0x%02x", tag))
	}
	if err != nil {
		return err
	}
	if s.kind == kindComponent {
		s.addDef(def)
	}
	return nil
}

func (s *scope) aliasInstanceExport(def *Alias) error {
	if def.Sort.IsCore() && def.Sort != SortCoreModule {
		return errf(ErrInvalid, "an instance export alias cannot have sort %s", def.Sort)
	}
	if s.inType() && def.Sort != SortType && def.Sort != SortInstance {
		return errf(ErrInvalid, "aliases in component and instance types may only refer to types and instances, found a %s", def.Sort)
	}
	it, err := s.instance(def.Instance)
	if err != nil {
		return err
	}
	e, ok := it.Export(def.Name)
	if !ok {
		return errf(ErrInvalid, "instance %d has no export named %s", def.Instance, q(def.Name))
	}
	if e.Type.Sort != def.Sort {
		return errf(ErrInvalid, "export %s of instance %d is a %s, not a %s", q(def.Name), def.Instance, e.Type.Sort, def.Sort)
	}
	if def.Sort == SortValue {
		return unsupported("value definitions (🪙)")
	}
	s.addItem(def, e.Type)
	return nil
}

func (s *scope) aliasCoreInstanceExport(def *Alias) error {
	if s.inType() {
		return errf(ErrInvalid, "aliases in component and instance types may only refer to types and instances, found a %s", def.Sort)
	}
	var kind CoreExternKind
	switch def.Sort {
	case SortCoreFunc:
		kind = CoreExternFunc
	case SortCoreTable:
		kind = CoreExternTable
	case SortCoreMemory:
		kind = CoreExternMemory
	case SortCoreGlobal:
		kind = CoreExternGlobal
	case SortCoreTag:
		return unsupported("core tags (exception handling)")
	default:
		return errf(ErrInvalid, "a core instance export alias must have a core func, table, memory or global sort, found %s", def.Sort)
	}
	it, err := s.coreInstance(def.Instance)
	if err != nil {
		return err
	}
	e, ok := it.Export(def.Name)
	if !ok {
		return errf(ErrInvalid, "core instance %d has no export named %q", def.Instance, def.Name)
	}
	if e.Type.Kind != kind {
		return errf(ErrInvalid, "export %q of core instance %d is a %s, not a %s", def.Name, def.Instance, e.Type.Kind, kind)
	}
	c := s.c
	switch kind {
	case CoreExternFunc:
		c.CoreFuncs = append(c.CoreFuncs, Item[*CoreFuncType]{def, e.Type.Func})
	case CoreExternTable:
		c.CoreTables = append(c.CoreTables, Item[CoreTableType]{def, e.Type.Table})
	case CoreExternMemory:
		c.CoreMemories = append(c.CoreMemories, Item[CoreMemoryType]{def, e.Type.Memory})
	case CoreExternGlobal:
		c.CoreGlobals = append(c.CoreGlobals, Item[CoreGlobalType]{def, e.Type.Global})
	}
	return nil
}

// aliasOuter handles `(alias outer count index (sort))`. A type alias that crosses a component
// boundary may not bring resources along: a component must stay separable from its parent.
func (s *scope) aliasOuter(def *Alias) error {
	switch def.Sort {
	case SortCoreModule, SortComponent:
		if s.inType() {
			return errf(ErrInvalid, "outer aliases in component and instance types may only refer to types, found a %s", def.Sort)
		}
	case SortCoreType, SortType:
	default:
		return errf(ErrInvalid, "an outer alias cannot have sort %s", def.Sort)
	}
	target, err := s.ancestor(def.Count)
	if err != nil {
		return err
	}
	switch def.Sort {
	case SortCoreModule:
		mt, err := target.coreModule(def.Index)
		if err != nil {
			return within(fmt.Sprintf("outer alias %d", def.Count), err)
		}
		s.c.CoreModules = append(s.c.CoreModules, Item[*ModuleType]{def, mt})
	case SortComponent:
		ct, err := target.component(def.Index)
		if err != nil {
			return within(fmt.Sprintf("outer alias %d", def.Count), err)
		}
		s.c.Components = append(s.c.Components, Item[*ComponentType]{def, ct})
	case SortCoreType:
		t, err := target.coreType(def.Index)
		if err != nil {
			return within(fmt.Sprintf("outer alias %d", def.Count), err)
		}
		s.c.CoreTypes = append(s.c.CoreTypes, Item[CoreType]{def, t})
	case SortType:
		t, err := target.typ(def.Index)
		if err != nil {
			return within(fmt.Sprintf("outer alias %d", def.Count), err)
		}
		if def.Count > 0 {
			inner, _ := s.ancestor(def.Count - 1)
			if inner.kind == kindComponent {
				free, err := s.d.hasFreeResources(t)
				if err != nil {
					return err
				}
				if free {
					return errf(ErrInvalid, "outer alias of type %d crosses a component boundary but refers to a resource type", def.Index)
				}
			}
		}
		s.c.Types = append(s.c.Types, Item[Type]{def, t})
	}
	return nil
}
