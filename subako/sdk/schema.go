package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// The SDK derives schemas with its own reflector instead of github.com/invopop/jsonschema, which
// stays the reference (prop_schema_test.go checks the two agree byte for byte on random types).
// Importing invopop linked YAML, go/doc, regexp and net into every package, and their package
// initialization alone cost a Go package several million instructions at every start; ABI 1 starts
// a fresh instance for every call, so each call paid it. This reflector follows invopop's
// Reflector{DoNotReference: true, Anonymous: true} conventions for struct tags (json and
// jsonschema, jsonschema_description, jsonschema_extras) and special types, and refuses the types
// that hook into invopop by method, since it cannot call them.

// schemaNode is one JSON Schema object, encoded with encoding/json in invopop's keyword order so
// that the bytes match. Only the keywords the reflector can produce are present.
type schemaNode struct {
	Anchor               string                 `json:"$anchor,omitempty"`
	Ref                  string                 `json:"$ref,omitempty"`
	AnyOf                []*schemaNode          `json:"anyOf,omitempty"`
	OneOf                []*schemaNode          `json:"oneOf,omitempty"`
	Items                *schemaNode            `json:"items,omitempty"`
	Properties           *properties            `json:"properties,omitempty"`
	PatternProperties    map[string]*schemaNode `json:"patternProperties,omitempty"`
	AdditionalProperties *schemaNode            `json:"additionalProperties,omitempty"`
	Type                 string                 `json:"type,omitempty"`
	Enum                 []any                  `json:"enum,omitempty"`
	MultipleOf           json.Number            `json:"multipleOf,omitempty"`
	Maximum              json.Number            `json:"maximum,omitempty"`
	ExclusiveMaximum     json.Number            `json:"exclusiveMaximum,omitempty"`
	Minimum              json.Number            `json:"minimum,omitempty"`
	ExclusiveMinimum     json.Number            `json:"exclusiveMinimum,omitempty"`
	MaxLength            *uint64                `json:"maxLength,omitempty"`
	MinLength            *uint64                `json:"minLength,omitempty"`
	Pattern              string                 `json:"pattern,omitempty"`
	MaxItems             *uint64                `json:"maxItems,omitempty"`
	MinItems             *uint64                `json:"minItems,omitempty"`
	UniqueItems          bool                   `json:"uniqueItems,omitempty"`
	Required             []string               `json:"required,omitempty"`
	Format               string                 `json:"format,omitempty"`
	ContentEncoding      string                 `json:"contentEncoding,omitempty"`
	Title                string                 `json:"title,omitempty"`
	Description          string                 `json:"description,omitempty"`
	Default              any                    `json:"default,omitempty"`
	ReadOnly             bool                   `json:"readOnly,omitempty"`
	WriteOnly            bool                   `json:"writeOnly,omitempty"`
	Examples             []any                  `json:"examples,omitempty"`

	extras  map[string]any
	boolean *bool // the schema is the literal true or false
}

var falseSchema = false

// MarshalJSON writes the keywords, then the extras (jsonschema_extras) in key order; a schema with
// nothing in it is the literal true.
func (s *schemaNode) MarshalJSON() ([]byte, error) {
	if s.boolean != nil {
		return strconv.AppendBool(nil, *s.boolean), nil
	}
	if s.empty() {
		return []byte("true"), nil
	}
	type plain schemaNode
	b, err := json.Marshal((*plain)(s))
	if err != nil || len(s.extras) == 0 {
		return b, err
	}
	m, err := json.Marshal(s.extras)
	if err != nil {
		return nil, err
	}
	if len(b) == 2 {
		return m, nil
	}
	b[len(b)-1] = ','
	return append(b, m[1:]...), nil
}

func (s *schemaNode) empty() bool {
	return s.Anchor == "" && s.Ref == "" && s.AnyOf == nil && s.OneOf == nil && s.Items == nil &&
		s.Properties == nil && s.PatternProperties == nil && s.AdditionalProperties == nil &&
		s.Type == "" && s.Enum == nil && s.MultipleOf == "" && s.Maximum == "" &&
		s.ExclusiveMaximum == "" && s.Minimum == "" && s.ExclusiveMinimum == "" &&
		s.MaxLength == nil && s.MinLength == nil && s.Pattern == "" && s.MaxItems == nil &&
		s.MinItems == nil && !s.UniqueItems && s.Required == nil && s.Format == "" &&
		s.ContentEncoding == "" && s.Title == "" && s.Description == "" && s.Default == nil &&
		!s.ReadOnly && !s.WriteOnly && s.Examples == nil && s.extras == nil
}

// properties keeps a struct's properties in field order; setting a name again replaces its schema
// where it first appeared.
type properties struct {
	names []string
	nodes map[string]*schemaNode
}

func (p *properties) set(name string, n *schemaNode) {
	if _, ok := p.nodes[name]; !ok {
		p.names = append(p.names, name)
	}
	p.nodes[name] = n
}

// MarshalJSON writes the properties as an object in field order.
func (p *properties) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, name := range p.names {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(p.nodes[name])
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// hookOf names the method by which t tells invopop/jsonschema its schema, if it has one. This
// reflector cannot call these (their argument and result types are invopop's), so a type that has
// one is refused rather than described differently from what its author wrote. Each name is a
// constant: MethodByName with a variable name makes the linker keep every exported method of every
// type, which made a package's module larger.
func hookOf(t reflect.Type) string {
	if _, ok := t.MethodByName("JSONSchema"); ok {
		return "JSONSchema"
	}
	if _, ok := t.MethodByName("JSONSchemaExtend"); ok {
		return "JSONSchemaExtend"
	}
	if _, ok := t.MethodByName("JSONSchemaAlias"); ok {
		return "JSONSchemaAlias"
	}
	if _, ok := t.MethodByName("JSONSchemaProperty"); ok {
		return "JSONSchemaProperty"
	}
	if _, ok := t.MethodByName("GetFieldDocString"); ok {
		return "GetFieldDocString"
	}
	if _, ok := t.MethodByName("EnumDescriptor"); ok {
		return "EnumDescriptor"
	}
	return ""
}

var timeType = reflect.TypeFor[time.Time]()

// reflector builds one schema; it tracks the struct types being described to refuse recursive
// types, which invopop (without references) would follow until the stack overflows.
type reflector struct {
	active map[reflect.Type]bool
}

// buildSchema returns t's schema, or an error wrapping ErrInvalidTool when t cannot be described.
func buildSchema(t reflect.Type) (*schemaNode, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := reflector{active: map[reflect.Type]bool{}}
	return r.typeSchema(t)
}

func (r *reflector) typeSchema(t reflect.Type) (*schemaNode, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if m := hookOf(t); m != "" {
		return nil, fmt.Errorf("%w: cannot describe %v: it has a %s method, an invopop/jsonschema hook the SDK does not call", ErrInvalidTool, t, m)
	}
	s := new(schemaNode)
	if t.PkgPath() == "net" && t.Name() == "IP" {
		s.Type, s.Format = "string", "ipv4"
		return s, nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
		if r.active[t] {
			return nil, fmt.Errorf("%w: cannot describe %v: the type contains itself", ErrInvalidTool, t)
		}
		r.active[t] = true
		defer delete(r.active, t)
	}
	switch t.Kind() {
	case reflect.Struct:
		switch {
		case t == timeType:
			s.Type, s.Format = "string", "date-time"
			return s, nil
		case t.PkgPath() == "net/url" && t.Name() == "URL":
			s.Type, s.Format = "string", "uri"
			return s, nil
		}
		s.Type = "object"
		s.Properties = &properties{nodes: map[string]*schemaNode{}}
		s.AdditionalProperties = &schemaNode{boolean: &falseSchema}
		if err := r.fields(s, t); err != nil {
			return nil, err
		}
	case reflect.Slice, reflect.Array:
		if t == rawMessageType {
			return s, nil
		}
		if t.Kind() == reflect.Array {
			n := uint64(t.Len())
			s.MinItems, s.MaxItems = &n, &n
		}
		if t.Kind() == reflect.Slice && t.Elem() == byteType {
			s.Type, s.ContentEncoding = "string", "base64"
			return s, nil
		}
		items, err := r.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		s.Type, s.Items = "array", items
	case reflect.Map:
		s.Type = "object"
		switch t.Key().Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v, err := r.typeSchema(t.Elem())
			if err != nil {
				return nil, err
			}
			s.PatternProperties = map[string]*schemaNode{"^[0-9]+$": v}
			s.AdditionalProperties = &schemaNode{boolean: &falseSchema}
			return s, nil
		}
		if t.Elem().Kind() != reflect.Interface {
			v, err := r.typeSchema(t.Elem())
			if err != nil {
				return nil, err
			}
			s.AdditionalProperties = v
		}
	case reflect.Interface:
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.Type = "integer"
	case reflect.Float32, reflect.Float64:
		s.Type = "number"
	case reflect.Bool:
		s.Type = "boolean"
	case reflect.String:
		s.Type = "string"
	default:
		return nil, fmt.Errorf("%w: cannot describe %v: JSON has no %v", ErrInvalidTool, t, t.Kind())
	}
	return s, nil
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	byteType       = reflect.TypeFor[byte]()
)

// fields adds t's fields to s, inlining embedded structs as encoding/json does.
func (r *reflector) fields(s *schemaNode, t reflect.Type) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if m := hookOf(t); m != "" {
		return fmt.Errorf("%w: cannot describe %v: it has a %s method, an invopop/jsonschema hook the SDK does not call", ErrInvalidTool, t, m)
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fi := fieldOf(f)
		if fi.name == "" {
			if fi.embed {
				if err := r.fields(s, f.Type); err != nil {
					return err
				}
			}
			continue
		}
		p, err := r.typeSchema(f.Type)
		if err != nil {
			return err
		}
		if err := p.keywords(f, s, fi.name); err != nil {
			return fmt.Errorf("%w: cannot describe %v field %s: %v", ErrInvalidTool, t, f.Name, err)
		}
		if fi.nullable {
			p = &schemaNode{OneOf: []*schemaNode{p, {Type: "null"}}}
		}
		s.Properties.set(fi.name, p)
		if fi.required && !contains(s.Required, fi.name) {
			s.Required = append(s.Required, fi.name)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fieldInfo is what a struct field's tags say about its property.
type fieldInfo struct {
	name               string // "" when the field is not a property
	embed              bool   // its fields are the parent's
	required, nullable bool
}

// fieldOf reads a field's json and jsonschema tags. A field is required unless its json tag says
// omitempty or omitzero, or its jsonschema tag says required.
func fieldOf(f reflect.StructField) fieldInfo {
	jsonTags := strings.Split(f.Tag.Get("json"), ",")
	if jsonTags[0] == "-" {
		return fieldInfo{}
	}
	schemaTags := strings.Split(f.Tag.Get("jsonschema"), ",")
	if schemaTags[0] == "-" {
		return fieldInfo{}
	}
	var fi fieldInfo
	fi.required = !hasOption(jsonTags, "omitempty") && !hasOption(jsonTags, "omitzero")
	for _, tag := range schemaTags {
		switch tag {
		case "required":
			fi.required = true
		case "nullable":
			fi.nullable = true
		}
	}
	if f.Anonymous && jsonTags[0] == "" {
		if k := f.Type.Kind(); k == reflect.Struct || k == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
			return fieldInfo{embed: true}
		}
	}
	if hasOption(jsonTags, "inline") {
		return fieldInfo{embed: true}
	}
	fi.name = f.Name
	if jsonTags[0] != "" {
		fi.name = jsonTags[0]
	}
	if !f.Anonymous && f.PkgPath != "" {
		fi.name = "" // unexported
	}
	return fi
}

// hasOption reports whether a split json tag carries option after its name.
func hasOption(tags []string, option string) bool {
	for _, t := range tags[1:] {
		if t == option {
			return true
		}
	}
	return false
}

// keywords applies a field's tags to its property's schema p; parent is the struct's schema, for
// the oneof_required and anyof_required keywords.
func (p *schemaNode) keywords(f reflect.StructField, parent *schemaNode, name string) error {
	p.Description = f.Tag.Get("jsonschema_description")
	var rest []string
	for _, tag := range splitTag(f.Tag.Get("jsonschema")) {
		k, v, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch k {
		case "title":
			p.Title = v
		case "description":
			p.Description = v
		case "type":
			p.Type = v
		case "anchor":
			p.Anchor = v
		case "oneof_required":
			parent.OneOf = requireIn(parent.OneOf, v, name)
		case "anyof_required":
			parent.AnyOf = requireIn(parent.AnyOf, v, name)
		case "oneof_ref", "anyof_ref":
			sub := p
			if p.Items != nil {
				sub = p.Items
			}
			sub.Ref = ""
			list := &sub.OneOf
			if k == "anyof_ref" {
				list = &sub.AnyOf
			}
			if *list == nil {
				*list = []*schemaNode{}
			}
			for _, ref := range strings.Split(v, ";") {
				*list = append(*list, &schemaNode{Ref: ref})
			}
		case "oneof_type", "anyof_type":
			list := &p.OneOf
			if k == "anyof_type" {
				list = &p.AnyOf
			}
			if *list == nil {
				*list = []*schemaNode{}
			}
			p.Type = ""
			for _, ty := range strings.Split(v, ";") {
				*list = append(*list, &schemaNode{Type: ty})
			}
		default:
			rest = append(rest, tag)
		}
	}
	switch p.Type {
	case "integer", "number", "boolean":
		// encoding/json's ",string" option puts these on the wire as strings.
		if hasOption(strings.Split(f.Tag.Get("json"), ","), "string") {
			p.Type = "string"
		}
	}
	switch p.Type {
	case "string":
		p.stringKeywords(rest)
	case "number", "integer":
		p.numberKeywords(rest)
	case "array":
		if err := p.arrayKeywords(rest); err != nil {
			return err
		}
	case "boolean":
		p.boolKeywords(rest)
	}
	for _, tag := range splitTag(f.Tag.Get("jsonschema_extras")) {
		if k, v, ok := strings.Cut(tag, "="); ok {
			p.setExtra(k, v)
		}
	}
	return nil
}

// requireIn adds name to the required list of the alternative titled title, creating it.
func requireIn(alts []*schemaNode, title, name string) []*schemaNode {
	var found *schemaNode
	for _, a := range alts {
		if a.Title == title {
			found = a
		}
	}
	if found == nil {
		found = &schemaNode{Title: title, Required: []string{}}
		alts = append(alts, found)
	}
	found.Required = append(found.Required, name)
	return alts
}

func (p *schemaNode) boolKeywords(tags []string) {
	for _, tag := range tags {
		if k, v, ok := cutOnce(tag); ok && k == "default" {
			switch v {
			case "true":
				p.Default = true
			case "false":
				p.Default = false
			}
		}
	}
}

func (p *schemaNode) stringKeywords(tags []string) {
	for _, tag := range tags {
		k, v, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch k {
		case "minLength":
			p.MinLength = parseUint(v)
		case "maxLength":
			p.MaxLength = parseUint(v)
		case "pattern":
			p.Pattern = v
		case "format":
			p.Format = v
		case "readOnly":
			p.ReadOnly, _ = strconv.ParseBool(v)
		case "writeOnly":
			p.WriteOnly, _ = strconv.ParseBool(v)
		case "default":
			p.Default = v
		case "example":
			p.Examples = append(p.Examples, v)
		case "enum":
			p.Enum = append(p.Enum, v)
		}
	}
}

func (p *schemaNode) numberKeywords(tags []string) {
	for _, tag := range tags {
		k, v, ok := cutOnce(tag)
		if !ok {
			continue
		}
		switch k {
		case "multipleOf":
			p.MultipleOf, _ = jsonNumber(v)
		case "minimum":
			p.Minimum, _ = jsonNumber(v)
		case "maximum":
			p.Maximum, _ = jsonNumber(v)
		case "exclusiveMaximum":
			p.ExclusiveMaximum, _ = jsonNumber(v)
		case "exclusiveMinimum":
			p.ExclusiveMinimum, _ = jsonNumber(v)
		case "default":
			if n, ok := jsonNumber(v); ok {
				p.Default = n
			}
		case "example":
			if n, ok := jsonNumber(v); ok {
				p.Examples = append(p.Examples, n)
			}
		case "enum":
			if n, ok := jsonNumber(v); ok {
				p.Enum = append(p.Enum, n)
			}
		}
	}
}

func (p *schemaNode) arrayKeywords(tags []string) error {
	var defaults []any
	var rest []string
	for _, tag := range tags {
		k, v, ok := cutOnce(tag)
		if !ok {
			continue
		}
		switch k {
		case "minItems":
			p.MinItems = parseUint(v)
		case "maxItems":
			p.MaxItems = parseUint(v)
		case "uniqueItems":
			p.UniqueItems = true
		case "default":
			defaults = append(defaults, v)
		case "format", "pattern":
			if p.Items == nil {
				return fmt.Errorf("jsonschema tag %s= on a type with no items", k)
			}
			if k == "format" {
				p.Items.Format = v
			} else {
				p.Items.Pattern = v
			}
		default:
			rest = append(rest, tag)
		}
	}
	if len(defaults) > 0 {
		p.Default = defaults
	}
	if len(rest) == 0 {
		return nil
	}
	if p.Items == nil {
		return fmt.Errorf("jsonschema tags %q on a type with no items", rest)
	}
	switch p.Items.Type {
	case "string":
		p.Items.stringKeywords(rest)
	case "number", "integer":
		p.Items.numberKeywords(rest)
	case "boolean":
		p.Items.boolKeywords(rest)
	}
	return nil
}

// setExtra records a jsonschema_extras keyword: a repeated key collects its values in a list, and
// "true" and "false" read as booleans (invopop's rules, including its reading of minimum as an int).
func (p *schemaNode) setExtra(k, v string) {
	if p.extras == nil {
		p.extras = map[string]any{}
	}
	if old, ok := p.extras[k]; ok {
		switch old := old.(type) {
		case string:
			p.extras[k] = []string{old, v}
		case []string:
			p.extras[k] = append(old, v)
		case int:
			p.extras[k], _ = strconv.Atoi(v)
		case bool:
			p.extras[k] = v == "true" || v == "t"
		}
		return
	}
	if k == "minimum" {
		p.extras[k], _ = strconv.Atoi(v)
		return
	}
	switch v {
	case "true":
		p.extras[k] = true
	case "false":
		p.extras[k] = false
	default:
		p.extras[k] = v
	}
}

// cutOnce splits "k=v" where v holds no further '='; a tag with more than one '=' is ignored, as
// invopop ignores it for these keywords.
func cutOnce(tag string) (k, v string, ok bool) {
	k, v, ok = strings.Cut(tag, "=")
	if !ok || strings.Contains(v, "=") {
		return "", "", false
	}
	return k, v, true
}

// splitTag splits a jsonschema tag on commas not escaped with a backslash, so a pattern may hold
// "\,".
func splitTag(s string) []string {
	parts := strings.Split(s, ",")
	out := []string{parts[0]}
	for _, p := range parts[1:] {
		last := out[len(out)-1]
		if last != "" && last[len(last)-1] == '\\' {
			out[len(out)-1] = last[:len(last)-1] + "," + p
		} else {
			out = append(out, p)
		}
	}
	return out
}

func jsonNumber(s string) (json.Number, bool) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(s), true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return json.Number(s), true
	}
	return "", false
}

func parseUint(s string) *uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

// isObject reports whether t's schema is a top-level object (a struct other than time.Time and
// url.URL, a map, or a pointer to either) without building it, so that Tool does no more than this
// when a package starts.
func isObject(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Map:
		return true
	case t.Kind() != reflect.Struct, t == timeType, t.PkgPath() == "net/url" && t.Name() == "URL":
		return false
	}
	return true
}

// requiredOf lists the required properties of struct t (after req), as its schema would: a
// tools/call needs this list, and not the schema.
func requiredOf(t reflect.Type, req []string) []string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return req
	}
	for i := 0; i < t.NumField(); i++ {
		fi := fieldOf(t.Field(i))
		switch {
		case fi.embed:
			req = requiredOf(t.Field(i).Type, req)
		case fi.name != "" && fi.required && !contains(req, fi.name):
			req = append(req, fi.name)
		}
	}
	return req
}
