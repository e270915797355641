package binary

import "fmt"

// scopeKind is the kind of scope that definitions or declarators are validated in. Outer aliases
// count these scopes.
type scopeKind uint8

const (
	kindComponent scopeKind = iota
	kindComponentType
	kindInstanceType
)

// decoder is the state shared by every scope of one Decode call.
type decoder struct {
	work     int // type comparison and substitution steps
	nodes    int // type nodes allocated by substitution
	maxNodes int
}

// spend charges n steps of type-checking work.
func (d *decoder) spend(n int) error {
	d.work += n
	if d.work > maxWork {
		return errf(ErrLimit, "type checking needs more than %d steps", maxWork)
	}
	return nil
}

// alloc charges n type nodes created by substitution.
func (d *decoder) alloc(n int) error {
	d.nodes += n
	if d.nodes > d.maxNodes {
		return errf(ErrLimit, "type substitution creates more than %d type nodes", d.maxNodes)
	}
	return nil
}

// nameContext records the resources named by the imports (or exports) of one scope, for the
// [constructor], [method] and [static] name rules.
type nameContext struct {
	byNode map[*ResourceType]string
	names  map[string]bool
}

func (n *nameContext) register(node *ResourceType, name string) {
	if n.byNode == nil {
		n.byNode = map[*ResourceType]string{}
		n.names = map[string]bool{}
	}
	if _, ok := n.byNode[node]; !ok {
		n.byNode[node] = name
	}
	n.names[name] = true
}

// scope is the validation state of a component, component type or instance type: its index
// spaces (kept in a Component, a scratch one for type scopes) and the bookkeeping of names and
// resources.
type scope struct {
	kind   scopeKind
	parent *scope
	d      *decoder
	c      *Component
	depth  int

	importNames, exportNames map[string]string // uniqueKey → raw name
	importRes, exportRes     nameContext
	// importedNamed and exportedNamed are the types that have a name visible outside
	// (Explainer.md, "External Visibility of Types").
	importedNamed, exportedNamed map[Type]bool

	imported []resourcePath // abstract resources introduced by imports
	defined  []resourcePath // resources this scope defines (see ComponentType.defined)

	// for type scopes: the declarations being built
	imports, exports []ExternDecl

	valueUsed []bool
	hasStart  bool
	// bag is set for the scope that checks the names of an instance built from exports, whose
	// type exports name no resource (the bundle introduces no indices).
	bag bool
}

func newScope(kind scopeKind, parent *scope, d *decoder) (*scope, error) {
	s := &scope{kind: kind, parent: parent, d: d, c: &Component{}}
	if kind != kindInstanceType {
		// instance types do not check the external visibility of types
		s.importedNamed, s.exportedNamed = map[Type]bool{}, map[Type]bool{}
	}
	if parent != nil {
		s.depth = parent.depth + 1
	}
	if s.depth > MaxNesting {
		return nil, errf(ErrLimit, "components and types nest more than %d levels deep", MaxNesting)
	}
	return s, nil
}

func (s *scope) inType() bool { return s.kind != kindComponent }

// outOfRange formats the error for an index beyond its index space.
func outOfRange(what string, idx uint32, n int) error {
	return errf(ErrInvalid, "%s index %d out of range (%d defined)", what, idx, n)
}

func (s *scope) coreFunc(i uint32) (*CoreFuncType, error) {
	if int64(i) >= int64(len(s.c.CoreFuncs)) {
		return nil, outOfRange("core func", i, len(s.c.CoreFuncs))
	}
	return s.c.CoreFuncs[i].Type, nil
}

func (s *scope) coreMemory(i uint32) (CoreMemoryType, error) {
	if int64(i) >= int64(len(s.c.CoreMemories)) {
		return CoreMemoryType{}, outOfRange("core memory", i, len(s.c.CoreMemories))
	}
	return s.c.CoreMemories[i].Type, nil
}

func (s *scope) coreType(i uint32) (CoreType, error) {
	if int64(i) >= int64(len(s.c.CoreTypes)) {
		return nil, outOfRange("core type", i, len(s.c.CoreTypes))
	}
	return s.c.CoreTypes[i].Type, nil
}

func (s *scope) coreModule(i uint32) (*ModuleType, error) {
	if int64(i) >= int64(len(s.c.CoreModules)) {
		return nil, outOfRange("core module", i, len(s.c.CoreModules))
	}
	return s.c.CoreModules[i].Type, nil
}

func (s *scope) coreInstance(i uint32) (*CoreInstanceType, error) {
	if int64(i) >= int64(len(s.c.CoreInstances)) {
		return nil, outOfRange("core instance", i, len(s.c.CoreInstances))
	}
	return s.c.CoreInstances[i].Type, nil
}

func (s *scope) fn(i uint32) (*FuncType, error) {
	if int64(i) >= int64(len(s.c.Funcs)) {
		return nil, outOfRange("func", i, len(s.c.Funcs))
	}
	return s.c.Funcs[i].Type, nil
}

func (s *scope) typ(i uint32) (Type, error) {
	if int64(i) >= int64(len(s.c.Types)) {
		return nil, outOfRange("type", i, len(s.c.Types))
	}
	return s.c.Types[i].Type, nil
}

func (s *scope) instance(i uint32) (*InstanceType, error) {
	if int64(i) >= int64(len(s.c.Instances)) {
		return nil, outOfRange("instance", i, len(s.c.Instances))
	}
	return s.c.Instances[i].Type, nil
}

func (s *scope) component(i uint32) (*ComponentType, error) {
	if int64(i) >= int64(len(s.c.Components)) {
		return nil, outOfRange("component", i, len(s.c.Components))
	}
	return s.c.Components[i].Type, nil
}

func (s *scope) value(i uint32) (ValType, error) {
	if int64(i) >= int64(len(s.c.Values)) {
		return nil, outOfRange("value", i, len(s.c.Values))
	}
	return s.c.Values[i].Type, nil
}

// typeKind names the kind of a type for messages.
func typeKind(t Type) string {
	switch t.(type) {
	case *FuncType:
		return "func type"
	case *ComponentType:
		return "component type"
	case *InstanceType:
		return "instance type"
	case *ResourceType:
		return "resource type"
	}
	return "value type"
}

func (s *scope) funcType(i uint32) (*FuncType, error) {
	t, err := s.typ(i)
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*FuncType)
	if !ok {
		return nil, errf(ErrInvalid, "type %d is a %s, not a func type", i, typeKind(t))
	}
	return ft, nil
}

func (s *scope) componentType(i uint32) (*ComponentType, error) {
	t, err := s.typ(i)
	if err != nil {
		return nil, err
	}
	ct, ok := t.(*ComponentType)
	if !ok {
		return nil, errf(ErrInvalid, "type %d is a %s, not a component type", i, typeKind(t))
	}
	return ct, nil
}

func (s *scope) instanceType(i uint32) (*InstanceType, error) {
	t, err := s.typ(i)
	if err != nil {
		return nil, err
	}
	it, ok := t.(*InstanceType)
	if !ok {
		return nil, errf(ErrInvalid, "type %d is a %s, not an instance type", i, typeKind(t))
	}
	return it, nil
}

func (s *scope) resourceType(i uint32) (*ResourceType, error) {
	t, err := s.typ(i)
	if err != nil {
		return nil, err
	}
	rt, ok := t.(*ResourceType)
	if !ok {
		return nil, errf(ErrInvalid, "type %d is a %s, not a resource type", i, typeKind(t))
	}
	return rt, nil
}

// valType resolves a decoded valtype: a primitive or the index of a defined value type.
func (s *scope) valType(v rawValType) (ValType, error) {
	if v.prim != 0 {
		return v.prim, nil
	}
	t, err := s.typ(v.index)
	if err != nil {
		return nil, err
	}
	vt, ok := t.(ValType)
	if !ok {
		return nil, errf(ErrInvalid, "type %d is a %s, not a value type", v.index, typeKind(t))
	}
	return vt, nil
}

// externOf returns the type of the item idx of a sort, as it would be imported or exported.
// Core sorts other than module cannot be.
func (s *scope) externOf(sort Sort, idx uint32) (ExternType, error) {
	switch sort {
	case SortCoreModule:
		m, err := s.coreModule(idx)
		return ExternType{Sort: sort, Module: m}, err
	case SortFunc:
		f, err := s.fn(idx)
		return ExternType{Sort: sort, Func: f}, err
	case SortValue:
		return ExternType{}, unsupported("value definitions (🪙)")
	case SortType:
		t, err := s.typ(idx)
		return ExternType{Sort: sort, Type: t}, err
	case SortComponent:
		c, err := s.component(idx)
		return ExternType{Sort: sort, Component: c}, err
	case SortInstance:
		i, err := s.instance(idx)
		return ExternType{Sort: sort, Instance: i}, err
	}
	return ExternType{}, errf(ErrInvalid, "a %s cannot be imported, exported or passed to a component", sort)
}

// addItem appends an item to its index space.
func (s *scope) addItem(def Definition, et ExternType) {
	c := s.c
	switch et.Sort {
	case SortCoreModule:
		c.CoreModules = append(c.CoreModules, Item[*ModuleType]{def, et.Module})
	case SortFunc:
		c.Funcs = append(c.Funcs, Item[*FuncType]{def, et.Func})
	case SortValue:
		c.Values = append(c.Values, Item[ValType]{def, et.Value})
		s.valueUsed = append(s.valueUsed, false)
	case SortType:
		c.Types = append(c.Types, Item[Type]{def, et.Type})
	case SortComponent:
		c.Components = append(c.Components, Item[*ComponentType]{def, et.Component})
	case SortInstance:
		c.Instances = append(c.Instances, Item[*InstanceType]{def, et.Instance})
	default:
		panic(fmt.Sprintf("BUG: addItem of %s", et.Sort))
	}
}

// ancestor returns the scope count levels out (0 is s itself).
func (s *scope) ancestor(count uint32) (*scope, error) {
	t := s
	for i := uint32(0); i < count; i++ {
		if t.parent == nil {
			return nil, errf(ErrInvalid, "outer alias count %d exceeds the %d enclosing scopes", count, s.depth)
		}
		t = t.parent
	}
	return t, nil
}
