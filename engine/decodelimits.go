package engine

import "github.com/kobako/kobako/internal/wasm"

// DecodeLimits bound what a core module may declare. Compile checks them while decoding, before
// anything of the declared size is allocated (and before the module reaches wazero), so a small
// hostile binary cannot make the engine allocate much memory. A zero field means the
// DefaultDecodeLimits value for that field.
//
// The defaults follow the implementation limits of the WebAssembly JS API
// (https://webassembly.github.io/spec/js-api/#limits), which every browser enforces, so a module
// that runs in a browser passes them; TotalLocals and ModuleSize are kobako's own.
type DecodeLimits struct {
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
	// Memories is the largest number of memories, imported plus defined. More than one is
	// refused when compiling anyway (wazero has no multi-memory); the bound keeps the decoder
	// from allocating for a hostile count before that check.
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
	// binary but a few dozen in the decoded module.
	CustomSections uint32
}

// DefaultDecodeLimits returns the limits Compile applies where a DecodeLimits field is zero.
func DefaultDecodeLimits() DecodeLimits {
	return DecodeLimits(wasm.DefaultLimits())
}

// internal converts to the decoder's own limits. The two structs have the same fields, which
// the conversion checks at compile time: a field added to one and not the other breaks the build.
func (l DecodeLimits) internal() wasm.Limits { return wasm.Limits(l) }
