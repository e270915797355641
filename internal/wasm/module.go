package wasm

import (
	"strings"

	"github.com/kobako/kobako/abi"
)

// ExternKind is the kind of an import or export, with the binary format's values:
// abi.CoreExternKind, the module's one definition (public, so that engine and component/binary
// can expose it).
type ExternKind = abi.CoreExternKind

// External kinds.
const (
	ExternFunc   = abi.CoreExternFunc
	ExternTable  = abi.CoreExternTable
	ExternMemory = abi.CoreExternMemory
	ExternGlobal = abi.CoreExternGlobal
	ExternTag    = abi.CoreExternTag // exception-handling
)

// ValType is a value type, with the binary format's encoding: abi.CoreType, the module's one
// definition. Only the WebAssembly 2.0 types have names; Decode records other types (typed
// references, GC, exnref) as feature uses.
type ValType = abi.CoreType

// Value types of WebAssembly 2.0.
const (
	I32       = abi.CoreI32
	I64       = abi.CoreI64
	F32       = abi.CoreF32
	F64       = abi.CoreF64
	V128      = abi.CoreV128
	FuncRef   = abi.CoreFuncRef
	ExternRef = abi.CoreExternRef
)

// FuncType is a function signature.
type FuncType struct {
	Params  []ValType
	Results []ValType
}

// String formats t like the text format, e.g. "(i32, i32) -> (i64)".
func (t FuncType) String() string {
	list := func(ts []ValType) string {
		s := make([]string, len(ts))
		for i, v := range ts {
			s[i] = v.String()
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return list(t.Params) + " -> " + list(t.Results)
}

// MemoryType is a memory declaration. Sizes are in 64 KiB pages.
type MemoryType struct {
	Min    uint64
	Max    uint64 // meaningful only when HasMax
	HasMax bool
	Shared bool // threads
	Is64   bool // memory64
}

// TableType is a table declaration.
type TableType struct {
	ElemType byte // FuncRef or ExternRef for WebAssembly 2.0
	Min      uint32
	Max      uint32 // meaningful only when HasMax
	HasMax   bool
	Is64     bool // table64 (memory64 proposal); Min and Max are then truncated, see Decode
}

// GlobalType is a global's value type and mutability.
type GlobalType struct {
	ValType ValType
	Mutable bool
}

// Import is one entry of the import section. Exactly the field matching Kind is meaningful.
type Import struct {
	Module string
	Name   string
	Kind   ExternKind
	// TypeIndex is the function type index of a function import, or the type index of a tag import.
	TypeIndex uint32
	// Func is Types[TypeIndex] for a function import.
	Func   FuncType
	Table  TableType
	Memory MemoryType
	Global GlobalType

	// field and end are the byte offsets, in the module, of the entry's field name and of the
	// entry's end: Instrument copies the rest of an entry whose module name it replaces.
	field, end int
}

// Export is one entry of the export section.
type Export struct {
	Name  string
	Kind  ExternKind
	Index uint32
}

// Global is a defined global.
type Global struct {
	Type GlobalType
	// Init is the constant initializer expression, including its final end opcode.
	Init []byte
}

// ElemMode says when an element or data segment is applied.
type ElemMode byte

// Segment modes.
const (
	ModeActive ElemMode = iota
	ModePassive
	ModeDeclarative // element segments only
)

// ElementSegment is one entry of the element section, in any of its eight encodings.
type ElementSegment struct {
	Flags    uint32 // the binary encoding's leading flags (0..7)
	Mode     ElemMode
	Table    uint32 // active segments
	Offset   []byte // active segments: constant expression including its end
	ElemType byte   // FuncRef or ExternRef (the elemkind 0x00 is recorded as FuncRef)
	// ItemCount is the number of items.
	ItemCount uint32
	// Items is the encoded item vector without its count: function indices for flags 0..3,
	// constant expressions (each with its end) for flags 4..7. FuncIndices and Exprs decode it.
	Items []byte
}

// UsesExprs reports whether the items are constant expressions rather than function indices.
func (s *ElementSegment) UsesExprs() bool { return s.Flags&0x04 != 0 }

// FuncIndices decodes the items of a function-index segment (flags 0..3); it returns nil for an
// expression segment.
func (s *ElementSegment) FuncIndices() []uint32 {
	if s.UsesExprs() {
		return nil
	}
	out := make([]uint32, 0, s.ItemCount)
	r := newReader(s.Items, 0)
	for i := uint32(0); i < s.ItemCount; i++ {
		v, err := r.U32()
		if err != nil {
			break // Decode already read these bytes successfully
		}
		out = append(out, v)
	}
	return out
}

// Exprs splits the items of an expression segment (flags 4..7) into constant expressions, each
// including its end; it returns nil for a function-index segment.
func (s *ElementSegment) Exprs() [][]byte {
	if !s.UsesExprs() {
		return nil
	}
	out := make([][]byte, 0, s.ItemCount)
	r := newReader(s.Items, 0)
	var in instr
	for i := uint32(0); i < s.ItemCount; i++ {
		start := r.Pos
		if err := skipConstExpr(r, &in); err != nil {
			break // Decode already read these bytes successfully
		}
		out = append(out, s.Items[start:r.Pos:r.Pos])
	}
	return out
}

// DataSegment is one entry of the data section.
type DataSegment struct {
	Flags  uint32 // 0 active memory 0, 1 passive, 2 active with explicit memory
	Mode   ElemMode
	Memory uint32
	Offset []byte // active segments: constant expression including its end
	Data   []byte
}

// LocalDecl is one run of locals of the same type in a function body.
type LocalDecl struct {
	Count uint32
	Type  ValType
}

// Code is one defined function's body.
type Code struct {
	// Locals lists the runs of declared locals; runs of zero locals are left out.
	Locals []LocalDecl
	// NumLocals is the number of declared locals (parameters excluded).
	NumLocals uint64
	// Body is the instruction sequence after the local declarations, including the final end.
	Body []byte
	// Offset is the position of Body within the module binary.
	Offset int

	full []byte // the whole entry after its size: local declarations and Body
	// code and labels are Body's instructions as the metering needs them, recorded by Decode's
	// pass over the body so that Instrument need not decode it again; Instrument drops them.
	code   []cinstr
	labels []uint32
}

// CustomSection is a custom section's name and payload.
type CustomSection struct {
	Name string
	Data []byte
}

// Module is a decoded core module. Slices alias the bytes given to Decode, which must not change
// while the Module is in use.
type Module struct {
	// Types is the type section (function types only: GC types are a feature Decode rejects).
	Types []FuncType
	// Imports lists every import in order.
	Imports []Import
	// FuncTypeIndices holds the type index of each defined function (the function section).
	FuncTypeIndices []uint32
	// Tables lists the defined tables. Instrument records the maxima it wrote here (see
	// InstrumentOptions.MaxTableElements); DeclaredTables keeps the originals.
	Tables []TableType
	// DeclaredTables lists the defined tables exactly as the binary declares them.
	DeclaredTables []TableType
	// EntryCharges is set by Instrument with InstrumentOptions.DirectPrefix: the fuel a host
	// must charge before calling each function export through its direct export.
	EntryCharges map[string]int64
	// Memories lists the defined memories.
	Memories []MemoryType
	// ImportedMemories lists the imported memories, in import order.
	ImportedMemories []MemoryType
	// Globals lists the defined globals.
	Globals []Global
	// Exports lists every export in order.
	Exports []Export
	// StartFunc is the start function's index, or nil without a start section.
	StartFunc *uint32
	// Elements is the element section.
	Elements []ElementSegment
	// DataCount is the data count section's value, or nil without one.
	DataCount *uint32
	// Code holds the defined functions' bodies, in the order of FuncTypeIndices.
	Code []Code
	// Data is the data section.
	Data []DataSegment
	// Tags holds the type index of each defined tag (exception-handling).
	Tags []uint32
	// CustomSections lists every custom section in order, the name section included.
	CustomSections []CustomSection

	// NumImportedFuncs, NumImportedTables, NumImportedGlobals and NumImportedTags count the
	// imports of each kind; they are the first indices of the defined entities in each index space.
	NumImportedFuncs   uint32
	NumImportedTables  uint32
	NumImportedGlobals uint32
	NumImportedTags    uint32

	// ModuleName is the module name from the name section, if any.
	ModuleName string

	raw      []byte
	sections []section
	// importedFuncs and importedGlobals map function and global indices below the import counts
	// to positions in Imports.
	importedFuncs   []uint32
	importedGlobals []uint32
	// referenced marks the functions a ref.func or an element segment names: they may be called
	// indirectly, so Instrument cannot move their entry charge to their callers.
	referenced []bool
	funcNames  map[uint32]string
	features   featureSet
}

// section is the position of one section in the binary.
type section struct {
	id           byte
	start        int // first byte of the section id
	payloadStart int
	end          int
}

// FuncName returns the name the name section gives function idx (imported functions first), or ""
// when it gives none.
func (m *Module) FuncName(idx uint32) string { return m.funcNames[idx] }

// CustomSectionNames returns the names of the custom sections in order.
func (m *Module) CustomSectionNames() []string {
	out := make([]string, len(m.CustomSections))
	for i, c := range m.CustomSections {
		out[i] = c.Name
	}
	return out
}

// NumFuncs returns the size of the function index space.
func (m *Module) NumFuncs() uint32 { return m.NumImportedFuncs + uint32(len(m.FuncTypeIndices)) }

// NumGlobals returns the size of the global index space.
func (m *Module) NumGlobals() uint32 { return m.NumImportedGlobals + uint32(len(m.Globals)) }

// FuncType returns the type of function idx (imported functions first).
func (m *Module) FuncType(idx uint32) (FuncType, bool) {
	var ti uint32
	if idx < m.NumImportedFuncs {
		if uint64(idx) >= uint64(len(m.importedFuncs)) {
			return FuncType{}, false
		}
		return m.Imports[m.importedFuncs[idx]].Func, true
	}
	d := idx - m.NumImportedFuncs
	if uint64(d) >= uint64(len(m.FuncTypeIndices)) {
		return FuncType{}, false
	}
	ti = m.FuncTypeIndices[d]
	if uint64(ti) >= uint64(len(m.Types)) {
		return FuncType{}, false
	}
	return m.Types[ti], true
}
