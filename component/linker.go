package component

import (
	"context"
	"fmt"
	"github.com/kobako/kobako/component/binary"
	"reflect"
	"sort"
	"sync"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// HostFunc is a dynamic host implementation of an imported component function: it receives
// the calling instance and the lifted arguments and returns the results to lower, as many as the
// function type has (zero or one in the 0.2 component model). Own handles of host resources
// arrive as their rep; borrows are valid only until the function returns. A returned error traps
// the calling guest.
type HostFunc func(ctx context.Context, c *Caller, args []abi.Value) ([]abi.Value, error)

// HostResource is a resource type implemented by the host. The guest holds handles to it; the
// host identifies each resource by the rep it chose when it returned the own handle.
type HostResource struct {
	// Type is the abi resource type, shared by every instance linked with it.
	Type *abi.ResourceType
	// Dtor, when set, runs when the guest drops an owning handle (resource.drop).
	Dtor HostDtor
}

type hostDef struct {
	dyn   HostFunc
	typed reflect.Value // a Go func(context.Context, [*Caller | T,] P...) (R?, error?)
	// lead is what the typed function takes between the context and the WIT parameters.
	lead leadParam
	// state, for lead == leadState, finds the value passed there from the Caller.
	state func(*Caller) (reflect.Value, error)
}

// Linker holds the host definitions a component's imports are satisfied from: functions and
// resource types, grouped by interface ("wasi:io/streams@0.2.0") or at the root (interface "").
// A Linker is safe for concurrent use and may instantiate any number of components.
//
// Import names match definitions exactly or, for versioned interface names, by semver
// compatibility as wasmtime's linker does: versions with the same major (>= 1), or the same
// 0.minor (minor >= 1), are interchangeable, so a definition of wasi:io/streams@0.2.0 satisfies
// an import of wasi:io/streams@0.2.3 and the other way round; the exact version is preferred,
// then the highest compatible one. Pre-release versions match only exactly.
type Linker struct {
	mu        sync.RWMutex
	funcs     map[string]map[string]*hostDef
	resources map[string]map[string]*HostResource
	objs      map[string]reflect.Value // DefineInterface's values, by interface
}

// NewLinker returns an empty linker.
func NewLinker() *Linker {
	return &Linker{funcs: map[string]map[string]*hostDef{}, resources: map[string]map[string]*HostResource{},
		objs: map[string]reflect.Value{}}
}

func checkIface(iface string) error {
	if iface == "" {
		return nil
	}
	n, err := binary.ParseName(iface)
	if err != nil {
		return fmt.Errorf("component: linker: interface %q: %w", iface, err)
	}
	if n.Kind != binary.NameInterface {
		return fmt.Errorf("component: linker: %q is not an interface name (ns:pkg/iface@version)", iface)
	}
	return nil
}

// Define defines a dynamic host function name in interface iface ("" for a root import).
// Defining a name again replaces it.
func (l *Linker) Define(iface, name string, fn HostFunc) error {
	if fn == nil {
		return fmt.Errorf("component: linker: %s: nil function", qualified(iface, name))
	}
	return l.define(iface, name, &hostDef{dyn: fn})
}

// DefineFunc defines a host function written as a typed Go function:
// func(context.Context, P1, …, Pn), or func(context.Context, *Caller, P1, …, Pn) to learn the
// calling instance, followed by the results (R, error), R, error or nothing. The Go parameter
// and result types map to the WIT types through package abi's typed mapping (abi.NewCodec); the
// mapping is checked when a component is prepared or instantiated against it.
func (l *Linker) DefineFunc(iface, name string, fn any) error {
	v := reflect.ValueOf(fn)
	lead, err := checkGoFunc(v, nil)
	if err != nil {
		return fmt.Errorf("component: linker: %s: %w", qualified(iface, name), err)
	}
	return l.define(iface, name, &hostDef{typed: v, lead: lead})
}

// DefineFuncWith defines a typed host function that takes, after its context, the per-instance
// host state of type T that get finds from the calling instance (wasmtime's Linker<T>): fn is a
// func(context.Context, T, P1, …, Pn) with results as for DefineFunc. get typically reads an
// engine.Key from the Caller's store; an error it returns traps the guest. One definition so
// serves every instance, each with its own state.
func DefineFuncWith[T any](l *Linker, get func(*Caller) (T, error), iface, name string, fn any) error {
	if get == nil {
		return fmt.Errorf("component: linker: %s: nil state getter", qualified(iface, name))
	}
	v := reflect.ValueOf(fn)
	lead, err := checkGoFunc(v, reflect.TypeFor[T]())
	if err != nil {
		return fmt.Errorf("component: linker: %s: %w", qualified(iface, name), err)
	}
	state := func(c *Caller) (reflect.Value, error) {
		x, err := get(c)
		if err != nil {
			return reflect.Value{}, err
		}
		if rv := reflect.ValueOf(x); rv.IsValid() && rv.Type() == v.Type().In(1) {
			return rv, nil // a pointer or other concrete T: no copy needed
		}
		return reflect.ValueOf(&x).Elem(), nil
	}
	return l.define(iface, name, &hostDef{typed: v, lead: lead, state: state})
}

func (l *Linker) define(iface, name string, d *hostDef) error {
	if err := checkIface(iface); err != nil {
		return err
	}
	if _, err := binary.ParseName(name); err != nil {
		return fmt.Errorf("component: linker: function name %q: %w", name, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.funcs[iface]
	if m == nil {
		m = map[string]*hostDef{}
		l.funcs[iface] = m
	}
	m[name] = d
	return nil
}

// DefineResource defines a host resource type name in interface iface ("" for a root import)
// with an optional destructor, and returns it. Host functions of the same interface create
// resources by returning abi.OwnValue(rep) for the rep of their choosing.
func (l *Linker) DefineResource(iface, name string, dtor HostDtor) (*HostResource, error) {
	if err := checkIface(iface); err != nil {
		return nil, err
	}
	if !binary.IsLabel(name) {
		return nil, fmt.Errorf("component: linker: resource name %q is not a kebab-case label", name)
	}
	r := &HostResource{Type: abi.NewResourceType(name), Dtor: dtor}
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.resources[iface]
	if m == nil {
		m = map[string]*HostResource{}
		l.resources[iface] = m
	}
	m[name] = r
	return r, nil
}

func qualified(iface, name string) string {
	if iface == "" {
		return name
	}
	return iface + "#" + name
}

// compatKey is the part of a version that semver-compatible versions share, or "" when only the
// exact version matches.
func compatKey(v binary.Semver) string {
	switch {
	case v.Pre != "":
		return ""
	case v.Major > 0:
		return fmt.Sprintf("%d", v.Major)
	case v.Minor > 0:
		return fmt.Sprintf("0.%d", v.Minor)
	}
	return ""
}

// resolveIface finds the linker interface key that satisfies the import name imp. The caller
// holds l.mu.
func resolveIface[T any](defs map[string]T, imp binary.Name) (string, bool) {
	if _, ok := defs[imp.Raw]; ok {
		return imp.Raw, true
	}
	if imp.Kind != binary.NameInterface || imp.Version == "" {
		return "", false
	}
	want, err := binary.ParseSemver(imp.Version)
	if err != nil {
		return "", false
	}
	key := compatKey(want)
	if key == "" {
		return "", false
	}
	var cands []string
	vers := map[string]binary.Semver{}
	for k := range defs {
		n, err := binary.ParseName(k)
		if err != nil || n.Kind != binary.NameInterface || n.Unversioned() != imp.Unversioned() || n.Version == "" {
			continue
		}
		v, err := binary.ParseSemver(n.Version)
		if err != nil || compatKey(v) != key {
			continue
		}
		cands = append(cands, k)
		vers[k] = v
	}
	if len(cands) == 0 {
		return "", false
	}
	sort.Slice(cands, func(i, j int) bool { return semverLess(vers[cands[j]], vers[cands[i]]) })
	return cands[0], true
}

func semverLess(a, b binary.Semver) bool {
	if a.Major != b.Major {
		return a.Major < b.Major
	}
	if a.Minor != b.Minor {
		return a.Minor < b.Minor
	}
	return a.Patch < b.Patch
}

// Instantiate creates an instance of cc in store s, satisfying its imports from l: Prepare and
// InstancePre.Instantiate in one step (use them to instantiate one component many times). Its core
// instances all count against the store's instance limit and share its fuel, and every call of
// an export is held to the store's fuel and deadline as a whole; component start functions run
// here, each in an engine frame of its own. A store may hold several component instances (of cc
// or others): they are independent (own state, own resource types and handle tables) but share
// the store's limits and its fate: a trap in one discards the store, and closing one closes it.
// When Instantiate fails the store may hold part of the instance and should be closed unless
// the error left it usable (a link error before any code ran).
func (l *Linker) Instantiate(ctx context.Context, s *engine.Store, cc *Component) (*Instance, error) {
	pre, err := l.prepare(cc)
	if err != nil {
		return nil, fmt.Errorf("component: instantiate: %w", err)
	}
	return pre.Instantiate(ctx, s)
}

// InstantiateWithLimits creates a store with limits on the engine cc was compiled with and
// instantiates cc in it. Closing the instance closes the store.
func (l *Linker) InstantiateWithLimits(ctx context.Context, cc *Component, limits engine.Limits) (*Instance, error) {
	s, err := cc.engine.NewStore(ctx, limits)
	if err != nil {
		return nil, fmt.Errorf("component: instantiate: %w", err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		_ = s.Close(ctx)
		return nil, err
	}
	return in, nil
}

// importedFunc looks up the host function for import iface#name (iface is the import's name,
// empty at the root). The caller holds l.mu.
func (l *Linker) importedFunc(iface binary.Name, name string) (*hostDef, error) {
	key := ""
	if iface.Raw != "" {
		var ok bool
		if key, ok = resolveIface(l.funcs, iface); !ok {
			key = ""
		}
	}
	if d, ok := l.funcs[key][name]; ok && (key != "" || iface.Raw == "") {
		return d, nil
	}
	if d, found, err := l.objFunc(iface, name); found {
		return d, err
	}
	return nil, l.missing(iface, name)
}

// importedResource looks up the host resource type for import iface#name. The caller holds l.mu.
func (l *Linker) importedResource(iface binary.Name, name string) (*HostResource, error) {
	key := ""
	if iface.Raw != "" {
		var ok bool
		if key, ok = resolveIface(l.resources, iface); !ok {
			return nil, l.missing(iface, name)
		}
	}
	r, ok := l.resources[key][name]
	if !ok {
		return nil, l.missing(iface, name)
	}
	return r, nil
}

// missing builds the error for an unsatisfied import, naming the versions the linker does have
// so that a version mismatch reads as one.
func (l *Linker) missing(iface binary.Name, name string) error {
	var have []string
	if iface.Kind == binary.NameInterface {
		for k := range l.funcs {
			if n, err := binary.ParseName(k); err == nil && n.Unversioned() == iface.Unversioned() {
				have = append(have, k)
			}
		}
		for k := range l.resources {
			if n, err := binary.ParseName(k); err == nil && n.Unversioned() == iface.Unversioned() && l.funcs[k] == nil {
				have = append(have, k)
			}
		}
	}
	sort.Strings(have)
	if len(have) > 0 {
		return fmt.Errorf("%w: %s (the linker defines %v, none semver-compatible or none defining %q)", ErrMissingImport, qualified(iface.Raw, name), have, name)
	}
	return fmt.Errorf("%w: %s", ErrMissingImport, qualified(iface.Raw, name))
}

// DefineUnknownImportsAsTraps defines, for every import of cc that l does not satisfy yet, a
// stand-in, as wasmtime's Linker::define_unknown_imports_as_traps does: each such function
// traps when called, with an error wrapping ErrUnknownImport that names the import, and each
// such resource type is a fresh host resource type without a destructor. No host function
// ever returns a resource of such a type, so the guest can only obtain one by calling one of
// the trapping functions. A component that imports an interface it never uses on the path
// being called can so run without the host implementing it.
//
// Imports l already satisfies (exactly or by a semver-compatible version) are left alone;
// stand-ins for an interface l partly defines are added to that definition, so they do not
// shadow it. Call it after every other definition, since a later definition of the same name
// replaces the stand-in but one added afterwards for a new semver-compatible version would be
// shadowed by it.
func (l *Linker) DefineUnknownImportsAsTraps(cc *Component) error {
	if cc == nil || cc.comp == nil {
		return fmt.Errorf("component: linker: define unknown imports as traps: nil component")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, im := range cc.comp.Imports {
		switch im.Type.Sort {
		case binary.SortFunc:
			l.trapFunc(binary.Name{}, im.Name.Raw)
		case binary.SortType:
			if _, ok := im.Type.Type.(*binary.ResourceType); ok {
				l.trapResource(binary.Name{}, im.Name.Raw)
			}
		case binary.SortInstance:
			for _, d := range im.Type.Instance.Exports {
				switch d.Type.Sort {
				case binary.SortFunc:
					l.trapFunc(im.Name, d.Name.Raw)
				case binary.SortType:
					if _, ok := d.Type.Type.(*binary.ResourceType); ok {
						l.trapResource(im.Name, d.Name.Raw)
					}
				}
			}
		}
		// Other sorts are refused by Instantiate with ErrRuntimeUnsupported; a stand-in would
		// not change that.
	}
	return nil
}

// trapFunc defines iface#name as a trapping function unless l satisfies it. The caller holds
// l.mu for writing.
func (l *Linker) trapFunc(iface binary.Name, name string) {
	key := iface.Raw
	if key != "" {
		if k, ok := resolveIface(l.funcs, iface); ok {
			key = k
		}
	}
	if l.funcs[key][name] != nil {
		return
	}
	m := l.funcs[key]
	if m == nil {
		m = map[string]*hostDef{}
		l.funcs[key] = m
	}
	q := qualified(iface.Raw, name)
	m[name] = &hostDef{dyn: func(context.Context, *Caller, []abi.Value) ([]abi.Value, error) {
		return nil, fmt.Errorf("%w: %s (the linker defines it only as a trap)", ErrUnknownImport, q)
	}}
}

// trapResource defines resource type iface#name without a destructor unless l satisfies it. The
// caller holds l.mu for writing.
func (l *Linker) trapResource(iface binary.Name, name string) {
	key := iface.Raw
	if key != "" {
		if k, ok := resolveIface(l.resources, iface); ok {
			key = k
		}
	}
	if l.resources[key][name] != nil {
		return
	}
	m := l.resources[key]
	if m == nil {
		m = map[string]*HostResource{}
		l.resources[key] = m
	}
	m[name] = &HostResource{Type: abi.NewResourceType(name)}
}
