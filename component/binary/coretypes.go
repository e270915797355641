package binary

import (
	"fmt"
	"strings"

	"github.com/kobako/kobako/abi"
)

// CoreValType is a core WebAssembly value type, as its byte in the binary format: abi.CoreType,
// the module's one definition, which engine.ValueType also is.
type CoreValType = abi.CoreType

// The core value types kobako's components may use. Typed function references and GC types are
// refused by the decoder.
const (
	CoreI32       = abi.CoreI32
	CoreI64       = abi.CoreI64
	CoreF32       = abi.CoreF32
	CoreF64       = abi.CoreF64
	CoreV128      = abi.CoreV128
	CoreFuncRef   = abi.CoreFuncRef
	CoreExternRef = abi.CoreExternRef
)

// CoreType is an entry of a core type index space: *CoreFuncType or *ModuleType.
type CoreType interface {
	isCoreType()
	String() string
}

// CoreFuncType is a core function signature.
type CoreFuncType struct {
	Params  []CoreValType
	Results []CoreValType
}

func (*CoreFuncType) isCoreType() {}

// String formats the signature like "[i32 i32] -> [i32]".
func (t *CoreFuncType) String() string {
	return "[" + joinCore(t.Params) + "] -> [" + joinCore(t.Results) + "]"
}

func joinCore(ts []CoreValType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, " ")
}

// Equal reports whether two signatures are identical.
func (t *CoreFuncType) Equal(u *CoreFuncType) bool {
	if t == u {
		return true
	}
	if t == nil || u == nil || len(t.Params) != len(u.Params) || len(t.Results) != len(u.Results) {
		return false
	}
	for i := range t.Params {
		if t.Params[i] != u.Params[i] {
			return false
		}
	}
	for i := range t.Results {
		if t.Results[i] != u.Results[i] {
			return false
		}
	}
	return true
}

// CoreTableType is a table's element type and limits.
type CoreTableType struct {
	Elem   CoreValType
	Min    uint64
	Max    uint64 // meaningful only when HasMax
	HasMax bool
	Is64   bool
}

// CoreMemoryType is a memory's limits, in 64 KiB pages.
type CoreMemoryType struct {
	Min    uint64
	Max    uint64 // meaningful only when HasMax
	HasMax bool
	Shared bool
	Is64   bool
}

// CoreGlobalType is a global's value type and mutability.
type CoreGlobalType struct {
	Type    CoreValType
	Mutable bool
}

// CoreExternKind is the kind of a core import or export, with its binary encoding:
// abi.CoreExternKind, the module's one definition, which engine.ExternKind also is.
type CoreExternKind = abi.CoreExternKind

// The core extern kinds.
const (
	CoreExternFunc   = abi.CoreExternFunc
	CoreExternTable  = abi.CoreExternTable
	CoreExternMemory = abi.CoreExternMemory
	CoreExternGlobal = abi.CoreExternGlobal
	CoreExternTag    = abi.CoreExternTag
)

// CoreExternType is the type of a core import or export. The field matching Kind is set.
type CoreExternType struct {
	Kind   CoreExternKind
	Func   *CoreFuncType // CoreExternFunc (and the signature of a CoreExternTag)
	Table  CoreTableType
	Memory CoreMemoryType
	Global CoreGlobalType
}

// String formats the type like the text format, e.g. "func [i32] -> []" or "memory 1".
func (t CoreExternType) String() string {
	switch t.Kind {
	case CoreExternFunc:
		return "func " + t.Func.String()
	case CoreExternTable:
		return fmt.Sprintf("table %s %s", limitsString(t.Table.Min, t.Table.Max, t.Table.HasMax), t.Table.Elem)
	case CoreExternMemory:
		s := "memory "
		if t.Memory.Is64 {
			s += "i64 "
		}
		s += limitsString(t.Memory.Min, t.Memory.Max, t.Memory.HasMax)
		if t.Memory.Shared {
			s += " shared"
		}
		return s
	case CoreExternGlobal:
		if t.Global.Mutable {
			return "global (mut " + t.Global.Type.String() + ")"
		}
		return "global " + t.Global.Type.String()
	case CoreExternTag:
		return "tag " + t.Func.String()
	}
	return t.Kind.String()
}

func limitsString(min, max uint64, hasMax bool) string {
	if hasMax {
		return fmt.Sprintf("%d %d", min, max)
	}
	return fmt.Sprint(min)
}

// CoreImport is an import of a core module (type).
type CoreImport struct {
	Module, Name string
	Type         CoreExternType
}

// CoreExport is an export of a core module or core instance.
type CoreExport struct {
	Name string
	Type CoreExternType
}

// ModuleType is the type of a core module: its imports and exports.
type ModuleType struct {
	Imports []CoreImport
	Exports []CoreExport
	index   map[string]int
}

func (*ModuleType) isCoreType() {}

// String summarises the type.
func (t *ModuleType) String() string {
	return fmt.Sprintf("module (%d imports, %d exports)", len(t.Imports), len(t.Exports))
}

// Export returns the export named name.
func (t *ModuleType) Export(name string) (CoreExport, bool) {
	return lookupCore(t.Exports, t.index, name)
}

// CoreInstanceType is the type of a core instance: its exports.
type CoreInstanceType struct {
	Exports []CoreExport
	index   map[string]int
}

// Export returns the export named name.
func (t *CoreInstanceType) Export(name string) (CoreExport, bool) {
	return lookupCore(t.Exports, t.index, name)
}

// coreExternSubtype reports whether a (what is provided) may be used where b (what is
// required) is expected, following core WebAssembly's import matching.
func coreExternSubtype(a, b CoreExternType) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case CoreExternFunc, CoreExternTag:
		return a.Func.Equal(b.Func)
	case CoreExternTable:
		return a.Table.Elem == b.Table.Elem && a.Table.Is64 == b.Table.Is64 &&
			limitsSubtype(a.Table.Min, a.Table.Max, a.Table.HasMax, b.Table.Min, b.Table.Max, b.Table.HasMax)
	case CoreExternMemory:
		return a.Memory.Shared == b.Memory.Shared && a.Memory.Is64 == b.Memory.Is64 &&
			limitsSubtype(a.Memory.Min, a.Memory.Max, a.Memory.HasMax, b.Memory.Min, b.Memory.Max, b.Memory.HasMax)
	case CoreExternGlobal:
		return a.Global == b.Global
	}
	return false
}

func limitsSubtype(amin, amax uint64, ahas bool, bmin, bmax uint64, bhas bool) bool {
	if amin < bmin {
		return false
	}
	if bhas {
		return ahas && amax <= bmax
	}
	return true
}

// moduleSubtype reports whether module type a may be used where b is expected: a imports no
// more than b provides and exports at least what b exports.
func moduleSubtype(a, b *ModuleType) error {
	if a == b {
		return nil
	}
	bi := make(map[[2]string]CoreExternType, len(b.Imports))
	for _, im := range b.Imports {
		bi[[2]string{im.Module, im.Name}] = im.Type
	}
	for _, im := range a.Imports {
		t, ok := bi[[2]string{im.Module, im.Name}]
		if !ok {
			return fmt.Errorf("module imports %q %q, which the expected type does not provide", im.Module, im.Name)
		}
		if !coreExternSubtype(t, im.Type) {
			return fmt.Errorf("import %q %q: expected `%s`, found `%s`", im.Module, im.Name, t, im.Type)
		}
	}
	for _, ex := range b.Exports {
		got, ok := a.Export(ex.Name)
		if !ok {
			return fmt.Errorf("module has no export %q", ex.Name)
		}
		if !coreExternSubtype(got.Type, ex.Type) {
			return fmt.Errorf("export %q: expected `%s`, found `%s`", ex.Name, ex.Type, got.Type)
		}
	}
	return nil
}

// indexCore builds the export-name index of a module or core instance type.
func indexCore(es []CoreExport) map[string]int {
	m := make(map[string]int, len(es))
	for i, e := range es {
		if _, dup := m[e.Name]; !dup {
			m[e.Name] = i
		}
	}
	return m
}

func lookupCore(es []CoreExport, index map[string]int, name string) (CoreExport, bool) {
	if index == nil {
		for _, e := range es {
			if e.Name == name {
				return e, true
			}
		}
		return CoreExport{}, false
	}
	i, ok := index[name]
	if !ok {
		return CoreExport{}, false
	}
	return es[i], true
}
