package binary

import "github.com/kobako/kobako/abi"

// Component is a decoded and validated component: its definitions in binary order and the index
// spaces they build. It is a plain data model; the linker walks Definitions in order to
// instantiate it.
type Component struct {
	// Definitions lists every definition in the order the binary gives them (custom sections
	// excepted). A vector section contributes one definition per element.
	Definitions []Definition
	// Custom holds the custom sections in order.
	Custom []CustomSection

	// The index spaces. Entry i of each is the item with index i; Def says which definition
	// introduced it (an *Alias, *Canon, *Import, *Export, *Start or a definition of that sort).
	CoreFuncs     []Item[*CoreFuncType]
	CoreTables    []Item[CoreTableType]
	CoreMemories  []Item[CoreMemoryType]
	CoreGlobals   []Item[CoreGlobalType]
	CoreTypes     []Item[CoreType]
	CoreModules   []Item[*ModuleType]
	CoreInstances []Item[*CoreInstanceType]
	Funcs         []Item[*FuncType]
	Values        []Item[ValType]
	Types         []Item[Type]
	Instances     []Item[*InstanceType]
	Components    []Item[*ComponentType]

	// Imports and Exports list the component's own imports and exports in order (they are also
	// in Definitions).
	Imports []*Import
	Exports []*Export

	// Type is the component's type as seen by whoever instantiates it.
	Type *ComponentType
}

// Item is an entry of an index space.
type Item[T any] struct {
	Def  Definition
	Type T
}

// CustomSection is a custom section: its name and contents.
type CustomSection struct {
	Name   string
	Data   []byte
	Offset int
}

// Definition is one definition of a component. The implementations are *CoreModule,
// *CoreInstance, *CoreTypeDef, *NestedComponent, *Instance, *Alias, *TypeDef, *Canon, *Start,
// *Import and *Export.
type Definition interface {
	isDefinition()
	// Pos is the offset of the definition in the input.
	Pos() int
}

// CoreModule is an embedded core module. Bytes is the complete module binary (a sub-slice of the
// input); it is not decoded beyond the sections that give its type, package engine compiles it.
// Compile sets Bytes to nil once the module is compiled, so that the input can be collected.
type CoreModule struct {
	Offset int
	Bytes  []byte
	Type   *ModuleType
}

// CoreInstantiateArg is `(with "name" (instance i))` of a core instantiation.
type CoreInstantiateArg struct {
	Name     string
	Instance uint32
}

// CoreInlineExport is `(export "name" (sort i))` of a core instance built from exports.
type CoreInlineExport struct {
	Name  string
	Sort  Sort
	Index uint32
}

// CoreInstance creates a core instance, either by instantiating Module with Args or, when
// FromExports is true, by bundling Exports.
type CoreInstance struct {
	Offset      int
	FromExports bool
	Module      uint32
	Args        []CoreInstantiateArg
	Exports     []CoreInlineExport
	Type        *CoreInstanceType
}

// CoreTypeDef defines a core type (a function or module type).
type CoreTypeDef struct {
	Offset int
	Type   CoreType
}

// NestedComponent is a component defined inside this one.
type NestedComponent struct {
	Offset    int
	Component *Component
}

// InstantiateArg is `(with "name" (sort i))` of a component instantiation.
type InstantiateArg struct {
	Name  string
	Sort  Sort
	Index uint32
}

// InlineExport is `(export "name" (sort i))` of a component instance built from exports.
type InlineExport struct {
	Name  Name
	Sort  Sort
	Index uint32
}

// Instance creates a component instance, either by instantiating Component with Args or, when
// FromExports is true, by bundling Exports.
type Instance struct {
	Offset      int
	FromExports bool
	Component   uint32
	Args        []InstantiateArg
	Exports     []InlineExport
	Type        *InstanceType
}

// AliasKind says what an alias refers to.
type AliasKind uint8

// The alias kinds.
const (
	// AliasInstanceExport is `(alias export i "name" (sort))`.
	AliasInstanceExport AliasKind = iota
	// AliasCoreInstanceExport is `(alias core export i "name" (core sort))`.
	AliasCoreInstanceExport
	// AliasOuter is `(alias outer count index (sort))`.
	AliasOuter
)

// Alias adds an item to the Sort index space from an instance's export or an enclosing scope.
type Alias struct {
	Offset   int
	Kind     AliasKind
	Sort     Sort
	Instance uint32 // export aliases
	Name     string // export aliases
	Count    uint32 // outer aliases: how many scopes out
	Index    uint32 // outer aliases: the index in that scope
}

// TypeDef defines a component-level type.
type TypeDef struct {
	Offset int
	Type   Type
}

// CanonKind says which canonical definition a Canon is.
type CanonKind uint8

// The canonical definitions of the synchronous component model.
const (
	CanonLift CanonKind = iota
	CanonLower
	CanonResourceNew
	CanonResourceDrop
	CanonResourceRep
)

// String returns the text format's name ("lift", "resource.new", …).
func (k CanonKind) String() string {
	return [...]string{"lift", "lower", "resource.new", "resource.drop", "resource.rep"}[k]
}

// CanonOptions are the canonical ABI options of a lift or lower. Indices are core function and
// memory indices; each is meaningful only when its Has flag is set.
type CanonOptions struct {
	StringEncoding abi.StringEncoding
	Memory         uint32
	HasMemory      bool
	Realloc        uint32
	HasRealloc     bool
	PostReturn     uint32
	HasPostReturn  bool
}

// Canon is a canonical definition. Lift uses CoreFunc, TypeIndex and Options and defines a
// component function of type Func; Lower uses FuncIndex and Options; the resource built-ins use
// TypeIndex (the resource type). All but Lift define a core function of type CoreType.
type Canon struct {
	Offset    int
	Kind      CanonKind
	CoreFunc  uint32
	FuncIndex uint32
	TypeIndex uint32
	Options   CanonOptions
	// Func is the component function type lifted or lowered.
	Func *FuncType
	// CoreType is the core function type of the core function (the callee of a lift).
	CoreType *CoreFuncType
	// Resource is the resource type of a resource built-in.
	Resource *ResourceType
}

// Start calls a component function at instantiation: `(start f (value a)* (result (value))^n)`.
type Start struct {
	Offset  int
	Func    uint32
	Args    []uint32
	Results uint32
}

// Import is an import of the component.
type Import struct {
	Offset int
	Name   Name
	Type   ExternType
}

// Export is an export of the component: the item Index of Sort under Name. Type is the export's
// type (the ascribed type when Ascribed, else the item's own type).
type Export struct {
	Offset   int
	Name     Name
	Sort     Sort
	Index    uint32
	Ascribed bool
	Type     ExternType
}

func (*CoreModule) isDefinition()      {}
func (*CoreInstance) isDefinition()    {}
func (*CoreTypeDef) isDefinition()     {}
func (*NestedComponent) isDefinition() {}
func (*Instance) isDefinition()        {}
func (*Alias) isDefinition()           {}
func (*TypeDef) isDefinition()         {}
func (*Canon) isDefinition()           {}
func (*Start) isDefinition()           {}
func (*Import) isDefinition()          {}
func (*Export) isDefinition()          {}

// Pos returns the offset of the definition in the input.
func (d *CoreModule) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *CoreInstance) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *CoreTypeDef) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *NestedComponent) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Instance) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Alias) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *TypeDef) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Canon) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Start) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Import) Pos() int { return d.Offset }

// Pos returns the offset of the definition in the input.
func (d *Export) Pos() int { return d.Offset }
