package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/internal/wasm"
)

// emptyModuleName is the import module name the rewrite gives imports whose module name is empty
// (valid core wasm, but wazero links no module by that name). Module.Imports and the Imports a
// store resolves keep the empty name; only wazero sees this one.
const emptyModuleName = "kobako:empty"

// Module is a compiled, metered core module. It is immutable and safe for concurrent use; instantiate
// it in any number of stores.
//
// It keeps only what instantiation needs beside wazero's compiled code (memory and table minima,
// whether there is a start function, the direct exports' entry charges): not the decoded module,
// which aliases the input bytes, nor the rewritten bytes, so a compiled module costs the Go heap
// little more than wazero's own compiled form.
type Module struct {
	engine   *Engine
	memories []wasm.MemoryType // defined memories
	tables   []wasm.TableType  // defined tables, with the maxima Instrument wrote
	// declaredTables are the defined tables as the module declared them, before the rewrite.
	declaredTables []wasm.TableType
	// src is the module's binary, kept so that a variant for another table limit or for
	// unmetered stores can be compiled; set on the module Compile returns, nil on variants.
	src []byte
	// limitDependent says that the metering rewrite depends on the table limit (a table may grow
	// past its minimum), so that other limits need variants.
	limitDependent bool
	// unmetered says that the module was compiled for unmetered stores (see Unmetered).
	unmetered bool
	hasStart  bool
	// entryCharges is wasm.Module.EntryCharges: the fuel a host call charges before calling an
	// export through its direct export.
	entryCharges map[string]int64
	compiled     wazero.CompiledModule
	tableMax     uint32 // the table element limit written into the module's tables
	key          moduleKey
	// base is the module Compile returned when this is a variant for another table limit;
	// variants lists a base module's variants. Both are guarded by the engine's mutex.
	base     *Module
	variants []*Module
	imports  []ImportDesc
	exports  []ExportDesc
	// renamedEmpty says that the module imports from the empty module name, which wazero sees as
	// emptyModuleName.
	renamedEmpty bool
	// image, set on a restored module (see capture.RestoreFrom), is the contents of its one defined
	// memory, which the store's allocator writes into each new memory of the module.
	image *memoryImage
	// closed is set once the module's compiled code is released; a store refuses to
	// instantiate it from then on.
	closed atomic.Bool
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

// ExternKind is the kind of an import or export, encoded as in the binary format. It is
// abi.CoreExternKind, the module's one definition of core extern kinds.
type ExternKind = abi.CoreExternKind

// The extern kinds.
const (
	ExternFunc   = abi.CoreExternFunc
	ExternTable  = abi.CoreExternTable
	ExternMemory = abi.CoreExternMemory
	ExternGlobal = abi.CoreExternGlobal
)

func newModule(e *Engine, p *prepared, cm wazero.CompiledModule) (*Module, error) {
	m := &Module{engine: e, compiled: cm, tableMax: p.tableMax,
		memories: p.memories, tables: p.tables, declaredTables: p.declaredTables,
		hasStart: p.hasStart, entryCharges: p.entryCharges}
	for _, im := range p.imports {
		m.renamedEmpty = m.renamedEmpty || im.Module == ""
	}
	for _, im := range cm.ImportedFunctions() {
		mod, name, _ := im.Import()
		if mod == fuelModuleName {
			continue
		}
		if mod == emptyModuleName && m.renamedEmpty {
			mod = ""
		}
		m.imports = append(m.imports, ImportDesc{Module: mod, Name: name, Kind: ExternFunc,
			Params: fromAPITypes(im.ParamTypes()), Results: fromAPITypes(im.ResultTypes())})
	}
	nFunc := len(m.imports)
	for _, im := range p.imports {
		if im.Kind == ExternFunc {
			nFunc--
			continue
		}
		m.imports = append(m.imports, ImportDesc{Module: im.Module, Name: im.Name, Kind: im.Kind})
	}
	if nFunc != 0 {
		// Only a prepared module read from a cache could disagree with its own binary.
		return nil, fmt.Errorf("engine: compile: %w: the prepared module's function imports differ from the compiled module's", ErrInvalidModule)
	}
	fns := cm.ExportedFunctions()
	for _, ex := range p.exports {
		ed := ExportDesc{Name: ex.Name, Kind: ex.Kind}
		if ed.Kind == ExternFunc {
			f, ok := fns[ex.Name]
			if !ok {
				return nil, fmt.Errorf("engine: compile: %w: the prepared module's function export %q is not in the compiled module", ErrInvalidModule, ex.Name)
			}
			ed.Params, ed.Results = fromAPITypes(f.ParamTypes()), fromAPITypes(f.ResultTypes())
		}
		m.exports = append(m.exports, ed)
	}
	return m, nil
}

// setImage makes img the initial contents of the module's memory; nil leaves them to the data
// segments. The module must define exactly one memory, of the image's size.
func (m *Module) setImage(img *memoryImage) error {
	if img == nil {
		return nil
	}
	if len(m.memories) != 1 || m.memories[0].Min*wasmPage != img.size {
		_ = m.compiled.Close(context.Background())
		return fmt.Errorf("engine: BUG: a memory image of %d bytes for a module with memories %+v", img.size, m.memories)
	}
	m.image = img
	return nil
}

// Close gives back the reference to m that a Compile returning it took: compiling the same
// bytes again returns the same *Module, so each Compile call is matched by one Close. The last
// Close removes the module from the engine's cache and releases its compiled code (and that of
// its variants for other table limits); compiling the same bytes again then compiles them anew.
// A long-running embedder that loads many different plugins closes the ones it unloads.
//
// Instances made before the last Close keep working, as with wazero's CompiledModule.Close;
// instantiating a released module fails with ErrClosed. Closing a released module does nothing.
func (m *Module) Close(ctx context.Context) error {
	e := m.engine
	e.mu.Lock()
	if m.closed.Load() {
		e.mu.Unlock()
		return nil
	}
	if ent, ok := e.modules[m.key]; ok && ent.mod == m {
		if ent.refs--; ent.refs > 0 {
			e.mu.Unlock()
			return nil
		}
	}
	all := append([]*Module{m}, m.variants...)
	m.variants = nil
	for _, v := range all {
		v.closed.Store(true)
		if ent, ok := e.modules[v.key]; ok && ent.mod == v {
			delete(e.modules, v.key)
		}
	}
	e.mu.Unlock()
	for _, v := range all[1:] {
		_ = v.compiled.Close(ctx)
	}
	return m.compiled.Close(ctx)
}

// servesTableLimit reports whether the module, compiled for tables of at most m.tableMax
// elements, is what compiling it for limit would give: the same maximum written into every
// table it defines.
func (m *Module) servesTableLimit(limit uint32) bool {
	if limit == m.tableMax {
		return true
	}
	for _, t := range m.declaredTables {
		if !t.HasMax || t.Max > min(limit, m.tableMax) {
			return false
		}
	}
	return true
}

// Imports lists the module's imports in declaration order (functions first), without the engine's
// own fuel import.
func (m *Module) Imports() []ImportDesc { return m.imports }

// Exports lists the module's exports in declaration order.
func (m *Module) Exports() []ExportDesc { return m.exports }

// CustomSection returns the contents of the first custom section with the given name. Custom
// sections without contents that end the module are not kept: wazero refuses a module that ends
// with one, so the engine compiles it without them (Inspect still lists them).
func (m *Module) CustomSection(name string) ([]byte, bool) {
	for _, cs := range m.compiled.CustomSections() {
		if cs.Name() == name {
			return cs.Data(), true
		}
	}
	return nil, false
}

// compiledModules returns the number of compiled modules the engine holds: every module a
// Compile returned and no last Close released yet, each variant for another table limit and
// every snapshot's restored module counted once; host modules and the engine's own are not.
// Tests watch it (through enginehook.Hooks.CompiledModules) to see that unloaded plugins give
// their code back.
func (e *Engine) compiledModules() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.modules)
}
