package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/kobako/kobako/internal/wasm"
)

// Config configures an Engine. The zero value is ready to use.
type Config struct {
	// ProfileFunctions makes the engine report fuel per wasm function to a FuelListener (see
	// WithFuelListener). It costs a listener call on every guest function call, so it is off by default.
	ProfileFunctions bool
	// MaxReentry bounds guest→host→guest nesting within one store; 0 means DefaultMaxReentry. Each
	// level starts a fresh wasm frame budget in wazero and uses Go stack, so without a bound a guest
	// could crash the process with a Go stack overflow.
	MaxReentry int
	// DecodeLimits bound what a module may declare before it reaches wazero; a zero field means
	// the DefaultDecodeLimits value for that field.
	DecodeLimits DecodeLimits
	// CacheDir, when set, is a directory where Compile keeps what it prepares from a module
	// before wazero compiles it (the decoded, checked and metered module), keyed by the module's
	// content hash, kobako's build and the options that change the result, so that a later
	// engine, in this process or another, skips that work. Empty means no cache. See
	// CacheFormatVersion for the files and what invalidates an entry, CacheStats for what it did.
	CacheDir string
	// CacheMinModuleSize is the smallest module, in bytes, the cache keeps: below it, preparing
	// the module costs less than reading a file, and far less than writing and syncing one. 0
	// means DefaultCacheMinModuleSize; a negative value caches every module.
	CacheMinModuleSize int
}

// DefaultCacheMinModuleSize is the default Config.CacheMinModuleSize: modules under 64 KiB take
// well under a millisecond to prepare.
const DefaultCacheMinModuleSize = 64 << 10

// DefaultMaxReentry is the default bound on guest→host→guest nesting.
const DefaultMaxReentry = 100

// Engine compiles core modules once and instantiates them many times. It is safe for concurrent use.
type Engine struct {
	cfg     Config
	decode  wasm.Limits
	runtime wazero.Runtime
	fuelMod wazero.CompiledModule

	mu sync.Mutex
	// unmeteredRT runs the modules of unmetered stores (see Unmetered): wazero's interpreter with
	// its close-on-context-done, which puts a check at every loop header of every module the
	// runtime compiles and a watcher goroutine on every call, so metered modules stay out of it.
	// Made on first use.
	unmeteredRT wazero.Runtime
	modules     map[moduleKey]*compileEntry
	hostMods    map[hostKey]*hostEntry
	fuelPool    []api.Module // fuel instances of closed stores, ready for new ones
	closed      bool

	cache *diskCache // nil without Config.CacheDir
	// prepares counts the modules this engine decoded, checked and metered itself (not read
	// from the cache); CacheStats reports it.
	prepares atomic.Int64
}

type moduleKey struct {
	sum       [32]byte
	tableMax  uint32
	unmetered bool
}

// hostKey names a host module's instance in one of the engine's runtimes.
type hostKey struct {
	h         *HostModule
	unmetered bool
}

type compileEntry struct {
	done chan struct{}
	mod  *Module
	err  error
	// refs counts the Compile calls that returned mod and whose Module.Close has not run yet;
	// guarded by the engine's mutex. Modules with the same content are one *Module, so the
	// last holder to close it releases it. Variants are not counted: they go with their base.
	refs int
}

type hostEntry struct {
	once sync.Once
	inst api.Module
	err  error
}

// New creates an Engine on wazero's interpreter.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.MaxReentry == 0 {
		cfg.MaxReentry = DefaultMaxReentry
	}
	lim := cfg.DecodeLimits.internal()
	rc := runtimeConfig()
	if cfg.ProfileFunctions {
		ctx = experimental.WithFunctionListenerFactory(ctx, profileFactory{})
	}
	e := &Engine{
		cfg:      cfg,
		decode:   lim,
		runtime:  wazero.NewRuntimeWithConfig(ctx, rc),
		modules:  map[moduleKey]*compileEntry{},
		hostMods: map[hostKey]*hostEntry{},
	}
	if cfg.CacheDir != "" {
		e.cache = newDiskCache(cfg.CacheDir, e.decode)
		if cfg.CacheMinModuleSize == 0 {
			e.cfg.CacheMinModuleSize = DefaultCacheMinModuleSize
		}
	}
	fm, err := e.runtime.CompileModule(ctx, fuelModuleWasm)
	if err != nil {
		_ = e.runtime.Close(ctx)
		return nil, fmt.Errorf("engine: BUG: fuel module: %w", err)
	}
	e.fuelMod = fm
	return e, nil
}

// Close releases every compiled module and instance of the engine.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.modules = map[moduleKey]*compileEntry{}
	e.fuelPool = nil // closed with the runtime below
	urt := e.unmeteredRT
	e.mu.Unlock()
	if urt != nil {
		_ = urt.Close(ctx)
	}
	return e.runtime.Close(ctx)
}

// unmeteredRuntime returns the runtime of unmetered stores' modules, making it on first use.
func (e *Engine) unmeteredRuntime(ctx context.Context) (wazero.Runtime, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("engine: %w", ErrClosed)
	}
	if e.unmeteredRT == nil {
		e.unmeteredRT = wazero.NewRuntimeWithConfig(ctx, runtimeConfig().WithCloseOnContextDone(true))
	}
	return e.unmeteredRT, nil
}

// runtimeConfig is the configuration of both of the engine's runtimes.
func runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfigInterpreter().
		WithCoreFeatures(api.CoreFeaturesV2).
		WithCustomSections(true).
		WithDebugInfoEnabled(false)
}

// Compile decodes, checks and meters a core module. The result is cached by the content hash of
// wasm: compiling the same bytes again returns the same *Module, and each call takes a reference
// to it that Module.Close gives back (the last Close releases it). One Module serves stores of any
// Limits.TableElements: wazero has no table limit of its own, so the limit is written into the
// declared maximum of the module's tables, and a store whose limit changes what would be written
// instantiates a variant compiled for it on first use (cached too). A module that defines no
// table, or only tables with small declared maxima, has one variant for every limit.
func (e *Engine) Compile(ctx context.Context, wasmBytes []byte) (*Module, error) {
	return e.compileBytes(ctx, wasmBytes, nil)
}

// compileBytes is Compile for a module whose memory starts as img (a restored module whose
// image is kept outside its binary), or as the module's data segments write it when img is nil.
// The image is part of the cache key: restored modules of the same binary with different images
// are different modules.
func (e *Engine) compileBytes(ctx context.Context, wasmBytes []byte, img *memoryImage) (*Module, error) {
	src := sha256.Sum256(wasmBytes)
	sum := src
	if img != nil {
		h := sha256.New()
		h.Write([]byte("kobako restored module\x00"))
		h.Write(sum[:])
		h.Write(img.sum[:])
		h.Sum(sum[:0])
	}
	return e.cached(moduleKey{sum: sum}, true, func() (*Module, error) {
		// tableMax 0: the first variant is for the default limit, or for the largest declared
		// minimum if that is higher (a store allowing it instantiates this one as is).
		// A restored module is the state of one initialization, which may differ from run to
		// run (random seeds, clocks): written to the disk cache, it would add an entry per run.
		m, p, err := e.compileSource(ctx, wasmBytes, &src, 0, img == nil)
		if err != nil {
			return nil, err
		}
		if err := m.setImage(img); err != nil {
			return nil, err
		}
		// The binary is kept for the variants: for another table limit when the rewrite depends
		// on it, and for unmetered stores whatever the module.
		m.src = bytes.Clone(wasmBytes)
		m.limitDependent = rewriteDependsOnLimit(p.declaredTables)
		return m, nil
	})
}

// firstTableLimit is the table element limit the first variant of a module is compiled for: the
// default, or the largest declared minimum if that is higher.
func firstTableLimit(d *wasm.Module) uint32 {
	limit := uint32(DefaultTableElements)
	for _, t := range d.DeclaredTables {
		limit = max(limit, t.Min)
	}
	return limit
}

// rewriteDependsOnLimit reports whether the rewrite of a module with these tables differs between
// table limits at or above their minima: only a table that may grow past its minimum gets the
// limit written in as its maximum. Other modules need not keep their binary for variants.
func rewriteDependsOnLimit(tables []wasm.TableType) bool {
	for _, t := range tables {
		if !t.HasMax || t.Max > t.Min {
			return true
		}
	}
	return false
}

// cached returns the module cached under key, or compiles it with compile and caches it. A
// counted call takes a reference to the module, which Module.Close gives back.
func (e *Engine) cached(key moduleKey, counted bool, compile func() (*Module, error)) (*Module, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, fmt.Errorf("engine: compile: %w", ErrClosed)
	}
	if ent, ok := e.modules[key]; ok {
		// The reference is taken before waiting, so that a Close in the meantime cannot
		// release the module this call is about to return.
		if counted {
			ent.refs++
		}
		e.mu.Unlock()
		<-ent.done
		return ent.mod, ent.err
	}
	ent := &compileEntry{done: make(chan struct{})}
	if counted {
		ent.refs = 1
	}
	e.modules[key] = ent
	e.mu.Unlock()

	ent.mod, ent.err = compile()
	if ent.mod != nil {
		ent.mod.key = key
	}
	if ent.err != nil {
		// Failures are not cached: a canceled context must not poison the key.
		e.mu.Lock()
		delete(e.modules, key)
		e.mu.Unlock()
	}
	close(ent.done)
	return ent.mod, ent.err
}

// variant returns the variant of m for stores whose table element limit is limit, metered or
// unmetered: m itself when it is compiled the same way and the limit writes the same table maxima
// into it, else a module compiled for the store (cached, and released with m).
func (e *Engine) variant(ctx context.Context, m *Module, limit uint32, unmetered bool) (*Module, error) {
	if m.unmetered == unmetered && m.servesTableLimit(limit) {
		return m, nil
	}
	base := m.base
	if base == nil {
		base = m
	}
	if !base.limitDependent {
		// Every table is fixed (maximum = minimum), so no limit at or above the minima changes the
		// rewrite; a lower one is refused as the minimum check would.
		for i, t := range base.declaredTables {
			if t.Min > limit {
				return nil, &Trap{Kind: TrapTableLimit, Cause: fmt.Errorf("table %d declares a minimum of %d elements, over the limit of %d", i, t.Min, limit)}
			}
		}
		if !unmetered {
			return base, nil
		}
		// One unmetered variant serves every limit, as the base does.
		limit = base.tableMax
	}
	if !unmetered && limit == base.tableMax {
		return base, nil
	}
	v, err := e.cached(moduleKey{sum: base.key.sum, tableMax: limit, unmetered: unmetered}, false, func() (*Module, error) {
		var v *Module
		var err error
		if unmetered {
			d, derr := wasm.Decode(base.src, e.decode)
			if derr != nil {
				return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, derr)
			}
			v, err = e.compileUnmetered(ctx, d, limit)
		} else {
			// A restored module is one initialization's state: it stays out of the disk cache.
			v, _, err = e.compileSource(ctx, base.src, nil, limit, base.image == nil)
		}
		if err != nil {
			return nil, err
		}
		if err := v.setImage(base.image); err != nil {
			return nil, err
		}
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if base.closed.Load() {
		// The base was closed while the variant compiled: nothing would close the variant.
		if ent, ok := e.modules[v.key]; ok && ent.mod == v {
			delete(e.modules, v.key)
		}
		e.mu.Unlock()
		_ = v.compiled.Close(ctx)
		return nil, fmt.Errorf("engine: instantiate: %w", ErrClosed)
	}
	if v.base == nil && v != base {
		v.base = base
		base.variants = append(base.variants, v)
	}
	e.mu.Unlock()
	return v, nil
}

func (e *Engine) compile(ctx context.Context, m *wasm.Module, tableMax uint32) (*Module, error) {
	p, err := e.prepare(m, tableMax)
	if err != nil {
		return nil, err
	}
	return e.compilePrepared(ctx, p)
}

// instrumentOptions are the rewrite's options for modules compiled for stores whose table
// element limit is tableMax. Every field is part of a prepared artifact's cache key.
func (e *Engine) instrumentOptions(tableMax uint32) wasm.InstrumentOptions {
	opt := wasm.InstrumentOptions{
		FuelModule:       fuelModuleName,
		FuelGlobal:       fuelGlobalName,
		FuelHook:         fuelHookName,
		MaxTableElements: tableMax,
		EmptyModule:      emptyModuleName,
		// Every module can serve as its own capture module (see newCapture): a snapshot then
		// compiles only the restored module, not a second copy of the original.
		StatePrefix: snapshotPrefix,
	}
	if !e.cfg.ProfileFunctions {
		// Host calls skip the export wrapper (Function.CallStack charges its fuel instead); with
		// profiling, the wrapper stays so that each function's fuel includes its entry block.
		opt.DirectPrefix = directPrefix
	}
	return opt
}

// prepare checks and meters a decoded module: everything kobako does before wazero compiles it.
func (e *Engine) prepare(m *wasm.Module, tableMax uint32) (*prepared, error) {
	e.prepares.Add(1)
	if err := m.CheckEngineFeatures(); err != nil {
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	out, err := wasm.Instrument(m, e.instrumentOptions(tableMax))
	if err != nil {
		if errors.Is(err, wasm.ErrTableLimit) {
			return nil, fmt.Errorf("engine: compile: %w", &Trap{Kind: TrapTableLimit, Cause: err})
		}
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	return newPrepared(m, out, tableMax), nil
}

// compilePrepared compiles a prepared module with wazero.
func (e *Engine) compilePrepared(ctx context.Context, p *prepared) (*Module, error) {
	if cfgCtx := e.cfg; cfgCtx.ProfileFunctions {
		ctx = experimental.WithFunctionListenerFactory(ctx, profileFactory{})
	}
	cm, err := e.runtime.CompileModule(ctx, p.out)
	if err != nil {
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	m, err := newModule(e, p, cm)
	if err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	return m, nil
}

// compileUnmetered compiles m for unmetered stores (see Unmetered) in the engine's second runtime.
func (e *Engine) compileUnmetered(ctx context.Context, m *wasm.Module, tableMax uint32) (*Module, error) {
	if err := m.CheckEngineFeatures(); err != nil {
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	out, err := wasm.Unmetered(m, wasm.UnmeteredOptions{MaxTableElements: tableMax, EmptyModule: emptyModuleName})
	if err != nil {
		if errors.Is(err, wasm.ErrTableLimit) {
			return nil, fmt.Errorf("engine: compile: %w", &Trap{Kind: TrapTableLimit, Cause: err})
		}
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	rt, err := e.unmeteredRuntime(ctx)
	if err != nil {
		return nil, err
	}
	cm, err := rt.CompileModule(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	v, err := newModule(e, newPrepared(m, out, tableMax), cm)
	if err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	v.unmetered = true
	return v, nil
}

// hostInstance returns the engine-wide instance of a host module, compiling it on first use. Host
// functions find their per-store state through the Caller, so one instance serves every store.
func (e *Engine) hostInstance(ctx context.Context, h *HostModule, unmetered bool) (api.Module, error) {
	rt := e.runtime
	if unmetered {
		var err error
		if rt, err = e.unmeteredRuntime(ctx); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	ent, ok := e.hostMods[hostKey{h, unmetered}]
	if !ok {
		ent = &hostEntry{}
		e.hostMods[hostKey{h, unmetered}] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() {
		b := rt.NewHostModuleBuilder(h.Name)
		for i := range h.Funcs {
			f := &h.Funcs[i]
			b.NewFunctionBuilder().
				WithGoModuleFunction(wrapHost(f), toAPITypes(f.Params), toAPITypes(f.Results)).
				WithName(f.Name).
				Export(f.Name)
		}
		cm, err := b.Compile(ctx)
		if err != nil {
			ent.err = fmt.Errorf("engine: host module %q: %w", h.Name, err)
			return
		}
		// Anonymous: never entered in wazero's name registry, found only through our resolver.
		ent.inst, ent.err = rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
		// The one instance is all the engine uses. wazero keys a host module's compiled form by
		// the builder's address, so every HostModule would leave an entry in its engine for good.
		_ = cm.Close(ctx)
		if ent.err != nil {
			ent.err = fmt.Errorf("engine: host module %q: %w", h.Name, ent.err)
		}
	})
	return ent.inst, ent.err
}

// ReleaseHostModule closes the engine's instance of h, made when a store first imported h, and
// forgets it. A host module made per compiled unit (package component makes one for each
// compiled component's trampolines) is released with that unit; one defined once, as a
// package-level value, is not, and lives as long as the engine.
//
// Instances that already import h keep calling its functions, as wazero lets instances call
// imports of a closed module; a store that imports h afterwards gets a new instance of it.
// Releasing h while a store is instantiating a module that imports it is a race the caller must
// avoid. Releasing a host module the engine has no instance of does nothing.
func (e *Engine) ReleaseHostModule(ctx context.Context, h *HostModule) error {
	var first error
	for _, unmetered := range []bool{false, true} {
		if err := e.releaseHostModule(ctx, hostKey{h, unmetered}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (e *Engine) releaseHostModule(ctx context.Context, key hostKey) error {
	h := key.h
	e.mu.Lock()
	ent, ok := e.hostMods[key]
	delete(e.hostMods, key)
	e.mu.Unlock()
	if !ok {
		return nil
	}
	// Waits for an instantiation under way; one that had not started yet is refused.
	ent.once.Do(func() { ent.err = fmt.Errorf("engine: host module %q: %w", h.Name, ErrClosed) })
	if ent.inst == nil {
		return nil
	}
	if err := ent.inst.Close(ctx); err != nil {
		return fmt.Errorf("engine: release host module %q: %w", h.Name, err)
	}
	return nil
}

func toAPITypes(ts []ValueType) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for i, t := range ts {
		out[i] = api.ValueType(t)
	}
	return out
}

// wrapHost adapts a HostFunc to wazero. Panics leave Fn marked, so classify can tell a host
// function's chosen failure (TrapHost, or a nested *Trap passed through) from a bug.
func wrapHost(f *HostFunc) api.GoModuleFunction {
	fn := f.Fn
	return api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
		s := storeFromContext(ctx)
		if s == nil {
			panic(&hostPanic{err: fmt.Errorf("host function %s called outside a kobako store", f.Name)})
		}
		if f != &fuelHook.Funcs[0] {
			s.hostCalls++ // it may keep ctx: the frame cannot be reused (frameContext.release)
		}
		defer func() {
			if r := recover(); r != nil {
				panic(hostRecovered(r))
			}
		}()
		// A Caller holds nothing but the store and the calling module, so the store keeps the last
		// one it made: a store's calls run one at a time, and a host function that keeps its
		// Caller past the call still holds the same two values.
		c := s.caller
		if c == nil || c.mod != mod {
			c = &Caller{store: s, mod: mod}
			s.caller = c
		}
		fn(ctx, c, stack)
	})
}

func hostRecovered(r any) any {
	switch v := r.(type) {
	case *hostPanic:
		return v
	case error:
		var ee *sysExitError
		if errors.As(v, &ee) {
			return r // proc_exit passes through untouched
		}
		return &hostPanic{err: v}
	default:
		return &hostPanic{err: fmt.Errorf("host function panicked: %v", v)}
	}
}
