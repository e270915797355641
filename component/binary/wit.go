package binary

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// WIT renders the component's imports and exports as WIT text: a world named root in package
// root:component, followed by one package block per WIT package whose interfaces the component
// imports or exports, with every interface's types, resources and functions defined inline.
//
// Decoded types are structural, so names come from the type exports of each instance type (a
// record exported as "point" prints as point wherever the same type is used). A type the
// component uses without naming it is given a made-up name (type-1, …) and defined where it is
// used. A resource shared between interfaces, or between an interface and the world, is defined
// in the first interface that exports it and brought into the others by `use`. Imports and
// exports that WIT cannot express (core modules, components, values, instances nested in
// instances) are listed as comments.
func (c *Component) WIT() string {
	if c == nil || c.Type == nil {
		return ""
	}
	return WorldWIT(c.Type)
}

// WorldWIT renders a component type as WIT; see Component.WIT.
func WorldWIT(ct *ComponentType) string {
	p := newWITPrinter()
	p.index(ct.Imports)
	p.index(ct.Exports)
	rootTypes := p.rootTypes(ct.Imports)

	var w strings.Builder
	w.WriteString("package root:component;\n\nworld root {\n")
	world := p.newScope("", nil)
	var body strings.Builder
	p.worldDecls(world, &body, ct.Imports, "import")
	p.worldDecls(world, &body, ct.Exports, "export")
	w.WriteString(world.header("  "))
	w.WriteString(body.String())
	w.WriteString("}\n")
	if rootTypes != nil {
		w.WriteString("\n" + p.interfaceText(rootTypes, ""))
	}

	for _, pkg := range p.pkgOrder {
		w.WriteString("\npackage " + pkg + " {\n")
		for i, iface := range p.pkgs[pkg] {
			if i > 0 {
				w.WriteByte('\n')
			}
			w.WriteString(p.interfaceText(iface, "  "))
		}
		w.WriteString("}\n")
	}
	return w.String()
}

// owner says where a named type is defined: an interface (full name, its package and its own
// name) and the type's name there.
type owner struct {
	iface *witInterface
	name  string
}

type witInterface struct {
	full    string // ns:pkg/iface@version
	pkg     string // ns:pkg@version
	name    string // iface
	decls   []ExternDecl
	printed bool
}

type witPrinter struct {
	pkgs      map[string][]*witInterface
	pkgOrder  []string
	ifaces    map[string]*witInterface
	types     map[Type]owner      // value types by identity
	resources map[*Resource]owner // resources by identity
	anon      int
}

func newWITPrinter() *witPrinter {
	return &witPrinter{pkgs: map[string][]*witInterface{}, ifaces: map[string]*witInterface{},
		types: map[Type]owner{}, resources: map[*Resource]owner{}}
}

// index records every interface-named instance and the types it defines, so that later scopes
// can `use` them. The first interface to export a type or resource owns it.
func (p *witPrinter) index(ds []ExternDecl) {
	for _, d := range ds {
		if d.Type.Sort != SortInstance || d.Name.Kind != NameInterface {
			continue
		}
		full := d.Name.Unversioned()
		if d.Name.Version != "" {
			full += "@" + d.Name.Version
		}
		if _, dup := p.ifaces[full]; dup {
			continue
		}
		pkg := d.Name.Namespace + ":" + d.Name.Package
		if d.Name.Version != "" {
			pkg += "@" + d.Name.Version
		}
		wi := &witInterface{full: full, pkg: pkg, name: d.Name.Interface, decls: d.Type.Instance.Exports}
		p.ifaces[full] = wi
		if _, ok := p.pkgs[pkg]; !ok {
			p.pkgOrder = append(p.pkgOrder, pkg)
		}
		p.pkgs[pkg] = append(p.pkgs[pkg], wi)
		for _, e := range wi.decls {
			if e.Type.Sort != SortType || e.Name.Kind != NameLabel {
				continue
			}
			o := owner{wi, e.Name.Label}
			if rt, ok := e.Type.Type.(*ResourceType); ok {
				if _, seen := p.resources[rt.Resource]; !seen {
					p.resources[rt.Resource] = o
				}
				continue
			}
			if _, prim := e.Type.Type.(PrimType); prim {
				continue
			}
			if _, seen := p.types[e.Type.Type]; !seen {
				p.types[e.Type.Type] = o
			}
		}
	}
}

// rootTypesName is the interface that holds the types a component imports at its root.
const rootTypesName = "root-types"

// rootTypes gathers the types the component imports at its root, rather than through an
// interface, into an interface of the root package. WIT needs that: a world's own type
// definitions are invisible to the inline interfaces of its imports, which may use them, while an
// interface's types can be brought anywhere with use. Exported root types stay in the world.
func (p *witPrinter) rootTypes(imports []ExternDecl) *witInterface {
	var decls []ExternDecl
	for _, d := range imports {
		if d.Type.Sort != SortType || d.Name.Kind != NameLabel {
			continue
		}
		if rt, ok := d.Type.Type.(*ResourceType); ok {
			if _, owned := p.resources[rt.Resource]; owned {
				continue
			}
		} else if _, owned := p.types[d.Type.Type]; owned {
			continue
		}
		decls = append(decls, d)
	}
	if len(decls) == 0 {
		return nil
	}
	wi := &witInterface{full: rootTypesName, pkg: "root:component", name: rootTypesName, decls: decls}
	for _, e := range decls {
		o := owner{wi, e.Name.Label}
		if rt, ok := e.Type.Type.(*ResourceType); ok {
			if _, seen := p.resources[rt.Resource]; !seen {
				p.resources[rt.Resource] = o
			}
		} else if _, prim := e.Type.Type.(PrimType); !prim {
			if _, seen := p.types[e.Type.Type]; !seen {
				p.types[e.Type.Type] = o
			}
		}
	}
	return wi
}

// witScope is an interface or world body being printed: the names visible in it, the `use`
// lines it needs and the definitions made up for anonymous types.
type witScope struct {
	iface     *witInterface // nil for the world and inline interfaces
	names     map[Type]string
	resNames  map[*Resource]string
	keyNames  map[string]string
	uses      map[string][]string // interface path -> "name" or "orig as name"
	useOrder  []string
	synthetic []string
	taken     map[string]bool
}

func (p *witPrinter) newScope(_ string, iface *witInterface) *witScope {
	return &witScope{iface: iface, names: map[Type]string{}, resNames: map[*Resource]string{},
		keyNames: map[string]string{}, uses: map[string][]string{}, taken: map[string]bool{}}
}

// usePath is how scope s refers to interface wi in a use statement.
func (s *witScope) usePath(wi *witInterface) string {
	if s.iface != nil && s.iface.pkg == wi.pkg {
		return witIdent(wi.name)
	}
	return wi.full
}

func (s *witScope) addUse(wi *witInterface, orig, local string) {
	path := s.usePath(wi)
	item := witIdent(orig)
	if orig != local {
		item += " as " + witIdent(local)
	}
	if _, ok := s.uses[path]; !ok {
		s.useOrder = append(s.useOrder, path)
	}
	for _, x := range s.uses[path] {
		if x == item {
			return
		}
	}
	s.uses[path] = append(s.uses[path], item)
	s.taken[local] = true
}

// header returns the scope's use lines and made-up definitions.
func (s *witScope) header(ind string) string {
	var b strings.Builder
	for _, path := range s.useOrder {
		b.WriteString(ind + "use " + path + ".{" + strings.Join(s.uses[path], ", ") + "};\n")
	}
	for _, d := range s.synthetic {
		b.WriteString(indent(d, ind))
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

func indent(text, ind string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l != "\n" {
			b.WriteString(ind)
		}
		b.WriteString(l)
	}
	return b.String()
}

// bind makes the type export named name of decl visible in s: defined there (returning its
// definition text) or, when another interface owns it, brought in with use (returning "").
func (p *witPrinter) bind(s *witScope, name string, t Type) (def string) {
	if rt, ok := t.(*ResourceType); ok {
		if o, ok := p.resources[rt.Resource]; ok && o.iface != s.iface {
			s.addUse(o.iface, o.name, name)
			s.resNames[rt.Resource] = name
			return ""
		}
		if _, seen := s.resNames[rt.Resource]; !seen {
			s.resNames[rt.Resource] = name
		}
		s.taken[name] = true
		return "resource"
	}
	vt, ok := t.(ValType)
	if !ok {
		return ""
	}
	if o, ok := p.types[t]; ok && o.iface != s.iface {
		s.addUse(o.iface, o.name, name)
		s.names[t] = name
		return ""
	}
	def = p.typeDef(s, name, vt)
	if _, seen := s.names[t]; !seen {
		s.names[t] = name
	}
	if _, prim := t.(PrimType); !prim {
		if k := typeKey(vt); s.keyNames[k] == "" {
			s.keyNames[k] = name
		}
	}
	s.taken[name] = true
	return def
}

// typeDef renders the definition of the named value type t.
func (p *witPrinter) typeDef(s *witScope, name string, t ValType) string {
	id := witIdent(name)
	var b strings.Builder
	switch t := t.(type) {
	case *RecordType:
		b.WriteString("record " + id + " {\n")
		for _, f := range t.Fields {
			b.WriteString("  " + witIdent(f.Name) + ": " + p.ref(s, f.Type) + ",\n")
		}
		b.WriteString("}\n")
	case *VariantType:
		b.WriteString("variant " + id + " {\n")
		for _, c := range t.Cases {
			b.WriteString("  " + witIdent(c.Name))
			if c.Type != nil {
				b.WriteString("(" + p.ref(s, c.Type) + ")")
			}
			b.WriteString(",\n")
		}
		b.WriteString("}\n")
	case *EnumType:
		b.WriteString("enum " + id + " {\n")
		for _, n := range t.Names {
			b.WriteString("  " + witIdent(n) + ",\n")
		}
		b.WriteString("}\n")
	case *FlagsType:
		b.WriteString("flags " + id + " {\n")
		for _, n := range t.Names {
			b.WriteString("  " + witIdent(n) + ",\n")
		}
		b.WriteString("}\n")
	default:
		b.WriteString("type " + id + " = " + p.ref(s, t) + ";\n")
	}
	return b.String()
}

// ref renders a reference to value type t inside scope s.
func (p *witPrinter) ref(s *witScope, t ValType) string {
	if t == nil {
		return "_"
	}
	if pt, ok := t.(PrimType); ok {
		return pt.String()
	}
	if n, ok := s.names[t]; ok {
		return witIdent(n)
	}
	switch t := t.(type) {
	case *ListType:
		return "list<" + p.ref(s, t.Elem) + ">"
	case *OptionType:
		return "option<" + p.ref(s, t.Elem) + ">"
	case *TupleType:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = p.ref(s, e)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case *ResultType:
		switch {
		case t.OK == nil && t.Err == nil:
			return "result"
		case t.Err == nil:
			return "result<" + p.ref(s, t.OK) + ">"
		}
		return "result<" + p.ref(s, t.OK) + ", " + p.ref(s, t.Err) + ">"
	case *OwnType:
		return p.resourceRef(s, t.Resource)
	case *BorrowType:
		return "borrow<" + p.resourceRef(s, t.Resource) + ">"
	}
	// A record, variant, enum or flags type: WIT needs a name for it.
	k := typeKey(t)
	if n := s.keyNames[k]; n != "" {
		return witIdent(n)
	}
	if o, ok := p.types[t]; ok && o.iface != s.iface && o.iface != nil {
		local := s.freshName(o.name)
		s.addUse(o.iface, o.name, local)
		s.names[t] = local
		return witIdent(local)
	}
	p.anon++
	name := s.freshName("type-" + strconv.Itoa(p.anon))
	s.names[t] = name
	s.keyNames[k] = name
	s.synthetic = append(s.synthetic, p.typeDef(s, name, t))
	return witIdent(name)
}

func (s *witScope) freshName(base string) string {
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	s.taken[name] = true
	return name
}

func (p *witPrinter) resourceRef(s *witScope, rt *ResourceType) string {
	if n, ok := s.resNames[rt.Resource]; ok {
		return witIdent(n)
	}
	if o, ok := p.resources[rt.Resource]; ok && o.iface != s.iface {
		local := s.freshName(o.name)
		s.addUse(o.iface, o.name, local)
		s.resNames[rt.Resource] = local
		return witIdent(local)
	}
	// A resource nothing names: only an invalid component could get here, as validation checks
	// that the resources functions use are imported or exported.
	base := rt.Resource.Name
	if checkWITLabel(base) != nil {
		base = "resource"
	}
	return witIdent(base)
}

// funcText renders "name: func(…) -> …;" or, for resource functions, their WIT forms.
func (p *witPrinter) funcText(s *witScope, n Name, ft *FuncType) string {
	params := ft.Params
	var head string
	switch n.Kind {
	case NameConstructor:
		head = "constructor"
	case NameMethod:
		head = witIdent(n.Member) + ": func"
		if len(params) > 0 {
			params = params[1:]
		}
	case NameStatic:
		head = witIdent(n.Member) + ": static func"
	default:
		head = witIdent(n.Label) + ": func"
	}
	var b strings.Builder
	b.WriteString(head + "(")
	for i, pm := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(witIdent(pm.Name) + ": " + p.ref(s, pm.Type))
	}
	b.WriteString(")")
	if ft.Result != nil && !(n.Kind == NameConstructor && isOwnOf(ft.Result, n.Label, s)) {
		b.WriteString(" -> " + p.ref(s, ft.Result))
	}
	b.WriteString(";\n")
	return b.String()
}

// isOwnOf reports whether t is own<R> for the resource named label in s (a constructor's
// implicit result).
func isOwnOf(t ValType, label string, s *witScope) bool {
	o, ok := t.(*OwnType)
	return ok && s.resNames[o.Resource.Resource] == label
}

// body renders the items of an interface (or inline interface) in declaration order, with the
// functions of each resource gathered into its resource block.
func (p *witPrinter) body(s *witScope, decls []ExternDecl, ind string) string {
	resFuncs := map[string][]string{}
	defined := map[string]bool{}
	var items []func() string
	for _, d := range decls {
		d := d
		switch d.Type.Sort {
		case SortType:
			if d.Name.Kind != NameLabel {
				continue
			}
			def := p.bind(s, d.Name.Label, d.Type.Type)
			switch def {
			case "":
			case "resource":
				name := d.Name.Label
				defined[name] = true
				items = append(items, func() string {
					fs := resFuncs[name]
					if len(fs) == 0 {
						return "resource " + witIdent(name) + ";\n"
					}
					return "resource " + witIdent(name) + " {\n" + indent(strings.Join(fs, ""), "  ") + "}\n"
				})
			default:
				items = append(items, func() string { return def })
			}
		case SortFunc:
			text := p.funcText(s, d.Name, d.Type.Func)
			switch d.Name.Kind {
			case NameConstructor, NameMethod, NameStatic:
				if resourceDeclared(decls, d.Name.Label) {
					resFuncs[d.Name.Label] = append(resFuncs[d.Name.Label], text)
					continue
				}
			}
			items = append(items, func() string { return text })
		default:
			items = append(items, func() string {
				return fmt.Sprintf("// %s: %s (not expressible in WIT)\n", d.Name.Raw, d.Type.Sort)
			})
		}
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString(indent(it(), ind))
	}
	// Functions of a resource this scope only uses (which valid components do not have) are
	// kept, as comments, rather than lost.
	var orphans []string
	for name, fs := range resFuncs {
		if !defined[name] {
			for _, f := range fs {
				orphans = append(orphans, "// resource "+name+": "+f)
			}
		}
	}
	sort.Strings(orphans)
	for _, o := range orphans {
		b.WriteString(ind + o)
	}
	return s.header(ind) + b.String()
}

func resourceDeclared(decls []ExternDecl, label string) bool {
	for _, d := range decls {
		if d.Type.Sort == SortType && d.Name.Kind == NameLabel && d.Name.Label == label {
			_, ok := d.Type.Type.(*ResourceType)
			return ok
		}
	}
	return false
}

func (p *witPrinter) interfaceText(wi *witInterface, ind string) string {
	s := p.newScope(wi.full, wi)
	return ind + "interface " + witIdent(wi.name) + " {\n" + p.body(s, wi.decls, ind+"  ") + ind + "}\n"
}

// worldDecls renders the world's imports (dir "import") or exports ("export").
func (p *witPrinter) worldDecls(world *witScope, b *strings.Builder, ds []ExternDecl, dir string) {
	const ind = "  "
	for _, d := range ds {
		switch {
		case d.Type.Sort == SortInstance && d.Name.Kind == NameInterface:
			b.WriteString(ind + dir + " " + d.Name.Raw + ";\n")
		case d.Type.Sort == SortInstance:
			s := p.newScope("", nil)
			b.WriteString(ind + dir + " " + witIdent(d.Name.Label) + ": interface {\n")
			b.WriteString(p.body(s, d.Type.Instance.Exports, ind+"  "))
			b.WriteString(ind + "}\n")
		case d.Type.Sort == SortFunc && d.Name.Kind == NameLabel:
			b.WriteString(ind + dir + " " + p.funcText(world, d.Name, d.Type.Func))
		case d.Type.Sort == SortFunc:
			// A root resource function ([method]r.f): WIT has no world-level spelling for the
			// export direction, so it is shown as a comment with its signature.
			b.WriteString(ind + "// " + dir + " " + d.Name.Raw + ": " + strings.TrimSuffix(p.funcText(world, d.Name, d.Type.Func), "\n") + "\n")
		case d.Type.Sort == SortType && d.Name.Kind == NameLabel && world.taken[d.Name.Label]:
			// An export of a type the world already has under this name (a resource imported
			// and re-exported): WIT names it once.
			fmt.Fprintf(b, "%s// %s type %s\n", ind, dir, witIdent(d.Name.Label))
		case d.Type.Sort == SortType && d.Name.Kind == NameLabel:
			switch def := p.bind(world, d.Name.Label, d.Type.Type); def {
			case "":
			case "resource":
				b.WriteString(ind + "resource " + witIdent(d.Name.Label) + ";\n")
			default:
				b.WriteString(indent(def, ind))
			}
		default:
			fmt.Fprintf(b, "%s// %s %s: %s (not expressible in WIT)\n", ind, dir, d.Name.Raw, d.Type.Sort)
		}
	}
}

// typeKey renders t completely, resources by identity, so that structurally equal types get
// equal keys.
func typeKey(t ValType) string {
	var b strings.Builder
	writeTypeKey(&b, t)
	return b.String()
}

func writeTypeKey(b *strings.Builder, t ValType) {
	if t == nil {
		b.WriteByte('_')
		return
	}
	switch t := t.(type) {
	case PrimType:
		b.WriteString(t.String())
	case *RecordType:
		b.WriteString("record{")
		for _, f := range t.Fields {
			b.WriteString(f.Name + ":")
			writeTypeKey(b, f.Type)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case *VariantType:
		b.WriteString("variant{")
		for _, c := range t.Cases {
			b.WriteString(c.Name + "(")
			writeTypeKey(b, c.Type)
			b.WriteString("),")
		}
		b.WriteByte('}')
	case *ListType:
		b.WriteString("list<")
		writeTypeKey(b, t.Elem)
		b.WriteByte('>')
	case *TupleType:
		b.WriteString("tuple<")
		for _, e := range t.Elems {
			writeTypeKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte('>')
	case *FlagsType:
		b.WriteString("flags{" + strings.Join(t.Names, ",") + "}")
	case *EnumType:
		b.WriteString("enum{" + strings.Join(t.Names, ",") + "}")
	case *OptionType:
		b.WriteString("option<")
		writeTypeKey(b, t.Elem)
		b.WriteByte('>')
	case *ResultType:
		b.WriteString("result<")
		writeTypeKey(b, t.OK)
		b.WriteByte(',')
		writeTypeKey(b, t.Err)
		b.WriteByte('>')
	case *OwnType:
		fmt.Fprintf(b, "own<%p>", t.Resource.Resource)
	case *BorrowType:
		fmt.Fprintf(b, "borrow<%p>", t.Resource.Resource)
	default:
		fmt.Fprintf(b, "%T", t)
	}
}

// witKeywords are the WIT keywords; identifiers spelled like one are written with '%'.
var witKeywords = map[string]bool{
	"as": true, "async": true, "bool": true, "borrow": true, "char": true, "constructor": true,
	"enum": true, "export": true, "f32": true, "f64": true, "flags": true, "float32": true,
	"float64": true, "func": true, "future": true, "import": true, "include": true, "interface": true,
	"list": true, "option": true, "own": true, "package": true, "record": true, "resource": true,
	"result": true, "s16": true, "s32": true, "s64": true, "s8": true, "static": true, "stream": true,
	"string": true, "tuple": true, "type": true, "u16": true, "u32": true, "u64": true, "u8": true,
	"use": true, "variant": true, "with": true, "world": true, "from": true, "error-context": true,
}

func witIdent(s string) string {
	if witKeywords[s] {
		return "%" + s
	}
	return s
}

func checkWITLabel(s string) error {
	if s == "" {
		return fmt.Errorf("empty")
	}
	_, err := ParseName(s)
	return err
}
