package component

import (
	"fmt"
	"github.com/kobako/kobako/component/binary"
	"reflect"
	"strings"
)

// GoName returns the Go name a component function's name maps to, for DefineInterface and
// BindInterface: the kebab-case words in CamelCase, a resource's method or static function
// prefixed with the resource's name, a constructor named New and the resource:
//
//	get-channel-capabilities  GetChannelCapabilities
//	[method]fields.append     FieldsAppend
//	[static]fields.from-list  FieldsFromList
//	[constructor]fields       NewFields
func GoName(name string) string {
	switch {
	case strings.HasPrefix(name, "[constructor]"):
		name = "new-" + name[len("[constructor]"):]
	case strings.HasPrefix(name, "[method]"):
		name = strings.Replace(name[len("[method]"):], ".", "-", 1)
	case strings.HasPrefix(name, "[static]"):
		name = strings.Replace(name[len("[static]"):], ".", "-", 1)
	}
	var b strings.Builder
	for _, w := range strings.Split(name, "-") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(w[1:])
	}
	return b.String()
}

// DefineInterface defines every function of interface iface at once from the methods of v (a
// struct pointer, typically): the import iface#name is served by v's method GoName(name), which
// has the shape DefineFunc takes (its context first, then optionally a *Caller, then the WIT
// parameters). Which methods are needed, and whether their Go types fit the WIT types, is
// checked when a component is prepared against the Linker, so a missing or mistyped method is
// an error naming the import then, not when the guest calls it. Functions defined one by one
// (Define, DefineFunc) take precedence over v's methods; resource types are still defined with
// DefineResource.
func (l *Linker) DefineInterface(iface string, v any) error {
	if err := checkIface(iface); err != nil {
		return err
	}
	if iface == "" {
		return fmt.Errorf("component: linker: DefineInterface needs an interface name")
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.NumMethod() == 0 {
		return fmt.Errorf("component: linker: %s: %w: %T has no exported methods", iface, ErrBind, v)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.objs[iface] = rv
	return nil
}

// objFunc finds the method of an interface object that serves iface#name. The caller holds l.mu.
func (l *Linker) objFunc(iface binary.Name, name string) (*hostDef, bool, error) {
	if iface.Raw == "" {
		return nil, false, nil
	}
	key, ok := resolveIface(l.objs, iface)
	if !ok {
		return nil, false, nil
	}
	m := l.objs[key].MethodByName(GoName(name))
	if !m.IsValid() {
		return nil, false, nil
	}
	lead, err := checkGoFunc(m, nil)
	if err != nil {
		return nil, true, fmt.Errorf("%w: %s: method %s: %w", ErrLinkType, qualified(iface.Raw, name), GoName(name), err)
	}
	return &hostDef{typed: m, lead: lead}, true, nil
}

// BindInterface binds the functions of exported interface iface ("ns:pkg/iface@1.0.0", or
// without the version when only one is exported) to the func fields of the struct dst points
// to, each as Func.Bind binds one: a field named GoName(f) is bound to function f, or the
// function its tag `wit:"f"` names. Every field must find its function, unless tagged optional
// (`wit:",optional"` or `wit:"f,optional"`), which leaves it nil when the component does not
// export it. The Go types are checked against the WIT types here, once. Fields that are not
// funcs, and unexported ones, are left alone.
func (in *Instance) BindInterface(iface string, dst any) error {
	find := func(iface string) (*binary.Export, error) {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.findExport(iface, binary.SortInstance)
	}
	return bindInterface(iface, dst, find, func(e *binary.Export, f ifaceField) error {
		if f.name == "" {
			if f.optional {
				return nil
			}
			return fmt.Errorf("%w: no function %q (GoName) in the interface", ErrNoExport, f.goName)
		}
		fn, err := in.Func(e.Name.Raw + "#" + f.name)
		if err != nil {
			if f.optional {
				return nil
			}
			return err
		}
		return fn.Bind(f.v.Addr().Interface())
	})
}

// ifaceField is a func field of the struct BindInterface fills, and the function it names.
type ifaceField struct {
	v        reflect.Value // the field, settable
	goName   string        // the field's name
	name     string        // the function: its `wit` tag's, or the one GoName maps to goName; "" if none
	optional bool          // tagged optional: a missing function leaves the field nil
}

// bindInterface is the walk both BindInterface methods share: it checks that dst points to a
// struct, finds exported interface iface with find, and calls bind with every exported func field
// and the name of the function it is for (its `wit` tag, or the function GoName maps to the
// field's name). Unexported and non-func fields are left alone. An error of bind is wrapped with
// the interface and the field.
func bindInterface(iface string, dst any, find func(string) (*binary.Export, error), bind func(*binary.Export, ifaceField) error) error {
	pv := reflect.ValueOf(dst)
	if pv.Kind() != reflect.Pointer || pv.IsNil() || pv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("component: bind interface %s: %w: expected a pointer to a struct, found %T", iface, ErrBind, dst)
	}
	e, err := find(iface)
	if err != nil {
		return fmt.Errorf("component: bind interface %s: %w", iface, err)
	}
	byGo := map[string]string{}
	if e.Type.Instance != nil {
		for _, d := range e.Type.Instance.Exports {
			if d.Type.Sort == binary.SortFunc {
				byGo[GoName(d.Name.Raw)] = d.Name.Raw
			}
		}
	}
	sv := pv.Elem()
	st := sv.Type()
	for i := range st.NumField() {
		fd := st.Field(i)
		if !fd.IsExported() || fd.Type.Kind() != reflect.Func {
			continue
		}
		name, opts, _ := strings.Cut(fd.Tag.Get("wit"), ",")
		if name == "" {
			name = byGo[fd.Name]
		}
		f := ifaceField{v: sv.Field(i), goName: fd.Name, name: name, optional: opts == "optional"}
		if err := bind(e, f); err != nil {
			return fmt.Errorf("component: bind interface %s: field %s: %w", e.Name.Raw, fd.Name, err)
		}
	}
	return nil
}
