package component

import (
	"context"
	"errors"
	"fmt"
	"github.com/kobako/kobako/component/binary"
	"slices"
	"strconv"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// trampState is what a trampoline needs in one instance, resolved on its first call.
type trampState struct {
	callee *funcImpl         // canon lower
	rt     *abi.ResourceType // resource built-ins
	lower  *lowerCall        // canon lower: made by its first call
}

// lowerCall is what every call of a canon lower trampoline needs, kept from call to call: the
// canonCall of its options, the callee, and the closure that calls it, bound once.
type lowerCall struct {
	canonCall
	in     *Instance // the calling instance
	callee *funcImpl
	serve  func(args []abi.Value) ([]abi.Value, error)
}

func (in *Instance) newLowerCall(ts *trampState, o *binary.CanonOptions) (*lowerCall, error) {
	lc := &lowerCall{in: in, callee: ts.callee}
	if err := in.initCanonCall(&lc.canonCall, o); err != nil {
		return nil, err
	}
	lc.serve = lc.callCallee
	return lc, nil
}

// callCallee runs the lowered function: a host function, or a lifted function of another
// component instance (a parent's or a nested one's) through its own canon lift; one of this
// very instance fails may_enter.
func (lc *lowerCall) callCallee(args []abi.Value) ([]abi.Value, error) {
	res, err := lc.callee.call(lc.ctx, lc.in, args)
	if err != nil && lc.callee.host != nil {
		return nil, &hostError{err}
	}
	return res, err
}

// hostModule builds the host module of the component's trampolines: canon lower (the guest
// calling an import, CanonicalABI.md#canon-lower) and the resource built-ins
// (CanonicalABI.md#canon-resourcenew and following), each with the flattened core signature the
// decoder validated. It is built once per compiled component and shared by every instance
// (engine compiles a host module once per engine); each call finds its instance through the
// store it runs in and, when the store holds several instances of the component, the core
// instance that called.
func (cc *Component) hostModule() *engine.HostModule {
	hm := &engine.HostModule{Name: canonModule}
	for k, cn := range cc.tramps {
		hm.Funcs = append(hm.Funcs, engine.HostFunc{
			Name:    cc.trampName(k),
			Params:  slices.Clone(cn.CoreType.Params),
			Results: slices.Clone(cn.CoreType.Results),
			Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
				var in *Instance
				if reg, _ := cc.regKey.Get(c.Store()); reg != nil {
					in = reg.caller(c)
				}
				if in == nil {
					panic(fmt.Errorf("component: BUG: trampoline %d called in a store without an instance", k))
				}
				if err := in.trampoline(ctx, k, stack); err != nil {
					// The engine reports a panic with an error as the host's (TrapHost), and one
					// with a *Trap or *ExitError as that; a guest's canonical ABI breach is a
					// TrapCanonicalABI.
					var he *hostError
					if !errors.As(err, &he) {
						err = canonTrap(err, cc.trampName(k))
					}
					panic(fmt.Errorf("component: canon %s: %w", cn.Kind, err))
				}
			},
		})
	}
	return hm
}

// storeInstances lists the instances of one compiled component in one store: the same nested
// component instantiated in two places of an instance tree, or two instance trees in one store.
// Its trampolines are one host module for them all, so a call tells its instance by the core
// instance it comes from.
type storeInstances struct {
	all    []*Instance
	byCore map[*engine.Instance]*Instance
	// pending is the instance whose core module is being instantiated: a start function in it
	// runs before the engine lists the new core instance, so its calls have no known caller.
	pending *Instance
}

// registry returns the instances of cc in store s, creating the list on first use.
func registry(s *engine.Store, cc *Component) *storeInstances {
	reg, _ := cc.regKey.Get(s)
	if reg == nil {
		reg = &storeInstances{byCore: map[*engine.Instance]*Instance{}}
		cc.regKey.Set(s, reg)
	}
	return reg
}

// register adds a new instance to its store's list.
func register(in *Instance) {
	reg := registry(in.store, in.cc)
	reg.all = append(reg.all, in)
}

// unregister takes an instance whose instantiation failed, and the nested instances it
// created, off their stores' lists.
func unregister(in *Instance) {
	for _, child := range in.children {
		unregister(child)
	}
	reg := registry(in.store, in.cc)
	for i, x := range reg.all {
		if x == in {
			reg.all = append(reg.all[:i], reg.all[i+1:]...)
			break
		}
	}
	for ci, x := range reg.byCore {
		if x == in {
			delete(reg.byCore, ci)
		}
	}
}

// caller returns the instance a trampoline call comes from, or nil.
func (r *storeInstances) caller(c *engine.Caller) *Instance {
	if len(r.all) == 1 {
		return r.all[0]
	}
	if ci := c.Instance(); ci != nil {
		if in := r.byCore[ci]; in != nil {
			return in
		}
	}
	return r.pending
}

// trampName names trampoline k for traps and stack traces: "t3 canon lower log".
func (cc *Component) trampName(k int) string {
	cn := cc.tramps[k]
	name := "t" + strconv.Itoa(k) + " canon " + cn.Kind.String()
	switch cn.Kind {
	case binary.CanonLower:
		if int(cn.FuncIndex) < len(cc.comp.Funcs) {
			switch d := cc.comp.Funcs[cn.FuncIndex].Def.(type) {
			case *binary.Alias:
				name += " " + d.Name
			case *binary.Import:
				name += " " + d.Name.Raw
			}
		}
	default:
		r := cn.Resource.Resource.Name
		if r == "" {
			r = cc.resourceNames[cn.Resource.Resource]
		}
		name += " " + r
	}
	return name
}

func (in *Instance) tramp(k int) (*trampState, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.trampLocked(k)
}

func (in *Instance) trampLocked(k int) (*trampState, error) {
	if ts := in.tramps[k]; ts != nil {
		return ts, nil
	}
	cn := in.cc.tramps[k]
	ts := &trampState{}
	switch cn.Kind {
	case binary.CanonLower:
		if in.pre != nil && in.pre.lowered[k] != nil {
			ts.callee = in.pre.lowered[k] // a host import, linked once for every instance
			break
		}
		f, err := in.resolveFunc(cn.FuncIndex, 0)
		if err != nil {
			return nil, err
		}
		// The lowered type is the canon's own (with this instance's resources); it equals
		// the callee's by validation.
		ft, err := in.types.Func(cn.Func)
		if err != nil {
			return nil, err
		}
		ts.callee = &funcImpl{ft: ft, lift: f.lift, host: f.host, typed: f.typed, owner: f.owner}
	default:
		ts.rt = in.rtypes[cn.Resource.Resource]
		if ts.rt == nil {
			return nil, fmt.Errorf("BUG: resource %s has no type in this instance", cn.Resource)
		}
	}
	in.tramps[k] = ts
	return ts, nil
}

// trampoline runs trampoline k for a guest call with the core arguments in stack, writing the
// core results back into it.
func (in *Instance) trampoline(ctx context.Context, k int, stack []uint64) error {
	ts, err := in.tramp(k)
	if err != nil {
		return err
	}
	cn := in.cc.tramps[k]
	switch cn.Kind {
	case binary.CanonLower:
		if !in.mayLeave {
			return fmt.Errorf("%w: may_leave is false (an import called from realloc, post-return or a lift)", ErrReentrance)
		}
		lc := ts.lower
		if lc == nil {
			if lc, err = in.newLowerCall(ts, &cn.Options); err != nil {
				return err
			}
			ts.lower = lc
		}
		n := len(cn.CoreType.Params)
		in.mayLeave = false
		var out []uint64
		if ti := ts.callee.typed; ti != nil {
			out, err = ti.serve(ctx, &in.caller, lc.begin(ctx), stack[:n])
		} else {
			out, err = ts.callee.ft.ServeImport(lc.begin(ctx), stack[:n], lc.serve)
		}
		in.mayLeave = true
		lc.end()
		if err != nil {
			return err
		}
		if in.pre != nil && in.pre.rec != nil && ts.callee.host != nil {
			in.pre.rec.record(in.cc, k, out)
		}
		copy(stack, out)
	case binary.CanonResourceNew:
		h, err := in.table.New(ts.rt, uint32(stack[0]))
		if err != nil {
			return err
		}
		stack[0] = uint64(h)
	case binary.CanonResourceRep:
		rep, err := in.table.Rep(ts.rt, uint32(stack[0]))
		if err != nil {
			return err
		}
		stack[0] = uint64(rep)
	case binary.CanonResourceDrop:
		rep, own, err := in.table.Drop(ts.rt, uint32(stack[0]))
		if err != nil {
			return err
		}
		if own {
			return in.destroy(ctx, ts.rt, rep)
		}
	}
	return nil
}
