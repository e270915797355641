package binary

import (
	"fmt"
)

// readSort reads a component-level sort (Binary.md: sort).
func readSort(r *reader) (Sort, error) {
	off := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return 0, err
	}
	switch b {
	case 0x00:
		return readCoreSort(r)
	case 0x01:
		return SortFunc, nil
	case 0x02:
		return SortValue, nil
	case 0x03:
		return SortType, nil
	case 0x04:
		return SortComponent, nil
	case 0x05:
		return SortInstance, nil
	}
	return 0, at(off, errf(ErrMalformed, "unknown sort 0x%02x", b))
}

// readExternName reads `nameattributes` and parses the name.
func readExternName(r *reader) (Name, error) {
	off := r.Offset()
	tag, err := r.Byte()
	if err != nil {
		return Name{}, err
	}
	if tag > 0x02 {
		return Name{}, at(off, errf(ErrMalformed, "unknown extern name encoding 0x%02x", tag))
	}
	noff := r.Offset()
	raw, err := r.Name()
	if err != nil {
		return Name{}, err
	}
	n, err := ParseName(raw)
	if err != nil {
		return n, at(noff, errf(ErrInvalid, "name %s is not a valid extern name: %v", q(raw), err))
	}
	if tag != 0x02 {
		if err := checkVersion(n); err != nil {
			return n, at(noff, errf(ErrInvalid, "name %s is not a valid extern name: %v", q(raw), err))
		}
		return n, nil
	}
	count, err := r.Count("name attribute", 2, 0)
	if err != nil {
		return n, err
	}
	var seen [3]bool
	for i := uint32(0); i < count; i++ {
		aoff := r.Offset()
		kind, err := r.Byte()
		if err != nil {
			return n, err
		}
		if kind > 0x02 {
			return n, at(aoff, errf(ErrMalformed, "unknown name attribute 0x%02x", kind))
		}
		if seen[kind] {
			return n, at(aoff, errf(ErrInvalid, "name %s repeats an attribute", q(raw)))
		}
		seen[kind] = true
		v, err := r.Name()
		if err != nil {
			return n, err
		}
		switch kind {
		case 0x00:
			in, err := ParseName(v)
			if err != nil || in.Kind != NameInterface {
				return n, at(aoff, errf(ErrInvalid, "implements %s is not an interface name", q(v)))
			}
			n.Implements = v
		case 0x01:
			for j := 0; j < len(v); j++ {
				c := v[j]
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '+' || c == '-') {
					return n, at(aoff, errf(ErrInvalid, "versionsuffix %s has a character outside [0-9A-Za-z.+-]", q(v)))
				}
			}
			n.VersionSuffix = v
			if err := checkVersionSuffix(n); err != nil {
				return n, at(aoff, errf(ErrInvalid, "%v", err))
			}
		case 0x02:
			n.ExternalID = v
		}
	}
	if err := checkVersion(n); err != nil {
		return n, at(noff, errf(ErrInvalid, "name %s is not a valid extern name: %v", q(raw), err))
	}
	return n, nil
}

// readExternType reads and resolves an externtype. A `(type (sub resource))` bound creates a
// fresh abstract resource named name.
func (s *scope) readExternType(r *reader, name string) (et ExternType, fresh bool, err error) {
	off := r.Offset()
	tag, err := r.Byte()
	if err != nil {
		return et, false, err
	}
	idxOff := r.Offset()
	switch tag {
	case 0x00:
		b, err := r.Byte()
		if err != nil {
			return et, false, err
		}
		if b != 0x11 {
			return et, false, at(off, errf(ErrInvalid, "the only core sort that can be imported or exported is module (0x11), found 0x%02x", b))
		}
		idx, err := r.U32()
		if err != nil {
			return et, false, err
		}
		t, err := s.coreType(idx)
		if err != nil {
			return et, false, at(idxOff, err)
		}
		mt, ok := t.(*ModuleType)
		if !ok {
			return et, false, at(idxOff, errf(ErrInvalid, "core type %d is a function type, not a module type", idx))
		}
		return ExternType{Sort: SortCoreModule, Module: mt}, false, nil
	case 0x01, 0x04, 0x05:
		idx, err := r.U32()
		if err != nil {
			return et, false, err
		}
		switch tag {
		case 0x01:
			ft, err := s.funcType(idx)
			return ExternType{Sort: SortFunc, Func: ft}, false, at(idxOff, err)
		case 0x04:
			ct, err := s.componentType(idx)
			return ExternType{Sort: SortComponent, Component: ct}, false, at(idxOff, err)
		default:
			it, err := s.instanceType(idx)
			return ExternType{Sort: SortInstance, Instance: it}, false, at(idxOff, err)
		}
	case 0x02:
		return et, false, at(off, unsupported("value imports and exports (🪙)"))
	case 0x03:
		b, err := r.Byte()
		if err != nil {
			return et, false, err
		}
		switch b {
		case 0x00:
			idx, err := r.U32()
			if err != nil {
				return et, false, err
			}
			t, err := s.typ(idx)
			if err != nil {
				return et, false, at(idxOff, err)
			}
			return ExternType{Sort: SortType, Type: t}, false, nil
		case 0x01:
			res := &Resource{Name: name, Rep: CoreI32}
			return ExternType{Sort: SortType, Type: &ResourceType{Resource: res}}, true, nil
		}
		return et, false, at(idxOff, errf(ErrMalformed, "unknown type bound 0x%02x", b))
	}
	return et, false, at(off, errf(ErrMalformed, "unknown extern type 0x%02x", tag))
}

// aliasNode gives an imported or exported type its own node, so that the named-type rules can
// tell it from the definition it equals (Explainer.md, "External Visibility of Types"). Only
// the kinds those rules look at need a node of their own.
func aliasNode(t Type) Type {
	switch t := t.(type) {
	case *ResourceType:
		return &ResourceType{Resource: t.Resource}
	case *RecordType:
		n := *t
		return &n
	case *VariantType:
		n := *t
		return &n
	case *EnumType:
		n := *t
		return &n
	case *FlagsType:
		n := *t
		return &n
	}
	return t
}

type externKind uint8

const (
	asImport externKind = iota
	asExport
)

func (k externKind) String() string {
	if k == asImport {
		return "import"
	}
	return "export"
}

// declare adds an import or export (of the component or of a component or instance type) to
// the scope: it freshens the abstract resources of an instance type, gives type imports and
// exports their own node, checks the name rules and the external visibility of types, and
// appends the item to its index space. fresh says et is a newly created abstract resource.
func (s *scope) declare(kind externKind, name Name, et ExternType, fresh bool, def Definition) (ExternType, error) {
	introduce := func(p resourcePath) {
		if kind == asImport {
			s.imported = append(s.imported, p)
		} else {
			s.defined = append(s.defined, p)
		}
	}
	switch et.Sort {
	case SortInstance:
		if len(et.Instance.defined) > 0 {
			m := freshen(et.Instance.defined)
			it, err := newSubstituter(s.d, m).instanceType(et.Instance)
			if err != nil {
				return et, err
			}
			bound := *it
			bound.defined = nil
			for _, p := range et.Instance.defined {
				introduce(resourcePath{Res: m[p.Res], Path: append([]string{name.Raw}, p.Path...)})
			}
			et.Instance = &bound
		}
	case SortType:
		if fresh {
			introduce(resourcePath{Res: et.Type.(*ResourceType).Resource, Path: []string{name.Raw}})
		} else {
			et.Type = aliasNode(et.Type)
		}
	case SortValue:
		return et, unsupported("value imports and exports (🪙)")
	}
	if err := s.checkName(kind, name, et); err != nil {
		return et, err
	}
	if s.kind != kindInstanceType && !s.registerNamed(kind, et) {
		return et, errf(ErrInvalid, "%s `%s`: its type uses a type that is not itself imported or exported by name", kind, name.Raw)
	}
	if err := s.d.spend(0); err != nil {
		return et, err
	}
	s.addItem(def, et)
	return et, nil
}

// checkName checks an import or export name: uniqueness in its scope and the rules for
// [constructor], [method], [static] and name attributes.
func (s *scope) checkName(kind externKind, name Name, et ExternType) error {
	if s.importNames == nil {
		s.importNames, s.exportNames = map[string]string{}, map[string]string{}
	}
	names, ctx := s.importNames, &s.importRes
	if kind == asExport {
		names, ctx = s.exportNames, &s.exportRes
	}
	if err := checkNameRules(ctx, name, et); err != nil {
		return errf(ErrInvalid, "%s name `%s` is not valid: %v", kind, name.Raw, err)
	}
	key := uniqueKey(name)
	if prev, dup := names[key]; dup {
		return errf(ErrInvalid, "%s name `%s` conflicts with `%s`", kind, name.Raw, prev)
	}
	names[key] = name.Raw
	if et.Sort == SortType && !s.bag {
		if rt, ok := et.Type.(*ResourceType); ok {
			ctx.register(rt, name.Raw)
			if rt.Resource.Name == "" {
				rt.Resource.Name = name.Raw
			}
		}
	}
	return nil
}

// checkNameRules applies the type rules of annotated names within a resource name context.
func checkNameRules(ctx *nameContext, name Name, et ExternType) error {
	if name.Implements != "" {
		if name.Kind != NameLabel {
			return fmt.Errorf("`implements` needs a plain label name")
		}
		if et.Sort != SortInstance {
			return fmt.Errorf("only instances can have `implements`")
		}
	}
	if name.VersionSuffix != "" && et.Sort != SortInstance {
		return fmt.Errorf("only instances can have a `versionsuffix`")
	}
	resourceNamed := func(rt *ResourceType, want string) error {
		got, ok := ctx.byNode[rt]
		if !ok {
			return fmt.Errorf("the resource it uses has no name in this scope")
		}
		if got != want {
			return fmt.Errorf("the resource it uses is named `%s`, not `%s`", got, want)
		}
		return nil
	}
	switch name.Kind {
	case NameConstructor:
		if et.Sort != SortFunc {
			return fmt.Errorf("a constructor must be a func, found a %s", et.Sort)
		}
		var own *OwnType
		switch t := et.Func.Result.(type) {
		case *OwnType:
			own = t
		case *ResultType:
			own, _ = t.OK.(*OwnType)
		}
		if own == nil {
			return fmt.Errorf("a constructor must return `own<%s>` or `result<own<%s>, …>`", name.Label, name.Label)
		}
		return resourceNamed(own.Resource, name.Label)
	case NameMethod:
		if et.Sort != SortFunc {
			return fmt.Errorf("a method must be a func, found a %s", et.Sort)
		}
		if len(et.Func.Params) == 0 || et.Func.Params[0].Name != "self" {
			return fmt.Errorf("a method's first parameter must be named `self`")
		}
		b, ok := et.Func.Params[0].Type.(*BorrowType)
		if !ok {
			return fmt.Errorf("a method's first parameter must be `borrow<%s>`", name.Label)
		}
		return resourceNamed(b.Resource, name.Label)
	case NameStatic:
		if et.Sort != SortFunc {
			return fmt.Errorf("a static function must be a func, found a %s", et.Sort)
		}
		if !ctx.names[name.Label] {
			return fmt.Errorf("no resource named `%s` precedes it", name.Label)
		}
	}
	return nil
}

// registerNamed implements the external visibility rule: every record, variant, enum, flags and
// resource type reachable from an import's (export's) type must itself have been imported
// (exported, or imported) by name. Type imports and exports become named as they are declared.
func (s *scope) registerNamed(kind externKind, et ExternType) bool {
	s.d.work++
	set := s.exportedNamed
	if kind == asImport {
		set = s.importedNamed
	}
	switch et.Sort {
	case SortType:
		if !s.allNamed(et.Type, set) {
			return false
		}
		if kind == asImport {
			s.importedNamed[et.Type] = true
		}
		s.exportedNamed[et.Type] = true
		return true
	case SortInstance:
		for _, e := range et.Instance.Exports {
			if !s.registerNamed(kind, e.Type) {
				return false
			}
		}
		return true
	case SortFunc:
		return funcNamed(et.Func, set)
	case SortValue:
		return valNamed(et.Value, set)
	}
	return true
}

func (s *scope) allNamed(t Type, set map[Type]bool) bool {
	switch t := t.(type) {
	case *ResourceType, *ComponentType:
		return true
	case *FuncType:
		return funcNamed(t, set)
	case *InstanceType:
		return instanceNamed(t, set)
	case ValType:
		return defNamed(t, set)
	}
	return true
}

func instanceNamed(t *InstanceType, set map[Type]bool) bool {
	if set[t] {
		return true
	}
	for _, e := range t.Exports {
		switch e.Type.Sort {
		case SortFunc:
			if !funcNamed(e.Type.Func, set) {
				return false
			}
		case SortType:
			switch x := e.Type.Type.(type) {
			case *FuncType:
				if !funcNamed(x, set) {
					return false
				}
			case *InstanceType:
				if !instanceNamed(x, set) {
					return false
				}
			case ValType:
				if !defNamed(x, set) {
					return false
				}
			}
		case SortInstance:
			if !instanceNamed(e.Type.Instance, set) {
				return false
			}
		case SortValue:
			if !valNamed(e.Type.Value, set) {
				return false
			}
		}
	}
	set[t] = true
	return true
}

func funcNamed(f *FuncType, set map[Type]bool) bool {
	if set[f] {
		return true
	}
	for _, p := range f.Params {
		if !valNamed(p.Type, set) {
			return false
		}
	}
	if f.Result != nil && !valNamed(f.Result, set) {
		return false
	}
	set[f] = true
	return true
}

// defNamed checks the components of a value type that is being named itself (a type import or
// export): the type itself needs no name, what it refers to does.
func defNamed(t ValType, set map[Type]bool) bool {
	switch t := t.(type) {
	case *RecordType:
		for _, f := range t.Fields {
			if !valNamed(f.Type, set) {
				return false
			}
		}
		return true
	case *VariantType:
		for _, c := range t.Cases {
			if !valNamed(c.Type, set) {
				return false
			}
		}
		return true
	case *EnumType, *FlagsType, PrimType:
		return true
	}
	return valNamed(t, set)
}

// valNamed checks a value type used inside another: records, variants, enums, flags and
// resources must be named themselves; other types must have named components. Anonymous types
// found valid are remembered in set, which keeps repeated checks of shared types linear.
func valNamed(t ValType, set map[Type]bool) bool {
	if t == nil {
		return true
	}
	if set[t] {
		return true
	}
	ok := true
	switch t := t.(type) {
	case PrimType:
		return true
	case *RecordType, *VariantType, *EnumType, *FlagsType:
		return false
	case *ListType:
		ok = valNamed(t.Elem, set)
	case *OptionType:
		ok = valNamed(t.Elem, set)
	case *TupleType:
		for _, e := range t.Elems {
			if !valNamed(e, set) {
				ok = false
				break
			}
		}
	case *ResultType:
		ok = valNamed(t.OK, set) && valNamed(t.Err, set)
	case *OwnType:
		return set[t.Resource]
	case *BorrowType:
		return set[t.Resource]
	}
	if ok {
		set[t] = true
	}
	return ok
}
