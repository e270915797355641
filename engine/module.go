package engine

import (
	"context"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/internal/wasm"
)

// Module is a compiled, metered core module. It is immutable and safe for concurrent use; instantiate
// it in any number of stores.
type Module struct {
	engine   *Engine
	decoded  *wasm.Module
	compiled wazero.CompiledModule
	tableMax uint32 // the table element limit written into the module's tables
	key      moduleKey
	imports  []ImportDesc
	exports  []ExportDesc
}

// ImportDesc describes one import of a module.
type ImportDesc struct {
	Module, Name string
	Kind         ExternKind
	// Params and Results are set for function imports.
	Params, Results []ValueType
}

// ExportDesc describes one export of a module.
type ExportDesc struct {
	Name string
	Kind ExternKind
	// Params and Results are set for function exports.
	Params, Results []ValueType
}

// ExternKind is the kind of an import or export.
type ExternKind byte

// The extern kinds, encoded as in the binary format.
const (
	ExternFunc   ExternKind = 0
	ExternTable  ExternKind = 1
	ExternMemory ExternKind = 2
	ExternGlobal ExternKind = 3
)

// String returns "func", "table", "memory" or "global".
func (k ExternKind) String() string {
	switch k {
	case ExternFunc:
		return "func"
	case ExternTable:
		return "table"
	case ExternMemory:
		return "memory"
	case ExternGlobal:
		return "global"
	}
	return "extern"
}

func newModule(e *Engine, d *wasm.Module, cm wazero.CompiledModule, tableMax uint32) *Module {
	m := &Module{engine: e, decoded: d, compiled: cm, tableMax: tableMax}
	for _, im := range cm.ImportedFunctions() {
		mod, name, _ := im.Import()
		if mod == fuelModuleName {
			continue
		}
		m.imports = append(m.imports, ImportDesc{Module: mod, Name: name, Kind: ExternFunc,
			Params: fromAPITypes(im.ParamTypes()), Results: fromAPITypes(im.ResultTypes())})
	}
	for _, im := range d.Imports {
		if ExternKind(im.Kind) == ExternFunc {
			continue
		}
		m.imports = append(m.imports, ImportDesc{Module: im.Module, Name: im.Name, Kind: ExternKind(im.Kind)})
	}
	fns := cm.ExportedFunctions()
	for _, ex := range d.Exports {
		ed := ExportDesc{Name: ex.Name, Kind: ExternKind(ex.Kind)}
		if f, ok := fns[ex.Name]; ok && ed.Kind == ExternFunc {
			ed.Params, ed.Results = fromAPITypes(f.ParamTypes()), fromAPITypes(f.ResultTypes())
		}
		m.exports = append(m.exports, ed)
	}
	return m
}

// Close removes the module from the engine's cache and releases its compiled code once its live
// instances are gone (they keep working). Compiling the same bytes again compiles them anew. A
// long-running embedder that loads many different plugins closes the ones it unloads.
func (m *Module) Close(ctx context.Context) error {
	e := m.engine
	e.mu.Lock()
	if ent, ok := e.modules[m.key]; ok && ent.mod == m {
		delete(e.modules, m.key)
	}
	e.mu.Unlock()
	return m.compiled.Close(ctx)
}

// Imports lists the module's imports in declaration order (functions first), without the engine's
// own fuel import.
func (m *Module) Imports() []ImportDesc { return m.imports }

// Exports lists the module's exports in declaration order.
func (m *Module) Exports() []ExportDesc { return m.exports }

// CustomSection returns the contents of the first custom section with the given name.
func (m *Module) CustomSection(name string) ([]byte, bool) {
	for _, cs := range m.compiled.CustomSections() {
		if cs.Name() == name {
			return cs.Data(), true
		}
	}
	return nil, false
}
