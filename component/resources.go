package component

import (
	"context"
	"fmt"
	"github.com/kobako/kobako/component/binary"

	"github.com/kobako/kobako/abi"
)

// destroy runs the destructor of resource rep of type rt: the host's for a host resource, the
// guest's dtor for one of the component's own resource types.
func (in *Instance) destroy(ctx context.Context, rt *abi.ResourceType, rep uint32) error {
	if hr := in.hostRes[rt]; hr != nil {
		if hr.Dtor == nil {
			return nil
		}
		if err := hr.Dtor(ctx, &in.caller, rep); err != nil {
			return fmt.Errorf("destructor of %s: %w", rt, err)
		}
		return nil
	}
	if owner := in.foreign[rt]; owner != nil {
		return owner.destroy(ctx, rt, rep)
	}
	r := in.local[rt]
	if r == nil || !r.HasDtor {
		return nil
	}
	f, err := in.coreFunc(r.Dtor)
	if err != nil {
		return err
	}
	leave := in.mayLeave
	in.mayLeave = true
	defer func() { in.mayLeave = leave }()
	if _, err := f.Call(ctx, uint64(rep)); err != nil {
		return fmt.Errorf("destructor of %s: %w", rt, err)
	}
	return nil
}

// ResourceType returns the abi type of a resource type the component exports: "r" at the root
// or "iface#r" in an exported interface. Own and borrow values of it carry the guest's rep.
func (in *Instance) ResourceType(name string) (*abi.ResourceType, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.resourceType(name)
}

func (in *Instance) resourceType(name string) (*abi.ResourceType, error) {
	owner, idx, err := in.exportedType(name)
	if err != nil {
		return nil, fmt.Errorf("component: export %q: %w", name, err)
	}
	c := owner.cc.comp
	for depth := 0; depth < maxResolveDepth && int(idx) < len(c.Types); depth++ {
		if d, ok := c.Types[idx].Def.(*binary.Export); ok {
			idx = d.Index
			continue
		}
		rt, ok := c.Types[idx].Type.(*binary.ResourceType)
		if !ok {
			return nil, fmt.Errorf("component: export %q: %w: not a resource type", name, ErrNoExport)
		}
		if at := owner.rtypes[rt.Resource]; at != nil {
			return at, nil
		}
		break
	}
	return nil, fmt.Errorf("component: export %q: %w: resource type not defined by this component", name, ErrRuntimeUnsupported)
}

// exportedType finds the type index of an exported type and the instance whose index space it
// is in (a nested component instance for wit-component's shims).
func (in *Instance) exportedType(name string) (*Instance, uint32, error) {
	iface, rname, ok := splitHash(name)
	if !ok {
		e, err := in.findExport(name, binary.SortType)
		if err != nil {
			return nil, 0, err
		}
		return in, e.Index, nil
	}
	e, err := in.findExport(iface, binary.SortInstance)
	if err != nil {
		return nil, 0, err
	}
	c := in.cc.comp
	i := e.Index
	for depth := 0; depth < maxResolveDepth && int(i) < len(c.Instances); depth++ {
		switch d := c.Instances[i].Def.(type) {
		case *binary.Export:
			i = d.Index
			continue
		case *binary.Instance:
			if d.FromExports {
				for _, x := range d.Exports {
					if x.Name.Raw == rname && x.Sort == binary.SortType {
						return in, x.Index, nil
					}
				}
				break
			}
			if child := in.children[d]; child != nil {
				return child.exportedType(rname)
			}
		}
		break
	}
	return nil, 0, fmt.Errorf("%w: no resource type %q in %s", ErrNoExport, rname, iface)
}

// DropResource drops an owned resource of a type the component (or a component nested in it)
// implements that the host holds (an own value a call returned): it runs the guest's destructor
// for rep. Dropping a host
// resource type has no effect here; the host manages its own.
func (in *Instance) DropResource(ctx context.Context, rt *abi.ResourceType, rep uint32) error {
	owner := in
	if in.local[rt] == nil {
		if owner = in.foreign[rt]; owner == nil {
			return fmt.Errorf("component: drop resource: %w: %s is not a resource type of this instance", ErrNoExport, rt)
		}
	}
	if !owner.busy.CompareAndSwap(false, true) {
		return fmt.Errorf("component: drop resource: %w", ErrReentrance)
	}
	defer owner.busy.Store(false)
	if err := owner.destroy(ctx, rt, rep); err != nil {
		return fmt.Errorf("component: drop resource: %w", err)
	}
	return nil
}
