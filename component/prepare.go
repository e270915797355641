package component

import (
	"context"
	"fmt"
	"github.com/kobako/kobako/component/binary"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// InstancePre is a compiled component linked against a Linker once (wasmtime's InstancePre):
// every import of the root component is resolved and type-checked when it is made, typed host
// functions are adapted once, and the canon lower trampolines of host imports are built once
// and shared by every instance. Instantiate then does no name lookups and no type checks, so
// one InstancePre serves any number of fresh instances, from any number of goroutines.
//
// Later definitions on the Linker do not affect an InstancePre already made.
type InstancePre struct {
	cc    *Component
	funcs map[string]*preFunc // by qualified import name: "iface#f" or "f"
	res   map[*binary.Resource]*HostResource
	// lowered holds, by trampoline index, the callee of each canon lower of a host import
	// whose type names no resource of the component's own, shared by every instance.
	lowered []*funcImpl
	// sub, set only on the copies a Snapshot makes, replaces the module of each core instance
	// it names (by index) with a capture or a restored module.
	sub map[int]*engine.Module
	// rec, set only on the copy a capture instantiates, records the replayable host calls.
	rec *snapshotRecorder
	// base is the InstancePre Linker.Prepare made, which the copies above keep: the one a
	// prepared export (PreFunc) accepts instances of.
	base *InstancePre
	// slots numbers the lifted functions the root component exports, by component func index;
	// slotFunc maps a slot back, and slotFT holds each one's type when every instance shares it
	// (nil when it names resources of the component's own). See planSlots.
	slots    map[uint32]int
	slotFunc []uint32
	slotFT   []*abi.FuncType
}

// preFunc is one imported function: the definition that satisfies it and, when its type
// names only host resources, its implementation, shared by every instance.
type preFunc struct {
	def    *hostDef
	shared *funcImpl
}

// Component returns the compiled component the InstancePre instantiates.
func (p *InstancePre) Component() *Component { return p.cc }

// Prepare resolves every import of cc against l and type-checks it, once: a missing import fails
// with ErrMissingImport, a definition of the wrong type with ErrLinkType, naming the import.
func (l *Linker) Prepare(cc *Component) (*InstancePre, error) {
	p, err := l.prepare(cc)
	if err != nil {
		return nil, fmt.Errorf("component: prepare: %w", err)
	}
	return p, nil
}

func (l *Linker) prepare(cc *Component) (*InstancePre, error) {
	if cc == nil || cc.comp == nil {
		return nil, fmt.Errorf("nil component")
	}
	if cc.closed.Load() {
		return nil, ErrClosed
	}
	p := &InstancePre{cc: cc, funcs: map[string]*preFunc{}, res: map[*binary.Resource]*HostResource{},
		lowered: make([]*funcImpl, len(cc.tramps))}
	p.base = p
	type funcImport struct {
		iface binary.Name
		name  string
		t     *binary.FuncType
	}
	var fis []funcImport
	if err := func() error {
		l.mu.RLock()
		defer l.mu.RUnlock()
		for _, im := range cc.comp.Imports {
			switch im.Type.Sort {
			case binary.SortFunc:
				d, err := l.importedFunc(binary.Name{}, im.Name.Raw)
				if err != nil {
					return err
				}
				p.funcs[im.Name.Raw] = &preFunc{def: d}
				fis = append(fis, funcImport{binary.Name{}, im.Name.Raw, im.Type.Func})
			case binary.SortType:
				// A type import bounded by (eq …) to a resource imported earlier is that
				// resource, not a new import for the host to satisfy.
				if rt, ok := im.Type.Type.(*binary.ResourceType); ok && p.res[rt.Resource] == nil {
					hr, err := l.importedResource(binary.Name{}, im.Name.Raw)
					if err != nil {
						return err
					}
					p.res[rt.Resource] = hr
				}
			case binary.SortInstance:
				for _, d := range im.Type.Instance.Exports {
					switch d.Type.Sort {
					case binary.SortFunc:
						hd, err := l.importedFunc(im.Name, d.Name.Raw)
						if err != nil {
							return err
						}
						p.funcs[qualified(im.Name.Raw, d.Name.Raw)] = &preFunc{def: hd}
						fis = append(fis, funcImport{im.Name, d.Name.Raw, d.Type.Func})
					case binary.SortType:
						// As at the root: an export bounded by (eq …) to a resource met before
						// (wasi:http's headers, fields; its io-error, wasi:io's error) is that
						// resource, typed and destroyed under the name that defined it.
						if rt, ok := d.Type.Type.(*binary.ResourceType); ok && p.res[rt.Resource] == nil {
							hr, err := l.importedResource(im.Name, d.Name.Raw)
							if err != nil {
								return err
							}
							p.res[rt.Resource] = hr
						}
					case binary.SortInstance, binary.SortComponent, binary.SortCoreModule:
						return fmt.Errorf("%w: import %s exports a %s", ErrRuntimeUnsupported, im.Name.Raw, d.Type.Sort)
					}
				}
			default:
				return fmt.Errorf("%w: import %s of sort %s", ErrRuntimeUnsupported, im.Name.Raw, im.Type.Sort)
			}
		}
		return nil
	}(); err != nil {
		return nil, err
	}
	// Type-check every imported function and adapt it once. A type naming a resource the
	// component defines itself differs per instance (resource types are generative), so its
	// adapter is made per instance, but it is checked here all the same.
	for _, fi := range fis {
		pf := p.funcs[qualified(fi.iface.Raw, fi.name)]
		ft, shared, err := p.funcType(fi.t)
		if err != nil {
			return nil, err
		}
		host := pf.def.dyn
		var typed *typedImport
		if host == nil {
			if host, typed, err = typedHost(pf.def, ft); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrLinkType, qualified(fi.iface.Raw, fi.name), err)
			}
		}
		if shared {
			pf.shared = &funcImpl{ft: ft, host: host, typed: typed}
		}
	}
	for k, cn := range cc.tramps {
		if cn.Kind != binary.CanonLower {
			continue
		}
		iface, name, ok := importOf(cc.comp, cn.FuncIndex)
		if !ok {
			continue
		}
		pf := p.funcs[qualified(iface, name)]
		if pf == nil || pf.shared == nil {
			continue
		}
		ft, shared, err := p.funcType(cn.Func)
		if err != nil {
			return nil, err
		}
		if shared {
			p.lowered[k] = &funcImpl{ft: ft, host: pf.shared.host, typed: pf.shared.typed}
		}
	}
	if err := p.planSlots(); err != nil {
		return nil, err
	}
	return p, nil
}

// funcType converts t with the host's resource types, and says whether it names only those (so
// that every instance has the same abi type for it).
func (p *InstancePre) funcType(t *binary.FuncType) (*abi.FuncType, bool, error) {
	shared := true
	types := binary.ABITypes{Resource: func(r *binary.Resource) *abi.ResourceType {
		if hr := p.res[r]; hr != nil {
			return hr.Type
		}
		shared = false
		return nil
	}}
	ft, err := types.Func(t)
	return ft, shared, err
}

// importOf finds the root import that component function i is: a function import, or an export
// of an imported instance aliased into the function index space.
func importOf(c *binary.Component, i uint32) (iface, name string, ok bool) {
	for depth := 0; depth < maxResolveDepth && int(i) < len(c.Funcs); depth++ {
		switch d := c.Funcs[i].Def.(type) {
		case *binary.Import:
			return "", d.Name.Raw, true
		case *binary.Export:
			i = d.Index
			continue
		case *binary.Alias:
			if d.Kind != binary.AliasInstanceExport || int(d.Instance) >= len(c.Instances) {
				return "", "", false
			}
			if imp, isImp := c.Instances[d.Instance].Def.(*binary.Import); isImp {
				return imp.Name.Raw, d.Name, true
			}
		}
		return "", "", false
	}
	return "", "", false
}

// Instantiate creates an instance in store s, as Linker.Instantiate does, from the imports
// resolved when p was made.
func (p *InstancePre) Instantiate(ctx context.Context, s *engine.Store) (*Instance, error) {
	if s == nil {
		return nil, fmt.Errorf("component: instantiate: nil store")
	}
	in, err := newInstance(ctx, p, s, p.cc, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("component: instantiate: %w", err)
	}
	return in, nil
}
