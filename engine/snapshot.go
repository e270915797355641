package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kobako/kobako/internal/enginehook"
	"github.com/kobako/kobako/internal/wasm"
)

// The capture and restore of modules under a component snapshot, and the fuel a restored
// instance charges, are package component's alone: they reach it through enginehook, not
// through engine's API.
func init() {
	enginehook.Set(enginehook.Hooks[*Engine, *Module, *Instance, *Store]{
		NewCapture: func(ctx context.Context, e *Engine, wasmBytes []byte, tableLimit uint32, linked bool) (enginehook.Capture[*Module, *Instance], error) {
			c, err := e.newCapture(ctx, wasmBytes, tableLimit, linked)
			if err != nil {
				return nil, err
			}
			return c, nil
		},
		ChargeFuel:      (*Store).chargeFuelOrTrap,
		CompiledModules: (*Engine).compiledModules,
	})
}

// ErrSnapshot reports a module whose state after initialization cannot be captured and
// restored exactly; the error names the reason.
var ErrSnapshot = errors.New("cannot snapshot")

// snapshotPrefix names the exports a capture adds to read a module's state. checkLink offers
// only a module's own declared exports to importers, and AddStateExports refuses a module that
// already uses the prefix.
const snapshotPrefix = "kobako:snapshot/"

// SnapshotConfig configures Engine.Snapshot.
type SnapshotConfig struct {
	// Limits are the limits of the store initialization runs in; they must be valid, and a zero
	// field takes its default.
	Limits Limits
	// Imports provide the module's imports during initialization. Only host modules may
	// provide them: initialization could change another instance's state, which a snapshot
	// does not restore.
	Imports Imports
	// InitExport names an export that initialization calls after the start function, as the
	// embedder would call it after a normal instantiation (a WASI reactor's "_initialize");
	// empty for none. It must take no parameters.
	InitExport string
	// Stateful lists import module names whose host functions keep state between calls or
	// across the store (open files, counters): a module importing any of them is refused,
	// because a snapshot instance would not see what initialization did to that state.
	Stateful []string
}

// Snapshot is a module's state after initialization (its start function and
// SnapshotConfig.InitExport), captured once, from which Store.InstantiateSnapshot creates
// instances without running initialization again. It is immutable and safe for concurrent use.
//
// A snapshot instance is exact: its memories, mutable globals, tables and data segments are
// those a normal instantiation followed by the init call would leave, and it charges the fuel
// that initialization consumed, so fuel counts match a real instantiation's to the unit.
//
// The one semantic difference, as with a Wizer-initialized build: whatever initialization
// computed is the same in every instance. Numbers it read from a random source, the time it
// read, anything it got from a host function, were read once, at capture; the host functions
// are not called again. Engine.Snapshot refuses modules whose state could otherwise differ
// observably (see Engine.Snapshot).
type Snapshot struct {
	module     *Module // the restored module: no start section, state in its initializers
	hasStart   bool
	startFuel  uint64
	initExport string
	initFuel   uint64
}

// Module returns the restored module the snapshot instantiates. Its exports and imports are the
// original module's; it has no start function.
func (sn *Snapshot) Module() *Module { return sn.module }

// InitFuel returns the fuel the start function and the init export consumed at capture: what
// Store.InstantiateSnapshot charges.
func (sn *Snapshot) InitFuel() (start, init uint64) { return sn.startFuel, sn.initFuel }

// Snapshot instantiates the module wasmBytes in a store of its own, runs its initialization
// (the start function, then cfg.InitExport if set) and captures the result. Instances created
// from the snapshot with Store.InstantiateSnapshot start in that state without running anything.
//
// The module is compiled once, through the engine's cache (so a Compile of the same bytes is
// shared), and initialization runs in that compiled module; the snapshot then holds only the
// restored module. The original's compiled code is given back before the restored module is
// compiled, so taking a snapshot never holds two compiled copies of the module that it did not
// have to: a caller that also holds the original (its own Compile) keeps it.
//
// It refuses, with an error wrapping ErrSnapshot that names the reason, a module whose state
// after initialization a snapshot could not restore exactly: code that writes a table
// (table.set, table.grow, table.fill, table.copy, table.init) or drops a segment (elem.drop,
// data.drop); an exported table (another instance could write it); imported memories, tables or
// globals (their state belongs to another instance); shared or 64-bit memories; mutable
// reference or vector globals; exports named with the reserved prefix "kobako:snapshot/";
// imports provided by an instance, or from a module listed in cfg.Stateful.
func (e *Engine) Snapshot(ctx context.Context, wasmBytes []byte, cfg SnapshotConfig) (*Snapshot, error) {
	if err := cfg.Limits.Validate(); err != nil {
		return nil, err
	}
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Limits.Fuel == Unmetered {
		return nil, fmt.Errorf("engine: snapshot: %w: capture needs metered limits, to count the fuel initialization uses", ErrSnapshot)
	}
	c, err := e.newCapture(ctx, wasmBytes, cfg.Limits.TableElements, false)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	for _, im := range c.d.Imports {
		if slices.Contains(cfg.Stateful, im.Module) {
			return nil, fmt.Errorf("engine: snapshot: %w: it imports %q %q, and %q is marked stateful", ErrSnapshot, im.Module, im.Name, im.Module)
		}
		if _, ok := cfg.Imports[im.Module].(*Instance); ok {
			return nil, fmt.Errorf("engine: snapshot: %w: import %q %q is provided by an instance, whose state initialization could change", ErrSnapshot, im.Module, im.Name)
		}
	}
	sn := &Snapshot{hasStart: c.d.StartFunc != nil, initExport: cfg.InitExport}
	st, err := e.initialize(ctx, c, cfg, sn)
	if err != nil {
		return nil, err
	}
	// The capture is done with: let its compiled code go before the restored module is
	// compiled, so that the two are not live at once.
	_ = c.Close(ctx)
	if sn.module, err = c.RestoreFrom(ctx, st); err != nil {
		return nil, err
	}
	return sn, nil
}

// initialize runs the module's initialization in a store of its own, as Snapshot describes,
// records its fuel in sn and reads the state. It closes the store before it returns, and nothing
// else refers to it, so the capture instance is not kept alive.

func (e *Engine) initialize(ctx context.Context, c *capture, cfg SnapshotConfig, sn *Snapshot) (*enginehook.State, error) {
	s, err := e.NewStore(ctx, cfg.Limits)
	if err != nil {
		return nil, err
	}
	defer s.Close(ctx)
	inst, err := s.Instantiate(ctx, c.Module(), cfg.Imports)
	if err != nil {
		return nil, fmt.Errorf("engine: snapshot: initialization: %w", err)
	}
	if sn.hasStart {
		sn.startFuel = s.FuelConsumed()
	}
	if cfg.InitExport != "" {
		f, err := inst.Function(cfg.InitExport)
		if err != nil {
			return nil, fmt.Errorf("engine: snapshot: init export: %w", err)
		}
		if len(f.Params()) != 0 {
			return nil, fmt.Errorf("engine: snapshot: init export %q takes %d parameters, expected none", cfg.InitExport, len(f.Params()))
		}
		if _, err := f.Call(ctx); err != nil {
			return nil, fmt.Errorf("engine: snapshot: initialization: %w", err)
		}
		sn.initFuel = s.FuelConsumed()
	}
	return c.Read(inst)
}

// capture is a module compiled so that the state of its instances can be read after
// initialization and turned into a restored module that starts in that state: an
// enginehook.Capture. Engine.Snapshot uses one; the component layer uses one per core module
// (see enginehook).
//
// The capture module is the module as Compile returns it (every compiled module exports its
// state under reserved names that no importer can link to): a capture of a module the caller
// already compiled compiles nothing.
type capture struct {
	e      *Engine
	d      *wasm.Module
	mod    *Module
	linked bool
	closed atomic.Bool
}

// newCapture decodes wasmBytes, checks that its state after initialization can be restored
// exactly (see Engine.Snapshot for what is refused) and compiles it through the engine's cache,
// taking a reference that capture.Close gives back: the same *Module a Compile of wasmBytes
// returns. tableLimit is the table element limit of the stores it will be instantiated in (a
// store instantiates the variant for its own limit). With linked, imported memories, tables and
// globals and exported tables are allowed: the caller captures every module the module shares
// them with, each through a capture of its own, and instantiates them all from their restored
// modules.
func (e *Engine) newCapture(ctx context.Context, wasmBytes []byte, tableLimit uint32, linked bool) (*capture, error) {
	d, err := wasm.Decode(wasmBytes, e.decode)
	if err != nil {
		return nil, fmt.Errorf("engine: snapshot: %w: %w", ErrInvalidModule, err)
	}
	if err := d.CheckSnapshot(linked); err != nil {
		return nil, fmt.Errorf("engine: snapshot: %w: %w", ErrSnapshot, err)
	}
	// d is kept only to read and restore the state; Compile decodes the bytes on its own.
	d.DropRecording()
	for _, ex := range d.Exports {
		if strings.HasPrefix(ex.Name, snapshotPrefix) {
			return nil, fmt.Errorf("engine: snapshot: %w: export %q uses the reserved prefix %q", ErrSnapshot, ex.Name, snapshotPrefix)
		}
	}
	for _, t := range d.DeclaredTables {
		if t.Min > tableLimit {
			return nil, &Trap{Kind: TrapTableLimit, Cause: fmt.Errorf("table declares a minimum of %d elements, over the limit of %d", t.Min, tableLimit)}
		}
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		return nil, fmt.Errorf("engine: snapshot: %w", err)
	}
	return &capture{e: e, d: d, mod: m, linked: linked}, nil
}

// Module returns the capture module: the module as Compile returns it, which also exports every
// mutable global and memory under reserved names. It meters every function exactly as the
// original does.
func (c *capture) Module() *Module { return c.mod }

// Close gives back the reference to the capture module that newCapture took (the last reference
// releases its compiled code); restored modules stay valid. Closing it again does nothing.
func (c *capture) Close(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	return c.mod.Close(ctx)
}

// Read copies the state of in, an instance of the capture module, for RestoreFrom: the caller
// may then close in's store and the capture, and release the original module, before the
// restored module is compiled.
func (c *capture) Read(in *Instance) (*enginehook.State, error) {
	if in.module != c.mod && in.module.base != c.mod {
		return nil, fmt.Errorf("engine: snapshot: the instance is not of the capture module")
	}
	st := wasm.State{Globals: map[uint32]uint64{}}
	d := c.d
	for i, g := range d.Globals {
		if !g.Type.Mutable {
			continue
		}
		idx := d.NumImportedGlobals + uint32(i)
		v := in.mod.ExportedGlobal(wasm.SnapshotGlobalExport(snapshotPrefix, idx))
		if v == nil {
			return nil, fmt.Errorf("engine: snapshot: BUG: global %d not exported", idx)
		}
		st.Globals[idx] = v.Get()
	}
	for i := range d.Memories {
		idx := uint32(len(d.ImportedMemories) + i)
		mem := in.mod.ExportedMemory(wasm.SnapshotMemoryExport(snapshotPrefix, idx))
		if mem == nil {
			return nil, fmt.Errorf("engine: snapshot: BUG: memory %d not exported", idx)
		}
		img, ok := mem.Read(0, mem.Size())
		if !ok {
			return nil, fmt.Errorf("engine: snapshot: BUG: memory %d unreadable", idx)
		}
		// Not a copy: the capture module has no memory image, so its store never recycles this
		// buffer, which stays valid after the store closes for as long as st refers to it.
		st.Memories = append(st.Memories, img)
	}
	return &enginehook.State{State: st}, nil
}

// RestoreFrom compiles (through the engine's cache) the restored module for a state Read copied:
// the original with that state in its initializers and no start function. It does not need the
// capture module, which may be closed by then.
func (c *capture) RestoreFrom(ctx context.Context, cs *enginehook.State) (*Module, error) {
	st := cs.State
	// The one memory a module can define (wazero has no multi-memory) is restored from an image
	// kept beside the compiled module, which the store's allocator copies into each new memory:
	// no data segments to apply, and no second copy of the image in the compiled module.
	st.ImagesOutside = len(st.Memories) == 1
	restored, err := wasm.RestoreState(c.d, st, c.linked)
	if err != nil {
		return nil, fmt.Errorf("engine: snapshot: %w: %w", ErrSnapshot, err)
	}
	var img *memoryImage
	if st.ImagesOutside {
		img = newMemoryImage(st.Memories[0])
	}
	m, err := c.e.compileBytes(ctx, restored, img)
	if err != nil {
		return nil, fmt.Errorf("engine: snapshot: restored module: %w", err)
	}
	return m, nil
}

// memoryImage is the contents of a restored module's memory: its size and the runs of non-zero
// bytes, written into each new memory of the module, whose other bytes are zero. Immutable,
// shared by every instance.
type memoryImage struct {
	size uint64
	runs []imageRun
	sum  [32]byte // SHA-256 of the whole image, part of the module's cache key
	// pool holds the buffers of closed stores' memories of the module, to serve new instances
	// without allocating (and having the Go runtime zero, and the OS fault in) a memory's worth
	// of fresh pages each time. A sync.Pool lets the garbage collector take them back from a
	// snapshot that stopped being used.
	pool sync.Pool
}

// maxRecycleFactor bounds the buffers kept for reuse: at most this many times the image's size,
// so that one instance that grew its memory a lot does not keep that much alive for the others.
const maxRecycleFactor = 4

type imageRun struct {
	off  uint64
	data []byte
}

func newMemoryImage(img []byte) *memoryImage {
	m := &memoryImage{size: uint64(len(img)), sum: sha256.Sum256(img)}
	runs := wasm.NonZeroRuns(img)
	n := 0
	for _, r := range runs {
		n += r[1] - r[0]
	}
	// One allocation for every run's bytes, not the capture instance's whole memory.
	buf := make([]byte, 0, n)
	for _, r := range runs {
		start := len(buf)
		buf = append(buf, img[r[0]:r[1]]...)
		m.runs = append(m.runs, imageRun{off: uint64(r[0]), data: buf[start:len(buf):len(buf)]})
	}
	return m
}

// newMemory returns a memory of the image's size holding the image: a recycled buffer, whose
// bytes past its length are not zero (recycled), or a fresh one.
func (m *memoryImage) newMemory() (buf []byte, recycled bool) {
	if p, ok := m.pool.Get().(*[]byte); ok {
		buf = (*p)[:m.size]
		// Every byte is written once: the runs, and zeros between them, whatever the previous
		// instance left.
		at := uint64(0)
		for _, r := range m.runs {
			clear(buf[at:r.off])
			at = r.off + uint64(copy(buf[r.off:], r.data))
		}
		clear(buf[at:])
		return buf, true
	}
	buf = make([]byte, m.size)
	for _, r := range m.runs {
		copy(buf[r.off:], r.data)
	}
	return buf, false
}

// recycle keeps buf, the buffer of a memory of the image no instance uses any more, for a later
// newMemory.
func (m *memoryImage) recycle(buf []byte) {
	if c := uint64(cap(buf)); c >= m.size && c <= maxRecycleFactor*m.size {
		m.pool.Put(&buf)
	}
}

// InstantiateSnapshot creates an instance in the state the snapshot captured, as
// Store.Instantiate followed by a call of the snapshot's init export would, without running
// either: the restored module has no start function, and the init export is not called (calling
// it again re-runs it, as on a normal instance). The fuel counts are a real instantiation's: the
// start function's fuel is charged to the store's remaining fuel, and then, as the init call
// would, the store starts a top-level call's fuel and charges the init export's, so
// FuelConsumed reports what it would after that call. When the fuel does not cover a charge,
// the store is discarded and a TrapFuelExhausted naming "start" or the init export returned.
//
// Host functions that initialization called are not called again: see Snapshot for this one
// semantic difference. A FuelListener is not told of the skipped init call.
func (s *Store) InstantiateSnapshot(ctx context.Context, sn *Snapshot, imports Imports) (*Instance, error) {
	if s.dead != nil {
		return nil, s.dead
	}
	if !s.unmetered && sn.hasStart && s.fuelRemaining() < int64(sn.startFuel) {
		s.chargeFuel(sn.startFuel)
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
		return nil, &Trap{Kind: TrapFuelExhausted, Function: "start"}
	}
	in, err := s.Instantiate(ctx, sn.module, imports)
	if err != nil {
		return nil, err
	}
	if sn.hasStart {
		s.chargeFuel(sn.startFuel)
	}
	if sn.initExport != "" && !s.unmetered {
		s.SetFuel(s.limits.Fuel)
		s.chargeFuel(sn.initFuel)
		if s.fuelRemaining() < 0 {
			s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
			return nil, &Trap{Kind: TrapFuelExhausted, Function: sn.initExport}
		}
	}
	return in, nil
}

// chargeFuelOrTrap charges n fuel to the store, as if guest code that cost n had run: the
// component layer, restoring several instances from captures, charges what their initialization
// consumed (enginehook.Hooks.ChargeFuel). When the remaining fuel does not cover it, the store
// is discarded and a TrapFuelExhausted naming function is returned. An unmetered store
// charges nothing.
func (s *Store) chargeFuelOrTrap(n uint64, function string) error {
	if s.dead != nil {
		return s.dead
	}
	s.chargeFuel(n)
	if s.fuelRemaining() < 0 {
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
		return &Trap{Kind: TrapFuelExhausted, Function: function}
	}
	return nil
}

// chargeFuel takes n from the guest-visible counter, which may go negative as an overdrawing
// call leaves it.
func (s *Store) chargeFuel(n uint64) {
	if !s.unmetered {
		s.fuel.Set(uint64(int64(s.fuel.Get()) - int64(n)))
	}
}
