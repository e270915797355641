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

// typedHost adapts a typed Go host function to a HostFunc for function type ft (the dynamic
// path, for a host function a component re-exports and the host calls with Values), and plans
// its typed path for guest calls through canon lower.
func typedHost(d *hostDef, ft *abi.FuncType) (HostFunc, *typedImport, error) {
	fn := d.typed
	skip := d.lead.skip()
	sig, err := matchGo(fn.Type(), skip, ft)
	if err != nil {
		return nil, nil, err
	}
	var results []*abi.Codec
	if sig.result != nil {
		results = []*abi.Codec{sig.result}
	}
	plan, err := abi.NewGoFunc(ft, sig.params, results)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBind, err)
	}
	ti := &typedImport{plan: plan, def: d, sig: sig}
	t := fn.Type()
	for i := skip; i < t.NumIn(); i++ {
		ti.params = append(ti.params, t.In(i))
	}
	return func(ctx context.Context, c *Caller, args []abi.Value) ([]abi.Value, error) {
		in, err := ti.lead(ctx, c, len(args))
		if err != nil {
			return nil, err
		}
		for i, a := range args {
			p := reflect.New(ti.params[i])
			if err := sig.params[i].FromValue(a, p.Interface()); err != nil {
				return nil, fmt.Errorf("argument %d: %w", i, err)
			}
			in[i+skip] = p.Elem()
		}
		out, err := ti.call(in)
		if err != nil || out == nil {
			return nil, err
		}
		v, err := sig.result.ToValue(out[0].Interface())
		if err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		return []abi.Value{v}, nil
	}, ti, nil
}

// typedImport is a typed Go host function's plan for guest calls: canon lower lifts the guest's
// arguments straight into Go values and lowers the result straight from the Go value.
type typedImport struct {
	plan   *abi.GoFunc
	def    *hostDef
	sig    *goSignature
	params []reflect.Type // the Go types of the WIT parameters
}

// lead returns the Go arguments of a call with n WIT parameters, the context and the lead
// parameter filled in.
func (ti *typedImport) lead(ctx context.Context, c *Caller, n int) ([]reflect.Value, error) {
	d := ti.def
	in := make([]reflect.Value, n+d.lead.skip())
	in[0] = reflect.ValueOf(ctx)
	switch d.lead {
	case leadCaller:
		in[1] = reflect.ValueOf(c)
	case leadState:
		sv, err := d.state(c)
		if err != nil {
			return nil, err
		}
		in[1] = sv
	}
	return in, nil
}

// call calls the Go function and returns its value result (nil when it has none) or its error.
func (ti *typedImport) call(in []reflect.Value) ([]reflect.Value, error) {
	out := ti.def.typed.Call(in)
	if ti.sig.hasErr {
		if e := out[len(out)-1]; !e.IsNil() {
			return nil, e.Interface().(error)
		}
	}
	if !ti.sig.hasValue {
		return nil, nil
	}
	return out[:1], nil
}

// serve runs the function for a guest call with core arguments flat (see abi.GoFunc.ServeImport).
// The function's own errors come back as *hostError.
func (ti *typedImport) serve(ctx context.Context, c *Caller, cx *abi.CallContext, flat []uint64) ([]uint64, error) {
	in, err := ti.lead(ctx, c, len(ti.params))
	if err != nil {
		return nil, &hostError{err}
	}
	skip := ti.def.lead.skip()
	for i, t := range ti.params {
		in[i+skip] = reflect.New(t).Elem()
	}
	return ti.plan.ServeImport(cx, flat, in[skip:], func([]reflect.Value) ([]reflect.Value, error) {
		out, err := ti.call(in)
		if err != nil {
			return nil, &hostError{err}
		}
		return out, nil
	})
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
	if f.impl.host == nil {
		return f.bindTyped(pv, t, sig)
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

// bindTyped binds a lifted export on the typed path: the arguments are lowered straight from
// the Go values and the result lifted straight into one, by a plan made here, once.
func (f *Func) bindTyped(pv reflect.Value, t reflect.Type, sig *goSignature) error {
	plan, err := f.plan(sig)
	if err != nil {
		return err
	}
	nOut := t.NumOut()
	fn := reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		out := make([]reflect.Value, nOut)
		var res []reflect.Value
		if sig.hasValue {
			out[0] = reflect.New(t.Out(0)).Elem()
			res = out[:1]
		}
		ctx, _ := in[0].Interface().(context.Context)
		if ctx == nil {
			ctx = context.Background()
		}
		op := callOp{typed: plan, goArgs: in[1:], goRes: res}
		err := plan.CheckArgs(op.goArgs)
		if err == nil {
			err = f.impl.lifted(ctx, &op, true, f.name)
		}
		if err != nil {
			if sig.hasValue {
				out[0] = reflect.Zero(t.Out(0))
			}
			err = fmt.Errorf("component: call %s: %w", f.name, err)
			out[nOut-1] = reflect.ValueOf(&err).Elem()
			return out
		}
		out[nOut-1] = reflect.Zero(errType)
		return out
	})
	pv.Elem().Set(fn)
	return nil
}

// plan makes the typed path's plan for a lifted export bound with signature sig.
func (f *Func) plan(sig *goSignature) (*abi.GoFunc, error) {
	var results []*abi.Codec
	if sig.result != nil {
		results = []*abi.Codec{sig.result}
	}
	plan, err := abi.NewGoFunc(f.impl.ft, sig.params, results)
	if err != nil {
		return nil, fmt.Errorf("component: bind %s: %w: %w", f.name, ErrBind, err)
	}
	return plan, nil
}

// Typed1 is Func.Bind for a function of one parameter and one result, as a Go function of
// those types made without reflect.MakeFunc: a call converts its argument and result straight
// between Go values and guest memory and skips the reflective call, which on a short call costs
// as much as the conversion (see bench/README.md, "Typed calls"). The types are checked once,
// here, as Bind checks them.
func Typed1[P, R any](f *Func) (func(context.Context, P) (R, error), error) {
	var fn func(context.Context, P) (R, error)
	if f.impl.host != nil {
		// A re-exported host function: no canon lift to plan.
		if err := f.Bind(&fn); err != nil {
			return nil, err
		}
		return fn, nil
	}
	sig, err := matchGo(reflect.TypeOf(fn), 1, f.impl.ft)
	if err != nil {
		return nil, fmt.Errorf("component: bind %s: %w", f.name, err)
	}
	plan, err := f.plan(sig)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, p P) (R, error) {
		if ctx == nil {
			ctx = context.Background()
		}
		var r R
		args := [1]reflect.Value{reflect.ValueOf(&p).Elem()}
		res := [1]reflect.Value{reflect.ValueOf(&r).Elem()}
		op := callOp{typed: plan, goArgs: args[:], goRes: res[:]}
		err := plan.CheckArgs(op.goArgs)
		if err == nil {
			err = f.impl.lifted(ctx, &op, true, f.name)
		}
		if err != nil {
			var zero R
			return zero, fmt.Errorf("component: call %s: %w", f.name, err)
		}
		return r, nil
	}, nil
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
	op := callOp{args: args}
	err := f.lifted(ctx, &op, top, name)
	return op.res, err
}

// callOp is what one call of a lifted export converts: dynamic values, or, on the typed path,
// Go values through a GoFunc plan.
type callOp struct {
	args, res []abi.Value
	typed     *abi.GoFunc
	goArgs    []reflect.Value
	goRes     []reflect.Value
}

// lifted runs a lifted export for op (see callFrom).
func (f *funcImpl) lifted(ctx context.Context, op *callOp, top bool, name string) error {
	in := f.owner
	if !in.busy.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: may_enter is false", ErrReentrance)
	}
	defer in.busy.Store(false)
	if in.dead != nil {
		return in.dead
	}
	ec := f.warm
	if ec == nil {
		var err error
		if ec, err = f.prepare(); err != nil {
			return err
		}
		f.warm = ec
	}
	var exit func() error
	if top {
		// One engine frame for the whole call, so realloc, the export and post-return share one fuel
		// budget and one deadline.
		fctx, ex, err := in.store.Enter(ctx)
		if err != nil {
			return err
		}
		ctx, exit = fctx, ex
	}
	var err error
	if op.typed != nil {
		err = op.typed.CallExport(ec.begin(ctx), op.goArgs, op.goRes, ec.run)
	} else {
		op.res, err = f.ft.CallExport(ec.begin(ctx), op.args, ec.run)
	}
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
				op.res, err = nil, ferr
			}
		}
	}
	return err
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
