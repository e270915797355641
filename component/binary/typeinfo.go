package binary

import (
	"fmt"

	"github.com/kobako/kobako/abi"
)

// Implementation limits. The specification bounds only the element size; the others keep every
// walk over a decoded type short and every allocation proportional to the input.
const (
	// MaxNesting bounds nested components and nested component, instance and module types.
	MaxNesting = 100
	// MaxTypeSize bounds the number of type nodes reachable from any one type, counted as a tree
	// (so a type built by doubling cannot grow exponentially).
	MaxTypeSize = 1_000_000
	// maxWork bounds the steps spent comparing and substituting types in one Decode.
	maxWork = 50_000_000
	// baseTypeNodes and typeNodesPerByte bound the type nodes (and declaration copies) that
	// substitution may allocate in one Decode, in proportion to the input. Real components use a
	// few hundred at most.
	baseTypeNodes    = 1 << 16
	typeNodesPerByte = 0.25

	// MaxItems bounds the core modules, core instances, components and component instances
	// each component may have, like the reference validator (wasmparser) does; instantiation
	// checks cost time in proportion to them.
	MaxItems = 1000
)

// infoBuilder accumulates the info of a compound type from its children. The layout comes from
// package abi, which lifts and lowers by it; the bounds are the decoder's.
type infoBuilder struct {
	vi valInfo
	// buf holds the children's layouts of a small type, so that building it allocates nothing.
	buf [8]abi.Layout
}

// child adds c's contents to the type and returns c's layout.
func (b *infoBuilder) child(c ValType) abi.Layout {
	ci := c.info()
	if ci.depth+1 > b.vi.depth {
		b.vi.depth = ci.depth + 1
	}
	b.vi.nodes += ci.nodes
	b.vi.hasPtr = b.vi.hasPtr || ci.hasPtr
	b.vi.hasBorrow = b.vi.hasBorrow || ci.hasBorrow
	b.vi.hasHandle = b.vi.hasHandle || ci.hasHandle
	return ci.layout
}

// children adds ts' contents to the type and returns the layouts of those that are not nil.
func (b *infoBuilder) children(ts []ValType) []abi.Layout {
	ls := b.buf[:0]
	for _, t := range ts {
		if t != nil {
			ls = append(ls, b.child(t))
		}
	}
	return ls
}

// finish sets the type's layout and checks the bounds.
func (b *infoBuilder) finish(l abi.Layout) (valInfo, error) {
	b.vi.layout = l
	if b.vi.depth == 0 {
		b.vi.depth = 1
	}
	b.vi.nodes++
	// abi's bound, counted the same way, so every type the decoder accepts converts to an abi.Type.
	if b.vi.depth > abi.MaxTypeDepth {
		return valInfo{}, errf(ErrLimit, "value type nests %d levels deep, over the limit of %d", b.vi.depth, abi.MaxTypeDepth)
	}
	if b.vi.nodes > MaxTypeSize {
		return valInfo{}, errf(ErrLimit, "value type has %d nodes, over the limit of %d", b.vi.nodes, MaxTypeSize)
	}
	if l.Size64() > abi.MaxValueSize {
		return valInfo{}, errf(ErrInvalid, "value type's element size %d is not below 2^28 bytes", l.Size64())
	}
	return b.vi, nil
}

func newRecord(fields []Field) (*RecordType, error) {
	var b infoBuilder
	ls := b.buf[:0]
	for _, f := range fields {
		ls = append(ls, b.child(f.Type))
	}
	vi, err := b.finish(abi.RecordLayout(ls...))
	if err != nil {
		return nil, err
	}
	return &RecordType{Fields: fields, vi: vi}, nil
}

func newTuple(elems []ValType) (*TupleType, error) {
	var b infoBuilder
	vi, err := b.finish(abi.RecordLayout(b.children(elems)...))
	if err != nil {
		return nil, err
	}
	return &TupleType{Elems: elems, vi: vi}, nil
}

func newVariant(cases []Case) (*VariantType, error) {
	var b infoBuilder
	ls := b.buf[:0]
	for _, c := range cases {
		if c.Type != nil {
			ls = append(ls, b.child(c.Type))
		}
	}
	vi, err := b.finish(abi.VariantLayout(len(cases), ls...))
	if err != nil {
		return nil, err
	}
	return &VariantType{Cases: cases, vi: vi}, nil
}

func newEnum(names []string) (*EnumType, error) {
	var b infoBuilder
	vi, err := b.finish(abi.VariantLayout(len(names)))
	if err != nil {
		return nil, err
	}
	return &EnumType{Names: names, vi: vi}, nil
}

func newOption(elem ValType) (*OptionType, error) {
	var b infoBuilder
	vi, err := b.finish(abi.VariantLayout(2, b.child(elem)))
	if err != nil {
		return nil, err
	}
	return &OptionType{Elem: elem, vi: vi}, nil
}

func newResult(ok, errT ValType) (*ResultType, error) {
	var b infoBuilder
	vi, err := b.finish(abi.VariantLayout(2, b.children([]ValType{ok, errT})...))
	if err != nil {
		return nil, err
	}
	return &ResultType{OK: ok, Err: errT, vi: vi}, nil
}

func newList(elem ValType) (*ListType, error) {
	var b infoBuilder
	b.child(elem)
	b.vi.hasPtr = true
	vi, err := b.finish(abi.KindList.Layout())
	if err != nil {
		return nil, err
	}
	return &ListType{Elem: elem, vi: vi}, nil
}

func newFlags(names []string) (*FlagsType, error) {
	var b infoBuilder
	vi, err := b.finish(abi.FlagsLayout(len(names)))
	if err != nil {
		return nil, err
	}
	return &FlagsType{Names: names, vi: vi}, nil
}

func handleInfo(k abi.Kind) valInfo {
	return valInfo{depth: 1, nodes: 2, layout: k.Layout(), hasBorrow: k == abi.KindBorrow, hasHandle: true}
}

func newOwn(r *ResourceType) *OwnType { return &OwnType{Resource: r, vi: handleInfo(abi.KindOwn)} }

func newBorrow(r *ResourceType) *BorrowType {
	return &BorrowType{Resource: r, vi: handleInfo(abi.KindBorrow)}
}

func newFunc(params []Param, result ValType) (*FuncType, error) {
	n := 1
	for _, p := range params {
		n += p.Type.size()
	}
	if result != nil {
		n += result.size()
	}
	if n > MaxTypeSize {
		return nil, errf(ErrLimit, "function type has %d type nodes, over the limit of %d", n, MaxTypeSize)
	}
	return &FuncType{Params: params, Result: result, nodes: n}, nil
}

// sizeOfDecls sums the type sizes of declarations and checks the limit.
func sizeOfDecls(what string, lists ...[]ExternDecl) (int, error) {
	n := 1
	for _, l := range lists {
		for _, d := range l {
			n += d.Type.size()
			if n > MaxTypeSize {
				return 0, errf(ErrLimit, "%s type has more than %d type nodes", what, MaxTypeSize)
			}
		}
	}
	return n, nil
}

// paramsHavePtr and resultHasPtr report whether strings or lists cross the call.
func (t *FuncType) paramsHavePtr() bool {
	for _, p := range t.Params {
		if p.Type.info().hasPtr {
			return true
		}
	}
	return false
}

func (t *FuncType) resultHasPtr() bool { return t.Result != nil && t.Result.info().hasPtr }

// coreSignature is flatten_functype for the synchronous ABI with a 32-bit memory, computed by
// package abi, which lifts and lowers by the same flattening (one layout engine, so validation
// and execution cannot disagree): lift selects canon lift's shape (results returned through a
// pointer) over canon lower's (a result pointer parameter).
func (t *FuncType) coreSignature(lift bool) (*CoreFuncType, error) {
	var types ABITypes
	ft, err := types.Func(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	c := abi.CanonLower
	if lift {
		c = abi.CanonLift
	}
	sig := ft.CoreSignature(c)
	// abi's flat types are core value types (CoreValType is abi.CoreType): no conversion.
	return &CoreFuncType{Params: nonNil(sig.Params), Results: nonNil(sig.Results)}, nil
}

// nonNil returns ts, or an empty slice for nil: a signature's lists are never nil.
func nonNil(ts []CoreValType) []CoreValType {
	if ts == nil {
		return []CoreValType{}
	}
	return ts
}

// flatOver reports whether the parameters flatten to more than abi.MaxFlatParams core values and
// the result to more than abi.MaxFlatResults, so that they pass through memory (flatten_functype).
func (t *FuncType) flatOver() (params, results bool) {
	n := 0
	for _, p := range t.Params {
		// Stop once over: a valid type flattens to at most 2^28 values, so n cannot overflow.
		if n += p.Type.info().layout.FlatLen(); n > abi.MaxFlatParams {
			params = true
			break
		}
	}
	return params, t.Result != nil && t.Result.info().layout.FlatLen() > abi.MaxFlatResults
}
