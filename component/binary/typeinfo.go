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
	// maxElemSize is the spec's bound on elem_size(t, 'i64').
	maxElemSize = 1 << 28
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

	maxFlatParams  = 16
	maxFlatResults = 1
)

// discriminantSize is the byte size of a variant discriminant for n cases.
func discriminantSize(n int) uint64 {
	switch {
	case n <= 1<<8:
		return 1
	case n <= 1<<16:
		return 2
	}
	return 4
}

func alignTo(n, a uint64) uint64 { return (n + a - 1) / a * a }

// infoBuilder accumulates the info of a compound type from its children.
type infoBuilder struct {
	vi valInfo
}

func (b *infoBuilder) child(c ValType) {
	ci := c.info()
	if ci.depth+1 > b.vi.depth {
		b.vi.depth = ci.depth + 1
	}
	b.vi.nodes += ci.nodes
	b.vi.hasPtr = b.vi.hasPtr || ci.hasPtr
	b.vi.hasBorrow = b.vi.hasBorrow || ci.hasBorrow
	b.vi.hasHandle = b.vi.hasHandle || ci.hasHandle
}

// appendFlat appends a child's flattening for records and tuples.
func (b *infoBuilder) appendFlat(c ValType) {
	ci := c.info()
	if b.vi.flatOver || ci.flatOver || len(b.vi.flat)+len(ci.flat) > maxFlatParams {
		b.vi.flatOver, b.vi.flat = true, nil
		return
	}
	b.vi.flat = append(b.vi.flat, ci.flat...)
}

func (b *infoBuilder) finish() (valInfo, error) {
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
	if b.vi.size64 >= maxElemSize {
		return valInfo{}, errf(ErrInvalid, "value type's element size %d is not below 2^28 bytes", b.vi.size64)
	}
	return b.vi, nil
}

// recordLayout computes elem_size and alignment of fields laid out in sequence.
func recordLayout(ts []ValType) (size, align uint64) {
	align = 1
	for _, t := range ts {
		ci := t.info()
		size = alignTo(size, ci.align64)
		size += ci.size64
		if ci.align64 > align {
			align = ci.align64
		}
	}
	return alignTo(size, align), align
}

// variantLayout computes the layout and flattening of a variant with the given payloads (nil
// for none).
func (b *infoBuilder) variant(payloads []ValType) {
	disc := discriminantSize(len(payloads))
	maxAlign, maxSize := uint64(1), uint64(0)
	var joined []CoreValType
	over := false
	for _, p := range payloads {
		if p == nil {
			continue
		}
		b.child(p)
		ci := p.info()
		if ci.align64 > maxAlign {
			maxAlign = ci.align64
		}
		if ci.size64 > maxSize {
			maxSize = ci.size64
		}
		if ci.flatOver {
			over = true
			continue
		}
		for i, ft := range ci.flat {
			if i < len(joined) {
				joined[i] = joinCoreTypes(joined[i], ft)
			} else {
				joined = append(joined, ft)
			}
		}
	}
	align := max(disc, maxAlign)
	size := alignTo(disc, maxAlign) + maxSize
	b.vi.size64, b.vi.align64 = alignTo(size, align), align
	if over || 1+len(joined) > maxFlatParams {
		b.vi.flatOver = true
		return
	}
	b.vi.flat = append([]CoreValType{CoreI32}, joined...)
}

// joinCoreTypes is the canonical ABI's join of two flattened types.
func joinCoreTypes(a, b CoreValType) CoreValType {
	if a == b {
		return a
	}
	if (a == CoreI32 && b == CoreF32) || (a == CoreF32 && b == CoreI32) {
		return CoreI32
	}
	return CoreI64
}

func newRecord(fields []Field) (*RecordType, error) {
	var b infoBuilder
	ts := make([]ValType, len(fields))
	for i, f := range fields {
		b.child(f.Type)
		b.appendFlat(f.Type)
		ts[i] = f.Type
	}
	b.vi.size64, b.vi.align64 = recordLayout(ts)
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &RecordType{Fields: fields, vi: vi}, nil
}

func newTuple(elems []ValType) (*TupleType, error) {
	var b infoBuilder
	for _, e := range elems {
		b.child(e)
		b.appendFlat(e)
	}
	b.vi.size64, b.vi.align64 = recordLayout(elems)
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &TupleType{Elems: elems, vi: vi}, nil
}

func newVariant(cases []Case) (*VariantType, error) {
	var b infoBuilder
	ps := make([]ValType, len(cases))
	for i, c := range cases {
		ps[i] = c.Type
	}
	b.variant(ps)
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &VariantType{Cases: cases, vi: vi}, nil
}

func newEnum(names []string) (*EnumType, error) {
	var b infoBuilder
	b.variant(make([]ValType, len(names)))
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &EnumType{Names: names, vi: vi}, nil
}

func newOption(elem ValType) (*OptionType, error) {
	var b infoBuilder
	b.variant([]ValType{nil, elem})
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &OptionType{Elem: elem, vi: vi}, nil
}

func newResult(ok, errT ValType) (*ResultType, error) {
	var b infoBuilder
	b.variant([]ValType{ok, errT})
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &ResultType{OK: ok, Err: errT, vi: vi}, nil
}

func newList(elem ValType) (*ListType, error) {
	var b infoBuilder
	b.child(elem)
	b.vi.hasPtr = true
	b.vi.flat = []CoreValType{CoreI32, CoreI32}
	b.vi.size64, b.vi.align64 = 16, 8
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &ListType{Elem: elem, vi: vi}, nil
}

func newFlags(names []string) (*FlagsType, error) {
	var b infoBuilder
	b.vi.flat = []CoreValType{CoreI32}
	switch n := len(names); {
	case n <= 8:
		b.vi.size64 = 1
	case n <= 16:
		b.vi.size64 = 2
	default:
		b.vi.size64 = 4
	}
	b.vi.align64 = b.vi.size64
	vi, err := b.finish()
	if err != nil {
		return nil, err
	}
	return &FlagsType{Names: names, vi: vi}, nil
}

func handleInfo(borrow bool) valInfo {
	return valInfo{depth: 1, nodes: 2, flat: []CoreValType{CoreI32}, hasBorrow: borrow, hasHandle: true, size64: 4, align64: 4}
}

func newOwn(r *ResourceType) *OwnType       { return &OwnType{Resource: r, vi: handleInfo(false)} }
func newBorrow(r *ResourceType) *BorrowType { return &BorrowType{Resource: r, vi: handleInfo(true)} }

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

// flatten returns the canonical ABI's flattening of a list of value types (with 32-bit
// pointers), or over=true when it has more than max values.
func flattenTypes(ts []ValType, max int) (flat []CoreValType, over bool) {
	for _, t := range ts {
		vi := t.info()
		if vi.flatOver || len(flat)+len(vi.flat) > max {
			return nil, true
		}
		flat = append(flat, vi.flat...)
	}
	return flat, false
}

func (t *FuncType) paramTypes() []ValType {
	ts := make([]ValType, len(t.Params))
	for i, p := range t.Params {
		ts[i] = p.Type
	}
	return ts
}

func (t *FuncType) resultTypes() []ValType {
	if t.Result == nil {
		return nil
	}
	return []ValType{t.Result}
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

func (t *FuncType) flatOver() (params, results bool) {
	_, p := flattenTypes(t.paramTypes(), maxFlatParams)
	_, r := flattenTypes(t.resultTypes(), maxFlatResults)
	return p, r
}
