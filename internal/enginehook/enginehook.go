// Package enginehook gives package component the parts of package engine that only it needs and
// that embedders must not see in engine's API: the capture of core modules' state under a
// component snapshot and the restore from it, the fuel a restored instance charges for the
// initialization it skips, and the count of compiled modules that tests watch to see code given
// back.
//
// engine imports this package and fills in the hooks when it is initialized, so this package
// cannot name engine's types: the hooks are generic in them, and Get checks, once, that the
// types asked for are those engine set.
package enginehook

import (
	"context"

	"github.com/kobako/kobako/internal/wasm"
)

// Capture is a core module compiled so that the state of its instances can be read after
// initialization and turned into a restored module that starts in that state (M is
// *engine.Module, I *engine.Instance). The component layer uses one per core module it
// snapshots: it instantiates the capture modules in place of the originals, runs
// initialization, reads each instance's state, and instantiates the restored modules from then
// on.
type Capture[M, I any] interface {
	// Module returns the capture module: the module as engine's Compile returns it, which also
	// exports its mutable globals and memories under reserved names. It meters every function
	// exactly as the original does.
	Module() M
	// Read copies the state of in, an instance of the capture module, for RestoreFrom: the
	// caller may then close in's store and the capture, and release the original module,
	// before the restored module is compiled.
	Read(in I) (*State, error)
	// RestoreFrom compiles (through the engine's cache) the restored module for a state Read
	// copied: the original with that state in its initializers and no start function. It does
	// not need the capture module, which may be closed by then.
	RestoreFrom(ctx context.Context, st *State) (M, error)
	// Close gives back the reference to the capture module that NewCapture took (the last
	// reference releases its compiled code); restored modules stay valid. Closing it again
	// does nothing.
	Close(ctx context.Context) error
}

// State is what Capture.Read copied out of a capture instance: the values of the module's
// mutable globals and the contents of its memories. It holds no reference to the instance. Only
// engine looks inside.
type State struct {
	wasm.State
}

// Hooks are engine's functions behind this package (E is *engine.Engine, M *engine.Module, I
// *engine.Instance, S *engine.Store).
type Hooks[E, M, I, S any] struct {
	// NewCapture decodes wasmBytes, checks that its state after initialization can be restored
	// exactly (see engine.Engine.Snapshot for what is refused) and compiles it through the
	// engine's cache, taking a reference that Capture.Close gives back: the same module a
	// Compile of wasmBytes returns. tableLimit is the table element limit of the stores it will
	// be instantiated in. With linked, imported memories, tables and globals and exported tables
	// are allowed: the caller captures every module the module shares them with, each through a
	// Capture of its own, and instantiates them all from their restored modules.
	NewCapture func(ctx context.Context, e E, wasmBytes []byte, tableLimit uint32, linked bool) (Capture[M, I], error)
	// ChargeFuel charges n fuel to the store s, as if guest code that cost n had run: what the
	// initialization of the instances restored from captures consumed. When the remaining fuel
	// does not cover it, the store is discarded and a TrapFuelExhausted naming function is
	// returned.
	ChargeFuel func(s S, n uint64, function string) error
	// CompiledModules returns the number of compiled modules the engine holds: every module a
	// Compile returned and no last Close released yet, each variant for another table limit
	// and every restored module counted once; host modules and the engine's own are not.
	CompiledModules func(e E) int
}

// hooks holds the Hooks engine set, as an any because its type arguments are engine's.
var hooks any

// Set is called by engine's initialization, once, before any package importing engine can call
// Get.
func Set[E, M, I, S any](h Hooks[E, M, I, S]) { hooks = h }

// Get returns the hooks engine set. The type arguments must be engine's types, as Hooks says; a
// mismatch is a programming error, found by the first test of the calling package, so it
// panics.
func Get[E, M, I, S any]() Hooks[E, M, I, S] {
	h, ok := hooks.(Hooks[E, M, I, S])
	if !ok {
		panic("enginehook: Get's type arguments are not those engine set, or engine is not linked in")
	}
	return h
}
