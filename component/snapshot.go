package component

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/enginehook"
)

// ErrSnapshot means a component's state after instantiation cannot be captured and restored
// exactly; the message names the reason. Refusals of one of its core modules also wrap
// engine.ErrSnapshot.
var ErrSnapshot = errors.New("cannot snapshot component")

// Snapshot is a component's state after instantiation (every core instance's memories, mutable
// globals and tables after the start functions ran, a WASI reactor's _initialize among them),
// captured once, from which Snapshot.Instantiate creates instances without running
// initialization again. It is immutable and safe for concurrent use.
//
// A snapshot instance is exact, fuel included: its instantiation charges the fuel the captured
// one consumed. The one semantic difference, as with a Wizer-initialized build: whatever
// initialization computed is the same in every instance, including numbers it read from
// wasi:random and the time it read; the host functions it called are not called again.
type Snapshot struct {
	pre    *InstancePre
	sub    map[int]*engine.Module // restored module by core instance index
	fuel   uint64
	replay []replayCall
	closed atomic.Bool
}

// SnapshotOptions configures InstancePre.Snapshot.
type SnapshotOptions struct {
	// Replay reports whether a host import is a constructor that a snapshot instance may call
	// again, at its instantiation, to recreate a resource handle initialization left in the
	// instance's handle table: a function of no parameters returning one owned handle whose
	// only effect is a fresh host resource (wasi:cli's get-stdin, get-stdout and get-stderr,
	// which a WASI preview 1 adapter takes when it starts). Handles any other host call left
	// are refused. Nil replays nothing.
	Replay func(iface, name string) bool
	// Stateful reports whether a host import keeps state that a snapshot would not carry over
	// (a secret store, a log, the network): an initialization that calls one is refused. Nil
	// marks nothing.
	Stateful func(iface, name string) bool
	// Release gives back to the engine, once the state is read, the component's own compiled
	// core modules that the snapshot's restored modules replace, so that a component used only
	// through its snapshot keeps one compiled copy of its code, not two. The InstancePre (and
	// every other of the component) can then no longer instantiate without a snapshot: that
	// fails with ErrClosed. Taking another snapshot still works (it compiles the modules again
	// for the capture), as does Close. A Release whose snapshot fails leaves the modules
	// released too.
	Release bool
}

// replayCall is a recorded call of a replayable constructor: trampoline k, and the handle it
// returned at capture.
type replayCall struct {
	k      int
	handle uint64
}

// snapshotRecorder collects, during a capture, the calls of replayable constructors and counts
// the other host calls that returned something.
type snapshotRecorder struct {
	replay, stateful func(iface, name string) bool
	calls            []replayCall
	// statefulCall names the first call of a stateful import, if any.
	statefulCall string
}

// Snapshot instantiates the component in s, the store initialization runs in (set up as for a
// normal instance, WASI bound and so on), captures every core instance's state, and closes s,
// whether it succeeds or not (closing it again does nothing): the capture instance's compiled
// code must not stay reachable through a store the caller still holds while the restored modules
// compile.
//
// The capture instance runs the component's own compiled modules (every compiled module can
// show its state to a capture), so a snapshot compiles only the restored modules; with
// SnapshotOptions.Release the originals are given back before those are compiled. It refuses, with an error wrapping ErrSnapshot, a component whose state
// a snapshot could not restore exactly: nested components, component start functions, core
// modules the engine refuses (code that writes tables or drops segments; see
// engine.Engine.Snapshot), core module bytes released by Compile (use CompileDecoded), and an
// initialization that leaves resource handles in the instance's table (a snapshot instance's
// host state would not hold them).
func (p *InstancePre) Snapshot(ctx context.Context, s *engine.Store, opts SnapshotOptions) (*Snapshot, error) {
	sn, err := p.snapshot(ctx, s, opts)
	if err != nil {
		return nil, fmt.Errorf("component: snapshot: %w", err)
	}
	return sn, nil
}

// engineHooks are engine's capture, restore and fuel charge, which are not part of its API.
var engineHooks = enginehook.Get[*engine.Engine, *engine.Module, *engine.Instance, *engine.Store]()

// capture is one core module's capture (see enginehook.Capture).
type capture = enginehook.Capture[*engine.Module, *engine.Instance]

// captured is what a capture read: the captures (closed; their decoded modules restore), the
// core instances whose modules are replaced, their states, the fuel and the replayed calls.
type captured struct {
	caps   map[uint32]capture
	sub    map[int]*engine.Module
	states map[int]*enginehook.State
	fuel   uint64
	calls  []replayCall
}

// capture runs the capture instance in s and reads its state. It closes s, whatever happens:
// once it returns, nothing the caller holds keeps the capture instance, and with it the
// compiled code of the modules it ran, alive while the restored modules compile.
func (p *InstancePre) capture(ctx context.Context, s *engine.Store, opts SnapshotOptions) (*captured, error) {
	defer s.Close(ctx)
	cc := p.cc
	c := cc.comp
	if cc.closed.Load() {
		return nil, ErrClosed
	}
	if err := stateless(cc, 0); err != nil {
		return nil, err
	}
	for _, d := range c.Definitions {
		if _, ok := d.(*binary.Start); ok {
			return nil, fmt.Errorf("%w: it has a component start function", ErrSnapshot)
		}
	}
	caps := map[uint32]capture{}
	defer func() {
		for _, cp := range caps {
			_ = cp.Close(ctx)
		}
	}()
	sub := map[int]*engine.Module{}
	for idx, it := range c.CoreInstances {
		d, ok := it.Def.(*binary.CoreInstance)
		if !ok || d.FromExports {
			continue
		}
		cp, ok := caps[d.Module]
		if !ok {
			if int(d.Module) >= len(c.CoreModules) {
				return nil, fmt.Errorf("%w: core instance %d: core module %d is not defined here", ErrSnapshot, idx, d.Module)
			}
			cm, isDef := c.CoreModules[d.Module].Def.(*binary.CoreModule)
			if !isDef {
				return nil, fmt.Errorf("%w: core instance %d: core module %d is not defined here", ErrSnapshot, idx, d.Module)
			}
			if cm.Bytes == nil {
				return nil, fmt.Errorf("%w: core module %d's bytes were released (Compile releases them; use CompileDecoded)", ErrSnapshot, d.Module)
			}
			var err error
			if cp, err = engineHooks.NewCapture(ctx, cc.engine, cm.Bytes, s.Limits().TableElements, true); err != nil {
				return nil, fmt.Errorf("%w: core module %d: %w", ErrSnapshot, d.Module, err)
			}
			caps[d.Module] = cp
		}
		sub[idx] = cp.Module()
	}
	before := s.Fuel()
	capPre := p.with(sub)
	capPre.rec = &snapshotRecorder{replay: opts.Replay, stateful: opts.Stateful}
	in, err := newInstance(ctx, capPre, s, cc, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("initialization: %w", err)
	}
	fuel := uint64(before - s.Fuel())
	if c := capPre.rec.statefulCall; c != "" {
		return nil, fmt.Errorf("%w: initialization called %s, which is marked stateful", ErrSnapshot, c)
	}
	// The handles left must be exactly those the replayable constructors returned, in a table
	// that never lost one, so that replaying the calls in a fresh store rebuilds the same table.
	calls := capPre.rec.calls
	distinct := map[uint64]bool{}
	for _, c := range calls {
		distinct[c.handle] = true
	}
	if n := in.table.Len(); in.table.Removed() != 0 || n != len(calls) || len(distinct) != n {
		return nil, fmt.Errorf("%w: initialization left %d resource handles in the instance's table (%d from replayable constructors, %d removed), which a snapshot instance's host state would not hold", ErrSnapshot, n, len(calls), in.table.Removed())
	}
	states := make(map[int]*enginehook.State, len(sub))
	for idx := range sub {
		d := c.CoreInstances[idx].Def.(*binary.CoreInstance)
		st, err := caps[d.Module].Read(in.core[idx])
		if err != nil {
			return nil, fmt.Errorf("core instance %d: %w", idx, err)
		}
		states[idx] = st
	}
	// The capture instance is done with: the store may be closed and still held.
	_ = s.Close(ctx)
	cc.regKey.Delete(s)
	return &captured{caps: caps, sub: sub, states: states, fuel: fuel, calls: calls}, nil
}

func (p *InstancePre) snapshot(ctx context.Context, s *engine.Store, opts SnapshotOptions) (*Snapshot, error) {
	cc := p.cc
	c := cc.comp
	// s is not used after capture, which closed it: nothing keeps the capture instance alive.
	cp, err := p.capture(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	caps, sub, states := cp.caps, cp.sub, cp.states
	if opts.Release {
		if err := cc.releaseModules(ctx, sub); err != nil {
			return nil, err
		}
		// The released code is most of the heap (hundreds of MB for a JavaScript component).
		// Left to the pacer, the next collection waits for the heap to double, so the restored
		// modules' compile would grow the process to twice its size; one collection now lets
		// that compile reuse the released memory.
		runtime.GC()
	}
	restored := map[int]*engine.Module{}
	for idx := range sub {
		d := c.CoreInstances[idx].Def.(*binary.CoreInstance)
		m, err := caps[d.Module].RestoreFrom(ctx, states[idx])
		if err != nil {
			for _, m := range restored {
				_ = m.Close(ctx)
			}
			return nil, fmt.Errorf("core instance %d: %w", idx, err)
		}
		restored[idx] = m
	}
	return &Snapshot{pre: p, sub: restored, fuel: cp.fuel, replay: cp.calls}, nil
}

// Close releases the restored core modules the snapshot holds in the engine (a module's
// contents after initialization, one per core instance). Closing the component does not close
// its snapshots: close both. Instances made before Close keep working; Instantiate then fails
// with ErrClosed. Closing a snapshot again does nothing.
func (sn *Snapshot) Close(ctx context.Context) error {
	if !sn.closed.CompareAndSwap(false, true) {
		return nil
	}
	var errs []error
	for _, m := range sn.sub {
		errs = append(errs, m.Close(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("component: close snapshot: %w", err)
	}
	return nil
}

// releaseModules gives back the component's own compiled modules of the core instances sub
// replaces (see SnapshotOptions.Release); instantiating cc without a snapshot fails from then on.
func (cc *Component) releaseModules(ctx context.Context, sub map[int]*engine.Module) error {
	c := cc.comp
	drop := map[*engine.Module]bool{}
	for idx := range sub {
		d := c.CoreInstances[idx].Def.(*binary.CoreInstance)
		if int(d.Module) < len(cc.modules) && cc.modules[d.Module] != nil {
			drop[cc.modules[d.Module]] = true
		}
	}
	cc.mu.Lock()
	cc.released.Store(true)
	var errs []error
	kept := cc.owned[:0]
	for _, m := range cc.owned {
		if drop[m] {
			errs = append(errs, m.Close(ctx))
			continue
		}
		kept = append(kept, m)
	}
	cc.owned = kept
	cc.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("release the component's modules: %w", err)
	}
	return nil
}

// stateless refuses nested components that hold core instances (whose modules this snapshot
// does not capture) or start functions; the type-only wrappers wit-component nests are fine.
func stateless(cc *Component, depth int) error {
	if depth > maxResolveDepth {
		return fmt.Errorf("%w: components nested too deeply", ErrSnapshot)
	}
	for _, n := range cc.nested {
		if n == nil || n == cc {
			continue
		}
		if len(n.comp.CoreInstances) > 0 {
			return fmt.Errorf("%w: a nested component instantiates core modules", ErrSnapshot)
		}
		for _, d := range n.comp.Definitions {
			if _, ok := d.(*binary.Start); ok {
				return fmt.Errorf("%w: a nested component has a start function", ErrSnapshot)
			}
		}
		if err := stateless(n, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// with returns a copy of p whose instances instantiate the modules sub names, by core instance
// index, in place of the component's own.
func (p *InstancePre) with(sub map[int]*engine.Module) *InstancePre {
	q := *p
	q.sub = sub
	return &q
}

// Fuel returns the fuel the captured instantiation consumed: what Instantiate charges.
func (sn *Snapshot) Fuel() uint64 { return sn.fuel }

// Instantiate creates an instance of the component in s in the captured state, without running
// its start functions, and charges s the fuel they consumed at capture, so that the store's fuel
// counts equal a normal instantiation's. When the fuel does not cover it, the store is discarded
// and the error is an *engine.Trap of kind TrapFuelExhausted.
func (sn *Snapshot) Instantiate(ctx context.Context, s *engine.Store) (*Instance, error) {
	if s == nil {
		return nil, fmt.Errorf("component: instantiate: nil store")
	}
	if sn.closed.Load() {
		return nil, fmt.Errorf("component: instantiate: %w", ErrClosed)
	}
	in, err := newInstance(ctx, sn.pre.with(sn.sub), s, sn.pre.cc, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("component: instantiate: %w", err)
	}
	for _, c := range sn.replay {
		stack := []uint64{0}
		in.mayLeave = true
		err := in.trampoline(ctx, c.k, stack)
		in.mayLeave = false
		if err != nil {
			return nil, fmt.Errorf("component: instantiate: snapshot replay of %s: %w", sn.pre.cc.trampName(c.k), err)
		}
		if stack[0] != c.handle {
			return nil, fmt.Errorf("component: instantiate: %w: snapshot replay of %s returned handle %d, captured %d", ErrSnapshot, sn.pre.cc.trampName(c.k), stack[0], c.handle)
		}
	}
	if err := engineHooks.ChargeFuel(s, sn.fuel, "start"); err != nil {
		return nil, fmt.Errorf("component: instantiate: %w", err)
	}
	return in, nil
}

// record notes, during a capture, a host call of trampoline k that returned out.
func (r *snapshotRecorder) record(cc *Component, k int, out []uint64) {
	iface, name := cc.lowerImport(k)
	if r.stateful != nil && r.statefulCall == "" && r.stateful(iface, name) {
		r.statefulCall = iface + "#" + name
	}
	cn := cc.tramps[k]
	if len(cn.CoreType.Params) != 0 || len(cn.CoreType.Results) != 1 || r.replay == nil {
		return
	}
	if name != "" && r.replay(iface, name) {
		r.calls = append(r.calls, replayCall{k: k, handle: out[0]})
	}
}

// lowerImport names the import a canon lower trampoline calls: its interface and function.
func (cc *Component) lowerImport(k int) (iface, name string) {
	c := cc.comp
	cn := cc.tramps[k]
	if cn.Kind != binary.CanonLower || int(cn.FuncIndex) >= len(c.Funcs) {
		return "", ""
	}
	switch d := c.Funcs[cn.FuncIndex].Def.(type) {
	case *binary.Import:
		return "", d.Name.Raw
	case *binary.Alias:
		if d.Kind != binary.AliasInstanceExport || int(d.Instance) >= len(c.Instances) {
			return "", ""
		}
		if im, ok := c.Instances[d.Instance].Def.(*binary.Import); ok {
			return im.Name.Raw, d.Name
		}
	}
	return "", ""
}
