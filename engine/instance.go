package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

type sysExitError = sys.ExitError

// Instance is a core instance in a store.
type Instance struct {
	store  *Store
	module *Module
	mod    api.Module
	funcs  map[string]*Function
}

func (*Instance) importable() {}

// Store returns the instance's store.
func (in *Instance) Store() *Store { return in.store }

// Module returns the module the instance was created from.
func (in *Instance) Module() *Module { return in.module }

// Memory returns the exported memory with the given name, or nil.
func (in *Instance) Memory(name string) Memory {
	m := in.mod.ExportedMemory(name)
	if m == nil {
		return nil
	}
	return m
}

// Global returns the value of an exported global, or ok == false.
func (in *Instance) Global(name string) (uint64, bool) {
	g := in.mod.ExportedGlobal(name)
	if g == nil {
		return 0, false
	}
	return g.Get(), true
}

// Function is an exported function of an instance.
type Function struct {
	inst   *Instance
	name   string
	fn     api.Function
	params []ValueType
	result []ValueType
	entry  int64 // fuel to charge before calling fn, a direct export (see directPrefix)
}

// directPrefix names the unwrapped exports that host calls use. Every exported function whose
// entry block its callers charge is exported through a wrapper that charges it; a host call
// charges it itself and calls the function directly, one wasm call fewer. Guests cannot import
// these names: checkLink only offers a module's declared exports.
const directPrefix = "kobako:direct/"

// Function returns the exported function with the given name.
func (in *Instance) Function(name string) (*Function, error) {
	if f, ok := in.funcs[name]; ok {
		return f, nil
	}
	fn := in.mod.ExportedFunction(name)
	if fn == nil {
		return nil, fmt.Errorf("engine: %w: function %q", ErrNoExport, name)
	}
	def := fn.Definition()
	f := &Function{inst: in, name: name, fn: fn, params: fromAPITypes(def.ParamTypes()), result: fromAPITypes(def.ResultTypes())}
	if c, ok := in.module.entryCharges[name]; ok {
		if d := in.mod.ExportedFunction(directPrefix + name); d != nil {
			f.fn, f.entry = d, c
		}
	}
	if in.funcs == nil {
		in.funcs = map[string]*Function{}
	}
	in.funcs[name] = f
	return f, nil
}

// Call calls the exported function name with params (see Function.Call).
func (in *Instance) Call(ctx context.Context, name string, params ...uint64) ([]uint64, error) {
	f, err := in.Function(name)
	if err != nil {
		return nil, err
	}
	return f.Call(ctx, params...)
}

// Params returns the function's parameter types.
func (f *Function) Params() []ValueType { return f.params }

// Results returns the function's result types.
func (f *Function) Results() []ValueType { return f.result }

// Call calls the function. Values are encoded as in wazero's api: i32 zero-extended, floats as their
// IEEE bits. A top-level call (one not made from inside a host function of the same store) starts
// with the store's full fuel and deadline. A call made from a host function during another call of
// the same store re-enters the store: it shares the running call's fuel and deadline, and nesting
// deeper than Config.MaxReentry traps with TrapStackOverflow.
//
// A call that ran and failed returns a *Trap or, when the guest exited, an *ExitError. One that
// could not run returns ErrInstanceUnavailable once the store was discarded (or when the
// instance was closed under it), ErrClosed once the store was closed, or an error for a wrong
// parameter count.
func (f *Function) Call(ctx context.Context, params ...uint64) ([]uint64, error) {
	if len(params) != len(f.params) {
		return nil, fmt.Errorf("engine: call %s: %d params, the function takes %d", f.name, len(params), len(f.params))
	}
	stack := make([]uint64, max(len(f.params), len(f.result)))
	copy(stack, params)
	if err := f.CallStack(ctx, stack); err != nil {
		return nil, err
	}
	return stack[:len(f.result):len(f.result)], nil
}

// StackSize is the length of the stack CallStack needs: the larger of the parameter and result
// counts.
func (f *Function) StackSize() int { return max(len(f.params), len(f.result)) }

// CallStack is Call without allocation: stack holds the parameters on entry and the results on
// return, and must be at least StackSize long. It is meant for embedders that call one function
// many times (the component layer's warm calls).
func (f *Function) CallStack(ctx context.Context, stack []uint64) error {
	s := f.inst.store
	if s.dead != nil {
		return s.dead
	}
	if len(stack) < f.StackSize() {
		return fmt.Errorf("engine: call %s: stack of %d values, the function needs %d", f.name, len(stack), f.StackSize())
	}
	if s.depth >= s.engine.cfg.MaxReentry {
		return &Trap{Kind: TrapStackOverflow, Function: f.name,
			Cause: fmt.Errorf("guest→host→guest re-entry deeper than %d", s.engine.cfg.MaxReentry)}
	}
	top := s.depth == 0
	var start time.Time
	var listener FuelListener
	if top {
		s.SetFuel(s.limits.Fuel)
		s.profStack = s.profStack[:0]
		s.progress = nil
		if o := observersFrom(ctx); o != nil && !s.unmetered {
			if listener = o.listener; listener != nil {
				start = time.Now() // the clock is read only for a listener
			}
			if s.progress = o.progress; s.progress != nil {
				s.progress.started(s.limits.Fuel)
			}
		}
	}
	if f.entry != 0 {
		// What the export's wrapper would have charged, without checking, as it does not.
		s.fuel.Set(uint64(int64(s.fuel.Get()) - f.entry))
	}
	var err error
	s.depth++
	if top {
		fc := newFrameContext(ctx, s)
		if s.unmetered {
			stop := s.watch(fc)
			err = f.fn.CallWithStack(fc, stack)
			stop()
		} else {
			err = f.fn.CallWithStack(fc, stack)
		}
		if cerr := fc.expired(); err == nil && cerr != nil {
			// A host function saw the call end (its context closed) and returned normally; the
			// call did not complete in time.
			err = &Trap{Kind: contextTrapKind(cerr), Function: f.name, Cause: cerr}
		}
		fc.release()
	} else {
		if fc, ok := ctx.(*frameContext); !ok || fc.store != s {
			ctx = context.WithValue(ctx, storeKey{}, s)
		}
		err = f.fn.CallWithStack(ctx, stack)
	}
	s.depth--
	if err == nil && s.fuelRemaining() < 0 {
		// The injected checks sit at function entries and loop headers, so the last blocks of a call
		// may overdraw without trapping; the call still did not fit in its fuel.
		err = errFuelAfterReturn
	}
	if listener != nil {
		listener.CallDone(f.name, uint64(int64(s.limits.Fuel)-s.fuelRemaining()), time.Since(start))
	}
	if top && s.progress != nil {
		s.progress.ended(uint64(max(int64(s.limits.Fuel)-s.fuelRemaining(), 0)))
		s.progress = nil
	}
	if err != nil {
		t, direct := err.(*Trap)
		if err == errFuelAfterReturn {
			t = &Trap{Kind: TrapFuelExhausted, Function: f.name}
		} else if !direct {
			t = s.classify(err, f.inst.module)
			if ee, ok := asExit(err, s); ok {
				s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
				return ee
			}
		}
		s.dead = fmt.Errorf("engine: %w", ErrInstanceUnavailable)
		if t == nil {
			// The instance was closed under the call (the store closed by a host function, say):
			// not a trap, but the call did not complete.
			return fmt.Errorf("engine: call %s: %w: %w", f.name, ErrInstanceUnavailable, err)
		}
		return t
	}
	return nil
}

var errFuelAfterReturn = errors.New("fuel overdrawn")

// FuelConsumed returns the fuel the last top-level call of the store used; 0 in an unmetered
// store, which counts none.
func (s *Store) FuelConsumed() uint64 {
	if s.unmetered {
		return 0
	}
	return uint64(int64(s.limits.Fuel) - s.fuelRemaining())
}

func asExit(err error, s *Store) (*ExitError, bool) {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee, true
	}
	var se *sys.ExitError
	if errors.As(err, &se) && s.exitCode != nil {
		return &ExitError{Code: *s.exitCode}, true
	}
	return nil, false
}

// classify turns any error out of wazero into a *Trap (nil for a proc_exit, see asExit).
func (s *Store) classify(err error, m *Module) *Trap {
	fn := trapFunction(err, m)
	var hp *hostPanic
	if errors.As(err, &hp) {
		var nested *Trap
		if errors.As(hp.err, &nested) {
			if nested.Function == "" {
				nested.Function = fn
			}
			return nested
		}
		var ee *ExitError
		if errors.As(hp.err, &ee) {
			return nil
		}
		return &Trap{Kind: TrapHost, Function: fn, Cause: hp.err}
	}
	var se *sys.ExitError
	if errors.As(err, &se) {
		// A proc_exit (asExit reports it), wazero stopping an unmetered store's call at its
		// deadline, or the instance closed under the call. wazero's deadline exit codes occur
		// only in unmetered stores: metered ones do not run where it interrupts.
		if t := s.interruptedTrap(se, fn); t != nil {
			return t
		}
		return nil
	}
	kind := TrapHost
	// wazero's trap sentinels live in an internal package, so match the stable text of each error in
	// the chain (wazero-notes §7); the start function adds one more wrapping layer.
	for inner := errors.Unwrap(err); inner != nil && kind == TrapHost; inner = errors.Unwrap(inner) {
		kind = runtimeTrapKinds[inner.Error()]
		if kind == 0 {
			kind = TrapHost
		}
	}
	if kind == TrapUnreachable && s.fuelRemaining() < 0 {
		// The injected fuel check is the only code that traps with the counter below zero.
		kind = TrapFuelExhausted
	}
	return &Trap{Kind: kind, Function: fn, Cause: err}
}

var runtimeTrapKinds = map[string]TrapKind{
	"unreachable":                   TrapUnreachable,
	"out of bounds memory access":   TrapMemoryOutOfBounds,
	"invalid table access":          TrapTableOutOfBounds,
	"integer divide by zero":        TrapDivideByZero,
	"integer overflow":              TrapIntegerOverflow,
	"invalid conversion to integer": TrapInvalidConversion,
	"indirect call type mismatch":   TrapIndirectCallMismatch,
	"stack overflow":                TrapStackOverflow,
	"null reference":                TrapNullReference,
}

// trapFunction reads the innermost wasm function from wazero's "wasm stack trace:" section.
func trapFunction(err error, m *Module) string {
	msg := err.Error()
	i := strings.Index(msg, "wasm stack trace:\n")
	if i < 0 {
		return ""
	}
	var line string
	for _, l := range strings.Split(msg[i+len("wasm stack trace:\n"):], "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, fuelHostModuleName+"."+fuelHookName+"(") || strings.HasPrefix(l, "."+fuelHookName+"(") {
			continue // the refuel hook's own frame: report the guest function that ran out
		}
		line = l
		break
	}
	if j := strings.IndexByte(line, '('); j >= 0 {
		line = line[:j]
	}
	if m != nil {
		if p := m.compiled.Name() + "."; strings.HasPrefix(line, p) {
			return line[len(p):]
		}
	}
	if j := strings.IndexByte(line, '.'); j >= 0 {
		return line[j+1:]
	}
	return line
}

func fromAPITypes(ts []api.ValueType) []ValueType {
	out := make([]ValueType, len(ts))
	for i, t := range ts {
		out[i] = ValueType(t)
	}
	return out
}
