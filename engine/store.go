package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// Store holds the core instances that make up one plugin instance, the limits they share and their
// fuel budget. A store is not safe for concurrent calls (neither is a wasm instance); use one store
// per concurrent caller. After a call traps, runs out of fuel or time, or the guest exits, the store
// is discarded: further calls return ErrInstanceUnavailable.
type Store struct {
	engine *Engine
	limits Limits
	// unmetered says that limits.Fuel is Unmetered: the store's modules are the unmetered
	// variants, in the engine's second runtime, and it has no fuel instance.
	unmetered bool
	// mods are the store's wazero instances, for the watcher of an unmetered store's calls, which
	// reads them on another goroutine: replaced, never changed, when an instance is added.
	mods atomic.Pointer[[]api.Module]
	// stopWatch ends the watch on the running Enter frame of an unmetered store (see watch).
	stopWatch func() bool

	fuel      fuelCounter // the guest-visible slice of the remaining fuel
	reserve   uint64      // the remaining fuel not yet handed to the guest
	fuelInst  api.Module  // nil once the store is closed
	detached  detachedFuel
	instances []*Instance
	data      []dataEntry // Key values; few per store: a scan beats a map and allocates less

	depth      int
	dead       error
	exitCode   *uint32
	memories   []*linearMemory
	peakBytes  uint64
	profStack  []profFrame
	onClose    []func()
	frame      *frameContext // the running Enter frame
	spareFrame *frameContext // a released frame no host function saw, for reuse
	hostCalls  uint64        // host function calls so far, but the refuel hook's
	exitFrame  func() error  // s.exit, bound once so Enter does not allocate it per call
	caller     *Caller       // the last Caller handed to a host function (see wrapHost)
	progress   *FuelProgress // the running top-level call's, if its context carries one

	closeOnce sync.Once
}

// Imports maps an import module name to what provides it: a *HostModule or an *Instance whose
// exports satisfy the imports by name.
type Imports map[string]Importable

// Importable is a *HostModule or an *Instance.
type Importable interface{ importable() }

// NewStore creates a store with the given limits, which must be valid (see Limits.Validate); a
// zero field takes its default.
func (e *Engine) NewStore(ctx context.Context, limits Limits) (*Store, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	limits = limits.withDefaults()
	if limits.Fuel == Unmetered && cooperativeScheduler {
		// Nothing but the guest's own refuel checks can stop a spinning guest where Go's
		// scheduler never preempts it: an unmetered store's deadline would never fire.
		return nil, fmt.Errorf("engine: %w: an unmetered store cannot honour its deadline on GOOS=%s, where nothing preempts a running guest; give it fuel", ErrUnmeteredUnsupported, runtime.GOOS)
	}
	s := &Store{engine: e, limits: limits, unmetered: limits.Fuel == Unmetered}
	s.exitFrame = s.exit
	if s.unmetered {
		s.fuel = &s.detached // stays 0
		return s, nil
	}
	inst, err := e.takeFuelInstance(ctx)
	if err != nil {
		return nil, err
	}
	s.fuelInst = inst
	s.fuel = inst.ExportedGlobal(fuelGlobalName).(api.MutableGlobal)
	s.SetFuel(limits.Fuel)
	return s, nil
}

// fuelCounter is the store's view of its fuel global: the live one while the store is open, a
// private copy once it is closed and the fuel instance went back to the engine's pool.
type fuelCounter interface {
	Get() uint64
	Set(uint64)
}

type detachedFuel struct{ v uint64 }

func (d *detachedFuel) Get() uint64  { return d.v }
func (d *detachedFuel) Set(v uint64) { d.v = v }

// maxPooledFuel bounds the fuel instances an engine keeps for reuse (each is a few hundred bytes).
const maxPooledFuel = 256

// takeFuelInstance returns a fuel module instance for a new store: a pooled one, or a fresh one.
// Instantiating the fuel module is most of an empty store's cost (wazero builds a module instance
// and a system context for it), and its only state is the counter, which NewStore overwrites.
func (e *Engine) takeFuelInstance(ctx context.Context) (api.Module, error) {
	e.mu.Lock()
	if n := len(e.fuelPool); n > 0 && !e.closed {
		inst := e.fuelPool[n-1]
		e.fuelPool[n-1] = nil
		e.fuelPool = e.fuelPool[:n-1]
		e.mu.Unlock()
		return inst, nil
	}
	e.mu.Unlock()
	hook, err := e.hostInstance(ctx, fuelHook, false)
	if err != nil {
		return nil, err
	}
	fctx := experimental.WithImportResolver(ctx, func(string) api.Module { return hook })
	inst, err := e.runtime.InstantiateModule(fctx, e.fuelMod, anonymousConfig)
	if err != nil {
		return nil, fmt.Errorf("engine: new store: %w", err)
	}
	return inst, nil
}

// releaseFuelInstance returns a closed store's fuel instance to the pool, or closes it.
func (e *Engine) releaseFuelInstance(ctx context.Context, inst api.Module) {
	e.mu.Lock()
	if !e.closed && len(e.fuelPool) < maxPooledFuel && !inst.IsClosed() {
		e.fuelPool = append(e.fuelPool, inst)
		e.mu.Unlock()
		return
	}
	e.mu.Unlock()
	_ = inst.Close(ctx)
}

// Limits returns the limits in force in the store: NewStore's, each zero field replaced by its
// default.
func (s *Store) Limits() Limits { return s.limits }

type dataEntry struct{ key, value any }

// Fuel returns the fuel left for the current or last call. It is negative when a call ran out.
// An unmetered store reports 0.
func (s *Store) Fuel() int64 { return s.fuelRemaining() }

// SetFuel sets the fuel left; the next top-level call starts from Limits.Fuel again. In an
// unmetered store it does nothing.
func (s *Store) SetFuel(n uint64) {
	if s.unmetered {
		return
	}
	slice := min(n, fuelSlice)
	s.fuel.Set(slice)
	s.reserve = n - slice
}

func (s *Store) fuelRemaining() int64 { return int64(s.fuel.Get()) + int64(s.reserve) }

// PeakMemory returns the largest total size, in bytes, that the store's linear memories reached.
func (s *Store) PeakMemory() uint64 { return s.peakBytes }

// Close closes every instance of the store. Their memories must not be used afterwards: the
// buffers of snapshot instances' memories are reused for later instances of the snapshot.
func (s *Store) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		for _, in := range s.instances {
			_ = in.mod.Close(ctx)
		}
		if s.depth == 0 {
			// No call is running: nothing reads the memories of a restored module any more, and
			// their buffers can serve the module's next instances (see memoryImage.newMemory).
			for _, lm := range s.memories {
				if lm.spare != nil {
					lm.image.recycle(lm.spare)
					lm.spare = nil
				}
			}
			// A closed store that its owner still holds must not hold its instances: a closed
			// wazero instance keeps its module's compiled code reachable (a snapshot's capture
			// store would keep the original code alive while the restored module compiles).
			s.instances, s.memories, s.caller = nil, nil, nil
		}
		// The counter is copied out, so Fuel and FuelConsumed still answer after Close without
		// reading an instance another store may be using by then.
		s.detached.v = s.fuel.Get()
		s.fuel = &s.detached
		if s.fuelInst == nil {
			// An unmetered store has none.
		} else if s.depth == 0 {
			s.engine.releaseFuelInstance(ctx, s.fuelInst)
		} else {
			// Closed from a host function during a call: the guest may still touch the counter
			// before wazero stops it, so this instance must never serve another store.
			_ = s.fuelInst.Close(ctx)
		}
		s.fuelInst = nil
		for i := len(s.onClose) - 1; i >= 0; i-- {
			s.onClose[i]()
		}
		if s.dead == nil {
			s.dead = errStoreClosed
		}
	})
	return nil
}

// instanceOf finds the store's instance for a wazero module; a store holds at most
// Limits.Instances of them, usually one or two.
func (s *Store) instanceOf(m api.Module) *Instance {
	for _, in := range s.instances {
		if in.mod == m {
			return in
		}
	}
	return nil
}

func (s *Store) exited(code uint32) { s.exitCode = &code }

// errStoreClosed is built once: every closed store reports the same error.
var errStoreClosed = fmt.Errorf("engine: store: %w", ErrClosed)

// Instantiate creates a core instance of m in the store, resolving its imports from imports. The
// start function, if any, runs with the store's fuel and deadline.
func (s *Store) Instantiate(ctx context.Context, m *Module, imports Imports) (*Instance, error) {
	if s.dead != nil {
		return nil, s.dead
	}
	if m.engine != s.engine {
		return nil, fmt.Errorf("engine: instantiate: module was compiled by another engine")
	}
	if m.closed.Load() {
		return nil, fmt.Errorf("engine: instantiate: %w", ErrClosed)
	}
	if len(s.instances) >= s.limits.Instances {
		return nil, &Trap{Kind: TrapInstanceLimit, Cause: fmt.Errorf("store already has %d instances", len(s.instances))}
	}
	for i, mem := range m.memories {
		if mem.Min*wasmPage > s.limits.MemoryBytes {
			return nil, &Trap{Kind: TrapMemoryLimit, Cause: fmt.Errorf("memory %d declares a minimum of %d pages (%d bytes), over the limit of %d bytes", i, mem.Min, mem.Min*wasmPage, s.limits.MemoryBytes)}
		}
	}
	for i, tab := range m.tables {
		if tab.Min > s.limits.TableElements {
			return nil, &Trap{Kind: TrapTableLimit, Cause: fmt.Errorf("table %d declares a minimum of %d elements, over the limit of %d", i, tab.Min, s.limits.TableElements)}
		}
	}
	// The limit is written into the module's tables at compile time: use the variant for this
	// store's limit.
	m, err := s.engine.variant(ctx, m, s.limits.TableElements, s.unmetered)
	if err != nil {
		return nil, err
	}
	if err := checkLink(m, imports); err != nil {
		return nil, err
	}
	resolved := map[string]api.Module{}
	if !s.unmetered {
		resolved[fuelModuleName] = s.fuelInst
	}
	for _, im := range m.imports {
		if _, done := resolved[im.Module]; done {
			continue
		}
		switch p := imports[im.Module].(type) { // checkLink made sure it exists
		case *HostModule:
			hm, err := s.engine.hostInstance(ctx, p, s.unmetered)
			if err != nil {
				return nil, err
			}
			resolved[im.Module] = hm
		case *Instance:
			if p.store != s {
				return nil, fmt.Errorf("engine: instantiate: %w: instance for %q belongs to another store", ErrLink, im.Module)
			}
			resolved[im.Module] = p.mod
		default:
			return nil, fmt.Errorf("engine: instantiate: %w: unsupported provider %T for %q", ErrLink, p, im.Module)
		}
	}
	if m.renamedEmpty {
		resolved[emptyModuleName] = resolved[""]
	}

	if m.hasStart {
		// Only a start section runs code during instantiation; without one, the frame (deadline
		// and store marker) would be set up for nothing.
		fc := newFrameContext(ctx, s)
		defer fc.release()
		if s.unmetered {
			defer s.watch(fc)()
		}
		ctx = fc
	}
	ictx := experimental.WithImportResolver(ctx, func(name string) api.Module { return resolved[name] })
	img := m.image // the module defines at most one memory: the image is its contents
	ictx = experimental.WithMemoryAllocator(ictx, experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return s.allocate(capacity, max, img)
	}))
	rt := s.engine.runtime
	if s.unmetered {
		if rt, err = s.engine.unmeteredRuntime(ctx); err != nil {
			return nil, err
		}
	}
	s.depth++
	mod, err := rt.InstantiateModule(ictx, m.compiled, anonymousConfig)
	s.depth--
	if err != nil {
		if !ranCode(err) {
			return nil, fmt.Errorf("engine: instantiate: %w: %w", ErrLink, err)
		}
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
		if ee, ok := asExit(err, s); ok {
			return nil, ee
		}
		return nil, s.classify(err, m)
	}
	in := &Instance{store: s, module: m, mod: mod}
	s.instances = append(s.instances, in)
	if s.unmetered {
		mods := make([]api.Module, len(s.instances))
		for i, in := range s.instances {
			mods[i] = in.mod
		}
		s.mods.Store(&mods)
	}
	// The start section ran inside InstantiateModule; a WASI-style _start is called by the embedder.
	if s.fuelRemaining() < 0 {
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
		return nil, &Trap{Kind: TrapFuelExhausted, Function: "start"}
	}
	return in, nil
}

// ranCode reports whether an instantiation error came from running guest or host code (the start
// function, a host function it called, an exit) rather than from linking.
func ranCode(err error) bool {
	var hp *hostPanic
	var se *sys.ExitError
	return errors.As(err, &hp) || errors.As(err, &se) || strings.Contains(err.Error(), "wasm stack trace:")
}

// checkLink matches every import against what provides it, so that a missing function or a wrong
// signature is a link error naming both, before wazero sees the module.
func checkLink(m *Module, imports Imports) error {
	for _, im := range m.imports {
		p, ok := imports[im.Module]
		if !ok {
			return fmt.Errorf("engine: instantiate: %w: nothing provides import module %q (needed for %s %q)", ErrLink, im.Module, im.Kind, im.Name)
		}
		var found *ExportDesc
		var host ExportDesc // a host function's, on the stack: instantiation checks every import
		switch p := p.(type) {
		case *HostModule:
			for i := range p.Funcs {
				if f := &p.Funcs[i]; f.Name == im.Name {
					host = ExportDesc{Name: f.Name, Kind: ExternFunc, Params: f.Params, Results: f.Results}
					found = &host
					break
				}
			}
		case *Instance:
			for i, ex := range p.module.exports {
				if ex.Name == im.Name {
					found = &p.module.exports[i]
					break
				}
			}
		}
		if found == nil {
			return fmt.Errorf("engine: instantiate: %w: import %q %q: %q provides no %s of that name", ErrLink, im.Module, im.Name, im.Module, im.Kind)
		}
		if found.Kind != im.Kind {
			return fmt.Errorf("engine: instantiate: %w: import %q %q: expected a %s, found a %s", ErrLink, im.Module, im.Name, im.Kind, found.Kind)
		}
		if im.Kind == ExternFunc && (!slices.Equal(found.Params, im.Params) || !slices.Equal(found.Results, im.Results)) {
			return fmt.Errorf("engine: instantiate: %w: import %q %q: expected %s, found %s", ErrLink, im.Module, im.Name, signature(im.Params, im.Results), signature(found.Params, found.Results))
		}
	}
	return nil
}

func signature(params, results []ValueType) string {
	list := func(ts []ValueType) string {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = t.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "func " + list(params) + " -> " + list(results)
}

// Discard marks the store as unusable after its guest broke a rule the engine cannot see (the
// component model's canonical ABI, say) and left its state in doubt: later calls and
// instantiations fail with ErrInstanceUnavailable, as after a trap. It does not close the store.
func (s *Store) Discard() {
	if s.dead == nil {
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
	}
}

// OnClose registers f to run when the store is closed, so per-store host state (open files, say)
// is released with the store.
func (s *Store) OnClose(f func()) { s.onClose = append(s.onClose, f) }

// Enter starts a frame: one top-level call made of several calls into the store's instances, as a
// component call is (realloc for each string or list argument, the export, post-return). The calls
// made with the returned context until exit is called share one fuel budget and one deadline, exactly
// as if they were one call: no refuelling between them. exit ends the frame and reports a *Trap when
// the frame as a whole ran out of fuel or time (the store is then discarded). Inside a running call
// (from a host function) Enter adds nothing: the calls already share that call's budget.
//
// The returned context belongs to the frame: do not keep it past exit, after which the store may
// reuse it for a later call.
func (s *Store) Enter(ctx context.Context) (context.Context, func() error, error) {
	if s.dead != nil {
		return nil, nil, s.dead
	}
	if s.depth > 0 {
		return context.WithValue(ctx, storeKey{}, s), noExit, nil
	}
	s.SetFuel(s.limits.Fuel)
	s.profStack = s.profStack[:0]
	s.progress = nil
	if o := observersFrom(ctx); o != nil && o.progress != nil && !s.unmetered {
		s.progress = o.progress
		s.progress.started(s.limits.Fuel)
	}
	s.frame = newFrameContext(ctx, s)
	if s.unmetered {
		s.stopWatch = s.watch(s.frame)
	}
	s.depth++
	return s.frame, s.exitFrame, nil
}

func noExit() error { return nil }

// exit ends the frame Enter started.
func (s *Store) exit() error {
	fc := s.frame
	if fc == nil {
		return nil // exit called twice
	}
	s.frame = nil
	s.depth--
	if s.stopWatch != nil {
		s.stopWatch()
		s.stopWatch = nil
	}
	if s.progress != nil {
		s.progress.ended(uint64(max(int64(s.limits.Fuel)-s.fuelRemaining(), 0)))
		s.progress = nil
	}
	ctxErr := fc.expired()
	fc.release()
	var t *Trap
	switch {
	case s.fuelRemaining() < 0:
		t = &Trap{Kind: TrapFuelExhausted}
	case ctxErr != nil:
		t = &Trap{Kind: contextTrapKind(ctxErr), Cause: ctxErr}
	default:
		return nil
	}
	s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
	return t
}

type storeKey struct{}

func storeFromContext(ctx context.Context) *Store {
	s, _ := ctx.Value(storeKey{}).(*Store)
	return s
}

const wasmPage = 65536

// allocate backs every linear memory the store's instances define, enforcing the per-memory limit:
// growth past it fails the way the spec says (memory.grow returns -1), never with a Go allocation.
// img, when not nil, is what the memory starts as (a restored module's; see Module.setImage).
func (s *Store) allocate(capacity, max uint64, img *memoryImage) experimental.LinearMemory {
	lm := &linearMemory{store: s, max: min(max, s.limits.MemoryBytes), image: img}
	s.memories = append(s.memories, lm)
	return lm
}

type linearMemory struct {
	store *Store
	max   uint64
	buf   []byte
	// image is what the memory starts as, for a restored module's memory; nil otherwise.
	image *memoryImage
	// recycled says that buf came from the image's pool: the bytes past its length are not zero.
	recycled bool
	// spare is the buffer Free released, for the store to return to the image's pool.
	spare []byte
}

func (l *linearMemory) Reallocate(size uint64) []byte {
	if size > l.max {
		return nil
	}
	if img := l.image; img != nil && l.buf == nil && l.spare == nil {
		// The first allocation, of the module's minimum: the image's size (Module.setImage).
		if size != img.size {
			return nil
		}
		l.buf, l.recycled = img.newMemory()
		l.store.noteMemory()
		return l.buf
	}
	if size <= uint64(cap(l.buf)) {
		old := len(l.buf)
		l.buf = l.buf[:size]
		if l.recycled {
			clear(l.buf[old:]) // grown pages start zeroed
		}
	} else {
		// Grow geometrically, but never reserve past the limit.
		c := max(size, min(uint64(cap(l.buf))*2, l.max))
		nb := make([]byte, size, c)
		copy(nb, l.buf)
		l.buf, l.recycled = nb, false
	}
	l.store.noteMemory()
	return l.buf
}

func (l *linearMemory) Free() {
	if l.image != nil {
		l.spare = l.buf
	}
	l.buf = nil
}

func (s *Store) noteMemory() {
	var total uint64
	for _, m := range s.memories {
		total += uint64(len(m.buf))
	}
	s.peakBytes = max(s.peakBytes, total)
}

// anonymousConfig instantiates without a name (so one compiled module can have any number of
// instances, wazero-notes §1) and without running _start, which the embedder calls. Its random
// source and clocks are never read (kobako's WASI hosts have their own), but naming them spares
// wazero from seeding a fake generator (about half the cost of a tiny instance) and from
// allocating fake clocks on every instantiation.
var anonymousConfig = wazero.NewModuleConfig().WithName("").WithStartFunctions().
	WithRandSource(emptyReader{}).
	WithWalltime(zeroWalltime, 1).
	WithNanotime(zeroNanotime, 1)

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

func zeroWalltime() (int64, int32) { return 0, 0 }

func zeroNanotime() int64 { return 0 }
