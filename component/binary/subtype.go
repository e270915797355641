package binary

import (
	"fmt"
	"strings"
)

// resMap binds resources to resources: imported resources of a component to the resources its
// instantiation supplies, defined resources to fresh ones, and the existential resources of an
// expected instance or component type to the provided type's.
type resMap map[*Resource]*Resource

func (m resMap) resolve(r *Resource) *Resource {
	for i := 0; i <= len(m); i++ {
		n, ok := m[r]
		if !ok || n == r {
			return r
		}
		r = n
	}
	return r
}

// substituter rebuilds types with resources replaced according to m. Nodes that do not change
// are shared; memo keeps every rebuilt node unique, so a type used twice stays one node (the
// named-type rules depend on node identity).
type substituter struct {
	d    *decoder
	m    resMap
	memo map[any]any
	// renamed is set when memo was seeded with node renamings (see renameImports); every node
	// must then be visited, not only those that contain handles.
	renamed bool
}

func newSubstituter(d *decoder, m resMap) *substituter {
	return &substituter{d: d, m: m, memo: map[any]any{}}
}

// idle reports whether the substitution changes nothing.
func (u *substituter) idle() bool { return len(u.m) == 0 && !u.renamed }

// renameImports records that the types a component imports stand, in its instance, for the
// types given as arguments: an export of the instance that used an imported type then uses the
// argument's type, whose name the instantiating component knows (wasmparser does the same).
func (u *substituter) renameImports(expected, actual ExternType) {
	switch {
	case expected.Sort == SortType && actual.Sort == SortType:
		if expected.Type != actual.Type {
			u.memo[expected.Type] = actual.Type
			u.renamed = true
		}
	case expected.Sort == SortInstance && actual.Sort == SortInstance:
		for _, e := range expected.Instance.Exports {
			if a, ok := actual.Instance.Export(e.Name.Raw); ok {
				u.renameImports(e.Type, a.Type)
			}
		}
	}
}

func (u *substituter) resNode(rt *ResourceType) (*ResourceType, error) {
	if n, ok := u.memo[rt]; ok {
		if r, ok := n.(*ResourceType); ok {
			return r, nil
		}
	}
	r := u.m.resolve(rt.Resource)
	if r == rt.Resource {
		return rt, nil
	}
	if err := u.d.alloc(1); err != nil {
		return nil, err
	}
	n := &ResourceType{Resource: r}
	u.memo[rt] = n
	return n, nil
}

func (u *substituter) val(t ValType) (ValType, error) {
	if t == nil {
		return nil, nil
	}
	if n, ok := u.memo[t]; ok {
		if v, ok := n.(ValType); ok {
			return v, nil
		}
	}
	if u.idle() || !u.renamed && !t.info().hasHandle {
		return t, nil
	}
	if err := u.d.spend(1); err != nil {
		return nil, err
	}
	out, changed, err := u.valNode(t)
	if err != nil {
		return nil, err
	}
	if !changed {
		out = t
	} else if err := u.d.alloc(1); err != nil {
		return nil, err
	}
	u.memo[t] = out
	return out, nil
}

// valNode rebuilds one value type node; the layout info stays valid because only resource
// identities change.
func (u *substituter) valNode(t ValType) (ValType, bool, error) {
	changed := false
	var firstErr error
	sub := func(v ValType) ValType {
		if firstErr != nil {
			return v
		}
		n, err := u.val(v)
		if err != nil {
			firstErr = err
			return v
		}
		if n != v {
			changed = true
		}
		return n
	}
	var out ValType
	switch t := t.(type) {
	case *RecordType:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = Field{f.Name, sub(f.Type)}
		}
		out = &RecordType{Fields: fs, vi: t.vi}
	case *VariantType:
		cs := make([]Case, len(t.Cases))
		for i, c := range t.Cases {
			cs[i] = Case{c.Name, sub(c.Type)}
		}
		out = &VariantType{Cases: cs, vi: t.vi}
	case *ListType:
		out = &ListType{Elem: sub(t.Elem), vi: t.vi}
	case *TupleType:
		es := make([]ValType, len(t.Elems))
		for i, e := range t.Elems {
			es[i] = sub(e)
		}
		out = &TupleType{Elems: es, vi: t.vi}
	case *OptionType:
		out = &OptionType{Elem: sub(t.Elem), vi: t.vi}
	case *ResultType:
		out = &ResultType{OK: sub(t.OK), Err: sub(t.Err), vi: t.vi}
	case *OwnType:
		r, err := u.resNode(t.Resource)
		if err != nil {
			return nil, false, err
		}
		changed = r != t.Resource
		out = &OwnType{Resource: r, vi: t.vi}
	case *BorrowType:
		r, err := u.resNode(t.Resource)
		if err != nil {
			return nil, false, err
		}
		changed = r != t.Resource
		out = &BorrowType{Resource: r, vi: t.vi}
	default:
		out = t
	}
	if firstErr != nil {
		return nil, false, firstErr
	}
	return out, changed, nil
}

func (u *substituter) typ(t Type) (Type, error) {
	switch t := t.(type) {
	case ValType:
		return u.val(t)
	case *ResourceType:
		return u.resNode(t)
	case *FuncType:
		return u.funcType(t)
	case *InstanceType:
		return u.instanceType(t)
	case *ComponentType:
		return u.componentType(t)
	}
	return t, nil
}

func (u *substituter) funcType(t *FuncType) (*FuncType, error) {
	if n, ok := u.memo[t]; ok {
		if x, ok := n.(*FuncType); ok {
			return x, nil
		}
	}
	if u.idle() {
		return t, nil
	}
	if err := u.d.spend(1); err != nil {
		return nil, err
	}
	changed := false
	ps := make([]Param, len(t.Params))
	for i, p := range t.Params {
		n, err := u.val(p.Type)
		if err != nil {
			return nil, err
		}
		changed = changed || n != p.Type
		ps[i] = Param{p.Name, n}
	}
	res, err := u.val(t.Result)
	if err != nil {
		return nil, err
	}
	changed = changed || res != t.Result
	out := t
	if changed {
		if err := u.d.alloc(1); err != nil {
			return nil, err
		}
		out = &FuncType{Params: ps, Result: res, nodes: t.nodes}
	}
	u.memo[t] = out
	return out, nil
}

func (u *substituter) extern(e ExternType) (ExternType, error) {
	var err error
	switch e.Sort {
	case SortFunc:
		e.Func, err = u.funcType(e.Func)
	case SortType:
		e.Type, err = u.typ(e.Type)
	case SortInstance:
		e.Instance, err = u.instanceType(e.Instance)
	case SortComponent:
		e.Component, err = u.componentType(e.Component)
	case SortValue:
		e.Value, err = u.val(e.Value)
	}
	return e, err
}

// decls substitutes in a list of declarations, returning ds itself when nothing changes.
func (u *substituter) decls(ds []ExternDecl) ([]ExternDecl, bool, error) {
	var out []ExternDecl
	for i, d := range ds {
		n, err := u.extern(d.Type)
		if err != nil {
			return nil, false, err
		}
		if out == nil && n != d.Type {
			if err := u.d.alloc(len(ds)); err != nil {
				return nil, false, err
			}
			out = make([]ExternDecl, len(ds))
			copy(out, ds[:i])
		}
		if out != nil {
			out[i] = ExternDecl{Name: d.Name, Type: n}
		}
	}
	if out == nil {
		return ds, false, nil
	}
	return out, true, nil
}

func (u *substituter) paths(ps []resourcePath) ([]resourcePath, bool) {
	out := make([]resourcePath, len(ps))
	changed := false
	for i, p := range ps {
		r := u.m.resolve(p.Res)
		changed = changed || r != p.Res
		out[i] = resourcePath{Res: r, Path: p.Path}
	}
	return out, changed
}

func (u *substituter) instanceType(t *InstanceType) (*InstanceType, error) {
	if n, ok := u.memo[t]; ok {
		if x, ok := n.(*InstanceType); ok {
			return x, nil
		}
	}
	if u.idle() {
		return t, nil
	}
	if err := u.d.spend(1); err != nil {
		return nil, err
	}
	exps, changed, err := u.decls(t.Exports)
	if err != nil {
		return nil, err
	}
	def, dch := u.paths(t.defined)
	out := t
	if changed || dch {
		if err := u.d.alloc(1); err != nil {
			return nil, err
		}
		out = &InstanceType{Exports: exps, defined: def, index: t.index, nodes: t.nodes, depth: t.depth}
	}
	u.memo[t] = out
	return out, nil
}

func (u *substituter) componentType(t *ComponentType) (*ComponentType, error) {
	if n, ok := u.memo[t]; ok {
		if x, ok := n.(*ComponentType); ok {
			return x, nil
		}
	}
	if u.idle() {
		return t, nil
	}
	if err := u.d.spend(1); err != nil {
		return nil, err
	}
	imps, ich, err := u.decls(t.Imports)
	if err != nil {
		return nil, err
	}
	exps, ech, err := u.decls(t.Exports)
	if err != nil {
		return nil, err
	}
	imported, pch := u.paths(t.imported)
	def, dch := u.paths(t.defined)
	out := t
	if ich || ech || pch || dch {
		if err := u.d.alloc(1); err != nil {
			return nil, err
		}
		out = &ComponentType{Imports: imps, Exports: exps, imported: imported, defined: def,
			index: t.index, eindex: t.eindex, nodes: t.nodes, depth: t.depth}
	}
	u.memo[t] = out
	return out, nil
}

// freshen replaces the given resources with new abstract ones, returning the bindings.
func freshen(ps []resourcePath) resMap {
	m := make(resMap, len(ps))
	for _, p := range ps {
		if _, ok := m[p.Res]; !ok {
			m[p.Res] = &Resource{Name: p.Res.Name, Rep: p.Res.Rep}
		}
	}
	return m
}

// findResource follows path (export names of nested instance types) inside et to a resource
// type export.
func findResource(et ExternType, path []string) (*Resource, error) {
	for _, name := range path {
		if et.Sort != SortInstance {
			return nil, fmt.Errorf("expected an instance with export `%s`, found a %s", name, et.Sort)
		}
		d, ok := et.Instance.Export(name)
		if !ok {
			return nil, fmt.Errorf("instance has no export `%s`", name)
		}
		et = d.Type
	}
	if et.Sort != SortType {
		return nil, fmt.Errorf("expected a resource type, found a %s", et.Sort)
	}
	rt, ok := et.Type.(*ResourceType)
	if !ok {
		return nil, fmt.Errorf("expected a resource type, found `%s`", et.Type)
	}
	return rt.Resource, nil
}

// checker decides subtyping (Explainer.md, "Type Checking"): structural equality for value and
// function types with resources compared by identity under m, and width subtyping for instance,
// component and module types. Labels (fields, cases, parameters) compare ignoring ASCII case, as
// in the reference validator, since kebab-case labels that differ only in case are the same
// name to every bindings generator.
type checker struct {
	d *decoder
	m resMap
}

func newChecker(d *decoder) *checker { return &checker{d: d, m: resMap{}} }

func (k *checker) sameResource(a, b *ResourceType) bool {
	return k.m.resolve(a.Resource) == k.m.resolve(b.Resource)
}

// val reports whether two value types are equal.
func (k *checker) val(a, b ValType) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	if a == b && (len(k.m) == 0 || !a.info().hasHandle) {
		return true, nil
	}
	if err := k.d.spend(1); err != nil {
		return false, err
	}
	eqAll := func(as, bs []ValType) (bool, error) {
		if len(as) != len(bs) {
			return false, nil
		}
		for i := range as {
			if ok, err := k.val(as[i], bs[i]); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	switch a := a.(type) {
	case PrimType:
		return a == b, nil
	case *RecordType:
		b, ok := b.(*RecordType)
		if !ok || len(a.Fields) != len(b.Fields) {
			return false, nil
		}
		for i := range a.Fields {
			if !strings.EqualFold(a.Fields[i].Name, b.Fields[i].Name) {
				return false, nil
			}
			if ok, err := k.val(a.Fields[i].Type, b.Fields[i].Type); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	case *VariantType:
		b, ok := b.(*VariantType)
		if !ok || len(a.Cases) != len(b.Cases) {
			return false, nil
		}
		for i := range a.Cases {
			if !strings.EqualFold(a.Cases[i].Name, b.Cases[i].Name) {
				return false, nil
			}
			if ok, err := k.val(a.Cases[i].Type, b.Cases[i].Type); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	case *ListType:
		b, ok := b.(*ListType)
		if !ok {
			return false, nil
		}
		return k.val(a.Elem, b.Elem)
	case *TupleType:
		b, ok := b.(*TupleType)
		if !ok {
			return false, nil
		}
		return eqAll(a.Elems, b.Elems)
	case *FlagsType:
		b, ok := b.(*FlagsType)
		return ok && equalStrings(a.Names, b.Names), nil
	case *EnumType:
		b, ok := b.(*EnumType)
		return ok && equalStrings(a.Names, b.Names), nil
	case *OptionType:
		b, ok := b.(*OptionType)
		if !ok {
			return false, nil
		}
		return k.val(a.Elem, b.Elem)
	case *ResultType:
		b, ok := b.(*ResultType)
		if !ok {
			return false, nil
		}
		return eqAll([]ValType{a.OK, a.Err}, []ValType{b.OK, b.Err})
	case *OwnType:
		b, ok := b.(*OwnType)
		return ok && k.sameResource(a.Resource, b.Resource), nil
	case *BorrowType:
		b, ok := b.(*BorrowType)
		return ok && k.sameResource(a.Resource, b.Resource), nil
	}
	return false, nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// funcEq reports whether two function types are equal (parameter names included).
func (k *checker) funcEq(a, b *FuncType) error {
	if a == b && len(k.m) == 0 {
		return nil
	}
	mismatch := fmt.Errorf("expected `%s`, found `%s`", b, a)
	if len(a.Params) != len(b.Params) {
		return mismatch
	}
	for i := range a.Params {
		if !strings.EqualFold(a.Params[i].Name, b.Params[i].Name) {
			return mismatch
		}
		if ok, err := k.val(a.Params[i].Type, b.Params[i].Type); err != nil {
			return err
		} else if !ok {
			return mismatch
		}
	}
	if ok, err := k.val(a.Result, b.Result); err != nil {
		return err
	} else if !ok {
		return mismatch
	}
	return nil
}

// typeSub checks type a against type b for `type` imports, exports and arguments.
func (k *checker) typeSub(a, b Type) error {
	mismatch := fmt.Errorf("expected `%s`, found `%s`", b, a)
	switch b := b.(type) {
	case ValType:
		av, ok := a.(ValType)
		if !ok {
			return mismatch
		}
		eq, err := k.val(av, b)
		if err != nil {
			return err
		}
		if !eq {
			return mismatch
		}
		return nil
	case *ResourceType:
		ar, ok := a.(*ResourceType)
		if !ok || !k.sameResource(ar, b) {
			return mismatch
		}
		return nil
	case *FuncType:
		af, ok := a.(*FuncType)
		if !ok {
			return mismatch
		}
		return k.funcEq(af, b)
	case *InstanceType:
		ai, ok := a.(*InstanceType)
		if !ok {
			return mismatch
		}
		return k.instanceSub(ai, b)
	case *ComponentType:
		ac, ok := a.(*ComponentType)
		if !ok {
			return mismatch
		}
		return k.componentSub(ac, b)
	}
	return mismatch
}

// extern checks that a provided item of type a may be used where b is expected.
func (k *checker) extern(a, b ExternType) error {
	if a.Sort != b.Sort {
		return fmt.Errorf("expected a %s, found a %s", b.Sort, a.Sort)
	}
	if err := k.d.spend(1); err != nil {
		return err
	}
	switch a.Sort {
	case SortCoreModule:
		if err := k.d.spend(len(a.Module.Imports) + len(b.Module.Exports)); err != nil {
			return err
		}
		return moduleSubtype(a.Module, b.Module)
	case SortFunc:
		return k.funcEq(a.Func, b.Func)
	case SortType:
		return k.typeSub(a.Type, b.Type)
	case SortInstance:
		return k.instanceSub(a.Instance, b.Instance)
	case SortComponent:
		return k.componentSub(a.Component, b.Component)
	case SortValue:
		ok, err := k.val(a.Value, b.Value)
		if err == nil && !ok {
			err = fmt.Errorf("expected `%s`, found `%s`", b.Value, a.Value)
		}
		return err
	}
	return fmt.Errorf("cannot compare %s types", a.Sort)
}

// bind maps the resources listed in ps to those found at the same paths in the items that
// lookup returns.
func (k *checker) bind(ps []resourcePath, lookup func(name string) (ExternType, bool)) error {
	for _, p := range ps {
		if len(p.Path) == 0 {
			continue
		}
		if _, done := k.m[p.Res]; done {
			continue
		}
		et, ok := lookup(p.Path[0])
		if !ok {
			return fmt.Errorf("missing `%s`, which provides a resource", p.Path[0])
		}
		r, err := findResource(et, p.Path[1:])
		if err != nil {
			return fmt.Errorf("`%s`: %v", p.Path[0], err)
		}
		k.m[p.Res] = r
	}
	return nil
}

// instanceSub checks that an instance of type a has every export of b with a subtype.
func (k *checker) instanceSub(a, b *InstanceType) error {
	if a == b && len(k.m) == 0 {
		return nil
	}
	err := k.bind(b.defined, func(name string) (ExternType, bool) {
		d, ok := a.Export(name)
		return d.Type, ok
	})
	if err != nil {
		return err
	}
	for _, e := range b.Exports {
		got, ok := a.Export(e.Name.Raw)
		if !ok {
			return fmt.Errorf("missing export `%s`", e.Name.Raw)
		}
		if err := k.extern(got.Type, e.Type); err != nil {
			return fmt.Errorf("export `%s`: %w", e.Name.Raw, err)
		}
	}
	return nil
}

// componentSub checks that a component of type a may be used where b is expected: it imports
// no more than b and exports at least what b exports.
func (k *checker) componentSub(a, b *ComponentType) error {
	if a == b && len(k.m) == 0 {
		return nil
	}
	err := k.bind(a.imported, func(name string) (ExternType, bool) {
		d, ok := b.Import(name)
		return d.Type, ok
	})
	if err != nil {
		return err
	}
	err = k.bind(b.defined, func(name string) (ExternType, bool) {
		d, ok := a.Export(name)
		return d.Type, ok
	})
	if err != nil {
		return err
	}
	for _, im := range a.Imports {
		want, ok := b.Import(im.Name.Raw)
		if !ok {
			return fmt.Errorf("component imports `%s`, which is not provided", im.Name.Raw)
		}
		if err := k.extern(want.Type, im.Type); err != nil {
			return fmt.Errorf("import `%s`: %w", im.Name.Raw, err)
		}
	}
	for _, e := range b.Exports {
		got, ok := a.Export(e.Name.Raw)
		if !ok {
			return fmt.Errorf("missing export `%s`", e.Name.Raw)
		}
		if err := k.extern(got.Type, e.Type); err != nil {
			return fmt.Errorf("export `%s`: %w", e.Name.Raw, err)
		}
	}
	return nil
}
