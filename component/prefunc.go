package component

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component/binary"
)

// PreFunc is an exported function bound once to an InstancePre (wasmtime's typed functions of
// a generated {World}Pre): its Go types were checked against the WIT types, and its plan for
// moving arguments and results between Go values and guest memory made, when it was prepared.
// Call then takes any instance made from that InstancePre: binding a fresh instance costs
// nothing, since the function is found by an index computed at prepare time. A PreFunc is
// safe for concurrent use; an instance still runs one call at a time.
//
// P stands for the function's parameters: struct{} when it has none, the parameter's Go type
// when it has one, and a struct with one exported field per parameter, in order, when it has
// more. R is the result's Go type, or struct{} when the function returns nothing. The Go
// types follow package abi's typed mapping (abi.Codec).
type PreFunc[P, R any] struct {
	x *preExport
}

// PrepareFunc binds the exported function name ("iface#f", or "f" at the root) of the
// components pre instantiates to the Go types P and R (see PreFunc), checking them against the
// function's WIT type. A mismatch is an error wrapping ErrBind that names the function.
func PrepareFunc[P, R any](pre *InstancePre, name string) (*PreFunc[P, R], error) {
	pt, rt := reflect.TypeFor[P](), reflect.TypeFor[R]()
	if pre == nil {
		return nil, fmt.Errorf("component: prepare %s: nil InstancePre", name)
	}
	ft, err := pre.exportType(name)
	if err != nil {
		return nil, fmt.Errorf("component: prepare %s: %w", name, err)
	}
	var params []reflect.Type
	spread := false
	switch n := len(ft.Params()); {
	case n == 0:
		if !isEmptyStruct(pt) {
			return nil, fmt.Errorf("component: prepare %s: %w: it takes no parameters, so P must be struct{}, found %s", name, ErrBind, pt)
		}
	case n == 1:
		params = []reflect.Type{pt}
	default:
		if pt.Kind() != reflect.Struct || pt.NumField() != n {
			return nil, fmt.Errorf("component: prepare %s: %w: it takes %d parameters, so P must be a struct of %d fields, found %s", name, ErrBind, n, n, pt)
		}
		for i := range n {
			if !pt.Field(i).IsExported() {
				return nil, fmt.Errorf("component: prepare %s: %w: field %s of %s is not exported", name, ErrBind, pt.Field(i).Name, pt)
			}
			params = append(params, pt.Field(i).Type)
		}
		spread = true
	}
	var result reflect.Type
	if len(ft.Results()) > 0 || !isEmptyStruct(rt) {
		result = rt
	}
	x, err := pre.prepareExport(name, params, result)
	if err != nil {
		return nil, err
	}
	x.spread = spread
	return &PreFunc[P, R]{x: x}, nil
}

func isEmptyStruct(t reflect.Type) bool { return t.Kind() == reflect.Struct && t.NumField() == 0 }

// Name returns the name the function was prepared under.
func (f *PreFunc[P, R]) Name() string { return f.x.name }

// Type returns the function's type as the InstancePre sees it (resources the component defines
// itself stand for those of each instance).
func (f *PreFunc[P, R]) Type() *abi.FuncType { return f.x.ft }

// Call calls the function in instance in, which must have been made from the InstancePre f was
// prepared on (or a Snapshot of it); another instance is refused with ErrForeignInstance. Like
// Func.Call, it fails with ErrReentrance if the instance is already running.
func (f *PreFunc[P, R]) Call(ctx context.Context, in *Instance, p P) (R, error) {
	var r R
	var args [maxSpread]reflect.Value
	var res [1]reflect.Value
	x := f.x
	n := len(x.params)
	switch {
	case x.spread:
		pv := reflect.ValueOf(&p).Elem()
		for i := range n {
			args[i] = pv.Field(i)
		}
	case n == 1:
		args[0] = reflect.ValueOf(&p).Elem()
	}
	out := res[:0]
	if x.result != nil {
		res[0] = reflect.ValueOf(&r).Elem()
		out = res[:1]
	}
	if err := x.call(ctx, in, args[:n], out); err != nil {
		var zero R
		return zero, err
	}
	return r, nil
}

// maxSpread is the most parameters a PreFunc spreads from P without allocating the slice that
// holds them; WIT functions take fewer in practice.
const maxSpread = 8

// BindInterface binds the functions of exported interface iface ("ns:pkg/iface@1.0.0", or
// without the version when only one is exported) to the func fields of the struct dst points
// to, as Instance.BindInterface does for one instance, but once for every instance pre makes:
// each field has the shape func(context.Context, *Instance, P...) (R, error) (or error alone
// for a function without result) and calls its function in the instance it is given. Field
// names and `wit:"f,optional"` tags are those of Instance.BindInterface; the Go types are
// checked here, once.
func (p *InstancePre) BindInterface(iface string, dst any) error {
	find := func(iface string) (*binary.Export, error) {
		return findExport(p.cc.comp, iface, binary.SortInstance)
	}
	return bindInterface(iface, dst, find, func(e *binary.Export, f ifaceField) error {
		if f.name == "" || !exportsFunc(e, f.name) {
			if f.optional {
				return nil
			}
			return fmt.Errorf("%w: no function %q in the interface", ErrNoExport, cmp(f.name, f.goName))
		}
		fn, err := p.bindField(e.Name.Raw+"#"+f.name, f.v.Type())
		if err != nil {
			return err
		}
		f.v.Set(fn)
		return nil
	})
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func exportsFunc(e *binary.Export, name string) bool {
	d, ok := e.Type.Instance.Export(name)
	return ok && d.Type.Sort == binary.SortFunc
}

// bindField makes the Go function of type t, func(context.Context, *Instance, P...) (R?, error),
// that calls export name.
func (p *InstancePre) bindField(name string, t reflect.Type) (reflect.Value, error) {
	if t.IsVariadic() || t.NumIn() < 2 || t.In(0) != ctxType || t.In(1) != instanceType {
		return reflect.Value{}, fmt.Errorf("%w: %s: the parameters must start with context.Context, *component.Instance", ErrBind, t)
	}
	hasValue, hasErr, err := goResults(t)
	if err != nil {
		return reflect.Value{}, err
	}
	if !hasErr {
		return reflect.Value{}, fmt.Errorf("%w: %s must return an error last", ErrBind, t)
	}
	var params []reflect.Type
	for i := 2; i < t.NumIn(); i++ {
		params = append(params, t.In(i))
	}
	var result reflect.Type
	if hasValue {
		result = t.Out(0)
	}
	x, err := p.prepareExport(name, params, result)
	if err != nil {
		return reflect.Value{}, err
	}
	nOut := t.NumOut()
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		out := make([]reflect.Value, nOut)
		var res []reflect.Value
		if hasValue {
			out[0] = reflect.New(result).Elem()
			res = out[:1]
		}
		ctx, _ := in[0].Interface().(context.Context)
		inst, _ := in[1].Interface().(*Instance)
		if err := x.call(ctx, inst, in[2:], res); err != nil {
			if hasValue {
				out[0] = reflect.Zero(result)
			}
			out[nOut-1] = reflect.ValueOf(&err).Elem()
			return out
		}
		out[nOut-1] = reflect.Zero(errType)
		return out
	}), nil
}

var instanceType = reflect.TypeFor[*Instance]()

// preExport is one export bound to Go types on an InstancePre: what PreFunc and the funcs of
// InstancePre.BindInterface call through.
type preExport struct {
	pre    *InstancePre
	name   string
	slot   int // the export's function in Instance.exports, or -1: found by name per instance
	ft     *abi.FuncType
	params []reflect.Type
	result reflect.Type // nil: no result
	spread bool         // PreFunc: P's fields are the parameters
	// plan is the typed plan for ft, when every instance has ft itself (its types name no
	// resource of the component's own); otherwise each instance gets one on its first call.
	plan *abi.GoFunc
}

// exportType returns the type of export name ("iface#f" or "f") as p sees it.
func (p *InstancePre) exportType(name string) (*abi.FuncType, error) {
	bt, _, err := p.exportFunc(name)
	if err != nil {
		return nil, err
	}
	ft, _, err := p.funcType(bt)
	return ft, err
}

// exportFunc finds export name's type and, when the export is a function the root component
// lifts itself, its slot.
func (p *InstancePre) exportFunc(name string) (*binary.FuncType, int, error) {
	c := p.cc.comp
	iface, fname, ok := splitHash(name)
	if !ok {
		e, err := findExport(c, name, binary.SortFunc)
		if err != nil {
			return nil, 0, err
		}
		return e.Type.Func, p.slotOf(e.Index), nil
	}
	e, err := findExport(c, iface, binary.SortInstance)
	if err != nil {
		return nil, 0, err
	}
	d, ok := e.Type.Instance.Export(fname)
	if !ok || d.Type.Sort != binary.SortFunc {
		return nil, 0, fmt.Errorf("%w: %s exports no function %q", ErrNoExport, e.Name.Raw, fname)
	}
	slot := -1
	if fi, ok := instanceExportFunc(c, e.Index, fname); ok {
		slot = p.slotOf(fi)
	}
	return d.Type.Func, slot, nil
}

func (p *InstancePre) slotOf(fi uint32) int {
	if k, ok := p.slots[liftOf(p.cc.comp, fi)]; ok {
		return k
	}
	return -1
}

// prepareExport checks the Go types against export name's type and plans the typed path.
func (p *InstancePre) prepareExport(name string, params []reflect.Type, result reflect.Type) (*preExport, error) {
	bt, slot, err := p.exportFunc(name)
	if err != nil {
		return nil, fmt.Errorf("component: prepare %s: %w", name, err)
	}
	ft, shared, err := p.funcType(bt)
	if err != nil {
		return nil, fmt.Errorf("component: prepare %s: %w", name, err)
	}
	if slot >= 0 && p.slotFT[slot] != nil {
		// The function type every instance's funcImpl has: the plan must be for it exactly.
		ft = p.slotFT[slot]
	}
	x := &preExport{pre: p, name: name, slot: slot, ft: ft, params: params, result: result}
	plan, err := x.planFor(ft)
	if err != nil {
		return nil, err
	}
	if shared {
		x.plan = plan
	}
	return x, nil
}

// planFor checks x's Go types against ft and makes the typed plan for it.
func (x *preExport) planFor(ft *abi.FuncType) (*abi.GoFunc, error) {
	in := append([]reflect.Type{ctxType}, x.params...)
	out := []reflect.Type{errType}
	if x.result != nil {
		out = []reflect.Type{x.result, errType}
	}
	sig, err := matchGo(reflect.FuncOf(in, out, false), 1, ft)
	if err != nil {
		return nil, fmt.Errorf("component: prepare %s: %w", x.name, err)
	}
	var results []*abi.Codec
	if sig.result != nil {
		results = []*abi.Codec{sig.result}
	}
	plan, err := abi.NewGoFunc(ft, sig.params, results)
	if err != nil {
		return nil, fmt.Errorf("component: prepare %s: %w: %w", x.name, ErrBind, err)
	}
	return plan, nil
}

// call calls the export in instance in with Go arguments args, lifting its result into res.
func (x *preExport) call(ctx context.Context, in *Instance, args, res []reflect.Value) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if in == nil || in.pre == nil || in.pre.base != x.pre.base {
		return fmt.Errorf("component: call %s: %w", x.name, ErrForeignInstance)
	}
	impl, plan, err := x.resolve(in)
	if err != nil {
		return fmt.Errorf("component: call %s: %w", x.name, err)
	}
	if impl.host != nil {
		err = x.callHost(ctx, in, impl, plan, args, res)
	} else {
		op := callOp{typed: plan, goArgs: args, goRes: res}
		if err = plan.CheckArgs(args); err == nil {
			err = impl.lifted(ctx, &op, true, x.name)
		}
	}
	if err != nil {
		return fmt.Errorf("component: call %s: %w", x.name, err)
	}
	return nil
}

// resolve finds the export's function in instance in and the plan for its type.
func (x *preExport) resolve(in *Instance) (*funcImpl, *abi.GoFunc, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	var impl *funcImpl
	var err error
	if x.slot >= 0 {
		impl, err = in.slot(x.slot)
	} else {
		impl, err = in.exportedFunc(x.name)
	}
	if err != nil {
		return nil, nil, err
	}
	if x.plan != nil {
		// The type names only host resources, so every instance's function has it exactly:
		// impl.ft may be another value of it (an export wit-component nests in an instance
		// of a type-ascribing component is found by name, with that instance's types), but
		// the component model has no subtyping of function types, so the plan holds.
		return impl, x.plan, nil
	}
	// A type naming the instance's own resources: plan it once per instance.
	if impl.planOf != x {
		plan, err := x.planFor(impl.ft)
		if err != nil {
			return nil, nil, err
		}
		impl.plan, impl.planOf = plan, x
	}
	return impl, impl.plan, nil
}

// callHost calls a host function the component re-exports, through abi values: there is no
// canon lift to plan.
func (x *preExport) callHost(ctx context.Context, in *Instance, impl *funcImpl, plan *abi.GoFunc, args, res []reflect.Value) error {
	if err := plan.CheckArgs(args); err != nil {
		return err
	}
	ps := plan.Type().Params()
	vals := make([]abi.Value, len(args))
	for i, a := range args {
		c, err := abi.NewCodec(a.Type(), ps[i].Type)
		if err != nil {
			return err
		}
		if vals[i], err = c.ToValue(a.Interface()); err != nil {
			return fmt.Errorf("argument %d: %w", i, err)
		}
	}
	out, err := impl.host(ctx, &in.caller, vals)
	if err != nil || len(res) == 0 {
		return err
	}
	c, err := abi.NewCodec(x.result, plan.Type().Results()[0])
	if err != nil {
		return err
	}
	if len(out) != 1 {
		return fmt.Errorf("%w: the host function returned %d results", ErrBind, len(out))
	}
	return c.FromValue(out[0], res[0].Addr().Interface())
}

// slot returns the function in slot k of the instance's lifted exports, filling it in on first
// use. The caller holds in.mu.
func (in *Instance) slot(k int) (*funcImpl, error) {
	f := &in.exports[k]
	if f.lift != nil {
		return f, nil
	}
	d := in.cc.comp.Funcs[in.pre.slotFunc[k]].Def.(*binary.Canon)
	ft := in.pre.slotFT[k]
	if ft == nil {
		var err error
		if ft, err = in.types.Func(d.Func); err != nil {
			return nil, err
		}
	}
	*f = funcImpl{ft: ft, lift: d, owner: in}
	return f, nil
}

// planSlots numbers the functions the root component lifts itself and exports, directly or in
// an instance of exports, so that an instance keeps them in one slice (Instance.exports) and a
// prepared export finds its own by index. It runs once, when p is made.
func (p *InstancePre) planSlots() error {
	c := p.cc.comp
	p.slots = map[uint32]int{}
	add := func(fi uint32) error {
		fi = liftOf(c, fi)
		if _, seen := p.slots[fi]; seen || int(fi) >= len(c.Funcs) {
			return nil
		}
		d, ok := c.Funcs[fi].Def.(*binary.Canon)
		if !ok || d.Kind != binary.CanonLift {
			return nil
		}
		ft, shared, err := p.funcType(d.Func)
		if err != nil {
			return err
		}
		if !shared {
			ft = nil
		}
		p.slots[fi] = len(p.slotFunc)
		p.slotFunc = append(p.slotFunc, fi)
		p.slotFT = append(p.slotFT, ft)
		return nil
	}
	for _, e := range c.Exports {
		switch e.Sort {
		case binary.SortFunc:
			if err := add(e.Index); err != nil {
				return err
			}
		case binary.SortInstance:
			d := instanceOfExports(c, e.Index)
			if d == nil {
				continue
			}
			for _, ie := range d.Exports {
				if ie.Sort == binary.SortFunc {
					if err := add(ie.Index); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// liftOf follows exports of function fi to the function they name.
func liftOf(c *binary.Component, fi uint32) uint32 {
	for range maxResolveDepth {
		if int(fi) >= len(c.Funcs) {
			break
		}
		d, ok := c.Funcs[fi].Def.(*binary.Export)
		if !ok {
			break
		}
		fi = d.Index
	}
	return fi
}

// instanceOfExports follows exports of component instance i to an instance of exports, or nil.
func instanceOfExports(c *binary.Component, i uint32) *binary.Instance {
	for range maxResolveDepth {
		if int(i) >= len(c.Instances) {
			return nil
		}
		switch d := c.Instances[i].Def.(type) {
		case *binary.Export:
			i = d.Index
			continue
		case *binary.Instance:
			if d.FromExports {
				return d
			}
		}
		return nil
	}
	return nil
}

// instanceExportFunc returns the function index that instance i exports as name, when i is an
// instance of exports of the root component.
func instanceExportFunc(c *binary.Component, i uint32, name string) (uint32, bool) {
	d := instanceOfExports(c, i)
	if d == nil {
		return 0, false
	}
	for _, e := range d.Exports {
		if e.Name.Raw == name && e.Sort == binary.SortFunc {
			return e.Index, true
		}
	}
	return 0, false
}
