package wasm

// Limits bound what a module may declare. They are checked while decoding, before anything of the
// declared size is allocated, so a small hostile input cannot make the decoder (or wazero after it)
// allocate much memory. A zero field means the DefaultLimits value for that field.
//
// The defaults follow the implementation limits of the WebAssembly JS API
// (https://webassembly.github.io/spec/js-api/#limits), which every browser enforces, so a module
// that runs in a browser passes them; TotalLocals and ModuleSize are kobako's own.
type Limits struct {
	// ModuleSize is the largest accepted binary, in bytes.
	ModuleSize uint64
	// Types is the largest number of entries in the type section.
	Types uint32
	// Functions is the largest number of functions, imported plus defined.
	Functions uint32
	// Imports is the largest number of imports.
	Imports uint32
	// Exports is the largest number of exports.
	Exports uint32
	// Globals is the largest number of globals, imported plus defined.
	Globals uint32
	// DataSegments is the largest number of data segments.
	DataSegments uint32
	// ElementSegments is the largest number of element segments.
	ElementSegments uint32
	// Tables is the largest number of tables, imported plus defined.
	Tables uint32
	// Memories is the largest number of memories, imported plus defined. Decode accepts more than
	// one (up to this bound) so that Features can name the multi-memory feature;
	// CheckEngineFeatures rejects it.
	Memories uint32
	// FunctionBodySize is the largest function body, in bytes.
	FunctionBodySize uint32
	// LocalsPerFunction is the largest number of locals one function may declare (parameters
	// included).
	LocalsPerFunction uint32
	// TotalLocals is the largest number of locals all functions together may declare. wazero's
	// interpreter allocates about 390 bytes per declared local when it compiles a function.
	TotalLocals uint64
	// Params is the largest number of parameters of one function type.
	Params uint32
	// Results is the largest number of results of one function type.
	Results uint32
	// TableElements is the largest minimum size a table may declare, and the largest number of
	// elements in one element segment.
	TableElements uint32
	// MemoryPages is the largest minimum size a 32-bit memory may declare, in 64 KiB pages.
	MemoryPages uint64
	// CustomSections is the largest number of custom sections. Each costs a few bytes in the
	// binary but a few dozen in the decoded Module.
	CustomSections uint32
}

// DefaultLimits returns the limits Decode applies when a Limits field is zero.
func DefaultLimits() Limits {
	return Limits{
		ModuleSize:        256 << 20,
		Types:             1_000_000,
		Functions:         1_000_000,
		Imports:           100_000,
		Exports:           100_000,
		Globals:           1_000_000,
		DataSegments:      100_000,
		ElementSegments:   1_000_000,
		Tables:            100_000,
		Memories:          100,
		FunctionBodySize:  7_654_321,
		LocalsPerFunction: 50_000,
		TotalLocals:       5_000_000,
		Params:            1_000,
		Results:           1_000,
		TableElements:     10_000_000,
		MemoryPages:       65_536,
		CustomSections:    10_000,
	}
}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	set64 := func(v *uint64, def uint64) {
		if *v == 0 {
			*v = def
		}
	}
	set32 := func(v *uint32, def uint32) {
		if *v == 0 {
			*v = def
		}
	}
	set64(&l.ModuleSize, d.ModuleSize)
	set32(&l.Types, d.Types)
	set32(&l.Functions, d.Functions)
	set32(&l.Imports, d.Imports)
	set32(&l.Exports, d.Exports)
	set32(&l.Globals, d.Globals)
	set32(&l.DataSegments, d.DataSegments)
	set32(&l.ElementSegments, d.ElementSegments)
	set32(&l.Tables, d.Tables)
	set32(&l.Memories, d.Memories)
	set32(&l.FunctionBodySize, d.FunctionBodySize)
	set32(&l.LocalsPerFunction, d.LocalsPerFunction)
	set64(&l.TotalLocals, d.TotalLocals)
	set32(&l.Params, d.Params)
	set32(&l.Results, d.Results)
	set32(&l.TableElements, d.TableElements)
	set64(&l.MemoryPages, d.MemoryPages)
	set32(&l.CustomSections, d.CustomSections)
	return l
}
