package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kobako/kobako/internal/wasm"
)

// ModuleInfo is what Inspect reads from a core module without compiling it: enough for an upload
// validator to check imports, exports and features and to say precisely what is wrong.
type ModuleInfo struct {
	Imports  []ImportDesc
	Exports  []ExportDesc
	Memories []MemoryDesc // defined memories; imported ones are in Imports
	// Features lists each post-MVP feature the module uses, with where (a few uses per feature).
	Features []FeatureUse
	// CustomSections names the custom sections in order.
	CustomSections []string
}

// MemoryDesc is a memory declaration, in 64 KiB pages.
type MemoryDesc struct {
	Min, Max uint64
	HasMax   bool
	Shared   bool
	Is64     bool
}

// FeatureUse is one place where a module uses a feature added after WebAssembly 1.0.
type FeatureUse struct {
	// Feature is the proposal's name: "bulk-memory", "reference-types", "multi-value",
	// "sign-extension", "nontrapping-float-to-int", "simd", "mutable-global", "threads",
	// "exception-handling", "tail-call", "memory64", "multi-memory", "relaxed-simd", "gc",
	// "function-references", "extended-const".
	Feature string
	// Where reads like `function 12 (name "fib") at byte offset 0x1234: opcode 0xfe 0x10 (i32.atomic.load)`.
	Where string
}

// ErrNotCoreModule reports a component (or another binary layer) where a core module was expected.
var ErrNotCoreModule = wasm.ErrNotCoreModule

// Inspect decodes a core module with the engine's default decode limits and reports its imports,
// exports, memories and features. It does not compile or validate function bodies; Compile does.
// A component binary gives an error matching ErrNotCoreModule.
func Inspect(wasmBytes []byte) (*ModuleInfo, error) {
	m, err := wasm.Decode(wasmBytes, wasm.DefaultLimits())
	if err != nil {
		if errors.Is(err, wasm.ErrNotCoreModule) {
			return nil, fmt.Errorf("engine: inspect: %w", err)
		}
		return nil, fmt.Errorf("engine: inspect: %w: %w", ErrInvalidModule, err)
	}
	info := &ModuleInfo{CustomSections: m.CustomSectionNames()}
	for _, im := range m.Imports {
		d := ImportDesc{Module: im.Module, Name: im.Name, Kind: ExternKind(im.Kind)}
		if d.Kind == ExternFunc {
			d.Params, d.Results = slices.Clone(im.Func.Params), slices.Clone(im.Func.Results)
		}
		info.Imports = append(info.Imports, d)
	}
	for _, ex := range m.Exports {
		d := ExportDesc{Name: ex.Name, Kind: ExternKind(ex.Kind)}
		if d.Kind == ExternFunc {
			if ft, ok := m.FuncType(ex.Index); ok {
				d.Params, d.Results = slices.Clone(ft.Params), slices.Clone(ft.Results)
			}
		}
		info.Exports = append(info.Exports, d)
	}
	for _, mem := range m.Memories {
		info.Memories = append(info.Memories, MemoryDesc{Min: mem.Min, Max: mem.Max, HasMax: mem.HasMax, Shared: mem.Shared, Is64: mem.Is64})
	}
	for _, f := range m.Features() {
		info.Features = append(info.Features, FeatureUse{Feature: f.Feature, Where: f.Where})
	}
	return info, nil
}
