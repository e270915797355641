package component

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

var (
	ctxType    = reflect.TypeFor[context.Context]()
	errType    = reflect.TypeFor[error]()
	callerType = reflect.TypeFor[*Caller]()
)

// leadParam is what a typed host function takes between its context and its WIT parameters.
type leadParam int

const (
	leadNone   leadParam = iota
	leadCaller           // *Caller
	leadState            // the state DefineFuncWith's getter finds
)

// skip returns the number of Go parameters before the WIT ones.
func (p leadParam) skip() int {
	if p == leadNone {
		return 1
	}
	return 2
}

// checkGoFunc checks the shape func(context.Context, [*Caller,] P...) (R?, error?), or with
// state != nil func(context.Context, state, P...) (R?, error?).
func checkGoFunc(v reflect.Value, state reflect.Type) (leadParam, error) {
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return 0, fmt.Errorf("%w: expected a non-nil Go function, found %s", ErrBind, v.Kind())
	}
	t := v.Type()
	if t.IsVariadic() {
		return 0, fmt.Errorf("%w: variadic function %s", ErrBind, t)
	}
	if t.NumIn() == 0 || t.In(0) != ctxType {
		return 0, fmt.Errorf("%w: %s: the first parameter must be context.Context", ErrBind, t)
	}
	lead := leadNone
	switch {
	case state != nil:
		if t.NumIn() < 2 || t.In(1) != state {
			return 0, fmt.Errorf("%w: %s: the second parameter must be the state, %s", ErrBind, t, state)
		}
		lead = leadState
	case t.NumIn() >= 2 && t.In(1) == callerType:
		lead = leadCaller
	}
	_, _, err := goResults(t)
	return lead, err
}

// goResults says whether a Go function type has a value result and an error result.
func goResults(t reflect.Type) (hasValue, hasErr bool, err error) {
	switch t.NumOut() {
	case 0:
		return false, false, nil
	case 1:
		if t.Out(0) == errType {
			return false, true, nil
		}
		return true, false, nil
	case 2:
		if t.Out(1) == errType && t.Out(0) != errType {
			return true, true, nil
		}
	}
	return false, false, fmt.Errorf("%w: %s: results must be (R, error), R, error or nothing", ErrBind, t)
}

// goSignature holds the codecs between a Go function type and a component function type.
type goSignature struct {
	params   []*abi.Codec
	result   *abi.Codec
	hasValue bool
	hasErr   bool
}

// matchGo checks that Go function type t (with skip parameters, its context first, before the
// WIT ones) fits ft and builds the codecs, once, when a function is bound (wasmtime's
// typed-function check).
func matchGo(t reflect.Type, skip int, ft *abi.FuncType) (*goSignature, error) {
	ps := ft.Params()
	if t.NumIn()-skip != len(ps) {
		return nil, fmt.Errorf("%w: %s has %d WIT parameters, %s has %d", ErrBind, t, t.NumIn()-skip, ft, len(ps))
	}
	sig := &goSignature{}
	var err error
	if sig.hasValue, sig.hasErr, err = goResults(t); err != nil {
		return nil, err
	}
	for i, p := range ps {
		c, err := abi.NewCodec(t.In(i+skip), p.Type)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %d (%s): %w", ErrBind, i, p.Name, err)
		}
		sig.params = append(sig.params, c)
	}
	rs := ft.Results()
	switch {
	case len(rs) == 1 && sig.hasValue:
		if sig.result, err = abi.NewCodec(t.Out(0), rs[0]); err != nil {
			return nil, fmt.Errorf("%w: result: %w", ErrBind, err)
		}
	case len(rs) == 0 && !sig.hasValue:
	default:
		return nil, fmt.Errorf("%w: %s and %s disagree on the number of results", ErrBind, t, ft)
	}
	return sig, nil
}

// typedHost adapts a typed Go host function to a HostFunc for function type ft.
func typedHost(d *hostDef, ft *abi.FuncType) (HostFunc, error) {
	fn := d.typed
	skip := d.lead.skip()
	sig, err := matchGo(fn.Type(), skip, ft)
	if err != nil {
		return nil, err
	}
	t := fn.Type()
	lead, state := d.lead, d.state
	return func(ctx context.Context, c *Caller, args []abi.Value) ([]abi.Value, error) {
		in := make([]reflect.Value, len(args)+skip)
		in[0] = reflect.ValueOf(ctx)
		switch lead {
		case leadCaller:
			in[1] = reflect.ValueOf(c)
		case leadState:
			sv, err := state(c)
			if err != nil {
				return nil, err
			}
			in[1] = sv
		}
		for i, a := range args {
			p := reflect.New(t.In(i + skip))
			if err := sig.params[i].FromValue(a, p.Interface()); err != nil {
				return nil, fmt.Errorf("argument %d: %w", i, err)
			}
			in[i+skip] = p.Elem()
		}
		out := fn.Call(in)
		if sig.hasErr {
			if e := out[len(out)-1]; !e.IsNil() {
				return nil, e.Interface().(error)
			}
		}
		if !sig.hasValue {
			return nil, nil
		}
		v, err := sig.result.ToValue(out[0].Interface())
		if err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		return []abi.Value{v}, nil
	}, nil
}

// Func is an exported component function of an instance.
type Func struct {
	in   *Instance
	name string
	impl *funcImpl
}

// Name returns the export name the function was found under ("iface#f" or "f").
func (f *Func) Name() string { return f.name }

// Type returns the function's abi type (with this instance's resource types).
func (f *Func) Type() *abi.FuncType { return f.impl.ft }

// Call calls the function with dynamic values. It fails with ErrReentrance if the instance is
// already running (a host function called by the guest calling back in, or another goroutine).
func (f *Func) Call(ctx context.Context, args ...abi.Value) ([]abi.Value, error) {
	res, err := f.impl.callFrom(ctx, f.in, args, true, f.name)
	if err != nil {
		return nil, fmt.Errorf("component: call %s: %w", f.name, err)
	}
	return res, nil
}

// Bind sets *fnPtr, a pointer to a variable of a Go function type func(context.Context,
// P...) (R, error) (or (error) for a function without result), to a function calling f with
// the typed mapping of package abi. The Go types are checked against f's type once, here.
func (f *Func) Bind(fnPtr any) error {
	pv := reflect.ValueOf(fnPtr)
	if pv.Kind() != reflect.Pointer || pv.IsNil() || pv.Elem().Kind() != reflect.Func {
		return fmt.Errorf("component: bind %s: %w: expected a pointer to a func variable, found %T", f.name, ErrBind, fnPtr)
	}
	t := pv.Elem().Type()
	if t.IsVariadic() || t.NumIn() == 0 || t.In(0) != ctxType {
		return fmt.Errorf("component: bind %s: %w: %s: the first parameter must be context.Context", f.name, ErrBind, t)
	}
	sig, err := matchGo(t, 1, f.impl.ft)
	if err != nil {
		return fmt.Errorf("component: bind %s: %w", f.name, err)
	}
	if !sig.hasErr {
		return fmt.Errorf("component: bind %s: %w: %s must return an error last", f.name, ErrBind, t)
	}
	fn := reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		fail := func(err error) []reflect.Value {
			out := make([]reflect.Value, t.NumOut())
			for i := range out {
				out[i] = reflect.Zero(t.Out(i))
			}
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
			return out
		}
		ctx, _ := in[0].Interface().(context.Context)
		if ctx == nil {
			ctx = context.Background()
		}
		args := make([]abi.Value, len(in)-1)
		for i := range args {
			v, err := sig.params[i].ToValue(in[i+1].Interface())
			if err != nil {
				return fail(fmt.Errorf("component: call %s: argument %d: %w", f.name, i, err))
			}
			args[i] = v
		}
		res, err := f.Call(ctx, args...)
		if err != nil {
			return fail(err)
		}
		out := []reflect.Value{}
		if sig.hasValue {
			p := reflect.New(t.Out(0))
			if err := sig.result.FromValue(res[0], p.Interface()); err != nil {
				return fail(fmt.Errorf("component: call %s: result: %w", f.name, err))
			}
			out = append(out, p.Elem())
		}
		return append(out, reflect.Zero(errType))
	})
	pv.Elem().Set(fn)
	return nil
}

// Call calls the exported function name ("iface#f", or "f" at the root) with dynamic values.
func (in *Instance) Call(ctx context.Context, name string, args ...abi.Value) ([]abi.Value, error) {
	f, err := in.Func(name)
	if err != nil {
		return nil, err
	}
	return f.Call(ctx, args...)
}

// Bind binds the exported function name to the Go function variable *fnPtr (see Func.Bind).
func (in *Instance) Bind(name string, fnPtr any) error {
	f, err := in.Func(name)
	if err != nil {
		return err
	}
	return f.Bind(fnPtr)
}

// call runs a component function on behalf of the host: a lifted export through canon lift
// (CanonicalABI.md#canon-lift), or, when a component re-exports an import, the host function.
func (f *funcImpl) call(ctx context.Context, caller *Instance, args []abi.Value) ([]abi.Value, error) {
	return f.callFrom(ctx, caller, args, false, "")
}

// callFrom runs the function; top is true when the host makes the call, not a guest through a
// trampoline. A top-level component call is several engine calls (realloc for each string or list
// argument, the export, post-return); they run in one engine frame (Store.Enter), or a guest could
// multiply its budget by its argument count.
//
// A top-level call that fails because the guest broke the canonical ABI returns an
// *engine.Trap of kind TrapCanonicalABI naming the function (name) and discards the store, as
// an engine trap does: later calls answer engine.ErrInstanceUnavailable.
func (f *funcImpl) callFrom(ctx context.Context, caller *Instance, args []abi.Value, top bool, name string) ([]abi.Value, error) {
	if f.host != nil {
		return f.host(ctx, &caller.caller, args)
	}
	in := f.owner
	if !in.busy.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("%w: may_enter is false", ErrReentrance)
	}
	defer in.busy.Store(false)
	if in.dead != nil {
		return nil, in.dead
	}
	ec := f.warm
	if ec == nil {
		var err error
		if ec, err = f.prepare(); err != nil {
			return nil, err
		}
		f.warm = ec
	}
	var exit func() error
	if top {
		// One engine frame for the whole call, so realloc, the export and post-return share one fuel
		// budget and one deadline.
		fctx, ex, err := in.store.Enter(ctx)
		if err != nil {
			return nil, err
		}
		ctx, exit = fctx, ex
	}
	res, err := f.ft.CallExport(ec.begin(ctx), args, ec.run)
	ec.end()
	if err != nil && top {
		if t := canonTrap(err, name); t != err {
			in.store.Discard()
			err = t
		}
	}
	if exit != nil {
		if ferr := exit(); ferr != nil {
			in.dead = fmt.Errorf("%w: a previous call was interrupted", engine.ErrInstanceUnavailable)
			if err == nil {
				res, err = nil, ferr
			}
		}
	}
	return res, err
}

// exportCall holds what every call of a lifted export needs, resolved on the first call: the
// core function, post-return and the canonCall of its options, so a warm call allocates only its
// results.
type exportCall struct {
	canonCall
	in               *Instance
	core, post       *engine.Function
	stack, postStack []uint64
	run              func(flat []uint64) ([]uint64, error) // ec.invoke, bound once
}

func (f *funcImpl) prepare() (*exportCall, error) {
	in := f.owner
	o := &f.lift.Options
	ec := &exportCall{in: in}
	ec.run = ec.invoke
	var err error
	if ec.core, err = in.coreFunc(f.lift.CoreFunc); err != nil {
		return nil, err
	}
	ec.stack = make([]uint64, ec.core.StackSize())
	if err := in.initCanonCall(&ec.canonCall, o); err != nil {
		return nil, err
	}
	if o.HasPostReturn {
		if ec.post, err = in.coreFunc(o.PostReturn); err != nil {
			return nil, err
		}
		ec.postStack = make([]uint64, ec.post.StackSize())
		ec.cx.PostReturn = ec.callPostReturn
	}
	return ec, nil
}

func (ec *exportCall) callPostReturn(flat []uint64) error {
	if len(flat) != len(ec.post.Params()) {
		return fmt.Errorf("post-return takes %d values, the export returned %d", len(ec.post.Params()), len(flat))
	}
	copy(ec.postStack, flat)
	return ec.post.CallStack(ec.ctx, ec.postStack)
}

// invoke runs the core export on the flat arguments. The results stay in ec.stack until the next
// call; CallExport lifts them (and hands them to post-return) before this call returns.
func (ec *exportCall) invoke(flat []uint64) ([]uint64, error) {
	if len(flat) != len(ec.core.Params()) {
		return nil, fmt.Errorf("core export takes %d values, the lowered arguments are %d", len(ec.core.Params()), len(flat))
	}
	copy(ec.stack, flat)
	ec.in.mayLeave = true
	err := ec.core.CallStack(ec.ctx, ec.stack)
	ec.in.mayLeave = false
	if err != nil {
		return nil, err
	}
	return ec.stack[:len(ec.core.Results())], nil
}
