package bindgen

import (
	"fmt"
	"strings"

	"go.bytecodealliance.org/wit"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

// goType returns the Go type expression for t, declaring the named types it uses.
func (g *gen) goType(t wit.Type) (string, error) {
	switch x := t.(type) {
	case wit.Bool:
		return "bool", nil
	case wit.S8:
		return "int8", nil
	case wit.U8:
		return "uint8", nil
	case wit.S16:
		return "int16", nil
	case wit.U16:
		return "uint16", nil
	case wit.S32:
		return "int32", nil
	case wit.U32:
		return "uint32", nil
	case wit.S64:
		return "int64", nil
	case wit.U64:
		return "uint64", nil
	case wit.F32:
		return "float32", nil
	case wit.F64:
		return "float64", nil
	case wit.Char:
		return "rune", nil
	case wit.String:
		return "string", nil
	case *wit.TypeDef:
		if x.Name != nil {
			return g.named(x)
		}
		return g.anonymous(x.Kind)
	}
	return "", fmt.Errorf("%w: type %s", ErrUnsupported, witName(t))
}

func witName(t wit.Type) string {
	if t == nil {
		return "<nil>"
	}
	if n := t.TypeName(); n != "" {
		return n
	}
	return fmt.Sprintf("%T", t)
}

// isOption says whether t is an option, through aliases: its Go form is then a pointer, so an
// option of it needs abi.Option to stay unambiguous.
func isOption(t wit.Type) bool {
	for range 64 {
		td, ok := t.(*wit.TypeDef)
		if !ok {
			return false
		}
		switch k := td.Kind.(type) {
		case *wit.Option:
			return true
		case wit.Type:
			t = k
			continue
		}
		return false
	}
	return false
}

// anonymous returns the Go form of an unnamed type constructor.
func (g *gen) anonymous(k wit.TypeDefKind) (string, error) {
	switch x := k.(type) {
	case *wit.Option:
		inner, err := g.goType(x.Type)
		if err != nil {
			return "", err
		}
		if isOption(x.Type) {
			return "abi.Option[" + inner + "]", nil
		}
		return "*" + inner, nil
	case *wit.Result:
		ok, err := g.payload(x.OK)
		if err != nil {
			return "", err
		}
		e, err := g.payload(x.Err)
		if err != nil {
			return "", err
		}
		return "abi.Result[" + ok + ", " + e + "]", nil
	case *wit.List:
		e, err := g.goType(x.Type)
		if err != nil {
			return "", err
		}
		return "[]" + e, nil
	case *wit.Tuple:
		var b strings.Builder
		b.WriteString("struct {")
		for i, t := range x.Types {
			e, err := g.goType(t)
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " F%d %s", i, e)
		}
		b.WriteString(" }")
		return b.String(), nil
	case *wit.Own:
		r, err := g.named(x.Type)
		if err != nil {
			return "", err
		}
		return "abi.Own[" + r + "]", nil
	case *wit.Borrow:
		r, err := g.named(x.Type)
		if err != nil {
			return "", err
		}
		return "abi.Borrow[" + r + "]", nil
	case wit.Type:
		return g.goType(x)
	case *wit.Future:
		return "", fmt.Errorf("%w: future (asynchronous component model)", ErrUnsupported)
	case *wit.Stream:
		return "", fmt.Errorf("%w: stream (asynchronous component model)", ErrUnsupported)
	}
	return "", fmt.Errorf("%w: anonymous %T", ErrUnsupported, k)
}

func (g *gen) payload(t wit.Type) (string, error) {
	if t == nil {
		return "struct{}", nil
	}
	return g.goType(t)
}

// typeKey identifies a named WIT type across graphs: its owner's qualified name and its own.
func typeKey(td *wit.TypeDef) string {
	switch o := td.Owner.(type) {
	case *wit.Interface:
		return "type " + ifaceName(o) + "#" + *td.Name
	case *wit.World:
		return "type " + o.Package.Name.String() + "/" + o.Name + "#" + *td.Name
	}
	return "type #" + *td.Name
}

// named declares named type td (once) and returns its Go name.
func (g *gen) named(td *wit.TypeDef) (string, error) {
	if n, ok := g.typeNames[td]; ok {
		return n, nil
	}
	if td.Name == nil {
		return g.anonymous(td.Kind)
	}
	// A `use` makes a type of the same name in the using interface that stands for the used
	// one: it is the used one, not a second declaration.
	if ref, ok := td.Kind.(*wit.TypeDef); ok && ref.Name != nil && *ref.Name == *td.Name {
		n, err := g.named(ref)
		g.typeNames[td] = n
		return n, err
	}
	key := typeKey(td)
	// Two interfaces may both have a type of one name (error-code in wasi:filesystem/types,
	// wasi:sockets/network and wasi:http/types): the one met later is qualified by its
	// interface, then its package, as far as it takes to be unique.
	var quals []string
	switch o := td.Owner.(type) {
	case *wit.Interface:
		if o.Name != nil {
			quals = qualifiers(o.Package, *o.Name)
		}
	case *wit.World:
		quals = qualifiers(o.Package, o.Name)
	}
	goName := g.claim(key, component.GoName(*td.Name), quals)
	g.typeNames[td] = goName // before the body, for recursion through handles
	src, err := g.declaration(td, goName)
	if err != nil {
		delete(g.typeNames, td)
		return "", fmt.Errorf("type %s: %w", *td.Name, err)
	}
	if err := g.declare(key, goName, src); err != nil {
		return "", err
	}
	return goName, nil
}

func (g *gen) declaration(td *wit.TypeDef, goName string) (string, error) {
	var b strings.Builder
	name := *td.Name
	intro := func(kind string) {
		fmt.Fprintf(&b, "// %s is WIT %s %s.\n", goName, kind, name)
		b.WriteString(docs(td.Docs, "", true))
	}
	switch k := td.Kind.(type) {
	case *wit.Record:
		intro("record")
		fmt.Fprintf(&b, "type %s struct {\n", goName)
		for _, f := range k.Fields {
			t, err := g.goType(f.Type)
			if err != nil {
				return "", fmt.Errorf("field %s: %w", f.Name, err)
			}
			b.WriteString(docs(f.Docs, "\t", false))
			fmt.Fprintf(&b, "\t%s %s `wit:%q`\n", component.GoName(f.Name), t, f.Name)
		}
		b.WriteString("}\n")
	case *wit.Variant:
		intro("variant")
		b.WriteString("//\n// Exactly one field is set: a pointer to the payload of a case that has one, true for one\n// that has none.\n")
		fmt.Fprintf(&b, "type %s struct {\n", goName)
		for _, c := range k.Cases {
			t := "bool"
			if c.Type != nil {
				p, err := g.goType(c.Type)
				if err != nil {
					return "", fmt.Errorf("case %s: %w", c.Name, err)
				}
				t = "*" + p
			}
			b.WriteString(docs(c.Docs, "\t", false))
			fmt.Fprintf(&b, "\t%s %s `wit:%q`\n", component.GoName(c.Name), t, c.Name)
		}
		b.WriteString("}\n")
	case *wit.Enum:
		intro("enum")
		var labels []string
		for _, c := range k.Cases {
			labels = append(labels, c.Name)
		}
		fmt.Fprintf(&b, "type %s %s\n\n// The cases of %s, in WIT order.\nconst (\n", goName, width(enumBits(len(labels))), goName)
		for i, c := range k.Cases {
			b.WriteString(docs(c.Docs, "\t", false))
			if i == 0 {
				fmt.Fprintf(&b, "\t%s%s %s = iota\n", goName, component.GoName(c.Name), goName)
			} else {
				fmt.Fprintf(&b, "\t%s%s\n", goName, component.GoName(c.Name))
			}
		}
		b.WriteString(")\n")
		labelMethods(&b, goName, labels, "case")
	case *wit.Flags:
		intro("flags")
		if len(k.Flags) > 32 {
			return "", fmt.Errorf("%w: flags of %d labels (the typed mapping holds at most 32)", ErrUnsupported, len(k.Flags))
		}
		var labels []string
		for _, f := range k.Flags {
			labels = append(labels, f.Name)
		}
		fmt.Fprintf(&b, "type %s %s\n\n// The flags of %s: bit i is label i.\nconst (\n", goName, width(len(labels)), goName)
		for i, f := range k.Flags {
			b.WriteString(docs(f.Docs, "\t", false))
			fmt.Fprintf(&b, "\t%s%s %s = 1 << %d\n", goName, component.GoName(f.Name), goName, i)
		}
		b.WriteString(")\n")
		labelMethods(&b, goName, labels, "flag")
	case *wit.Resource:
		fmt.Fprintf(&b, "// %s stands for WIT resource %s: handles to it are abi.Own[%s] and abi.Borrow[%s].\n", goName, name, goName, goName)
		b.WriteString(docs(td.Docs, "", true))
		fmt.Fprintf(&b, "type %s struct{}\n\n// ResourceName returns the WIT name of the resource, %q.\nfunc (%s) ResourceName() string { return %q }\n", goName, name, goName, name)
	default:
		// A named list, option, result, tuple, handle or alias: a Go alias of its form, so that
		// values convert freely.
		t, err := g.anonymous(td.Kind)
		if err != nil {
			return "", err
		}
		intro("type")
		fmt.Fprintf(&b, "type %s = %s\n", goName, t)
	}
	return b.String(), nil
}

// width returns the smallest unsigned Go integer of at least bits bits.
func width(bits int) string {
	switch {
	case bits <= 8:
		return "uint8"
	case bits <= 16:
		return "uint16"
	}
	return "uint32"
}

// enumBits is the number of bits that number n cases.
func enumBits(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

func labelMethods(b *strings.Builder, goName string, labels []string, what string) {
	v := strings.ToLower(goName[:1]) + goName[1:] + "Labels"
	fmt.Fprintf(b, "\nvar %s = []string{", v)
	for i, l := range labels {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%q", l)
	}
	b.WriteString("}\n")
	fmt.Fprintf(b, "\n// WITLabels returns the %s names in WIT order (abi.Labeled), so that the typed mapping checks\n// them against the component's.\nfunc (%s) WITLabels() []string { return %s }\n", what, goName, v)
	if what == "case" {
		fmt.Fprintf(b, "\n// String returns the WIT case name.\nfunc (x %s) String() string {\n\tif int(x) < len(%s) {\n\t\treturn %s[x]\n\t}\n\treturn \"%s(?)\"\n}\n", goName, v, v, goName)
	}
}

// ABIType converts a WIT type into the abi type kobako lifts and lowers, for checking Go types
// against WIT (abi.NewCodec). A resource becomes a fresh abi.ResourceType of its name.
func ABIType(t wit.Type) (abi.Type, error) {
	return (&abiConv{res: map[*wit.TypeDef]*abi.ResourceType{}}).typ(t)
}

// ABIFunc converts a WIT function's type (see ABIType).
func ABIFunc(f *wit.Function) (*abi.FuncType, error) {
	c := &abiConv{res: map[*wit.TypeDef]*abi.ResourceType{}}
	var ps []abi.Param
	for _, p := range f.Params {
		t, err := c.typ(p.Type)
		if err != nil {
			return nil, fmt.Errorf("%s parameter %s: %w", f.Name, p.Name, err)
		}
		ps = append(ps, abi.Param{Name: p.Name, Type: t})
	}
	var rs []abi.Type
	for _, r := range f.Results {
		t, err := c.typ(r.Type)
		if err != nil {
			return nil, fmt.Errorf("%s result: %w", f.Name, err)
		}
		rs = append(rs, t)
	}
	return abi.FuncOf(ps, rs...)
}

type abiConv struct {
	res map[*wit.TypeDef]*abi.ResourceType
}

func (c *abiConv) typ(t wit.Type) (abi.Type, error) {
	switch x := t.(type) {
	case wit.Bool:
		return abi.Bool, nil
	case wit.S8:
		return abi.S8, nil
	case wit.U8:
		return abi.U8, nil
	case wit.S16:
		return abi.S16, nil
	case wit.U16:
		return abi.U16, nil
	case wit.S32:
		return abi.S32, nil
	case wit.U32:
		return abi.U32, nil
	case wit.S64:
		return abi.S64, nil
	case wit.U64:
		return abi.U64, nil
	case wit.F32:
		return abi.F32, nil
	case wit.F64:
		return abi.F64, nil
	case wit.Char:
		return abi.Char, nil
	case wit.String:
		return abi.String, nil
	case *wit.TypeDef:
		return c.kind(x)
	}
	return nil, fmt.Errorf("%w: type %s", ErrUnsupported, witName(t))
}

func (c *abiConv) opt(t wit.Type) (abi.Type, error) {
	if t == nil {
		return nil, nil
	}
	return c.typ(t)
}

func (c *abiConv) resource(td *wit.TypeDef) *abi.ResourceType {
	td = td.Root()
	if rt, ok := c.res[td]; ok {
		return rt
	}
	name := "resource"
	if td.Name != nil {
		name = *td.Name
	}
	rt := abi.NewResourceType(name)
	c.res[td] = rt
	return rt
}

func (c *abiConv) kind(td *wit.TypeDef) (abi.Type, error) {
	switch x := td.Kind.(type) {
	case *wit.Record:
		var fs []abi.Field
		for _, f := range x.Fields {
			ft, err := c.typ(f.Type)
			if err != nil {
				return nil, err
			}
			fs = append(fs, abi.Field{Name: f.Name, Type: ft})
		}
		return abi.RecordOf(fs...)
	case *wit.Variant:
		var cs []abi.Case
		for _, k := range x.Cases {
			p, err := c.opt(k.Type)
			if err != nil {
				return nil, err
			}
			cs = append(cs, abi.Case{Name: k.Name, Type: p})
		}
		return abi.VariantOf(cs...)
	case *wit.Enum:
		var ls []string
		for _, k := range x.Cases {
			ls = append(ls, k.Name)
		}
		return abi.EnumOf(ls...)
	case *wit.Flags:
		var ls []string
		for _, f := range x.Flags {
			ls = append(ls, f.Name)
		}
		return abi.FlagsOf(ls...)
	case *wit.Option:
		e, err := c.typ(x.Type)
		if err != nil {
			return nil, err
		}
		return abi.OptionOf(e)
	case *wit.Result:
		ok, err := c.opt(x.OK)
		if err != nil {
			return nil, err
		}
		e, err := c.opt(x.Err)
		if err != nil {
			return nil, err
		}
		return abi.ResultOf(ok, e)
	case *wit.List:
		e, err := c.typ(x.Type)
		if err != nil {
			return nil, err
		}
		return abi.ListOf(e)
	case *wit.Tuple:
		var es []abi.Type
		for _, t := range x.Types {
			e, err := c.typ(t)
			if err != nil {
				return nil, err
			}
			es = append(es, e)
		}
		return abi.TupleOf(es...)
	case *wit.Own:
		return abi.OwnOf(c.resource(x.Type))
	case *wit.Borrow:
		return abi.BorrowOf(c.resource(x.Type))
	case wit.Type:
		return c.typ(x)
	}
	return nil, fmt.Errorf("%w: %T", ErrUnsupported, td.Kind)
}
