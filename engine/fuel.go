package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"
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
// store has one instance of the fuel module (taken from the engine's pool of those closed stores gave
// back), so all core instances of one plugin draw on one budget, and the
// count depends only on the instructions executed: the same module and input use the same fuel on
// every platform. A call succeeds only if its total cost fits in the fuel it was given. The counter
// holds at most fuelSlice at a time; see refuel.
const (
	fuelModuleName     = "kobako:fuel"
	fuelGlobalName     = "remaining"
	fuelHookName       = "refuel"
	fuelHostModuleName = "kobako:fuel-host"
)

// fuelModuleWasm is the module whose instance holds a store's fuel:
//
//	(module
//	  (import "kobako:fuel-host" "refuel" (func $refuel))
//	  (global (export "remaining") (mut i64) (i64.const 0))
//	  (export "refuel" (func $refuel)))
//
// Metered modules import both from "kobako:fuel". It is assembled here rather than kept as a fixture
// because it is part of the engine; TestFuelModule decodes it back.
var fuelModuleWasm = assembleFuelModule()

func assembleFuelModule() []byte {
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	section := func(id byte, body ...[]byte) []byte {
		var b []byte
		for _, p := range body {
			b = append(b, p...)
		}
		return append([]byte{id, byte(len(b))}, b...)
	}
	var out []byte
	out = append(out, 0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00)
	out = append(out, section(0x01, []byte{0x01, 0x60, 0x00, 0x00})...)
	out = append(out, section(0x02, []byte{0x01}, name(fuelHostModuleName), name(fuelHookName), []byte{0x00, 0x00})...)
	out = append(out, section(0x06, []byte{0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b})...)
	out = append(out, section(0x07, []byte{0x02}, name(fuelGlobalName), []byte{0x03, 0x00}, name(fuelHookName), []byte{0x00, 0x00})...)
	return out
}

// fuelSlice is how much fuel the guest's counter holds at a time; the rest stays in the store. When
// the counter runs out, the injected check calls the refuel hook, which moves the next slice over,
// or traps once the call's fuel is spent. Between slices the hook checks the deadline, so the
// slice bounds how late a deadline stops a guest that calls no host function: 10,000 fuel is
// about 0.25 ms of the tightest loop (`loop br`, one fuel per iteration) on wazero's interpreter
// and 50 to 250 µs of the benchmark workloads, against well under a microsecond per refuel
// (bench/README.md, "Deadline and unmetered stores"). Near the deadline the slices are smaller
// (fuelSliceNear). Slicing never changes the count.
const fuelSlice = 10_000

// fuelSliceNear is the slice the hook hands out once the deadline is under nearDeadline away. A
// slice of CPU time becomes more wall time when other processes share the CPU, and a deadline
// checked every fuelSlice then fires late by a slice times the load; a call that ends well before
// its deadline never reaches these slices, so the hook's overhead stays that of fuelSlice.
const (
	fuelSliceNear = 1_000
	nearDeadline  = 2 * time.Millisecond
)

// cooperativeScheduler is set where Go's scheduler never preempts a running goroutine (GOOS=js and
// wasip1): there the refuel hook yields, or a guest spinning in a call-free loop would keep the
// goroutines that cancel its context from running. Elsewhere the runtime preempts a long-running
// goroutine by itself, and a yield on every slice would only cost time (a goroutine locked to its
// thread parks the thread on every yield).
const cooperativeScheduler = runtime.GOOS == "js" || runtime.GOOS == "wasip1"

// fuelHook is the host side of the refuel hook.
var fuelHook = &HostModule{Name: fuelHostModuleName, Funcs: []HostFunc{{
	Name: fuelHookName,
	Fn: func(ctx context.Context, c *Caller, _ []uint64) {
		c.store.refuel(ctx)
	},
}}}

func (s *Store) refuel(ctx context.Context) {
	// The call's frame context reports its deadline through Err (frameContext.Err reads the clock).
	if err := ctx.Err(); err != nil {
		panic(&Trap{Kind: contextTrapKind(err), Cause: err})
	}
	if cooperativeScheduler {
		runtime.Gosched()
	}
	if s.progress != nil {
		s.progress.running(uint64(int64(s.limits.Fuel) - s.fuelRemaining()))
	}
	slice := uint64(fuelSlice)
	if fc, ok := ctx.(*frameContext); ok && fc.deadline-now() < nearDeadline {
		slice = fuelSliceNear
	}
	for g := int64(s.fuel.Get()); g < 0; g = int64(s.fuel.Get()) {
		if s.reserve == 0 {
			panic(&Trap{Kind: TrapFuelExhausted})
		}
		give := min(s.reserve, slice)
		s.reserve -= give
		s.fuel.Set(uint64(g + int64(give)))
	}
}

func contextTrapKind(err error) TrapKind {
	if errors.Is(err, context.DeadlineExceeded) {
		return TrapDeadlineExceeded
	}
	return TrapCanceled
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

// WithFuelListener returns a context that reports the fuel of calls made with it to l.
func WithFuelListener(ctx context.Context, l FuelListener) context.Context {
	return withObservers(ctx, func(o *observers) { o.listener = l })
}

func fuelListenerFrom(ctx context.Context) FuelListener {
	if o := observersFrom(ctx); o != nil {
		return o.listener
	}
	return nil
}

// profileFactory builds wazero function listeners that read the store's fuel counter at entry and
// exit. The factory is fixed per engine because wazero reads it at compile time and caches compiled
// code by module ID (wazero-notes §6); the listener to report to is found in the call's context.
type profileFactory struct{}

func (profileFactory) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.GoFunction() != nil {
		return nil
	}
	// DebugName is "module.function"; a module without a name leaves a bare leading dot.
	return &profileListener{name: strings.TrimPrefix(def.DebugName(), ".")}
}

// profileListener is shared by every instance of a module, possibly on several goroutines, so the
// frames of a running call live in the store, which runs one call at a time.
type profileListener struct {
	name string
}

// profFrame is a wasm function running under a profiled call: the fuel left when it started and
// what its callees have used so far, so that its own fuel is known when it returns.
type profFrame struct {
	name     string
	start    int64
	children uint64
}

// fuelFramer is what a FuelListener implements to receive stacks (FuelProfile does).
type fuelFramer interface {
	fuelFrame(stack []string, self uint64)
}

func (p *profileListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	s := storeFromContext(ctx)
	if s == nil {
		return
	}
	s.profStack = append(s.profStack, profFrame{name: p.name, start: s.fuelRemaining()})
}

func (p *profileListener) After(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64) {
	p.done(ctx)
}

// Abort counts a frame a trap ended too, so a call that ran out of fuel still shows where it went.
func (p *profileListener) Abort(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ error) {
	p.done(ctx)
}

func (p *profileListener) done(ctx context.Context) {
	s := storeFromContext(ctx)
	if s == nil || len(s.profStack) == 0 {
		return
	}
	top := len(s.profStack) - 1
	f := s.profStack[top]
	used := uint64(max(f.start-s.fuelRemaining(), 0))
	if top > 0 {
		s.profStack[top-1].children += used
	}
	if l := fuelListenerFrom(ctx); l != nil {
		if fr, ok := l.(fuelFramer); ok {
			stack := make([]string, len(s.profStack))
			for i, x := range s.profStack {
				stack[i] = x.name
			}
			fr.fuelFrame(stack, used-min(f.children, used))
		}
		l.FunctionDone(p.name, used)
	}
	s.profStack = s.profStack[:top]
}
