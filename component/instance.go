package component

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// ComponentInstance is an instantiated component: its core instances in one engine store, its
// resource handle table, and the host functions its imports were linked to. Calls into it are
// serialised by the spec's may_enter rule: a second call while one is running (from a host
// function the guest called, or from another goroutine) fails with ErrReentrance rather than
// racing. Use one instance per goroutine, or one store per concurrent user.
type ComponentInstance struct {
	cc     *Compiled
	linker *Linker
	store  *engine.Store

	core []*engine.Instance // by core instance index: module instances and glue instances

	busy     atomic.Bool // !may_enter
	mayLeave bool        // only touched while busy
	dead     error       // set when a call overran the fuel limit; only touched while busy

	table   *abi.ResourceTable
	rtypes  map[*Resource]*abi.ResourceType
	local   map[*abi.ResourceType]*Resource
	hostRes map[*abi.ResourceType]*HostResource

	// parent is the instance that instantiated this nested component with args (nil for the
	// top level); children are the nested component instances this one created.
	parent   *ComponentInstance
	args     []InstantiateArg
	children map[*Instance]*ComponentInstance
	// foreign maps the resource types of other component instances (a parent's, passed in as
	// imports) to the instance that defines them and runs their destructors.
	foreign map[*abi.ResourceType]*ComponentInstance

	mu     *sync.Mutex // shared by an instance tree; guards the caches below and types
	types  ABITypes
	funcs  map[uint32]*funcImpl
	byName map[string]*Func
	tramps []*trampState
	// liftGlue is the instance of cc.liftGlue, when the component lifts a trampoline.
	liftGlue *engine.Instance
}

// funcImpl is a component function: lifted from a core function (lift) or implemented by the
// host (host), with its abi type in this instance.
type funcImpl struct {
	ft    *abi.FuncType
	lift  *Canon
	host  HostFunc
	owner *ComponentInstance // the instance whose core function lift names
	warm  *exportCall        // for lift: what every call needs, resolved by the first
}

func newInstance(ctx context.Context, l *Linker, s *engine.Store, cc *Compiled, parent *ComponentInstance, args []InstantiateArg) (*ComponentInstance, error) {
	c := cc.comp
	mu := &sync.Mutex{}
	if parent != nil {
		mu = parent.mu
	}
	in := &ComponentInstance{
		cc: cc, linker: l, store: s, parent: parent, args: args, mu: mu,
		children: map[*Instance]*ComponentInstance{},
		foreign:  map[*abi.ResourceType]*ComponentInstance{},
		core:     make([]*engine.Instance, len(c.CoreInstances)),
		rtypes:   map[*Resource]*abi.ResourceType{},
		local:    map[*abi.ResourceType]*Resource{},
		hostRes:  map[*abi.ResourceType]*HostResource{},
		funcs:    map[uint32]*funcImpl{},
		byName:   map[string]*Func{},
		tramps:   make([]*trampState, len(cc.tramps)),
	}
	// Resource types are generative: every instance gets fresh ones for its own definitions,
	// and the host's for its imports. Those of a second instance of the component in the store
	// are told apart in messages by its number.
	var locals []*abi.ResourceType
	nth := len(registry(s, cc).all) + 1
	for _, r := range cc.resources {
		name := r.Name
		if name == "" {
			name = cc.resourceNames[r]
		}
		if name == "" {
			name = "resource"
		}
		if nth > 1 {
			name += " (instance " + strconv.Itoa(nth) + ")"
		}
		rt := abi.NewResourceType(name)
		in.rtypes[r] = rt
		in.local[rt] = r
		locals = append(locals, rt)
	}
	if err := in.bindImports(); err != nil {
		return nil, err
	}
	in.types.Resource = func(r *Resource) *abi.ResourceType { return in.rtypes[r] }
	in.table = abi.NewResourceTable(locals...)
	register(in)
	ok := false
	defer func() {
		if !ok {
			unregister(in)
		}
	}()

	if cc.liftGlue != nil {
		inst, err := in.instantiateEngine(ctx, cc.liftGlue, engine.Imports{canonModule: cc.host})
		if err != nil {
			return nil, fmt.Errorf("lifted trampolines: %w", err)
		}
		in.liftGlue = inst
	}
	for _, d := range c.Definitions {
		switch d := d.(type) {
		case *CoreInstance:
			if err := in.instantiateCore(ctx, cc.coreInstOf[d], d); err != nil {
				return nil, err
			}
		case *Instance:
			if d.FromExports {
				continue
			}
			sub, err := in.component(d.Component, 0)
			if err != nil {
				return nil, fmt.Errorf("instantiating component %d (offset 0x%x): %w", d.Component, d.Offset, err)
			}
			child, err := newInstance(ctx, l, s, sub, in, d.Args)
			if err != nil {
				return nil, fmt.Errorf("nested component %d: %w", d.Component, err)
			}
			in.children[d] = child
			if err := in.bindChildResources(cc.instOf[d], child); err != nil {
				return nil, fmt.Errorf("nested component %d: %w", d.Component, err)
			}
		case *Canon:
			// Resolve trampolines as they are defined, so that an import the linker defines
			// with the wrong Go type fails instantiation rather than the first call.
			if k, ok := cc.trampIdx[d]; ok {
				in.mu.Lock()
				_, err := in.trampLocked(k)
				in.mu.Unlock()
				if err != nil {
					return nil, err
				}
			}
		case *Start:
			if err := in.start(ctx, d); err != nil {
				return nil, err
			}
		}
	}
	ok = true
	return in, nil
}

// start runs a component start function at its place in the definition order
// (Explainer.md, "Start Definitions"). Without value definitions, which are out of scope, it
// takes no arguments and returns nothing. It is called like an export from the host: through
// canon lift, in an engine frame of its own (the store's fuel budget and deadline).
func (in *ComponentInstance) start(ctx context.Context, d *Start) error {
	if len(d.Args) != 0 || d.Results != 0 {
		return fmt.Errorf("%w: start function with %d arguments and %d results: value definitions (offset 0x%x)", ErrRuntimeUnsupported, len(d.Args), d.Results, d.Offset)
	}
	in.mu.Lock()
	f, err := in.resolveFunc(d.Func, 0)
	in.mu.Unlock()
	if err != nil {
		return fmt.Errorf("start function %d: %w", d.Func, err)
	}
	if len(f.ft.Params()) != 0 || len(f.ft.Results()) != 0 {
		return fmt.Errorf("start function %d: %w: type %s takes or returns values", d.Func, ErrRuntimeUnsupported, f.ft)
	}
	if _, err := f.callFrom(ctx, nil, true); err != nil {
		return fmt.Errorf("start function %d: %w", d.Func, err)
	}
	return nil
}

// bindImports checks that the linker satisfies every import and binds imported resource types to
// the host's.
func (in *ComponentInstance) bindImports() error {
	if in.parent != nil {
		return in.bindArgs()
	}
	for _, im := range in.cc.comp.Imports {
		switch im.Type.Sort {
		case SortFunc:
			if _, err := in.linker.importedFunc(Name{}, im.Name.Raw); err != nil {
				return err
			}
		case SortType:
			// A type import bounded by (eq …) to a resource imported earlier is that
			// resource, not a new import for the host to satisfy.
			if rt, ok := im.Type.Type.(*ResourceType); ok && in.rtypes[rt.Resource] == nil {
				if err := in.bindResource(Name{}, im.Name.Raw, rt.Resource); err != nil {
					return err
				}
			}
		case SortInstance:
			for _, d := range im.Type.Instance.Exports {
				switch d.Type.Sort {
				case SortFunc:
					if _, err := in.linker.importedFunc(im.Name, d.Name.Raw); err != nil {
						return err
					}
				case SortType:
					if rt, ok := d.Type.Type.(*ResourceType); ok {
						if err := in.bindResource(im.Name, d.Name.Raw, rt.Resource); err != nil {
							return err
						}
					}
				case SortInstance, SortComponent, SortCoreModule:
					return fmt.Errorf("%w: import %s exports a %s", ErrRuntimeUnsupported, im.Name.Raw, d.Type.Sort)
				}
			}
		default:
			return fmt.Errorf("%w: import %s of sort %s", ErrRuntimeUnsupported, im.Name.Raw, im.Type.Sort)
		}
	}
	return nil
}

// bindArgs binds the resource types a nested component imports to those of the arguments its
// parent instantiated it with. Functions are resolved through the parent when first needed.
func (in *ComponentInstance) bindArgs() error {
	p := in.parent
	bind := func(r *Resource, pr *Resource) error {
		rt := p.rtypes[pr]
		if rt == nil {
			return fmt.Errorf("BUG: resource %s has no type in the parent instance", pr.Name)
		}
		in.rtypes[r] = rt
		if hr := p.hostRes[rt]; hr != nil {
			in.hostRes[rt] = hr
		} else if owner := p.foreign[rt]; owner != nil {
			in.foreign[rt] = owner
		} else if p.local[rt] != nil {
			in.foreign[rt] = p
		}
		return nil
	}
	for _, im := range in.cc.comp.Imports {
		a, err := in.arg(im.Name.Raw, im.Type.Sort)
		if err != nil {
			return err
		}
		switch im.Type.Sort {
		case SortType:
			rt, ok := im.Type.Type.(*ResourceType)
			if !ok || in.rtypes[rt.Resource] != nil {
				continue
			}
			prt, ok := p.cc.comp.Types[a.Index].Type.(*ResourceType)
			if !ok {
				return fmt.Errorf("%w: import %s: argument is not a resource type", ErrLinkType, im.Name.Raw)
			}
			if err := bind(rt.Resource, prt.Resource); err != nil {
				return err
			}
		case SortInstance:
			pt := p.cc.comp.Instances[a.Index].Type
			for _, d := range im.Type.Instance.Exports {
				rt, ok := d.Type.Type.(*ResourceType)
				if d.Type.Sort != SortType || !ok || in.rtypes[rt.Resource] != nil {
					continue
				}
				pd, ok := pt.Export(d.Name.Raw)
				prt, isRes := pd.Type.Type.(*ResourceType)
				if !ok || pd.Type.Sort != SortType || !isRes {
					return fmt.Errorf("%w: import %s: argument has no resource type %q", ErrLinkType, im.Name.Raw, d.Name.Raw)
				}
				if err := bind(rt.Resource, prt.Resource); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// bindChildResources binds the resource types the parent sees in the exports of nested instance
// idx (fresh abstract types, as instantiation makes them) to the child's types, so that values of
// them cross between the two and the child's destructors run.
func (in *ComponentInstance) bindChildResources(idx int, child *ComponentInstance) error {
	for _, d := range in.cc.comp.Instances[idx].Type.Exports {
		rt, ok := d.Type.Type.(*ResourceType)
		if d.Type.Sort != SortType || !ok || in.rtypes[rt.Resource] != nil {
			continue
		}
		t, err := child.resourceType(d.Name.Raw)
		if err != nil {
			return err
		}
		in.rtypes[rt.Resource] = t
		switch {
		case child.hostRes[t] != nil:
			in.hostRes[t] = child.hostRes[t]
		case child.foreign[t] != nil:
			in.foreign[t] = child.foreign[t]
		case child.local[t] != nil:
			in.foreign[t] = child
		}
	}
	return nil
}

// arg returns the argument the parent gave for the nested component's import name.
func (in *ComponentInstance) arg(name string, sort Sort) (InstantiateArg, error) {
	for _, a := range in.args {
		if a.Name == name {
			if a.Sort != sort {
				return a, fmt.Errorf("%w: nested component import %q given a %s, not a %s", ErrLinkType, name, a.Sort, sort)
			}
			return a, nil
		}
	}
	return InstantiateArg{}, fmt.Errorf("%w: nested component import %q has no argument", ErrMissingImport, name)
}

func (in *ComponentInstance) bindResource(iface Name, name string, r *Resource) error {
	hr, err := in.linker.importedResource(iface, name)
	if err != nil {
		return err
	}
	in.rtypes[r] = hr.Type
	in.hostRes[hr.Type] = hr
	return nil
}

func (in *ComponentInstance) instantiateCore(ctx context.Context, idx int, d *CoreInstance) error {
	p := in.cc.coreInsts[idx]
	imports := engine.Imports{}
	var mod *engine.Module
	if d.FromExports {
		if p.glue == nil {
			return nil // only aliased from: resolved statically
		}
		mod = p.glue
		if in.cc.host != nil {
			imports[canonModule] = in.cc.host
		}
		for _, n := range p.glueFrom {
			if in.core[n] == nil {
				return fmt.Errorf("core instance %d: BUG: core instance %d not instantiated", idx, n)
			}
			imports[fmt.Sprintf("i%d", n)] = in.core[n]
		}
	} else {
		var err error
		if mod, err = in.coreModule(d.Module, 0); err != nil {
			return fmt.Errorf("core instance %d: %w", idx, err)
		}
		for _, a := range d.Args {
			prov := in.core[a.Instance]
			if prov == nil {
				return fmt.Errorf("core instance %d: argument %q: %w: core instance %d cannot be passed", idx, a.Name, ErrRuntimeUnsupported, a.Instance)
			}
			imports[a.Name] = prov
		}
	}
	inst, err := in.instantiateEngine(ctx, mod, imports)
	if err != nil {
		return fmt.Errorf("core instance %d: %w", idx, err)
	}
	in.core[idx] = inst
	return nil
}

// instantiateEngine instantiates a core module for the instance. A start function in it runs
// with the instance marked as running (a call back into it through an import fails may_enter)
// and allowed to call imports; the trampolines it calls find the instance as the pending one,
// since the engine lists the core instance only once its start function returned.
func (in *ComponentInstance) instantiateEngine(ctx context.Context, mod *engine.Module, imports engine.Imports) (*engine.Instance, error) {
	reg := registry(in.store, in.cc)
	in.busy.Store(true)
	in.mayLeave = true
	prev := reg.pending
	reg.pending = in
	defer func() {
		reg.pending = prev
		in.mayLeave = false
		in.busy.Store(false)
	}()
	inst, err := in.store.Instantiate(ctx, mod, imports)
	if err != nil {
		return nil, err
	}
	reg.byCore[inst] = in
	return inst, nil
}

// coreModule returns core module i of the instance's component: one it defines or outer-aliases
// (resolved at compile time), or, in a nested component, one its parent passed for an import,
// or an outer alias of such an import in an enclosing component.
func (in *ComponentInstance) coreModule(i uint32, depth int) (*engine.Module, error) {
	if int(i) < len(in.cc.modules) && in.cc.modules[i] != nil {
		return in.cc.modules[i], nil
	}
	c := in.cc.comp
	if int(i) >= len(c.CoreModules) || depth > maxResolveDepth {
		return nil, fmt.Errorf("core module %d cannot be resolved", i)
	}
	switch d := c.CoreModules[i].Def.(type) {
	case *Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, SortCoreModule)
			if err != nil {
				return nil, err
			}
			return in.parent.coreModule(a.Index, depth+1)
		}
		return nil, fmt.Errorf("%w: core module %d is imported by the root component (the linker defines no modules)", ErrRuntimeUnsupported, i)
	case *Alias:
		if d.Kind == AliasOuter {
			if p := in.enclosing(d.Count); p != nil {
				return p.coreModule(d.Index, depth+1)
			}
			return nil, fmt.Errorf("BUG: core module %d: no instance of the component %d scopes out", i, d.Count)
		}
	}
	return nil, fmt.Errorf("%w: core module %d is aliased from an instance export", ErrRuntimeUnsupported, i)
}

// component returns component i of the instance's component, as coreModule does modules.
func (in *ComponentInstance) component(i uint32, depth int) (*Compiled, error) {
	if int(i) < len(in.cc.nested) && in.cc.nested[i] != nil {
		return in.cc.nested[i], nil
	}
	c := in.cc.comp
	if int(i) >= len(c.Components) || depth > maxResolveDepth {
		return nil, fmt.Errorf("component %d cannot be resolved", i)
	}
	switch d := c.Components[i].Def.(type) {
	case *Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, SortComponent)
			if err != nil {
				return nil, err
			}
			return in.parent.component(a.Index, depth+1)
		}
		return nil, fmt.Errorf("%w: component %d is imported by the root component (the linker defines no components)", ErrRuntimeUnsupported, i)
	case *Alias:
		if d.Kind == AliasOuter {
			if p := in.enclosing(d.Count); p != nil {
				return p.component(d.Index, depth+1)
			}
			return nil, fmt.Errorf("BUG: component %d: no instance of the component %d scopes out", i, d.Count)
		}
	}
	return nil, fmt.Errorf("%w: component %d is aliased from an instance export", ErrRuntimeUnsupported, i)
}

// enclosing returns the instance of the component count scopes out of the definition of this
// instance's component. Definitions flow only inward (by outer alias or as instantiation
// arguments to nested instances), so that component's instance is an ancestor in the instance
// tree, and the only one of it: a component cannot be instantiated inside itself.
func (in *ComponentInstance) enclosing(count uint32) *ComponentInstance {
	target := in.cc.outer(count)
	if target == nil {
		return nil
	}
	for p := in; p != nil; p = p.parent {
		if p.cc == target {
			return p
		}
	}
	return nil
}

// Store returns the engine store the instance lives in (for fuel, limits and closing).
func (in *ComponentInstance) Store() *engine.Store { return in.store }

// Close closes the instance's store.
func (in *ComponentInstance) Close(ctx context.Context) error { return in.store.Close(ctx) }

// Handles returns the number of live handles in the instance's resource table.
func (in *ComponentInstance) Handles() int { return in.table.Len() }

// Func returns the exported function name: "f" for a function exported at the root, or
// "iface#f" for a function of an exported interface, where iface is the full interface name
// ("docs:adder/add@0.1.0") or, when only one version is exported, the name without version.
func (in *ComponentInstance) Func(name string) (*Func, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if f, ok := in.byName[name]; ok {
		return f, nil
	}
	impl, err := in.exportedFunc(name)
	if err != nil {
		return nil, fmt.Errorf("component: export %q: %w", name, err)
	}
	f := &Func{in: in, name: name, impl: impl}
	in.byName[name] = f
	return f, nil
}

func (in *ComponentInstance) findExport(name string, sort Sort) (*Export, error) {
	var match []*Export
	for _, e := range in.cc.comp.Exports {
		if e.Sort != sort {
			continue
		}
		if e.Name.Raw == name {
			return e, nil
		}
		if sort == SortInstance && e.Name.Kind == NameInterface && e.Name.Unversioned() == name {
			match = append(match, e)
		}
	}
	switch len(match) {
	case 0:
		return nil, fmt.Errorf("%w: no %s export named %q", ErrNoExport, sort, name)
	case 1:
		return match[0], nil
	}
	return nil, fmt.Errorf("%w: %q is ambiguous: %s and %s are exported", ErrNoExport, name, match[0].Name.Raw, match[1].Name.Raw)
}

func (in *ComponentInstance) exportedFunc(name string) (*funcImpl, error) {
	iface, fname, ok := splitHash(name)
	if !ok {
		e, err := in.findExport(name, SortFunc)
		if err != nil {
			return nil, err
		}
		return in.resolveFunc(e.Index, 0)
	}
	e, err := in.findExport(iface, SortInstance)
	if err != nil {
		return nil, err
	}
	return in.instanceFunc(e.Index, fname, 0)
}

const maxResolveDepth = 64

// resolveFunc finds what component function index i is, following exports and aliases, into
// nested component instances and, for a nested component's imports, into its parent. The caller
// holds in.mu.
func (in *ComponentInstance) resolveFunc(i uint32, depth int) (*funcImpl, error) {
	if f, ok := in.funcs[i]; ok {
		return f, nil
	}
	c := in.cc.comp
	if int(i) >= len(c.Funcs) || depth > maxResolveDepth {
		return nil, fmt.Errorf("func %d cannot be resolved", i)
	}
	var f *funcImpl
	var err error
	switch d := c.Funcs[i].Def.(type) {
	case *Canon:
		if d.Kind != CanonLift {
			return nil, fmt.Errorf("BUG: func %d defined by canon %s", i, d.Kind)
		}
		ft, err := in.types.Func(d.Func)
		if err != nil {
			return nil, err
		}
		f = &funcImpl{ft: ft, lift: d, owner: in}
	case *Import:
		if in.parent == nil {
			f, err = in.hostImpl(Name{}, d.Name.Raw, d.Type.Func)
			break
		}
		a, aerr := in.arg(d.Name.Raw, SortFunc)
		if aerr != nil {
			return nil, aerr
		}
		f, err = in.parent.resolveFunc(a.Index, depth+1)
	case *Alias:
		if d.Kind != AliasInstanceExport {
			// Outer aliases may only name core modules, core types, components and types
			// (Explainer.md, outeraliassort): functions are stateful. Decode refuses them.
			return nil, fmt.Errorf("%w: func %d is an outer alias", ErrRuntimeUnsupported, i)
		}
		f, err = in.instanceFunc(d.Instance, d.Name, depth+1)
	case *Export:
		f, err = in.resolveFunc(d.Index, depth+1)
	default:
		return nil, fmt.Errorf("%w: func %d defined by %T", ErrRuntimeUnsupported, i, d)
	}
	if err != nil {
		return nil, err
	}
	in.funcs[i] = f
	return f, nil
}

// instanceFunc finds the function exported as name by component instance index i.
func (in *ComponentInstance) instanceFunc(i uint32, name string, depth int) (*funcImpl, error) {
	c := in.cc.comp
	if int(i) >= len(c.Instances) || depth > maxResolveDepth {
		return nil, fmt.Errorf("instance %d cannot be resolved", i)
	}
	switch d := c.Instances[i].Def.(type) {
	case *Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, SortInstance)
			if err != nil {
				return nil, err
			}
			return in.parent.instanceFunc(a.Index, name, depth+1)
		}
		decl, ok := c.Instances[i].Type.Export(name)
		if !ok || decl.Type.Sort != SortFunc {
			return nil, fmt.Errorf("%w: imported instance %s has no function %q", ErrNoExport, d.Name.Raw, name)
		}
		return in.hostImpl(d.Name, name, decl.Type.Func)
	case *Instance:
		if !d.FromExports {
			child := in.children[d]
			if child == nil {
				return nil, fmt.Errorf("nested component instance %d is not instantiated yet", i)
			}
			e, err := child.findExport(name, SortFunc)
			if err != nil {
				return nil, err
			}
			return child.resolveFunc(e.Index, depth+1)
		}
		for _, e := range d.Exports {
			if e.Name.Raw == name {
				if e.Sort != SortFunc {
					return nil, fmt.Errorf("%w: %q is a %s, not a function", ErrNoExport, name, e.Sort)
				}
				return in.resolveFunc(e.Index, depth+1)
			}
		}
		return nil, fmt.Errorf("%w: instance has no function %q", ErrNoExport, name)
	case *Export:
		return in.instanceFunc(d.Index, name, depth+1)
	}
	return nil, fmt.Errorf("%w: instance %d defined by %T", ErrRuntimeUnsupported, i, c.Instances[i].Def)
}

func (in *ComponentInstance) hostImpl(iface Name, name string, t *FuncType) (*funcImpl, error) {
	d, err := in.linker.importedFunc(iface, name)
	if err != nil {
		return nil, err
	}
	ft, err := in.types.Func(t)
	if err != nil {
		return nil, err
	}
	f := &funcImpl{ft: ft, host: d.dyn, owner: in}
	if d.dyn == nil {
		if f.host, err = typedHost(d.typed, ft); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrLinkType, qualified(iface.Raw, name), err)
		}
	}
	return f, nil
}

// coreFunc returns the engine function behind core function index i.
func (in *ComponentInstance) coreFunc(i uint32) (*engine.Function, error) {
	r, err := in.cc.refOf(SortCoreFunc, i)
	if err != nil {
		return nil, err
	}
	if r.tramp >= 0 {
		// A lifted canon lower or resource built-in (or one named as realloc, post-return or
		// destructor) runs through its wrapper in the lift glue instance.
		name, ok := in.cc.liftGlueNames[r.tramp]
		if !ok || in.liftGlue == nil {
			return nil, fmt.Errorf("BUG: core func %d: trampoline %d has no lift glue", i, r.tramp)
		}
		return in.liftGlue.Function(name)
	}
	if in.core[r.inst] == nil {
		return nil, fmt.Errorf("core func %d: core instance %d is not instantiated yet", i, r.inst)
	}
	return in.core[r.inst].Function(r.name)
}

// canonCall is the state a lifted export and a canon lower trampoline both keep between calls:
// the CallContext of their canon options (memory, encoding, handle table, realloc bound once),
// the borrow scope, and the running call's context, which realloc runs in. Each is used by one
// call at a time: running it again means entering its instance again, which may_enter refuses
// while the first call runs.
type canonCall struct {
	cx      abi.CallContext
	scope   *abi.BorrowScope
	realloc *engine.Function
	ctx     context.Context // the running call's
}

// initCanonCall fills c for canon options o of this instance.
func (in *ComponentInstance) initCanonCall(c *canonCall, o *CanonOptions) error {
	c.scope = &abi.BorrowScope{}
	c.cx = abi.CallContext{Encoding: abi.StringEncoding(o.StringEncoding), Handles: in.table}
	if o.HasMemory {
		r, err := in.cc.refOf(SortCoreMemory, o.Memory)
		if err != nil {
			return err
		}
		if r.inst < 0 || in.core[r.inst] == nil {
			return fmt.Errorf("core memory %d is not available", o.Memory)
		}
		m := in.core[r.inst].Memory(r.name)
		if m == nil {
			return fmt.Errorf("core memory %d: no memory %q", o.Memory, r.name)
		}
		c.cx.Memory = m
	}
	if o.HasRealloc {
		f, err := in.coreFunc(o.Realloc)
		if err != nil {
			return err
		}
		if len(f.Params()) != 4 || len(f.Results()) != 1 {
			return fmt.Errorf("realloc has type %v -> %v, not (i32, i32, i32, i32) -> i32", f.Params(), f.Results())
		}
		c.realloc = f
		c.cx.Realloc = c.callRealloc
	}
	return nil
}

// begin starts a call in ctx and returns its CallContext; end must follow.
func (c *canonCall) begin(ctx context.Context) *abi.CallContext {
	if c.scope.Live() != 0 {
		// A call that failed left borrow handles behind, and table entries point at their scope:
		// a later drop of one must not count against this call.
		c.scope = &abi.BorrowScope{}
	}
	c.ctx, c.cx.Scope = ctx, c.scope
	return &c.cx
}

// end ends the call; the context is the call's, so it is not kept alive.
func (c *canonCall) end() { c.ctx, c.cx.Scope = nil, nil }

func (c *canonCall) callRealloc(old, oldSize, align, size uint32) (uint32, error) {
	var st [4]uint64
	st[0], st[1], st[2], st[3] = uint64(old), uint64(oldSize), uint64(align), uint64(size)
	if err := c.realloc.CallStack(c.ctx, st[:]); err != nil {
		return 0, err
	}
	return uint32(st[0]), nil
}

// splitHash splits "iface#name" at its last "#".
func splitHash(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, '#')
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}
