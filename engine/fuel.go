package engine

import (
	"context"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Fuel metering.
//
// Every module is rewritten at compile time (package internal/wasm) to import one mutable i64 global,
// "kobako:fuel" "remaining", and to subtract each basic block's instruction cost from it when the
// block starts, checking it at every function entry and loop header. Costs follow wasmtime: nop,
// drop, block, loop, unreachable, return, else and end cost 0; every other instruction costs 1. Each
// store instantiates one fuel module, so all core instances of one plugin draw on one budget, and the
// count depends only on the instructions executed: the same module and input use the same fuel on
// every platform. A call succeeds only if its total cost fits in the fuel it was given.
const (
	fuelModuleName = "kobako:fuel"
	fuelGlobalName = "remaining"
)

// fuelModuleWasm is `(module (global (export "remaining") (mut i64) (i64.const 0)))`, assembled by
// hand because it is part of the engine, not a fixture.
var fuelModuleWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
	0x06, 0x06, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b, // global section: 1 global, i64 mut, i64.const 0 end
	0x07, 0x0d, 0x01, 0x09, 'r', 'e', 'm', 'a', 'i', 'n', 'i', 'n', 'g', 0x03, 0x00, // export "remaining" global 0
}

// FuelListener observes fuel consumption. Attach one to a call's context with WithFuelListener.
// Listeners only read the counter, so they never change the count.
type FuelListener interface {
	// CallDone reports the fuel a top-level call used and how long it took.
	CallDone(export string, consumed uint64, elapsed time.Duration)
	// FunctionDone reports the fuel a wasm function used, including its callees; it is called only
	// when the engine was created with Config.ProfileFunctions.
	FunctionDone(function string, consumed uint64)
}

type fuelListenerKey struct{}

// WithFuelListener returns a context that reports the fuel of calls made with it to l.
func WithFuelListener(ctx context.Context, l FuelListener) context.Context {
	return context.WithValue(ctx, fuelListenerKey{}, l)
}

func fuelListenerFrom(ctx context.Context) FuelListener {
	l, _ := ctx.Value(fuelListenerKey{}).(FuelListener)
	return l
}

// profileFactory builds wazero function listeners that read the store's fuel counter at entry and
// exit. The factory is fixed per engine because wazero reads it at compile time and caches compiled
// code by module ID (wazero-notes §6); the listener to report to is found in the call's context.
type profileFactory struct{}

func (profileFactory) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.GoFunction() != nil {
		return nil
	}
	return &profileListener{name: def.DebugName()}
}

// profileListener is shared by every instance of a module, possibly on several goroutines, so the
// fuel at entry lives in the store, which runs one call at a time.
type profileListener struct {
	name string
}

func (p *profileListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	s := storeFromContext(ctx)
	if s == nil {
		return
	}
	s.profStack = append(s.profStack, s.fuelRemaining())
}

func (p *profileListener) After(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64) {
	s := storeFromContext(ctx)
	if s == nil || len(s.profStack) == 0 {
		return
	}
	start := s.profStack[len(s.profStack)-1]
	s.profStack = s.profStack[:len(s.profStack)-1]
	if l := fuelListenerFrom(ctx); l != nil {
		l.FunctionDone(p.name, uint64(start-s.fuelRemaining()))
	}
}

func (p *profileListener) Abort(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ error) {
	if s := storeFromContext(ctx); s != nil && len(s.profStack) > 0 {
		s.profStack = s.profStack[:len(s.profStack)-1]
	}
}
