package abi

import (
	"fmt"
	"slices"
	"strings"
)

// Kind says which WIT type a Type or a Value is.
type Kind uint8

// The kinds of WIT value types. KindInvalid is the kind of the zero Value.
const (
	KindInvalid Kind = iota
	KindBool
	KindS8
	KindU8
	KindS16
	KindU16
	KindS32
	KindU32
	KindS64
	KindU64
	KindF32
	KindF64
	KindChar
	KindString
	KindList
	KindRecord
	KindTuple
	KindVariant
	KindEnum
	KindOption
	KindResult
	KindFlags
	KindOwn
	KindBorrow
)

var kindNames = [...]string{
	KindInvalid: "invalid", KindBool: "bool",
	KindS8: "s8", KindU8: "u8", KindS16: "s16", KindU16: "u16",
	KindS32: "s32", KindU32: "u32", KindS64: "s64", KindU64: "u64",
	KindF32: "f32", KindF64: "f64", KindChar: "char", KindString: "string",
	KindList: "list", KindRecord: "record", KindTuple: "tuple", KindVariant: "variant",
	KindEnum: "enum", KindOption: "option", KindResult: "result", KindFlags: "flags",
	KindOwn: "own", KindBorrow: "borrow",
}

// String returns the WIT name of the kind ("u32", "record", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// CoreType is a core WebAssembly value type, as its byte in the binary format. The canonical ABI
// flattens component values to the first four (Type.Flat, CoreSignature); the others type core
// functions, globals and tables. It is the module's one definition of core value types, here at
// the bottom of the layering (standard library only) so that every layer shares it:
// engine.ValueType, component/binary's CoreValType and the core module decoder's type are this
// type.
type CoreType uint8

// The core value types of WebAssembly 2.0, with their binary encodings.
const (
	CoreI32       CoreType = 0x7f
	CoreI64       CoreType = 0x7e
	CoreF32       CoreType = 0x7d
	CoreF64       CoreType = 0x7c
	CoreV128      CoreType = 0x7b
	CoreFuncRef   CoreType = 0x70
	CoreExternRef CoreType = 0x6f
)

// String returns the type's text format name, such as "i32".
func (c CoreType) String() string {
	switch c {
	case CoreI32:
		return "i32"
	case CoreI64:
		return "i64"
	case CoreF32:
		return "f32"
	case CoreF64:
		return "f64"
	case CoreV128:
		return "v128"
	case CoreFuncRef:
		return "funcref"
	case CoreExternRef:
		return "externref"
	}
	return fmt.Sprintf("valtype(0x%02x)", uint8(c))
}

// CoreExternKind is the kind of a core module's import or export, as its byte in the binary
// format (a component's core sorts func, table, memory, global and tag share these bytes). Like
// CoreType, it is the module's one definition: engine.ExternKind and component/binary's
// CoreExternKind are this type.
type CoreExternKind uint8

// The core extern kinds, with their binary encodings.
const (
	CoreExternFunc   CoreExternKind = 0x00
	CoreExternTable  CoreExternKind = 0x01
	CoreExternMemory CoreExternKind = 0x02
	CoreExternGlobal CoreExternKind = 0x03
	CoreExternTag    CoreExternKind = 0x04 // exception handling
)

// String returns the kind's text format keyword: "func", "table", "memory", "global" or "tag".
func (k CoreExternKind) String() string {
	switch k {
	case CoreExternFunc:
		return "func"
	case CoreExternTable:
		return "table"
	case CoreExternMemory:
		return "memory"
	case CoreExternGlobal:
		return "global"
	case CoreExternTag:
		return "tag"
	}
	return fmt.Sprintf("extern(0x%02x)", uint8(k))
}

// Limits from the canonical ABI specification, plus kobako's nesting limit.
const (
	// MaxFlatParams is MAX_FLAT_PARAMS: more flattened parameters than this are passed through memory.
	MaxFlatParams = 16
	// MaxFlatResults is MAX_FLAT_RESULTS: more flattened results than this are passed through memory.
	MaxFlatResults = 1
	// MaxStringByteLength is MAX_STRING_BYTE_LENGTH, the longest string in bytes that may be lifted
	// (or lowered) in any encoding. It keeps every transcoded size below 2^32.
	MaxStringByteLength = 1<<28 - 1
	// MaxListByteLength is MAX_LIST_BYTE_LENGTH, the largest list in bytes (length × element size).
	MaxListByteLength = 1<<28 - 1
	// MaxValueSize bounds the size of any value type under the 64-bit ABI: the specification
	// rejects types of 2^28 bytes or more.
	MaxValueSize = 1<<28 - 1
	// MaxFlags is the most labels a flags type may have.
	MaxFlags = 32
	// MaxTypeDepth bounds how deeply types nest. The specification has no such bound; it is
	// kobako's implementation limit, keeping recursion over guest-supplied types shallow.
	MaxTypeDepth = 128
	// UTF16Tag is the bit of a latin1+utf16 string length that marks UTF-16 code units.
	UTF16Tag = 1 << 31
)

// Type is a component model value type. Its canonical ABI layout (size, alignment, flattened
// core types) is computed once when it is constructed; lifting and lowering trust it.
//
// The set of implementations is closed: *PrimitiveType, *ListType, *RecordType, *TupleType,
// *VariantType, *EnumType, *OptionType, *ResultType, *FlagsType and *HandleType. Build them with
// the package-level primitives (Bool, U32, String, …) and constructors (ListOf, RecordOf, …).
// Types are immutable and safe for concurrent use.
type Type interface {
	// Kind says which WIT type this is.
	Kind() Kind
	// Size is the type's elem_size in bytes (CanonicalABI.md#element-size).
	Size() uint32
	// Align is the type's alignment in bytes (CanonicalABI.md#alignment).
	Align() uint32
	// Flat returns a copy of the flattened core types (CanonicalABI.md#flattening).
	Flat() []CoreType
	// FlatLen is len(Flat()) without the copy.
	FlatLen() int
	// String renders the type in WIT syntax.
	String() string

	base() *typeBase
}

// typeBase holds what every type has; concrete types embed it.
type typeBase struct {
	kind   Kind
	layout Layout
	depth  int
	// hasPtr: the type contains a string or list, so lowering it can call realloc (and move memory).
	hasPtr bool
	// hasBorrow: the type contains a borrow handle.
	hasBorrow bool
}

// Kind says which WIT type this is.
func (b *typeBase) Kind() Kind { return b.kind }

// Size is the type's elem_size in bytes.
func (b *typeBase) Size() uint32 { return b.layout.size }

// Align is the type's alignment in bytes.
func (b *typeBase) Align() uint32 { return b.layout.align }

// Flat returns a copy of the flattened core types.
func (b *typeBase) Flat() []CoreType { return b.layout.Flat() }

// FlatLen is the number of flattened core types.
func (b *typeBase) FlatLen() int { return b.layout.flatLen }

// Flat returns the flattened core types of the record.
func (r *RecordType) Flat() []CoreType { return flatten(r) }

// Flat returns the flattened core types of the tuple.
func (t *TupleType) Flat() []CoreType { return flatten(t) }

// Flat returns the flattened core types of the variant.
func (v *VariantType) Flat() []CoreType { return flatten(v) }

// Flat returns the flattened core types of the option.
func (o *OptionType) Flat() []CoreType { return flatten(o) }

// Flat returns the flattened core types of the result.
func (r *ResultType) Flat() []CoreType { return flatten(r) }

// flatten computes flatten_type, using the layout's flattening where it keeps one.
func flatten(t Type) []CoreType {
	b := t.base()
	if b.layout.flatLen <= maxCachedFlat {
		return b.layout.Flat()
	}
	var out []CoreType
	switch x := t.(type) {
	case *RecordType:
		for _, f := range x.fields {
			out = append(out, f.Type.Flat()...)
		}
	case *TupleType:
		for _, e := range x.elems {
			out = append(out, e.Flat()...)
		}
	default:
		out = []CoreType{CoreI32}
		for _, p := range casesOf(t).payloads {
			if p != nil {
				out = joinFlat(out, p.Flat())
			}
		}
	}
	return out
}

func (b *typeBase) base() *typeBase { return b }

// PrimitiveType is one of bool, s8…s64, u8…u64, f32, f64, char and string.
type PrimitiveType struct{ typeBase }

// String returns the WIT name of the primitive.
func (p *PrimitiveType) String() string { return p.kind.String() }

func prim(k Kind) *PrimitiveType {
	return &PrimitiveType{typeBase{kind: k, layout: k.Layout(), depth: 1, hasPtr: k == KindString}}
}

// The primitive types.
var (
	Bool = prim(KindBool)
	S8   = prim(KindS8)
	U8   = prim(KindU8)
	S16  = prim(KindS16)
	U16  = prim(KindU16)
	S32  = prim(KindS32)
	U32  = prim(KindU32)
	S64  = prim(KindS64)
	U64  = prim(KindU64)
	F32  = prim(KindF32)
	F64  = prim(KindF64)
	Char = prim(KindChar)
	// String is stored as a (pointer, length) pair: 8 bytes, 4-aligned, two i32s.
	String = prim(KindString)
)

// ListType is list<T>, stored as a (pointer, length) pair.
type ListType struct {
	typeBase
	elem Type
}

// Elem returns the element type.
func (l *ListType) Elem() Type { return l.elem }

// String renders list<T>.
func (l *ListType) String() string { return "list<" + l.elem.String() + ">" }

// Field is a named record field.
type Field struct {
	Name string
	Type Type
}

// RecordType is record { … }. Fields are laid out in order, each aligned to its own alignment.
type RecordType struct {
	typeBase
	fields  []Field
	offsets []uint32
}

// Fields returns a copy of the fields, in declaration order.
func (r *RecordType) Fields() []Field { return slices.Clone(r.fields) }

// NumFields returns the number of fields.
func (r *RecordType) NumFields() int { return len(r.fields) }

// Field returns field i.
func (r *RecordType) Field(i int) Field { return r.fields[i] }

// Offset returns the byte offset of field i within the record.
func (r *RecordType) Offset(i int) uint32 { return r.offsets[i] }

// String renders record { name: type, … }.
func (r *RecordType) String() string {
	parts := make([]string, len(r.fields))
	for i, f := range r.fields {
		parts[i] = f.Name + ": " + f.Type.String()
	}
	return "record { " + strings.Join(parts, ", ") + " }"
}

// TupleType is tuple<…>, laid out like a record with positional fields.
type TupleType struct {
	typeBase
	elems   []Type
	offsets []uint32
}

// Elems returns a copy of the element types.
func (t *TupleType) Elems() []Type { return slices.Clone(t.elems) }

// NumElems returns the number of elements.
func (t *TupleType) NumElems() int { return len(t.elems) }

// Elem returns element type i.
func (t *TupleType) Elem(i int) Type { return t.elems[i] }

// Offset returns the byte offset of element i within the tuple.
func (t *TupleType) Offset(i int) uint32 { return t.offsets[i] }

// String renders tuple<…>.
func (t *TupleType) String() string {
	parts := make([]string, len(t.elems))
	for i, e := range t.elems {
		parts[i] = e.String()
	}
	return "tuple<" + strings.Join(parts, ", ") + ">"
}

// Case is a variant case; Type is nil for a case without payload.
type Case struct {
	Name string
	Type Type
}

// cases is the despecialised view of variant, enum, option and result (CanonicalABI.md#despecialization):
// a discriminant followed by the payload area.
type cases struct {
	names      []string
	payloads   []Type // nil entries: no payload
	steps      []string
	discSize   uint32
	payloadOff uint32
}

func (c *cases) numCases() int { return len(c.payloads) }

// VariantType is variant { … }.
type VariantType struct {
	typeBase
	cases
}

// Cases returns a copy of the cases.
func (v *VariantType) Cases() []Case {
	out := make([]Case, len(v.names))
	for i := range v.names {
		out[i] = Case{Name: v.names[i], Type: v.payloads[i]}
	}
	return out
}

// NumCases returns the number of cases.
func (v *VariantType) NumCases() int { return len(v.names) }

// Case returns case i.
func (v *VariantType) Case(i int) Case { return Case{Name: v.names[i], Type: v.payloads[i]} }

// DiscriminantSize returns the byte size of the discriminant (1, 2 or 4).
func (v *VariantType) DiscriminantSize() uint32 { return v.discSize }

// String renders variant { a(T), b, … }.
func (v *VariantType) String() string {
	parts := make([]string, len(v.names))
	for i, n := range v.names {
		if p := v.payloads[i]; p != nil {
			parts[i] = n + "(" + p.String() + ")"
		} else {
			parts[i] = n
		}
	}
	return "variant { " + strings.Join(parts, ", ") + " }"
}

// EnumType is enum { … }: a variant whose cases have no payload.
type EnumType struct {
	typeBase
	cases
}

// Labels returns a copy of the case labels.
func (e *EnumType) Labels() []string { return slices.Clone(e.names) }

// NumCases returns the number of cases.
func (e *EnumType) NumCases() int { return len(e.names) }

// DiscriminantSize returns the byte size of the discriminant (1, 2 or 4).
func (e *EnumType) DiscriminantSize() uint32 { return e.discSize }

// String renders enum { a, b, … }.
func (e *EnumType) String() string { return "enum { " + strings.Join(e.names, ", ") + " }" }

// OptionType is option<T>: variant { none, some(T) }.
type OptionType struct {
	typeBase
	cases
}

// Elem returns T.
func (o *OptionType) Elem() Type { return o.payloads[1] }

// String renders option<T>.
func (o *OptionType) String() string { return "option<" + o.payloads[1].String() + ">" }

// ResultType is result<T, E>: variant { ok(T), error(E) }, where either payload may be absent.
type ResultType struct {
	typeBase
	cases
}

// Ok returns the ok payload type, or nil.
func (r *ResultType) Ok() Type { return r.payloads[0] }

// Err returns the error payload type, or nil.
func (r *ResultType) Err() Type { return r.payloads[1] }

// String renders result, result<T>, result<_, E> or result<T, E>.
func (r *ResultType) String() string {
	ok, er := r.payloads[0], r.payloads[1]
	switch {
	case ok == nil && er == nil:
		return "result"
	case er == nil:
		return "result<" + ok.String() + ">"
	case ok == nil:
		return "result<_, " + er.String() + ">"
	}
	return "result<" + ok.String() + ", " + er.String() + ">"
}

// FlagsType is flags { … }: a bit vector of 1 to 32 labels, bit i for label i.
type FlagsType struct {
	typeBase
	labels []string
}

// Labels returns a copy of the labels.
func (f *FlagsType) Labels() []string { return slices.Clone(f.labels) }

// NumLabels returns the number of labels.
func (f *FlagsType) NumLabels() int { return len(f.labels) }

// Mask returns the bits that the declared labels may set.
func (f *FlagsType) Mask() uint32 { return flagsMask(len(f.labels)) }

func flagsMask(n int) uint32 {
	if n >= 32 {
		return ^uint32(0)
	}
	return 1<<uint(n) - 1
}

// String renders flags { a, b, … }.
func (f *FlagsType) String() string { return "flags { " + strings.Join(f.labels, ", ") + " }" }

// ResourceType identifies a resource type. Identity is the pointer: two NewResourceType calls with
// the same name make distinct types, as two instances of a component define distinct resources.
type ResourceType struct{ name string }

// NewResourceType returns a new, distinct resource type. The name is used in messages only.
func NewResourceType(name string) *ResourceType { return &ResourceType{name: name} }

// Name returns the name given to NewResourceType.
func (r *ResourceType) Name() string { return r.name }

// String returns the name.
func (r *ResourceType) String() string { return r.name }

// HandleType is own<R> (Kind KindOwn) or borrow<R> (Kind KindBorrow): an i32 index into the
// guest's handle table.
type HandleType struct {
	typeBase
	rt *ResourceType
}

// Resource returns R.
func (h *HandleType) Resource() *ResourceType { return h.rt }

// String renders own<R> or borrow<R>.
func (h *HandleType) String() string { return h.kind.String() + "<" + h.rt.name + ">" }

// Must returns t, panicking if err is non-nil. It is meant for types fixed at compile time, like
// regexp.MustCompile; types built from input must check the error instead.
func Must[T any](t T, err error) T {
	if err != nil {
		panic("abi.Must: " + err.Error())
	}
	return t
}

func isNil(t Type) bool {
	switch x := t.(type) {
	case nil:
		return true
	case *PrimitiveType:
		return x == nil
	case *ListType:
		return x == nil
	case *RecordType:
		return x == nil
	case *TupleType:
		return x == nil
	case *VariantType:
		return x == nil
	case *EnumType:
		return x == nil
	case *OptionType:
		return x == nil
	case *ResultType:
		return x == nil
	case *FlagsType:
		return x == nil
	case *HandleType:
		return x == nil
	}
	return true
}

func typeErr(what, format string, args ...any) error {
	return &PathError{Op: "type " + what, Err: errorf(ErrInvalidType, format, args...)}
}

// checkBounds applies the limits every composite type shares: nesting depth and the
// specification's bound on value size under the 64-bit ABI.
func checkBounds(what string, b *typeBase) error {
	if b.depth > MaxTypeDepth {
		return typeErr(what, "nesting depth %d exceeds %d", b.depth, MaxTypeDepth)
	}
	if b.layout.size64 > MaxValueSize {
		return typeErr(what, "value size %d bytes exceeds 2^28-1", b.layout.size64)
	}
	return nil
}

// ListOf returns list<elem>.
func ListOf(elem Type) (*ListType, error) {
	if isNil(elem) {
		return nil, typeErr("list", "nil element type")
	}
	e := elem.base()
	l := &ListType{typeBase: typeBase{kind: KindList, layout: KindList.Layout(), depth: e.depth + 1, hasPtr: true,
		hasBorrow: e.hasBorrow}, elem: elem}
	if err := checkBounds("list", &l.typeBase); err != nil {
		return nil, err
	}
	return l, nil
}

// structBase lays out fields in order (RecordLayout) and gathers what the fields contain.
func structBase(kind Kind, types []Type) (typeBase, []uint32) {
	offsets := make([]uint32, len(types))
	b := typeBase{kind: kind, layout: recordLayout(len(types), func(i int) Layout { return types[i].base().layout }, offsets)}
	for _, t := range types {
		tb := t.base()
		b.depth = max(b.depth, tb.depth+1)
		b.hasPtr = b.hasPtr || tb.hasPtr
		b.hasBorrow = b.hasBorrow || tb.hasBorrow
	}
	return b, offsets
}

func checkLabels(what string, labels []string) error {
	seen := make(map[string]struct{}, len(labels))
	for i, l := range labels {
		if l == "" {
			return typeErr(what, "label %d is empty", i)
		}
		if _, dup := seen[l]; dup {
			return typeErr(what, "duplicate label %q", l)
		}
		seen[l] = struct{}{}
	}
	return nil
}

// RecordOf returns record { fields… }. A record needs at least one field and distinct names.
func RecordOf(fields ...Field) (*RecordType, error) {
	if len(fields) == 0 {
		return nil, typeErr("record", "no fields")
	}
	names := make([]string, len(fields))
	types := make([]Type, len(fields))
	for i, f := range fields {
		if isNil(f.Type) {
			return nil, typeErr("record", "field %q has nil type", f.Name)
		}
		names[i], types[i] = f.Name, f.Type
	}
	if err := checkLabels("record", names); err != nil {
		return nil, err
	}
	b, offs := structBase(KindRecord, types)
	r := &RecordType{typeBase: b, fields: slices.Clone(fields), offsets: offs}
	if err := checkBounds("record", &r.typeBase); err != nil {
		return nil, err
	}
	return r, nil
}

// TupleOf returns tuple<elems…>. A tuple needs at least one element.
func TupleOf(elems ...Type) (*TupleType, error) {
	if len(elems) == 0 {
		return nil, typeErr("tuple", "no elements")
	}
	for i, e := range elems {
		if isNil(e) {
			return nil, typeErr("tuple", "element %d has nil type", i)
		}
	}
	b, offs := structBase(KindTuple, elems)
	t := &TupleType{typeBase: b, elems: slices.Clone(elems), offsets: offs}
	if err := checkBounds("tuple", &t.typeBase); err != nil {
		return nil, err
	}
	return t, nil
}

// variantBase lays out the despecialised variant with the given payloads (VariantLayout) and
// gathers what the payloads contain.
func variantBase(kind Kind, names []string, payloads []Type, steps []string) (typeBase, cases) {
	b := typeBase{kind: kind, depth: 1}
	for _, p := range payloads {
		if p == nil {
			continue
		}
		pb := p.base()
		b.depth = max(b.depth, pb.depth+1)
		b.hasPtr = b.hasPtr || pb.hasPtr
		b.hasBorrow = b.hasBorrow || pb.hasBorrow
	}
	var off uint32
	b.layout, off = variantLayout(len(payloads), len(payloads), func(i int) (Layout, bool) {
		if payloads[i] == nil {
			return Layout{}, false
		}
		return payloads[i].base().layout, true
	})
	return b, cases{names: names, payloads: payloads, steps: steps, discSize: discriminantSize(len(payloads)), payloadOff: off}
}

// VariantOf returns variant { cases… }. A variant needs at least one case and distinct names.
func VariantOf(cs ...Case) (*VariantType, error) {
	if len(cs) == 0 {
		return nil, typeErr("variant", "no cases")
	}
	if uint64(len(cs)) >= 1<<32 {
		return nil, typeErr("variant", "%d cases", len(cs))
	}
	names := make([]string, len(cs))
	payloads := make([]Type, len(cs))
	steps := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
		steps[i] = caseStep(c.Name)
		if c.Type != nil {
			if isNil(c.Type) {
				return nil, typeErr("variant", "case %q has a typed nil payload", c.Name)
			}
			payloads[i] = c.Type
		}
	}
	if err := checkLabels("variant", names); err != nil {
		return nil, err
	}
	b, c := variantBase(KindVariant, names, payloads, steps)
	v := &VariantType{typeBase: b, cases: c}
	if err := checkBounds("variant", &v.typeBase); err != nil {
		return nil, err
	}
	return v, nil
}

// EnumOf returns enum { labels… }.
func EnumOf(labels ...string) (*EnumType, error) {
	if len(labels) == 0 {
		return nil, typeErr("enum", "no cases")
	}
	if uint64(len(labels)) >= 1<<32 {
		return nil, typeErr("enum", "%d cases", len(labels))
	}
	if err := checkLabels("enum", labels); err != nil {
		return nil, err
	}
	b, c := variantBase(KindEnum, slices.Clone(labels), make([]Type, len(labels)), nil)
	return &EnumType{typeBase: b, cases: c}, nil
}

// OptionOf returns option<t>.
func OptionOf(t Type) (*OptionType, error) {
	if isNil(t) {
		return nil, typeErr("option", "nil payload type")
	}
	b, c := variantBase(KindOption, []string{"none", "some"}, []Type{nil, t}, []string{"option none", "option some"})
	o := &OptionType{typeBase: b, cases: c}
	if err := checkBounds("option", &o.typeBase); err != nil {
		return nil, err
	}
	return o, nil
}

// ResultOf returns result<ok, err>; pass nil for a payload that is absent.
func ResultOf(ok, err Type) (*ResultType, error) {
	if ok != nil && isNil(ok) {
		return nil, typeErr("result", "typed nil ok type")
	}
	if err != nil && isNil(err) {
		return nil, typeErr("result", "typed nil error type")
	}
	b, c := variantBase(KindResult, []string{"ok", "error"}, []Type{ok, err}, []string{"result ok", "result error"})
	r := &ResultType{typeBase: b, cases: c}
	if e := checkBounds("result", &r.typeBase); e != nil {
		return nil, e
	}
	return r, nil
}

// FlagsOf returns flags { labels… }, with 1 to 32 distinct labels.
func FlagsOf(labels ...string) (*FlagsType, error) {
	n := len(labels)
	if n == 0 {
		return nil, typeErr("flags", "no labels")
	}
	if n > MaxFlags {
		return nil, typeErr("flags", "%d labels exceed the maximum of %d", n, MaxFlags)
	}
	if err := checkLabels("flags", labels); err != nil {
		return nil, err
	}
	return &FlagsType{typeBase: typeBase{kind: KindFlags, layout: FlagsLayout(n), depth: 1}, labels: slices.Clone(labels)}, nil
}

func handleOf(k Kind, rt *ResourceType) (*HandleType, error) {
	if rt == nil {
		return nil, typeErr(k.String(), "nil resource type")
	}
	return &HandleType{typeBase: typeBase{kind: k, layout: k.Layout(), depth: 1, hasBorrow: k == KindBorrow}, rt: rt}, nil
}

// OwnOf returns own<rt>.
func OwnOf(rt *ResourceType) (*HandleType, error) { return handleOf(KindOwn, rt) }

// BorrowOf returns borrow<rt>.
func BorrowOf(rt *ResourceType) (*HandleType, error) { return handleOf(KindBorrow, rt) }

// StreamOf refuses stream<elem>: streams belong to the async component model, which kobako does
// not implement. The error matches ErrAsync.
func StreamOf(elem Type) (Type, error) {
	return nil, &PathError{Op: "type stream", Err: errorf(ErrAsync, "stream types are async")}
}

// FutureOf refuses future<elem>; see StreamOf.
func FutureOf(elem Type) (Type, error) {
	return nil, &PathError{Op: "type future", Err: errorf(ErrAsync, "future types are async")}
}

// ErrorContext refuses the error-context type; see StreamOf.
func ErrorContext() (Type, error) {
	return nil, &PathError{Op: "type error-context", Err: errorf(ErrAsync, "error-context is part of async")}
}
