package component

import (
	"bytes"
	"context"
	encbin "encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// Component is a decoded component whose core modules are compiled through an engine, with the
// static link plan worked out once: where every core function, memory, table and global comes
// from, the glue modules that bundle core items for instantiation arguments, and the host module
// of canon lower and resource built-in trampolines. A Component is immutable and may be
// instantiated any number of times, concurrently, in separate stores, until Close.
type Component struct {
	comp   *binary.Component
	engine *engine.Engine
	// owned lists the modules this component's compile took from the engine (its own core
	// modules, glue and lift glue, not those of nested components or outer aliases): Close
	// gives each back once.
	owned []*engine.Module
	// mu guards owned between Close and a snapshot's release of modules.
	mu sync.Mutex
	// closed is set by Close, on the component and on the components nested in it.
	closed atomic.Bool
	// released is set once a snapshot gave back the core modules it replaces
	// (SnapshotOptions.Release): only snapshots instantiate the component from then on.
	released atomic.Bool

	modules []*engine.Module // by core module index
	nested  []*Component     // by component index: nested components defined inline
	// coreInsts describes every core instance index.
	coreInsts []coreInstPlan
	// refs locate the core funcs, memories, tables and globals by index.
	funcs, mems, tables, globals []coreRef
	// tramps lists the canon definitions that become host functions (lower, resource.*), in
	// the order of the host module's functions "t0", "t1", ….
	tramps   []*binary.Canon
	trampIdx map[*binary.Canon]int
	host     *engine.HostModule
	// liftGlue wraps, in a wasm function each, the trampolines a lift, a canon option or a
	// destructor names as its core function (a lifted canon lower or resource built-in), so
	// that they can be called like any core export and still find their instance through the
	// calling core instance; liftGlueNames names its exports by trampoline.
	liftGlue      *engine.Module
	liftGlueNames map[int]string
	// parent is the component this one is defined in (nil at the root): outer aliases of core
	// modules and components resolve through it at compile time.
	parent *Component
	// coreInstOf maps a *CoreInstance definition to its index, instOf an *Instance.
	coreInstOf map[*binary.CoreInstance]int
	instOf     map[*binary.Instance]int
	// resources lists the component's own resource types (resource type definitions).
	resources []*binary.Resource
	// resourceNames names the resources that have no name of their own, for messages.
	resourceNames map[*binary.Resource]string
	// regKey finds, in a store, the instances of this component it holds.
	regKey *engine.Key[*storeInstances]
}

// resourceNames finds the names the component's own resource types are exported under:
// directly, or through a nested component that re-exports the type it imports (wit-component's
// shims for exported interfaces).
func resourceNames(c *binary.Component) map[*binary.Resource]string {
	names := map[*binary.Resource]string{}
	res := func(c *binary.Component, i uint32) *binary.Resource {
		if int(i) < len(c.Types) {
			if rt, ok := c.Types[i].Type.(*binary.ResourceType); ok {
				return rt.Resource
			}
		}
		return nil
	}
	for _, e := range c.Exports {
		if r := res(c, e.Index); e.Sort == binary.SortType && r != nil && names[r] == "" {
			names[r] = e.Name.Raw
		}
	}
	for _, d := range c.Definitions {
		inst, ok := d.(*binary.Instance)
		if !ok || inst.FromExports || int(inst.Component) >= len(c.Components) {
			continue
		}
		nc, ok := c.Components[inst.Component].Def.(*binary.NestedComponent)
		if !ok {
			continue
		}
		for _, a := range inst.Args {
			r := res(c, a.Index)
			if a.Sort != binary.SortType || r == nil || names[r] != "" {
				continue
			}
			for _, x := range nc.Component.Exports {
				if x.Sort != binary.SortType || int(x.Index) >= len(nc.Component.Types) {
					continue
				}
				if im, ok := nc.Component.Types[x.Index].Def.(*binary.Import); ok && im.Name.Raw == a.Name {
					names[r] = x.Name.Raw
				}
			}
		}
	}
	return names
}

// coreRef locates a core item: a trampoline of the host module (tramp >= 0) or the export name
// of an instantiated core module (inst).
type coreRef struct {
	tramp int
	inst  int
	name  string
}

// coreInstPlan is a core instance: a module instantiation, or a bundle of exports that needs a
// glue instance when it is passed as an instantiation argument.
type coreInstPlan struct {
	def  *binary.CoreInstance
	glue *engine.Module // bundles used as arguments
	// glueFrom lists the core instance indices the glue module imports from (as "i<n>").
	glueFrom  []int
	usedAsArg bool
}

const canonModule = "kobako:canon"

// Compile decodes a component binary and compiles its core modules, and those of the components
// nested in it, through e (cached by the engine: compiling the same bytes twice is cheap).
//
// What the compile holds in e (its core modules, shared with other components of the same
// modules, and the host module of its trampolines) stays until Close, so compile a component
// once and keep the *Component rather than compiling per use, and close it when a new version
// replaces it.
//
// The *Component does not keep wasm alive: once compiled, the decoded component's CoreModule.Bytes
// are set to nil and its custom sections are copied (see releaseInput).
func Compile(ctx context.Context, e *engine.Engine, wasm []byte) (*Component, error) {
	c, err := binary.Decode(wasm)
	if err != nil {
		return nil, err
	}
	cc, err := CompileDecoded(ctx, e, c)
	if err != nil {
		return nil, err
	}
	releaseInput(c)
	return cc, nil
}

// releaseInput drops what aliases the binary c was decoded from: the core modules' bytes, whose
// compiled form the engine holds, and the custom sections' data, copied. A component is mostly
// its core modules, so keeping one sub-slice would keep the whole binary (11.5 MB for a
// componentize-js plugin) for as long as the *Component lives.
func releaseInput(c *binary.Component) {
	for i := range c.Custom {
		c.Custom[i].Data = bytes.Clone(c.Custom[i].Data)
	}
	for _, d := range c.Definitions {
		switch d := d.(type) {
		case *binary.CoreModule:
			d.Bytes = nil
		case *binary.NestedComponent:
			releaseInput(d.Component)
		}
	}
}

// CompileDecoded compiles an already decoded component.
func CompileDecoded(ctx context.Context, e *engine.Engine, c *binary.Component) (*Component, error) {
	return compile(ctx, e, c, nil)
}

func compile(ctx context.Context, e *engine.Engine, c *binary.Component, parent *Component) (_ *Component, err error) {
	cc := &Component{comp: c, engine: e, parent: parent, trampIdx: map[*binary.Canon]int{}, coreInstOf: map[*binary.CoreInstance]int{}, instOf: map[*binary.Instance]int{}}
	defer func() {
		if err != nil {
			// A failed compile keeps nothing: the modules compiled so far are given back.
			cc.closed.Store(true)
			_ = cc.release(ctx)
		}
	}()
	for i, it := range c.Instances {
		if d, ok := it.Def.(*binary.Instance); ok {
			cc.instOf[d] = i
		}
	}
	cc.modules = make([]*engine.Module, len(c.CoreModules))
	for i, m := range c.CoreModules {
		cm, ok := m.Def.(*binary.CoreModule)
		if !ok {
			// An outer alias names a module of an enclosing component, compiled before this
			// one. Imported modules and modules aliased from instance exports stay nil and are
			// refused at instantiation if used.
			if a, ok := m.Def.(*binary.Alias); ok && a.Kind == binary.AliasOuter {
				if p := cc.outer(a.Count); p != nil && int(a.Index) < len(p.modules) {
					cc.modules[i] = p.modules[a.Index]
				}
			}
			continue
		}
		mod, err := e.Compile(ctx, cm.Bytes)
		if err != nil {
			return nil, fmt.Errorf("component: compile core module %d: %w", i, err)
		}
		cc.modules[i] = mod
		cc.owned = append(cc.owned, mod)
	}
	cc.nested = make([]*Component, len(c.Components))
	for i, it := range c.Components {
		nc, ok := it.Def.(*binary.NestedComponent)
		if !ok {
			// As for modules: an outer alias shares the enclosing component's *Component (the
			// same component instantiated in two places); imported components stay nil.
			if a, ok := it.Def.(*binary.Alias); ok && a.Kind == binary.AliasOuter {
				if p := cc.outer(a.Count); p != nil && int(a.Index) < len(p.nested) {
					cc.nested[i] = p.nested[a.Index]
				}
			}
			continue
		}
		sub, err := compile(ctx, e, nc.Component, cc)
		if err != nil {
			return nil, fmt.Errorf("component: nested component %d: %w", i, err)
		}
		cc.nested[i] = sub
	}
	// Trampolines, in definition order.
	for _, d := range c.Definitions {
		if cn, ok := d.(*binary.Canon); ok && cn.Kind != binary.CanonLift {
			cc.trampIdx[cn] = len(cc.tramps)
			cc.tramps = append(cc.tramps, cn)
		}
	}
	cc.coreInsts = make([]coreInstPlan, len(c.CoreInstances))
	for i, it := range c.CoreInstances {
		ci, ok := it.Def.(*binary.CoreInstance)
		if !ok {
			continue // aliased core instances (of nested component instances): refused when used
		}
		cc.coreInsts[i].def = ci
		cc.coreInstOf[ci] = i
	}
	for _, t := range c.Types {
		if rt, ok := t.Type.(*binary.ResourceType); ok && rt.Resource.Local {
			if _, isDef := t.Def.(*binary.TypeDef); isDef {
				cc.resources = append(cc.resources, rt.Resource)
			}
		}
	}
	cc.resourceNames = resourceNames(c)
	if cc.funcs, err = cc.resolveSpace(binary.SortCoreFunc, len(c.CoreFuncs)); err != nil {
		return nil, err
	}
	if cc.mems, err = cc.resolveSpace(binary.SortCoreMemory, len(c.CoreMemories)); err != nil {
		return nil, err
	}
	if cc.tables, err = cc.resolveSpace(binary.SortCoreTable, len(c.CoreTables)); err != nil {
		return nil, err
	}
	if cc.globals, err = cc.resolveSpace(binary.SortCoreGlobal, len(c.CoreGlobals)); err != nil {
		return nil, err
	}
	for i := range cc.coreInsts {
		if d := cc.coreInsts[i].def; d != nil && !d.FromExports {
			for _, a := range d.Args {
				cc.coreInsts[a.Instance].usedAsArg = true
			}
		}
	}
	for i := range cc.coreInsts {
		p := &cc.coreInsts[i]
		if p.def == nil || !p.def.FromExports || !p.usedAsArg {
			continue
		}
		b, from, err := cc.glueModule(p.def)
		if err != nil {
			return nil, fmt.Errorf("component: core instance %d: %w", i, err)
		}
		if p.glue, err = e.Compile(ctx, b); err != nil {
			return nil, fmt.Errorf("component: core instance %d: glue module: %w", i, err)
		}
		cc.owned = append(cc.owned, p.glue)
		p.glueFrom = from
	}
	if len(cc.tramps) > 0 {
		cc.host = cc.hostModule()
		if err := cc.compileLiftGlue(ctx); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// Close releases what the compile holds in its engine: its core modules (a module another
// component of the engine also compiled stays until that one is closed too), the glue modules
// and the host module of its trampolines, and the same for the components nested in it. A host
// that compiles new versions of a plugin in one long-lived engine closes each version it
// replaces; without Close they stay until the engine is closed.
//
// Instances made before Close keep working until they are closed, as instances of a closed
// wazero CompiledModule do. Making new ones fails with ErrClosed: Linker.Instantiate,
// Linker.Prepare, and the Instantiate and Snapshot of an InstancePre or Snapshot made from cc
// before Close. Close must not run while an instantiation of cc is under way. Closing cc again
// does nothing.
func (cc *Component) Close(ctx context.Context) error {
	if !cc.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := cc.release(ctx); err != nil {
		return fmt.Errorf("component: close: %w", err)
	}
	return nil
}

// release gives back what cc and the components nested in it took from the engine; the caller
// has marked cc closed.
func (cc *Component) release(ctx context.Context) error {
	var errs []error
	for _, n := range cc.nested {
		// Components of another scope (outer aliases) are that scope's to release; an outer
		// alias within cc's own scope names one of cc's components again, released once.
		if n != nil && n.parent == cc && n.closed.CompareAndSwap(false, true) {
			errs = append(errs, n.release(ctx))
		}
	}
	cc.mu.Lock()
	owned := cc.owned
	cc.owned = nil
	cc.mu.Unlock()
	for _, m := range owned {
		errs = append(errs, m.Close(ctx))
	}
	if cc.host != nil {
		errs = append(errs, cc.engine.ReleaseHostModule(ctx, cc.host))
	}
	return errors.Join(errs...)
}

// outer returns the component count scopes out from cc (cc itself for 0), or nil.
func (cc *Component) outer(count uint32) *Component {
	p := cc
	for ; p != nil && count > 0; count-- {
		p = p.parent
	}
	return p
}

// Decoded returns the decoded component.
func (cc *Component) Decoded() *binary.Component { return cc.comp }

func (cc *Component) space(s binary.Sort) []binary.Definition {
	c := cc.comp
	var defs []binary.Definition
	switch s {
	case binary.SortCoreFunc:
		for _, it := range c.CoreFuncs {
			defs = append(defs, it.Def)
		}
	case binary.SortCoreMemory:
		for _, it := range c.CoreMemories {
			defs = append(defs, it.Def)
		}
	case binary.SortCoreTable:
		for _, it := range c.CoreTables {
			defs = append(defs, it.Def)
		}
	case binary.SortCoreGlobal:
		for _, it := range c.CoreGlobals {
			defs = append(defs, it.Def)
		}
	}
	return defs
}

func (cc *Component) resolveSpace(s binary.Sort, n int) ([]coreRef, error) {
	defs := cc.space(s)
	refs := make([]coreRef, n)
	for i := range refs {
		r, err := cc.resolveCore(s, defs, uint32(i), 0)
		if err != nil {
			refs[i] = coreRef{tramp: -1, inst: -1, name: err.Error()}
			continue // unusable items are reported when an instantiation needs them
		}
		refs[i] = r
	}
	return refs, nil
}

// resolveCore follows aliases of bundled core instances to the module instance (or trampoline)
// that really provides core item i of sort s.
func (cc *Component) resolveCore(s binary.Sort, defs []binary.Definition, i uint32, depth int) (coreRef, error) {
	if depth > binary.MaxNesting*4 || int(i) >= len(defs) {
		return coreRef{}, fmt.Errorf("%s %d cannot be resolved", s, i)
	}
	switch d := defs[i].(type) {
	case *binary.Canon:
		if k, ok := cc.trampIdx[d]; ok {
			return coreRef{tramp: k, inst: -1}, nil
		}
	case *binary.Alias:
		if d.Kind != binary.AliasCoreInstanceExport || int(d.Instance) >= len(cc.coreInsts) {
			break
		}
		p := cc.coreInsts[d.Instance]
		if p.def == nil {
			break
		}
		if !p.def.FromExports {
			return coreRef{tramp: -1, inst: int(d.Instance), name: d.Name}, nil
		}
		for _, e := range p.def.Exports {
			if e.Name == d.Name {
				if e.Sort != s {
					break
				}
				return cc.resolveCore(s, defs, e.Index, depth+1)
			}
		}
	}
	return coreRef{}, fmt.Errorf("%s %d: %w: it is %s", s, i, ErrRuntimeUnsupported, describeDef(defs[i]))
}

func (cc *Component) refOf(s binary.Sort, i uint32) (coreRef, error) {
	var refs []coreRef
	switch s {
	case binary.SortCoreFunc:
		refs = cc.funcs
	case binary.SortCoreMemory:
		refs = cc.mems
	case binary.SortCoreTable:
		refs = cc.tables
	case binary.SortCoreGlobal:
		refs = cc.globals
	default:
		return coreRef{}, fmt.Errorf("%w: bundling a %s", ErrRuntimeUnsupported, s)
	}
	if int(i) >= len(refs) {
		return coreRef{}, fmt.Errorf("%s %d out of range", s, i)
	}
	r := refs[i]
	if r.tramp < 0 && r.inst < 0 {
		return coreRef{}, fmt.Errorf("%w: %s", ErrRuntimeUnsupported, r.name)
	}
	return r, nil
}

// glueModule builds a core module that imports every item of a bundle of exports from where it
// really lives and re-exports it under the bundle's name, so that the bundle can be passed to
// engine.Store.Instantiate as one instance. It returns the module bytes and the core instances
// it imports from.
func (cc *Component) glueModule(d *binary.CoreInstance) ([]byte, []int, error) {
	var types, imports, exports []byte
	var nTypes, nImports uint32
	var count [4]uint32 // func, table, memory, global
	var from []int
	seen := map[int]bool{}
	for _, e := range d.Exports {
		r, err := cc.refOf(e.Sort, e.Index)
		if err != nil {
			return nil, nil, fmt.Errorf("export %q: %w", e.Name, err)
		}
		et, ok := d.Type.Export(e.Name)
		if !ok {
			return nil, nil, fmt.Errorf("BUG: export %q missing from the bundle's type", e.Name)
		}
		var mod, name string
		if r.tramp >= 0 {
			mod, name = canonModule, cc.trampName(r.tramp)
		} else {
			mod, name = "i"+strconv.Itoa(r.inst), r.name
			if !seen[r.inst] {
				seen[r.inst] = true
				from = append(from, r.inst)
			}
		}
		imports = appendName(appendName(imports, mod), name)
		var kind byte
		switch et.Type.Kind {
		case binary.CoreExternFunc:
			kind = 0
			types = append(types, 0x60)
			types = appendValTypes(appendValTypes(types, et.Type.Func.Params), et.Type.Func.Results)
			imports = append(imports, 0x00)
			imports = encbin.AppendUvarint(imports, uint64(nTypes))
			nTypes++
		case binary.CoreExternTable:
			kind = 1
			t := et.Type.Table
			imports = append(imports, 0x01, byte(t.Elem))
			imports = appendLimits(imports, t.Min, t.Max, t.HasMax, false)
		case binary.CoreExternMemory:
			kind = 2
			m := et.Type.Memory
			imports = append(imports, 0x02)
			imports = appendLimits(imports, m.Min, m.Max, m.HasMax, m.Shared)
		case binary.CoreExternGlobal:
			kind = 3
			mut := byte(0)
			if et.Type.Global.Mutable {
				mut = 1
			}
			imports = append(imports, 0x03, byte(et.Type.Global.Type), mut)
		default:
			return nil, nil, fmt.Errorf("%w: bundling a core %s", ErrRuntimeUnsupported, et.Type.Kind)
		}
		nImports++
		exports = appendName(exports, e.Name)
		exports = append(exports, kind)
		exports = encbin.AppendUvarint(exports, uint64(count[kind]))
		count[kind]++
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = appendSection(out, 1, nTypes, types)
	out = appendSection(out, 2, nImports, imports)
	out = appendSection(out, 7, uint32(len(d.Exports)), exports)
	return out, from, nil
}

func appendName(b []byte, s string) []byte {
	b = encbin.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendValTypes(b []byte, ts []binary.CoreValType) []byte {
	b = encbin.AppendUvarint(b, uint64(len(ts)))
	for _, t := range ts {
		b = append(b, byte(t))
	}
	return b
}

func appendLimits(b []byte, lo, hi uint64, hasMax, shared bool) []byte {
	flag := byte(0)
	if hasMax {
		flag |= 1
	}
	if shared {
		flag |= 2
	}
	b = append(b, flag)
	b = encbin.AppendUvarint(b, lo)
	if hasMax {
		b = encbin.AppendUvarint(b, hi)
	}
	return b
}

func appendSection(out []byte, id byte, n uint32, body []byte) []byte {
	if n == 0 {
		return out
	}
	content := encbin.AppendUvarint(nil, uint64(n))
	content = append(content, body...)
	out = append(out, id)
	out = encbin.AppendUvarint(out, uint64(len(content)))
	return append(out, content...)
}

// compileLiftGlue builds the module behind cc.liftGlue. A trampoline called straight through
// an export re-exporting it would see the host module as its caller, which identifies no
// component instance; a wasm wrapper makes the glue instance the caller.
func (cc *Component) compileLiftGlue(ctx context.Context) error {
	var need []int
	seen := map[int]bool{}
	use := func(i uint32) {
		if int(i) < len(cc.funcs) {
			if k := cc.funcs[i].tramp; k >= 0 && !seen[k] {
				seen[k] = true
				need = append(need, k)
			}
		}
	}
	for _, d := range cc.comp.Definitions {
		cn, ok := d.(*binary.Canon)
		if !ok {
			continue
		}
		if cn.Kind == binary.CanonLift {
			use(cn.CoreFunc)
		}
		if cn.Options.HasRealloc {
			use(cn.Options.Realloc)
		}
		if cn.Options.HasPostReturn {
			use(cn.Options.PostReturn)
		}
	}
	for _, r := range cc.resources {
		if r.HasDtor {
			use(r.Dtor)
		}
	}
	if len(need) == 0 {
		return nil
	}
	var types, imports, funcs, exports, code []byte
	cc.liftGlueNames = map[int]string{}
	for j, k := range need {
		ct := cc.tramps[k].CoreType
		types = append(types, 0x60)
		types = appendValTypes(appendValTypes(types, ct.Params), ct.Results)
		imports = appendName(appendName(imports, canonModule), cc.trampName(k))
		imports = append(imports, 0x00)
		imports = encbin.AppendUvarint(imports, uint64(j))
		funcs = encbin.AppendUvarint(funcs, uint64(j))
		name := "t" + strconv.Itoa(k)
		cc.liftGlueNames[k] = name
		exports = appendName(exports, name)
		exports = append(exports, 0x00)
		exports = encbin.AppendUvarint(exports, uint64(len(need)+j))
		body := []byte{0x00} // no locals
		for p := range ct.Params {
			body = append(body, 0x20) // local.get
			body = encbin.AppendUvarint(body, uint64(p))
		}
		body = append(body, 0x10) // call
		body = encbin.AppendUvarint(body, uint64(j))
		body = append(body, 0x0b) // end
		code = encbin.AppendUvarint(code, uint64(len(body)))
		code = append(code, body...)
	}
	n := uint32(len(need))
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = appendSection(out, 1, n, types)
	out = appendSection(out, 2, n, imports)
	out = appendSection(out, 3, n, funcs)
	out = appendSection(out, 7, n, exports)
	out = appendSection(out, 10, n, code)
	m, err := cc.engine.Compile(ctx, out)
	if err != nil {
		return fmt.Errorf("component: lifted trampolines: glue module: %w", err)
	}
	cc.liftGlue = m
	cc.owned = append(cc.owned, m)
	return nil
}
