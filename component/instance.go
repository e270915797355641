package component

import (
	"context"
	"fmt"
	"github.com/kobako/kobako/component/binary"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// Instance is an instantiated component: its core instances in one engine store, its
// resource handle table, and the host functions its imports were linked to. Calls into it are
// serialised by the spec's may_enter rule: a second call while one is running (from a host
// function the guest called, or from another goroutine) fails with ErrReentrance rather than
// racing. Use one instance per goroutine, or one store per concurrent user.
type Instance struct {
	cc    *Component
	pre   *InstancePre // the imports of the root component, resolved once; nil when nested
	store *engine.Store

	core []*engine.Instance // by core instance index: module instances and glue instances

	caller Caller // what host functions this instance calls are given

	busy     atomic.Bool // !may_enter
	mayLeave bool        // only touched while busy
	dead     error       // set when a call overran the fuel limit; only touched while busy

	table   *abi.Handles
	rtypes  map[*binary.Resource]*abi.ResourceType
	local   map[*abi.ResourceType]*binary.Resource
	hostRes map[*abi.ResourceType]*HostResource

	// parent is the instance that instantiated this nested component with args (nil for the
	// top level); children are the nested component instances this one created.
	parent   *Instance
	args     []binary.InstantiateArg
	children map[*binary.Instance]*Instance
	// env is the instance of the component that defines this one's component: the scope its
	// outer aliases reach. It is the parent, except for a component that came to the parent
	// from elsewhere (an instance export, an import), which keeps the scope it was defined in.
	env *Instance
	// foreign maps the resource types of other component instances (a parent's, passed in as
	// imports) to the instance that defines them and runs their destructors.
	foreign map[*abi.ResourceType]*Instance

	mu    *sync.Mutex // shared by an instance tree; guards the caches below and types
	types binary.ABITypes
	funcs map[uint32]*funcImpl
	// exports holds the functions the root component lifts and exports, by the slot the
	// InstancePre numbered them with (planSlots), so that a prepared export finds its own in a
	// fresh instance without a lookup or an allocation.
	exports []funcImpl
	byName  map[string]*Func
	tramps  []*trampState
	// liftGlue is the instance of cc.liftGlue, when the component lifts a trampoline.
	liftGlue *engine.Instance
}

// funcImpl is a component function: lifted from a core function (lift) or implemented by the
// host (host), with its abi type in this instance.
type funcImpl struct {
	ft    *abi.FuncType
	lift  *binary.Canon
	host  HostFunc
	typed *typedImport // for a typed Go host function: its typed path
	owner *Instance    // the instance whose core function lift names
	warm  *exportCall  // for lift: what every call needs, resolved by the first
	// plan is the typed plan a prepared export (planOf) made for this instance's ft, when ft
	// names resources of the instance's own and so differs from the InstancePre's.
	plan   *abi.GoFunc
	planOf *preExport
}

func newInstance(ctx context.Context, pre *InstancePre, s *engine.Store, cc *Component, parent, env *Instance, args []binary.InstantiateArg) (*Instance, error) {
	if cc.closed.Load() {
		return nil, ErrClosed
	}
	c := cc.comp
	mu := &sync.Mutex{}
	if parent != nil {
		mu = parent.mu
	}
	in := &Instance{
		cc: cc, pre: pre, store: s, parent: parent, env: env, args: args, mu: mu,
		children: map[*binary.Instance]*Instance{},
		foreign:  map[*abi.ResourceType]*Instance{},
		core:     make([]*engine.Instance, len(c.CoreInstances)),
		rtypes:   map[*binary.Resource]*abi.ResourceType{},
		local:    map[*abi.ResourceType]*binary.Resource{},
		hostRes:  map[*abi.ResourceType]*HostResource{},
		funcs:    map[uint32]*funcImpl{},
		byName:   map[string]*Func{},
		tramps:   make([]*trampState, len(cc.tramps)),
	}
	in.caller.in = in
	if pre != nil && len(pre.slotFunc) > 0 {
		in.exports = make([]funcImpl, len(pre.slotFunc))
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
	in.types.Resource = in.runtimeResource
	in.table = abi.NewHandles(locals...)
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
		case *binary.CoreInstance:
			if err := in.instantiateCore(ctx, cc.coreInstOf[d], d); err != nil {
				return nil, err
			}
		case *binary.Instance:
			if d.FromExports {
				continue
			}
			sub, env, err := in.component(d.Component, 0)
			if err != nil {
				return nil, fmt.Errorf("instantiating component %d (offset 0x%x): %w", d.Component, d.Offset, err)
			}
			child, err := newInstance(ctx, nil, s, sub, in, env, d.Args)
			if err != nil {
				return nil, fmt.Errorf("nested component %d: %w", d.Component, err)
			}
			in.children[d] = child
			if err := in.bindChildResources(cc.instOf[d], child); err != nil {
				return nil, fmt.Errorf("nested component %d: %w", d.Component, err)
			}
		case *binary.Canon:
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
		case *binary.Start:
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
func (in *Instance) start(ctx context.Context, d *binary.Start) error {
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
	if _, err := f.callFrom(ctx, in, nil, true, fmt.Sprintf("start function %d", d.Func)); err != nil {
		return fmt.Errorf("start function %d: %w", d.Func, err)
	}
	return nil
}

// bindImports binds imported resource types to the host's, as the InstancePre resolved them.
func (in *Instance) bindImports() error {
	if in.parent != nil {
		return in.bindArgs()
	}
	for r, hr := range in.pre.res {
		in.rtypes[r] = hr.Type
		in.hostRes[hr.Type] = hr
	}
	return nil
}

// bindArgs binds the resource types a nested component imports to those of the arguments its
// parent instantiated it with. Functions are resolved through the parent when first needed.
func (in *Instance) bindArgs() error {
	p := in.parent
	bind := func(r *binary.Resource, pr *binary.Resource) error {
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
		case binary.SortType:
			rt, ok := im.Type.Type.(*binary.ResourceType)
			if !ok || in.rtypes[rt.Resource] != nil {
				continue
			}
			prt, ok := p.cc.comp.Types[a.Index].Type.(*binary.ResourceType)
			if !ok {
				return fmt.Errorf("%w: import %s: argument is not a resource type", ErrLinkType, im.Name.Raw)
			}
			if err := bind(rt.Resource, prt.Resource); err != nil {
				return err
			}
		case binary.SortInstance:
			pt := p.cc.comp.Instances[a.Index].Type
			for _, d := range im.Type.Instance.Exports {
				rt, ok := d.Type.Type.(*binary.ResourceType)
				if d.Type.Sort != binary.SortType || !ok || in.rtypes[rt.Resource] != nil {
					continue
				}
				pd, ok := pt.Export(d.Name.Raw)
				prt, isRes := pd.Type.Type.(*binary.ResourceType)
				if !ok || pd.Type.Sort != binary.SortType || !isRes {
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
func (in *Instance) bindChildResources(idx int, child *Instance) error {
	for _, d := range in.cc.comp.Instances[idx].Type.Exports {
		rt, ok := d.Type.Type.(*binary.ResourceType)
		if d.Type.Sort != binary.SortType || !ok || in.rtypes[rt.Resource] != nil {
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
func (in *Instance) arg(name string, sort binary.Sort) (binary.InstantiateArg, error) {
	for _, a := range in.args {
		if a.Name == name {
			if a.Sort != sort {
				return a, fmt.Errorf("%w: nested component import %q given a %s, not a %s", ErrLinkType, name, a.Sort, sort)
			}
			return a, nil
		}
	}
	return binary.InstantiateArg{}, fmt.Errorf("%w: nested component import %q has no argument", ErrMissingImport, name)
}

func (in *Instance) instantiateCore(ctx context.Context, idx int, d *binary.CoreInstance) error {
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
		replaced := false
		if in.pre != nil && in.pre.sub != nil {
			if m := in.pre.sub[idx]; m != nil {
				mod, replaced = m, true
			}
		}
		if !replaced && in.cc.released.Load() {
			return fmt.Errorf("core instance %d: %w: the component's core modules were released for a snapshot (SnapshotOptions.Release); instantiate it from the snapshot", idx, ErrClosed)
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
func (in *Instance) instantiateEngine(ctx context.Context, mod *engine.Module, imports engine.Imports) (*engine.Instance, error) {
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
func (in *Instance) coreModule(i uint32, depth int) (*engine.Module, error) {
	if int(i) < len(in.cc.modules) && in.cc.modules[i] != nil {
		return in.cc.modules[i], nil
	}
	c := in.cc.comp
	if int(i) >= len(c.CoreModules) || depth > maxResolveDepth {
		return nil, fmt.Errorf("core module %d cannot be resolved", i)
	}
	switch d := c.CoreModules[i].Def.(type) {
	case *binary.Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, binary.SortCoreModule)
			if err != nil {
				return nil, err
			}
			return in.parent.coreModule(a.Index, depth+1)
		}
		return nil, fmt.Errorf("%w: core module %d is imported by the root component (the linker defines no modules)", ErrRuntimeUnsupported, i)
	case *binary.Alias:
		if d.Kind == binary.AliasOuter {
			if p := in.enclosing(d.Count); p != nil {
				return p.coreModule(d.Index, depth+1)
			}
			return nil, fmt.Errorf("BUG: core module %d: no instance of the component %d scopes out", i, d.Count)
		}
		if d.Kind == binary.AliasInstanceExport {
			owner, j, err := in.exportOf(d.Instance, d.Name, binary.SortCoreModule, depth+1)
			if err != nil {
				return nil, err
			}
			return owner.coreModule(j, depth+1)
		}
	}
	return nil, fmt.Errorf("%w: core module %d is %s", ErrRuntimeUnsupported, i, describeDef(c.CoreModules[i].Def))
}

// component returns component i of the instance's component, as coreModule does modules, with
// the instance of the component that defines it (the scope of its outer aliases).
func (in *Instance) component(i uint32, depth int) (*Component, *Instance, error) {
	if int(i) < len(in.cc.nested) && in.cc.nested[i] != nil {
		sub := in.cc.nested[i]
		return sub, in.scopeOf(sub.parent), nil
	}
	c := in.cc.comp
	if int(i) >= len(c.Components) || depth > maxResolveDepth {
		return nil, nil, fmt.Errorf("component %d cannot be resolved", i)
	}
	switch d := c.Components[i].Def.(type) {
	case *binary.Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, binary.SortComponent)
			if err != nil {
				return nil, nil, err
			}
			return in.parent.component(a.Index, depth+1)
		}
		return nil, nil, fmt.Errorf("%w: component %d is imported by the root component (the linker defines no components)", ErrRuntimeUnsupported, i)
	case *binary.Alias:
		switch d.Kind {
		case binary.AliasOuter:
			if p := in.enclosing(d.Count); p != nil {
				return p.component(d.Index, depth+1)
			}
			return nil, nil, fmt.Errorf("BUG: component %d: no instance of the component %d scopes out", i, d.Count)
		case binary.AliasInstanceExport:
			owner, j, err := in.exportOf(d.Instance, d.Name, binary.SortComponent, depth+1)
			if err != nil {
				return nil, nil, err
			}
			return owner.component(j, depth+1)
		}
	}
	return nil, nil, fmt.Errorf("%w: component %d is %s", ErrRuntimeUnsupported, i, describeDef(c.Components[i].Def))
}

// enclosing returns the instance of the component count scopes out of the definition of this
// instance's component.
func (in *Instance) enclosing(count uint32) *Instance {
	target := in.cc.outer(count)
	if target == nil {
		return nil
	}
	return in.scopeOf(target)
}

// scopeOf returns the instance of cc among the scopes that enclose this instance's component
// (itself, then each env out). Definitions flow only inward (by outer alias, as instantiation
// arguments, or out of an instance that keeps its env), so there is one such instance: a
// component cannot be instantiated inside itself.
func (in *Instance) scopeOf(cc *Component) *Instance {
	for p := in; p != nil; p = p.env {
		if p.cc == cc {
			return p
		}
	}
	return nil
}

// Store returns the engine store the instance lives in (for fuel, limits and closing).
func (in *Instance) Store() *engine.Store { return in.store }

// Close closes the instance's store.
func (in *Instance) Close(ctx context.Context) error { return in.store.Close(ctx) }

// Handles returns the number of live handles in the instance's resource table.
func (in *Instance) Handles() int { return in.table.Len() }

// Func returns the exported function name: "f" for a function exported at the root, or
// "iface#f" for a function of an exported interface, where iface is the full interface name
// ("docs:adder/add@0.1.0") or, when only one version is exported, the name without version.
func (in *Instance) Func(name string) (*Func, error) {
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

func (in *Instance) findExport(name string, sort binary.Sort) (*binary.Export, error) {
	return findExport(in.cc.comp, name, sort)
}

// findExport finds component c's export name of sort: by its exact name, or an interface by its
// name without the version when only one version is exported.
func findExport(c *binary.Component, name string, sort binary.Sort) (*binary.Export, error) {
	var match []*binary.Export
	for _, e := range c.Exports {
		if e.Sort != sort {
			continue
		}
		if e.Name.Raw == name {
			return e, nil
		}
		if sort == binary.SortInstance && e.Name.Kind == binary.NameInterface && e.Name.Unversioned() == name {
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

func (in *Instance) exportedFunc(name string) (*funcImpl, error) {
	iface, fname, ok := splitHash(name)
	if !ok {
		e, err := in.findExport(name, binary.SortFunc)
		if err != nil {
			return nil, err
		}
		return in.resolveFunc(e.Index, 0)
	}
	e, err := in.findExport(iface, binary.SortInstance)
	if err != nil {
		return nil, err
	}
	return in.instanceFunc(e.Index, fname, 0)
}

const maxResolveDepth = 64

// resolveFunc finds what component function index i is, following exports and aliases, into
// nested component instances and, for a nested component's imports, into its parent. The caller
// holds in.mu.
func (in *Instance) resolveFunc(i uint32, depth int) (*funcImpl, error) {
	if in.pre != nil {
		if k, ok := in.pre.slots[i]; ok {
			return in.slot(k)
		}
	}
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
	case *binary.Canon:
		if d.Kind != binary.CanonLift {
			return nil, fmt.Errorf("BUG: func %d defined by canon %s", i, d.Kind)
		}
		ft, err := in.types.Func(d.Func)
		if err != nil {
			return nil, err
		}
		f = &funcImpl{ft: ft, lift: d, owner: in}
	case *binary.Import:
		if in.parent == nil {
			f, err = in.hostImpl(binary.Name{}, d.Name.Raw, d.Type.Func)
			break
		}
		a, aerr := in.arg(d.Name.Raw, binary.SortFunc)
		if aerr != nil {
			return nil, aerr
		}
		f, err = in.parent.resolveFunc(a.Index, depth+1)
	case *binary.Alias:
		if d.Kind != binary.AliasInstanceExport {
			// Outer aliases may only name core modules, core types, components and types
			// (Explainer.md, outeraliassort): functions are stateful. Decode refuses them.
			return nil, fmt.Errorf("%w: func %d is an outer alias", ErrRuntimeUnsupported, i)
		}
		f, err = in.instanceFunc(d.Instance, d.Name, depth+1)
	case *binary.Export:
		f, err = in.resolveFunc(d.Index, depth+1)
	default:
		return nil, fmt.Errorf("%w: func %d is %s", ErrRuntimeUnsupported, i, describeDef(d))
	}
	if err != nil {
		return nil, err
	}
	in.funcs[i] = f
	return f, nil
}

// instanceFunc finds the function exported as name by component instance index i.
func (in *Instance) instanceFunc(i uint32, name string, depth int) (*funcImpl, error) {
	c := in.cc.comp
	if int(i) >= len(c.Instances) || depth > maxResolveDepth {
		return nil, fmt.Errorf("instance %d cannot be resolved", i)
	}
	switch d := c.Instances[i].Def.(type) {
	case *binary.Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, binary.SortInstance)
			if err != nil {
				return nil, err
			}
			return in.parent.instanceFunc(a.Index, name, depth+1)
		}
		decl, ok := c.Instances[i].Type.Export(name)
		if !ok || decl.Type.Sort != binary.SortFunc {
			return nil, fmt.Errorf("%w: imported instance %s has no function %q", ErrNoExport, d.Name.Raw, name)
		}
		return in.hostImpl(d.Name, name, decl.Type.Func)
	case *binary.Instance:
		if !d.FromExports {
			child := in.children[d]
			if child == nil {
				return nil, fmt.Errorf("nested component instance %d is not instantiated yet", i)
			}
			e, err := child.findExport(name, binary.SortFunc)
			if err != nil {
				return nil, err
			}
			return child.resolveFunc(e.Index, depth+1)
		}
		for _, e := range d.Exports {
			if e.Name.Raw == name {
				if e.Sort != binary.SortFunc {
					return nil, fmt.Errorf("%w: %q is a %s, not a function", ErrNoExport, name, e.Sort)
				}
				return in.resolveFunc(e.Index, depth+1)
			}
		}
		return nil, fmt.Errorf("%w: instance has no function %q", ErrNoExport, name)
	case *binary.Export:
		return in.instanceFunc(d.Index, name, depth+1)
	case *binary.Alias:
		if d.Kind == binary.AliasInstanceExport {
			owner, j, err := in.instanceExport(d.Instance, d.Name, depth+1)
			if err != nil {
				return nil, err
			}
			return owner.instanceFunc(j, name, depth+1)
		}
	}
	return nil, fmt.Errorf("%w: instance %d is %s", ErrRuntimeUnsupported, i, describeDef(c.Instances[i].Def))
}

// instanceExport finds the instance that component instance index i exports as name: its index
// and the component instance in whose index space that index is (a nested one for an instance
// that a nested component exports).
func (in *Instance) instanceExport(i uint32, name string, depth int) (*Instance, uint32, error) {
	return in.exportOf(i, name, binary.SortInstance, depth)
}

// exportOf finds the item of sort that component instance index i exports as name, as
// instanceExport does instances.
func (in *Instance) exportOf(i uint32, name string, sort binary.Sort, depth int) (*Instance, uint32, error) {
	c := in.cc.comp
	if int(i) >= len(c.Instances) || depth > maxResolveDepth {
		return nil, 0, fmt.Errorf("instance %d cannot be resolved", i)
	}
	switch d := c.Instances[i].Def.(type) {
	case *binary.Import:
		if in.parent != nil {
			a, err := in.arg(d.Name.Raw, binary.SortInstance)
			if err != nil {
				return nil, 0, err
			}
			return in.parent.exportOf(a.Index, name, sort, depth+1)
		}
		return nil, 0, fmt.Errorf("%w: %s %q exported by imported instance %s (root imports of instances export functions and types only)", ErrRuntimeUnsupported, sort, name, d.Name.Raw)
	case *binary.Instance:
		if !d.FromExports {
			child := in.children[d]
			if child == nil {
				return nil, 0, fmt.Errorf("nested component instance %d is not instantiated yet", i)
			}
			e, err := child.findExport(name, sort)
			if err != nil {
				return nil, 0, err
			}
			return child, e.Index, nil
		}
		for _, e := range d.Exports {
			if e.Name.Raw == name {
				if e.Sort != sort {
					return nil, 0, fmt.Errorf("%w: %q is a %s, not a %s", ErrNoExport, name, e.Sort, sort)
				}
				return in, e.Index, nil
			}
		}
		return nil, 0, fmt.Errorf("%w: instance has no %s %q", ErrNoExport, sort, name)
	case *binary.Export:
		return in.exportOf(d.Index, name, sort, depth+1)
	case *binary.Alias:
		if d.Kind == binary.AliasInstanceExport {
			owner, j, err := in.instanceExport(d.Instance, d.Name, depth+1)
			if err != nil {
				return nil, 0, err
			}
			return owner.exportOf(j, name, sort, depth+1)
		}
	}
	return nil, 0, fmt.Errorf("%w: instance %d is %s", ErrRuntimeUnsupported, i, describeDef(c.Instances[i].Def))
}

func (in *Instance) hostImpl(iface binary.Name, name string, t *binary.FuncType) (*funcImpl, error) {
	q := qualified(iface.Raw, name)
	pf := in.pre.funcs[q]
	if pf == nil {
		return nil, fmt.Errorf("BUG: import %s was not prepared", q)
	}
	if pf.shared != nil {
		return pf.shared, nil
	}
	ft, err := in.types.Func(t)
	if err != nil {
		return nil, err
	}
	f := &funcImpl{ft: ft, host: pf.def.dyn, owner: in}
	if f.host == nil {
		if f.host, f.typed, err = typedHost(pf.def, ft); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrLinkType, q, err)
		}
	}
	return f, nil
}

// coreFunc returns the engine function behind core function index i.
func (in *Instance) coreFunc(i uint32) (*engine.Function, error) {
	r, err := in.cc.refOf(binary.SortCoreFunc, i)
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
	// reallocStack holds realloc's arguments and result, kept so that a call does not allocate it.
	reallocStack [4]uint64
}

// initCanonCall fills c for canon options o of this instance.
func (in *Instance) initCanonCall(c *canonCall, o *binary.CanonOptions) error {
	c.scope = &abi.BorrowScope{}
	c.cx = abi.CallContext{Encoding: o.StringEncoding, Handles: in.table}
	if o.HasMemory {
		r, err := in.cc.refOf(binary.SortCoreMemory, o.Memory)
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
	st := &c.reallocStack
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

// describeDef names the kind of definition d for error messages, in the component model's terms.
func describeDef(d binary.Definition) string {
	switch d := d.(type) {
	case *binary.CoreModule:
		return "a core module"
	case *binary.CoreInstance:
		return "a core instance"
	case *binary.CoreTypeDef:
		return "a core type"
	case *binary.NestedComponent:
		return "a nested component"
	case *binary.Instance:
		return "a component instance"
	case *binary.Alias:
		switch d.Kind {
		case binary.AliasInstanceExport:
			return fmt.Sprintf("an alias of export %q of instance %d", d.Name, d.Instance)
		case binary.AliasCoreInstanceExport:
			return fmt.Sprintf("an alias of export %q of core instance %d", d.Name, d.Instance)
		}
		return "an outer alias"
	case *binary.TypeDef:
		return "a type definition"
	case *binary.Canon:
		return "canon " + d.Kind.String()
	case *binary.Start:
		return "a start function"
	case *binary.Import:
		return fmt.Sprintf("import %s", d.Name.Raw)
	case *binary.Export:
		return fmt.Sprintf("export %s", d.Name.Raw)
	}
	return "an unknown definition"
}

// runtimeResource returns the abi type of resource r in this instance, following a fresh type
// that an export ascription introduced to the resource it stands for.
func (in *Instance) runtimeResource(r *binary.Resource) *abi.ResourceType {
	for depth := 0; r != nil && depth < maxResolveDepth; depth++ {
		if rt := in.rtypes[r]; rt != nil {
			return rt
		}
		r = r.Of()
	}
	return nil
}
