package abi

import (
	"fmt"
	"slices"
	"strings"
)

// Param is a named function parameter.
type Param struct {
	Name string
	Type Type
}

// Context selects which side of the canonical ABI a core signature is for.
type Context uint8

const (
	// CanonLift is a core function lifted into a component function: an export the host calls.
	// Spilled results are returned as a pointer.
	CanonLift Context = iota
	// CanonLower is a component function lowered into a core function: an import the guest
	// calls. Spilled results are written through a pointer passed as the last parameter.
	CanonLower
)

// CoreSignature is a flattened core function type.
type CoreSignature struct {
	Params  []CoreType
	Results []CoreType
}

// String renders (func (param …) (result …)).
func (s CoreSignature) String() string {
	var b strings.Builder
	b.WriteString("(func")
	if len(s.Params) > 0 {
		b.WriteString(" (param")
		for _, p := range s.Params {
			b.WriteString(" " + p.String())
		}
		b.WriteString(")")
	}
	if len(s.Results) > 0 {
		b.WriteString(" (result")
		for _, r := range s.Results {
			b.WriteString(" " + r.String())
		}
		b.WriteString(")")
	}
	b.WriteString(")")
	return b.String()
}

// FuncType is a synchronous component function type with its flattened core signatures computed
// once (flatten_functype).
type FuncType struct {
	params      []Param
	results     []Type
	flatParams  []CoreType
	flatResults []CoreType
	// flatParams and flatResults are the flattenings when they fit (at most MaxFlatParams /
	// MaxFlatResults values); otherwise paramTuple and resultTuple describe the memory layout the
	// values are spilled to, and the flattenings are not kept.
	paramTuple  *TupleType
	resultTuple *TupleType
	lift, lower CoreSignature
}

// FuncOf returns the function type (params) -> results. Component functions of the current
// specification have at most one result; more are accepted and passed like a tuple. Parameter
// names must be distinct (empty names are allowed and shown by position); results may not contain
// borrow handles.
func FuncOf(params []Param, results ...Type) (*FuncType, error) {
	ft := &FuncType{params: slices.Clone(params), results: slices.Clone(results)}
	seen := map[string]bool{}
	var ptypes []Type
	nParams, nResults := 0, 0
	for i, p := range params {
		if isNil(p.Type) {
			return nil, typeErr("func", "param %d has nil type", i)
		}
		if p.Name != "" {
			if seen[p.Name] {
				return nil, typeErr("func", "duplicate param %q", p.Name)
			}
			seen[p.Name] = true
		}
		ptypes = append(ptypes, p.Type)
		nParams += p.Type.FlatLen()
	}
	for i, r := range results {
		if isNil(r) {
			return nil, typeErr("func", "result %d has nil type", i)
		}
		if r.base().hasBorrow {
			return nil, typeErr("func", "result %d contains a borrow handle", i)
		}
		nResults += r.FlatLen()
	}
	var err error
	if nParams > MaxFlatParams {
		if ft.paramTuple, err = TupleOf(ptypes...); err != nil {
			return nil, fmt.Errorf("func params: %w", err)
		}
	} else {
		for _, t := range ptypes {
			ft.flatParams = append(ft.flatParams, t.base().layout.flat...)
		}
	}
	if nResults > MaxFlatResults {
		if ft.resultTuple, err = TupleOf(results...); err != nil {
			return nil, fmt.Errorf("func results: %w", err)
		}
	} else {
		for _, t := range results {
			ft.flatResults = append(ft.flatResults, t.base().layout.flat...)
		}
	}
	ptr := []CoreType{CoreI32}
	ft.lift = CoreSignature{Params: ft.flatParams, Results: ft.flatResults}
	ft.lower = ft.lift
	if ft.paramTuple != nil {
		ft.lift.Params, ft.lower.Params = ptr, ptr
	}
	if ft.resultTuple != nil {
		ft.lift.Results = ptr
		ft.lower.Params = append(slices.Clone(ft.lower.Params), CoreI32)
		ft.lower.Results = nil
	}
	return ft, nil
}

// Params returns a copy of the parameters.
func (ft *FuncType) Params() []Param { return slices.Clone(ft.params) }

// Results returns a copy of the result types.
func (ft *FuncType) Results() []Type { return slices.Clone(ft.results) }

// String renders func(name: type, …) -> result.
func (ft *FuncType) String() string {
	ps := make([]string, len(ft.params))
	for i, p := range ft.params {
		ps[i] = p.Name + ": " + p.Type.String()
	}
	s := "func(" + strings.Join(ps, ", ") + ")"
	switch len(ft.results) {
	case 0:
		return s
	case 1:
		return s + " -> " + ft.results[0].String()
	}
	rs := make([]string, len(ft.results))
	for i, r := range ft.results {
		rs[i] = r.String()
	}
	return s + " -> (" + strings.Join(rs, ", ") + ")"
}

// CoreSignature returns the core function type of ft on the given side (flatten_functype, sync).
func (ft *FuncType) CoreSignature(c Context) CoreSignature {
	s := ft.lift
	if c == CanonLower {
		s = ft.lower
	}
	return CoreSignature{Params: slices.Clone(s.Params), Results: slices.Clone(s.Results)}
}

// ParamsSpilled reports whether the parameters are passed through memory.
func (ft *FuncType) ParamsSpilled() bool { return ft.paramTuple != nil }

// ResultsSpilled reports whether the results are passed through memory.
func (ft *FuncType) ResultsSpilled() bool { return ft.resultTuple != nil }

func (ft *FuncType) paramStep(i int) string { return paramStep(i, ft.params[i].Name) }

// LowerParams lowers the arguments of a call to an export (the host calling canon lift), as
// lower_flat_values with MaxFlatParams: flat, or stored in memory allocated with realloc and
// passed as one pointer.
func (ft *FuncType) LowerParams(cx *CallContext, args []Value) ([]uint64, error) {
	out, err := ft.lowerParams(cx, args, nil)
	return out, finishErr("lower", err)
}

// lowerParams appends the flat arguments to dst[:0] (a new slice when dst is too short).
func (ft *FuncType) lowerParams(cx *CallContext, args []Value, dst []uint64) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if len(args) != len(ft.params) {
		return nil, errorf(ErrTypeMismatch, "expected %d arguments, found %d", len(ft.params), len(args))
	}
	s := &storer{cx: cx}
	if ft.paramTuple == nil {
		out := dst[:0]
		if cap(out) < len(ft.flatParams) {
			out = make([]uint64, 0, len(ft.flatParams))
		}
		for i, p := range ft.params {
			var err error
			if out, err = s.lowerFlat(p.Type, args[i], out); err != nil {
				return nil, at(err, ft.paramStep(i))
			}
		}
		return out, nil
	}
	tt := ft.paramTuple
	ptr, err := cx.alloc(tt.layout.align, tt.layout.size)
	if err != nil {
		return nil, at(err, "params")
	}
	err = s.storeTo(ptr, uint64(tt.layout.size), tt.hasPtr, func(b []byte) error {
		for i, p := range ft.params {
			if err := s.store(p.Type, args[i], sub(b, tt.offsets[i]), ptr+tt.offsets[i]); err != nil {
				return at(err, ft.paramStep(i))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(dst[:0], uint64(ptr)), nil
}

// LiftResults lifts the results of an export call (the host side of canon lift), as
// lift_flat_values with MaxFlatResults: flat, or loaded through the returned pointer.
func (ft *FuncType) LiftResults(cx *CallContext, flat []uint64) ([]Value, error) {
	out, err := ft.liftResults(cx, flat)
	return out, finishErr("lift", err)
}

func (ft *FuncType) liftResults(cx *CallContext, flat []uint64) ([]Value, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if len(flat) != len(ft.lift.Results) {
		return nil, errorf(ErrCoreValues, "expected %d core results, got %d", len(ft.lift.Results), len(flat))
	}
	return liftValues(cx, ft.results, ft.resultTuple, flat, resultSteps(len(ft.results)))
}

// stepNamer names the i-th value of a list for error paths. Its implementations are a small
// integer and a pointer, so passing one allocates nothing, unlike a closure.
type stepNamer interface{ step(i int) string }

// resultSteps names results, counting n of them.
type resultSteps int

func (n resultSteps) step(i int) string { return resultStep(i, int(n)) }

// paramSteps names the parameters of a function type.
type paramSteps FuncType

func (p *paramSteps) step(i int) string { return (*FuncType)(p).paramStep(i) }

// liftValues is lift_flat_values over types, either flat or, when spilled, through the pointer
// flat[0].
func liftValues(cx *CallContext, types []Type, spill *TupleType, flat []uint64, steps stepNamer) ([]Value, error) {
	l := newLifter(cx)
	out := make([]Value, len(types))
	if spill == nil {
		r := &flatReader{vals: flat}
		for i, t := range types {
			v, err := l.liftFlat(t, r)
			if err != nil {
				return nil, at(err, steps.step(i))
			}
			out[i] = v
		}
		return out, nil
	}
	mem, err := cx.memory()
	if err != nil {
		return nil, err
	}
	ptr := uint32(flat[0])
	if err := checkAlign(ptr, spill.layout.align, "spilled values"); err != nil {
		return nil, err
	}
	b, err := view(mem, ptr, uint64(spill.layout.size))
	if err != nil {
		return nil, fmt.Errorf("spilled values: %w", err)
	}
	for i, t := range types {
		v, err := l.load(t, b[spill.offsets[i]:])
		if err != nil {
			return nil, at(err, steps.step(i))
		}
		out[i] = v
	}
	return out, nil
}

// LiftParams lifts the arguments of a call to an import (the host side of canon lower), from the
// core arguments the guest passed: flat, or loaded through the pointer flat[0]. When results are
// spilled the last core argument is the return pointer; LiftParams ignores it.
func (ft *FuncType) LiftParams(cx *CallContext, flat []uint64) ([]Value, error) {
	out, err := ft.liftParams(cx, flat)
	return out, finishErr("lift", err)
}

func (ft *FuncType) liftParams(cx *CallContext, flat []uint64) ([]Value, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if len(flat) != len(ft.lower.Params) {
		return nil, errorf(ErrCoreValues, "expected %d core arguments, got %d", len(ft.lower.Params), len(flat))
	}
	types := make([]Type, len(ft.params))
	for i, p := range ft.params {
		types[i] = p.Type
	}
	return liftValues(cx, types, ft.paramTuple, flat, (*paramSteps)(ft))
}

// LowerResults lowers the results of an import call (the host side of canon lower), as
// lower_flat_values with MaxFlatResults: flat, or stored through the return pointer that is the
// last of the guest's core arguments flatArgs (then it returns no core values).
func (ft *FuncType) LowerResults(cx *CallContext, results []Value, flatArgs []uint64) ([]uint64, error) {
	out, err := ft.lowerResults(cx, results, flatArgs)
	return out, finishErr("lower", err)
}

func (ft *FuncType) lowerResults(cx *CallContext, results []Value, flatArgs []uint64) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if len(results) != len(ft.results) {
		return nil, errorf(ErrTypeMismatch, "expected %d results, found %d", len(ft.results), len(results))
	}
	s := &storer{cx: cx}
	steps := resultSteps(len(ft.results))
	if ft.resultTuple == nil {
		out := make([]uint64, 0, len(ft.flatResults))
		for i, t := range ft.results {
			var err error
			if out, err = s.lowerFlat(t, results[i], out); err != nil {
				return nil, at(err, steps.step(i))
			}
		}
		return out, nil
	}
	tt := ft.resultTuple
	ptr, err := ft.returnPointer(flatArgs)
	if err != nil {
		return nil, err
	}
	err = s.storeTo(ptr, uint64(tt.layout.size), tt.hasPtr, func(b []byte) error {
		for i, t := range ft.results {
			if err := s.store(t, results[i], sub(b, tt.offsets[i]), ptr+tt.offsets[i]); err != nil {
				return at(err, steps.step(i))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []uint64{}, nil
}

// CallExport calls a lifted export from the host, following canon_lift for a synchronous
// function: lower args, call the core function, lift its results, check that the callee dropped
// every borrow it was given, then run post-return. core receives and returns the core values of
// CoreSignature(CanonLift).
func (ft *FuncType) CallExport(cx *CallContext, args []Value, core func(flat []uint64) ([]uint64, error)) ([]Value, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, finishErr("call", err)
	}
	if cx.Scope == nil {
		cx.Scope = &BorrowScope{}
		defer func() { cx.Scope = nil }()
	}
	// The buffer is taken while the call runs, so a nested call with the same context cannot
	// overwrite arguments core may still read.
	flat, err := ft.lowerParams(cx, args, cx.flat)
	cx.flat = nil
	if err != nil {
		_ = cx.Scope.End()
		return nil, finishErr("lower", err)
	}
	defer func() { cx.flat = flat }()
	res, err := core(flat)
	if err != nil {
		_ = cx.Scope.End()
		return nil, err
	}
	vals, err := ft.LiftResults(cx, res)
	if err != nil {
		_ = cx.Scope.End()
		return nil, err
	}
	if err := cx.Scope.End(); err != nil {
		return nil, finishErr("call", err)
	}
	if cx.PostReturn != nil {
		if err := cx.PostReturn(res); err != nil {
			return nil, finishErr("call", fmt.Errorf("%w: %w", ErrPostReturn, err))
		}
	}
	return vals, nil
}

// ServeImport runs a host implementation of an import for a guest call, following canon_lower
// for a synchronous function: lift the guest's core arguments, call host, lower its results, then
// end the borrows lent for the call. It returns the core results for CoreSignature(CanonLower).
func (ft *FuncType) ServeImport(cx *CallContext, flat []uint64, host func(args []Value) ([]Value, error)) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, finishErr("call", err)
	}
	if cx.Scope == nil {
		cx.Scope = &BorrowScope{}
		defer func() { cx.Scope = nil }()
	}
	scope := cx.Scope
	args, err := ft.LiftParams(cx, flat)
	if err != nil {
		_ = scope.End()
		return nil, err
	}
	results, err := host(args)
	if err != nil {
		_ = scope.End()
		return nil, err
	}
	out, err := ft.LowerResults(cx, results, flat)
	if endErr := scope.End(); err == nil && endErr != nil {
		return nil, finishErr("call", endErr)
	}
	return out, err
}

// returnPointer checks the flat arguments of a lowered import whose results do not fit in
// MaxFlatResults values and returns the last one: where the caller wants the results stored.
func (ft *FuncType) returnPointer(flatArgs []uint64) (uint32, error) {
	if len(flatArgs) != len(ft.lower.Params) {
		return 0, errorf(ErrCoreValues, "expected %d core arguments, got %d", len(ft.lower.Params), len(flatArgs))
	}
	ptr := uint32(flatArgs[len(flatArgs)-1])
	return ptr, checkAlign(ptr, ft.resultTuple.layout.align, "return")
}
