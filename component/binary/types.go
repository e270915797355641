package binary

import (
	"fmt"
	"strings"

	"github.com/kobako/kobako/abi"
)

// Type is an entry of a component's type index space. The implementations are the value types
// (PrimType and the defined value types *RecordType, *VariantType, *ListType, *TupleType,
// *FlagsType, *EnumType, *OptionType, *ResultType, *OwnType, *BorrowType), *FuncType,
// *InstanceType, *ComponentType and *ResourceType.
//
// Types are resolved: a reference to another type index is replaced by the type itself, so types
// can be compared structurally without index spaces. Resources are the exception: they compare
// by identity (*Resource), as the specification's generative resource types require.
type Type interface {
	isType()
	// String renders the type in a WIT-like syntax for messages.
	String() string
	// size is the number of type nodes reachable from the type, counted as a tree.
	size() int
}

// ValType is a component value type: a PrimType or a defined value type.
type ValType interface {
	Type
	info() *valInfo
}

// valInfo is what the validator needs about a value type, computed once when the type is built.
type valInfo struct {
	depth     int
	nodes     int
	layout    abi.Layout // size, alignment and flattening, as abi lifts and lowers the type
	hasPtr    bool       // contains a string or list
	hasBorrow bool
	hasHandle bool // contains own or borrow
}

// PrimType is a primitive value type.
type PrimType byte

// The primitive value types, with their binary encodings.
const (
	Bool   PrimType = 0x7f
	S8     PrimType = 0x7e
	U8     PrimType = 0x7d
	S16    PrimType = 0x7c
	U16    PrimType = 0x7b
	S32    PrimType = 0x7a
	U32    PrimType = 0x79
	S64    PrimType = 0x78
	U64    PrimType = 0x77
	F32    PrimType = 0x76
	F64    PrimType = 0x75
	Char   PrimType = 0x74
	String PrimType = 0x73
)

var primNames = map[PrimType]string{Bool: "bool", S8: "s8", U8: "u8", S16: "s16", U16: "u16", S32: "s32",
	U32: "u32", S64: "s64", U64: "u64", F32: "f32", F64: "f64", Char: "char", String: "string"}

var primInfos = func() map[PrimType]*valInfo {
	m := map[PrimType]*valInfo{}
	for p, at := range primABI {
		m[p] = &valInfo{depth: 1, nodes: 1, layout: at.Kind().Layout(), hasPtr: p == String}
	}
	return m
}()

func (PrimType) isType()          {}
func (PrimType) size() int        { return 1 }
func (p PrimType) info() *valInfo { return primInfos[p] }

// String returns the WIT name ("u32", "string", …).
func (p PrimType) String() string {
	if s, ok := primNames[p]; ok {
		return s
	}
	return fmt.Sprintf("prim(0x%02x)", byte(p))
}

// Field is a record field.
type Field struct {
	Name string
	Type ValType
}

// RecordType is `record { … }`.
type RecordType struct {
	Fields []Field
	vi     valInfo
}

// Case is a variant case; Type is nil for a case without payload.
type Case struct {
	Name string
	Type ValType
}

// VariantType is `variant { … }`.
type VariantType struct {
	Cases []Case
	vi    valInfo
}

// ListType is `list<T>`.
type ListType struct {
	Elem ValType
	vi   valInfo
}

// TupleType is `tuple<…>`.
type TupleType struct {
	Elems []ValType
	vi    valInfo
}

// FlagsType is `flags { … }` (1 to 32 labels).
type FlagsType struct {
	Names []string
	vi    valInfo
}

// EnumType is `enum { … }`.
type EnumType struct {
	Names []string
	vi    valInfo
}

// OptionType is `option<T>`.
type OptionType struct {
	Elem ValType
	vi   valInfo
}

// ResultType is `result<T, E>`; OK and Err are nil when absent.
type ResultType struct {
	OK, Err ValType
	vi      valInfo
}

// OwnType is `own<R>`, an owning handle to a resource.
type OwnType struct {
	Resource *ResourceType
	vi       valInfo
}

// BorrowType is `borrow<R>`, a borrowed handle to a resource.
type BorrowType struct {
	Resource *ResourceType
	vi       valInfo
}

func (*RecordType) isType()  {}
func (*VariantType) isType() {}
func (*ListType) isType()    {}
func (*TupleType) isType()   {}
func (*FlagsType) isType()   {}
func (*EnumType) isType()    {}
func (*OptionType) isType()  {}
func (*ResultType) isType()  {}
func (*OwnType) isType()     {}
func (*BorrowType) isType()  {}

func (t *RecordType) info() *valInfo  { return &t.vi }
func (t *VariantType) info() *valInfo { return &t.vi }
func (t *ListType) info() *valInfo    { return &t.vi }
func (t *TupleType) info() *valInfo   { return &t.vi }
func (t *FlagsType) info() *valInfo   { return &t.vi }
func (t *EnumType) info() *valInfo    { return &t.vi }
func (t *OptionType) info() *valInfo  { return &t.vi }
func (t *ResultType) info() *valInfo  { return &t.vi }
func (t *OwnType) info() *valInfo     { return &t.vi }
func (t *BorrowType) info() *valInfo  { return &t.vi }

func (t *RecordType) size() int  { return t.vi.nodes }
func (t *VariantType) size() int { return t.vi.nodes }
func (t *ListType) size() int    { return t.vi.nodes }
func (t *TupleType) size() int   { return t.vi.nodes }
func (t *FlagsType) size() int   { return t.vi.nodes }
func (t *EnumType) size() int    { return t.vi.nodes }
func (t *OptionType) size() int  { return t.vi.nodes }
func (t *ResultType) size() int  { return t.vi.nodes }
func (t *OwnType) size() int     { return t.vi.nodes }
func (t *BorrowType) size() int  { return t.vi.nodes }

// Depth is how deeply the value type nests (1 for a primitive).
func Depth(t ValType) int { return t.info().depth }

// Resource is the identity of a resource type. Two resource types are equal exactly when they
// have the same *Resource.
type Resource struct {
	// Name is the name the resource was first imported or exported under, or empty; it only
	// serves messages.
	Name string
	// Local is true for a resource defined by a resource type definition (`(type (resource …))`)
	// of the component being decoded or of a nested component; Rep and Dtor are meaningful then.
	Local bool
	// Rep is the core representation type (always i32 in the 0.2 component model).
	Rep CoreValType
	// Dtor is the core function index of the destructor in the defining component, when HasDtor.
	Dtor    uint32
	HasDtor bool

	definer *scope // the component scope whose type section defined it (nil for abstract ones)
	// of is, for the fresh abstract type that a `(sub resource)` export ascription introduces,
	// the resource it stands for at run time; the validator tells the two apart.
	of *Resource
}

// Of returns, for the fresh abstract resource type that a `(sub resource)` export ascription
// introduced, the resource it stands for; nil for any other resource.
func (r *Resource) Of() *Resource { return r.of }

// ResourceType is a resource type in a type index space. Each import, export or definition of a
// resource type is its own *ResourceType (the validator tracks names through them), while type
// equality looks only at Resource.
type ResourceType struct {
	Resource *Resource
}

func (*ResourceType) isType()   {}
func (*ResourceType) size() int { return 1 }

// String returns "resource" and the resource's name, if known.
func (t *ResourceType) String() string {
	if t.Resource.Name != "" {
		return "resource " + t.Resource.Name
	}
	return "resource"
}

// Param is a function parameter.
type Param struct {
	Name string
	Type ValType
}

// FuncType is a component function type; Result is nil for a function without result.
type FuncType struct {
	Params []Param
	Result ValType
	nodes  int
}

func (*FuncType) isType()     {}
func (t *FuncType) size() int { return t.nodes }

// ExternDecl is a named import or export in a component or instance type.
type ExternDecl struct {
	Name Name
	Type ExternType
}

// InstanceType is the type of a component instance: its exports.
type InstanceType struct {
	Exports []ExternDecl
	// defined lists the abstract resources the type itself introduces through
	// `(export "x" (type (sub resource)))`; they are freshened when an instance of this type is
	// imported or declared, as the spec's existential typing requires.
	defined []resourcePath
	index   map[string]int
	nodes   int
	depth   int
}

func (*InstanceType) isType()     {}
func (t *InstanceType) size() int { return t.nodes }

// Export returns the export named name.
func (t *InstanceType) Export(name string) (ExternDecl, bool) {
	return lookupDecl(t.Exports, t.index, name)
}

// ComponentType is the type of a component: its imports and exports.
type ComponentType struct {
	Imports []ExternDecl
	Exports []ExternDecl
	// imported lists the abstract resources introduced by the imports, with where they sit, so
	// that instantiation can bind them to the arguments' resources.
	imported []resourcePath
	// defined lists resources created inside the component (definitions, instantiations) or
	// declared by its exports; every instantiation replaces them with fresh ones.
	defined []resourcePath
	index   map[string]int
	eindex  map[string]int
	nodes   int
	depth   int
}

func (*ComponentType) isType()     {}
func (t *ComponentType) size() int { return t.nodes }

// Import returns the import named name.
func (t *ComponentType) Import(name string) (ExternDecl, bool) {
	return lookupDecl(t.Imports, t.index, name)
}

// Export returns the export named name.
func (t *ComponentType) Export(name string) (ExternDecl, bool) {
	return lookupDecl(t.Exports, t.eindex, name)
}

// Types are shared by concurrent users of a decoded Component, so their name indexes are built
// when the type is, never lazily.
func indexDecls(ds []ExternDecl) map[string]int {
	m := make(map[string]int, len(ds))
	for i, d := range ds {
		if _, dup := m[d.Name.Raw]; !dup {
			m[d.Name.Raw] = i
		}
	}
	return m
}

func lookupDecl(ds []ExternDecl, index map[string]int, name string) (ExternDecl, bool) {
	if index == nil {
		for _, d := range ds {
			if d.Name.Raw == name {
				return d, true
			}
		}
		return ExternDecl{}, false
	}
	i, ok := index[name]
	if !ok {
		return ExternDecl{}, false
	}
	return ds[i], true
}

func newInstanceType(exports []ExternDecl, defined []resourcePath) (*InstanceType, error) {
	n, err := sizeOfDecls("instance", exports)
	if err != nil {
		return nil, err
	}
	d, err := depthOfDecls(exports)
	if err != nil {
		return nil, err
	}
	return &InstanceType{Exports: exports, defined: defined, index: indexDecls(exports), nodes: n, depth: d}, nil
}

func newComponentType(imports, exports []ExternDecl, imported, defined []resourcePath) (*ComponentType, error) {
	n, err := sizeOfDecls("component", imports, exports)
	if err != nil {
		return nil, err
	}
	d, err := depthOfDecls(imports, exports)
	if err != nil {
		return nil, err
	}
	return &ComponentType{Imports: imports, Exports: exports, imported: imported, defined: defined,
		index: indexDecls(imports), eindex: indexDecls(exports), nodes: n, depth: d}, nil
}

// depthOfDecls bounds how deeply instance and component types nest inside each other; bundles
// of exports could otherwise nest instances without limit.
func depthOfDecls(lists ...[]ExternDecl) (int, error) {
	d := 1
	for _, l := range lists {
		for _, e := range l {
			var c int
			switch e.Type.Sort {
			case SortInstance:
				c = e.Type.Instance.depth
			case SortComponent:
				c = e.Type.Component.depth
			case SortType:
				switch x := e.Type.Type.(type) {
				case *InstanceType:
					c = x.depth
				case *ComponentType:
					c = x.depth
				}
			}
			d = max(d, c+1)
		}
	}
	if d > MaxNesting {
		return 0, errf(ErrLimit, "instance and component types nest more than %d levels deep", MaxNesting)
	}
	return d, nil
}

// resourcePath locates an abstract resource inside an import or export: Path[0] is the
// import's (export's) name, the rest are export names of nested instance types.
type resourcePath struct {
	Res  *Resource
	Path []string
}

// Sort is an index space (the spec's "sort"), core and component ones in one enumeration.
type Sort byte

// The sorts.
const (
	SortCoreFunc Sort = iota
	SortCoreTable
	SortCoreMemory
	SortCoreGlobal
	SortCoreTag
	SortCoreType
	SortCoreModule
	SortCoreInstance
	SortFunc
	SortValue
	SortType
	SortComponent
	SortInstance
)

var sortNames = [...]string{"core func", "core table", "core memory", "core global", "core tag",
	"core type", "core module", "core instance", "func", "value", "type", "component", "instance"}

// String returns the text format's name of the sort ("core func", "instance", …).
func (s Sort) String() string {
	if int(s) < len(sortNames) {
		return sortNames[s]
	}
	return fmt.Sprintf("sort(%d)", byte(s))
}

// IsCore reports whether s is a core sort.
func (s Sort) IsCore() bool { return s <= SortCoreInstance }

// ExternType is the type of an import, export or instantiation argument. Sort says which
// field is set: Module (SortCoreModule), Func, Type (SortType: the type itself; a *ResourceType
// for a resource), Component, Instance, or Value.
type ExternType struct {
	Sort      Sort
	Module    *ModuleType
	Func      *FuncType
	Type      Type
	Component *ComponentType
	Instance  *InstanceType
	Value     ValType
}

func (e ExternType) size() int {
	switch e.Sort {
	case SortFunc:
		return e.Func.size()
	case SortType:
		return e.Type.size()
	case SortComponent:
		return e.Component.size()
	case SortInstance:
		return e.Instance.size()
	case SortValue:
		return e.Value.size()
	}
	return 1
}

// String formats the extern type like "func(x: u32) -> string" or "instance { … }".
func (e ExternType) String() string {
	switch e.Sort {
	case SortCoreModule:
		return "core " + e.Module.String()
	case SortFunc:
		return e.Func.String()
	case SortType:
		return "type " + e.Type.String()
	case SortComponent:
		return e.Component.String()
	case SortInstance:
		return e.Instance.String()
	case SortValue:
		return "value " + e.Value.String()
	}
	return e.Sort.String()
}

// printing

// maxPrintDepth keeps messages about deeply nested types short.
const maxPrintDepth = 3

// String renders the type in WIT syntax, eliding what nests deeper than a few levels.
func (t *RecordType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *VariantType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *ListType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *TupleType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *FlagsType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *EnumType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *OptionType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *ResultType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *OwnType) String() string { return typeString(t, maxPrintDepth) }

// String renders the type in WIT syntax.
func (t *BorrowType) String() string { return typeString(t, maxPrintDepth) }

// String formats the function type like "func(a: u32, b: string) -> bool".
func (t *FuncType) String() string {
	var b strings.Builder
	b.WriteString("func(")
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + ": " + typeString(p.Type, maxPrintDepth-1))
	}
	b.WriteString(")")
	if t.Result != nil {
		b.WriteString(" -> " + typeString(t.Result, maxPrintDepth-1))
	}
	return b.String()
}

// String lists the instance type's export names.
func (t *InstanceType) String() string {
	return "instance {" + declNames(t.Exports) + "}"
}

// String lists the component type's import and export names.
func (t *ComponentType) String() string {
	return "component {imports:" + declNames(t.Imports) + "; exports:" + declNames(t.Exports) + "}"
}

func declNames(ds []ExternDecl) string {
	const max = 8
	var b strings.Builder
	for i, d := range ds {
		if i == max {
			fmt.Fprintf(&b, " … (%d more)", len(ds)-max)
			break
		}
		b.WriteString(" " + d.Name.Raw)
	}
	return b.String()
}

func typeString(t ValType, depth int) string {
	if t == nil {
		return "_"
	}
	if p, ok := t.(PrimType); ok {
		return p.String()
	}
	if depth <= 0 {
		return "…"
	}
	d := depth - 1
	var b strings.Builder
	switch t := t.(type) {
	case *RecordType:
		b.WriteString("record {")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + f.Name + ": " + typeString(f.Type, d))
		}
		b.WriteString(" }")
	case *VariantType:
		b.WriteString("variant {")
		for i, c := range t.Cases {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + c.Name)
			if c.Type != nil {
				b.WriteString("(" + typeString(c.Type, d) + ")")
			}
		}
		b.WriteString(" }")
	case *ListType:
		b.WriteString("list<" + typeString(t.Elem, d) + ">")
	case *TupleType:
		b.WriteString("tuple<")
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(typeString(e, d))
		}
		b.WriteString(">")
	case *FlagsType:
		b.WriteString("flags { " + strings.Join(t.Names, ", ") + " }")
	case *EnumType:
		b.WriteString("enum { " + strings.Join(t.Names, ", ") + " }")
	case *OptionType:
		b.WriteString("option<" + typeString(t.Elem, d) + ">")
	case *ResultType:
		switch {
		case t.OK == nil && t.Err == nil:
			b.WriteString("result")
		case t.Err == nil:
			b.WriteString("result<" + typeString(t.OK, d) + ">")
		default:
			b.WriteString("result<" + typeString(t.OK, d) + ", " + typeString(t.Err, d) + ">")
		}
	case *OwnType:
		b.WriteString("own<" + resourceName(t.Resource) + ">")
	case *BorrowType:
		b.WriteString("borrow<" + resourceName(t.Resource) + ">")
	default:
		b.WriteString(fmt.Sprintf("%T", t))
	}
	return b.String()
}

func resourceName(t *ResourceType) string {
	if t.Resource.Name != "" {
		return t.Resource.Name
	}
	return "resource"
}
