// Package pluginconfig admits a plugin's config_schema and resolves the
// operator's values for one instance into the typed public object a guest
// sees and the secrets it may read, exactly as the reference host does.
//
// Operator values are strings (they live in a string map in the host config
// file). Resolution materialises each one by the type its property declares,
// validates the whole object against the schema (Draft 2020-12), and splits
// off the properties marked `x-secret: true`:
//
//	schema, err := pluginconfig.Compile(m)         // admission, at discovery and install
//	res, err := pluginconfig.Resolve(m, schema, scope, values)
//	args, err := pluginconfig.InjectConfig(callerArgs, res.Public)
package pluginconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kobako/kobako/zeroclaw/internal/sjson"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// Limits of schema admission.
const (
	// MaxSchemaBytes caps the compact JSON serialisation of config_schema.
	MaxSchemaBytes = 64 * 1024
	// MaxSchemaDepth caps the nesting depth of config_schema.
	MaxSchemaDepth = 32
	// Draft202012 is the only accepted "$schema".
	Draft202012 = "https://json-schema.org/draft/2020-12/schema"
	// MaxPatternInsts caps the compiled program of one "pattern", about the
	// reference's 256 KiB regex size limit, so a schema cannot make every
	// resolution spend seconds compiling a huge bounded repetition.
	MaxPatternInsts = 16 * 1024
)

// dynamicKeyKeywords admit properties by pattern instead of by name;
// resolution only materialises keys named in properties, so these would
// accept keys that never reach the plugin.
var dynamicKeyKeywords = []string{"patternProperties", "propertyNames", "unevaluatedProperties"}

// Kind is the single JSON type a top-level config property declares.
type Kind string

// The property kinds the dialect allows.
const (
	KindString  Kind = "string"
	KindBoolean Kind = "boolean"
	KindInteger Kind = "integer"
	KindNumber  Kind = "number"
	KindArray   Kind = "array"
	KindObject  Kind = "object"
)

// Property is one admitted top-level property.
type Property struct {
	Name   string `json:"name"`
	Kind   Kind   `json:"type"`
	Secret bool   `json:"secret,omitempty"`
}

// Schema is an admitted, compiled config_schema.
type Schema struct {
	doc        map[string]any
	compiled   *jsonschema.Schema
	properties map[string]Property
}

// Properties returns the top-level properties sorted by name.
func (s *Schema) Properties() []Property {
	out := make([]Property, 0, len(s.properties))
	for _, k := range sortedPropertyNames(s.properties) {
		out = append(out, s.properties[k])
	}
	return out
}

// Property looks up a top-level property.
func (s *Schema) Property(name string) (Property, bool) {
	p, ok := s.properties[name]
	return p, ok
}

// HasSecrets reports whether any property is x-secret.
func (s *Schema) HasSecrets() bool {
	for _, p := range s.properties {
		if p.Secret {
			return true
		}
	}
	return false
}

// Document returns the schema as a JSON value (shared; do not modify).
func (s *Schema) Document() map[string]any { return s.doc }

// JSON returns the schema serialised as the reference serialises it.
func (s *Schema) JSON() string {
	b, _ := sjson.MarshalString(s.doc)
	return b
}

func sortedPropertyNames(m map[string]Property) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Compile admits a manifest's config contract without reading operator data.
// It returns (nil, nil) for a manifest with neither config_read nor a schema.
// The checks run in the reference's order and fail with
// manifest.ErrInvalidManifest and the reference's messages:
// config_read if and only if config_schema; at most MaxSchemaBytes
// serialised and MaxSchemaDepth deep; no $id; only local "#" / "#/…" refs;
// x-secret only as `true` on top-level properties; a root of type object with
// additionalProperties exactly false and none of patternProperties,
// propertyNames, unevaluatedProperties; "$schema" absent or Draft 2020-12;
// compiles as Draft 2020-12; a properties object whose every member declares
// exactly one allowed type, directly or through local $refs; x-secret
// properties of type string, only for tool and channel plugins (the seed lets
// both read them with secrets.get; the reference code still refuses channels).
func Compile(m *manifest.Manifest) (*Schema, error) {
	requests := m.HasPermission(manifest.PermissionConfigRead)
	if m.ConfigSchema == nil {
		if requests {
			return nil, invalidManifest("plugin '%s' requests config_read but declares no config_schema", m.Name)
		}
		return nil, nil
	}
	if !requests {
		return nil, invalidManifest("plugin '%s' declares config_schema without requesting config_read", m.Name)
	}
	schema, err := fromManifest(m.ConfigSchema)
	if err != nil {
		return nil, invalidManifest("plugin '%s' config_schema: %v", m.Name, err)
	}
	serialized, err := sjson.Marshal(schema)
	if err != nil {
		return nil, invalidManifest("plugin '%s' config_schema cannot be serialized: %v", m.Name, err)
	}
	if len(serialized) > MaxSchemaBytes {
		return nil, invalidManifest("plugin '%s' config_schema exceeds %d bytes", m.Name, MaxSchemaBytes)
	}
	if msg := checkNode(schema, 0); msg != "" {
		return nil, invalidManifest("plugin '%s' config_schema %s", m.Name, msg)
	}
	if msg := checkSecretAnnotations(schema, locRoot); msg != "" {
		return nil, invalidManifest("plugin '%s' config_schema %s", m.Name, msg)
	}
	root, _ := schema.(map[string]any)
	if t, _ := root["type"].(string); t != "object" {
		return nil, invalidManifest("plugin '%s' config_schema root type must be object", m.Name)
	}
	if ap, ok := root["additionalProperties"].(bool); !ok || ap {
		return nil, invalidManifest("plugin '%s' config_schema must set additionalProperties = false", m.Name)
	}
	for _, kw := range dynamicKeyKeywords {
		if _, ok := root[kw]; ok {
			return nil, invalidManifest("plugin '%s' config_schema must not declare '%s' at the root; config values are materialized only for keys named in the properties map, so keys admitted by '%s' would never reach the plugin", m.Name, kw, kw)
		}
	}
	if draft, ok := root["$schema"].(string); ok && draft != Draft202012 {
		return nil, invalidManifest("plugin '%s' config_schema must use JSON Schema Draft 2020-12", m.Name)
	}
	compiled, err := compileDraft202012(root)
	if err != nil {
		return nil, invalidManifest("plugin '%s' config_schema cannot be compiled: %v", m.Name, err)
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		return nil, invalidManifest("plugin '%s' config_schema must declare an object properties map", m.Name)
	}
	s := &Schema{doc: root, compiled: compiled, properties: map[string]Property{}}
	anySecret := false
	for _, name := range sjson.SortedKeys(props) {
		prop := props[name]
		kind, msg := propertyKind(root, prop)
		if msg != "" {
			return nil, invalidManifest("plugin '%s' config_schema property '%s' %s", m.Name, name, msg)
		}
		secret := isSecret(prop)
		if secret && kind != KindString {
			return nil, invalidManifest("plugin '%s' config_schema property '%s' marks x-secret but does not resolve to type string", m.Name, name)
		}
		anySecret = anySecret || secret
		s.properties[name] = Property{Name: name, Kind: kind, Secret: secret}
	}
	if anySecret && !m.HasCapability(manifest.CapabilityTool) && !m.HasCapability(manifest.CapabilityChannel) {
		return nil, invalidManifest("plugin '%s' config_schema uses x-secret, which is supported only by manifests whose executable config consumer is the tool or channel world", m.Name)
	}
	return s, nil
}

func invalidManifest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", manifest.ErrInvalidManifest, fmt.Sprintf(format, args...))
}

// checkNode enforces depth, $id and local references over the whole
// document, visiting object members in key order like the reference.
func checkNode(node any, depth int) string {
	if depth > MaxSchemaDepth {
		return fmt.Sprintf("exceeds maximum nesting depth %d", MaxSchemaDepth)
	}
	switch x := node.(type) {
	case []any:
		for _, e := range x {
			if msg := checkNode(e, depth+1); msg != "" {
				return msg
			}
		}
	case map[string]any:
		if _, ok := x["$id"]; ok {
			return "must not declare $id; schemas are package-local"
		}
		for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			ref, ok := x[kw].(string)
			if !ok {
				continue
			}
			if !strings.HasPrefix(ref, "#") {
				return fmt.Sprintf("contains non-local %s reference '%s'", kw, ref)
			}
			if ref != "#" && !strings.HasPrefix(ref, "#/") {
				return fmt.Sprintf("contains unsupported %s anchor '%s'; use a local JSON Pointer", kw, ref)
			}
		}
		for _, k := range sjson.SortedKeys(x) {
			if msg := checkNode(x[k], depth+1); msg != "" {
				return msg
			}
		}
	}
	return ""
}

type location int

const (
	locRoot location = iota
	locTopLevelProperty
	locOther
)

// checkSecretAnnotations allows x-secret only as the boolean true directly on
// a top-level property, looking through the subschema keywords the reference
// looks through.
func checkSecretAnnotations(node any, loc location) string {
	obj, ok := node.(map[string]any)
	if !ok {
		return ""
	}
	if marker, ok := obj["x-secret"]; ok {
		if loc != locTopLevelProperty {
			return "declares x-secret outside a top-level property"
		}
		if b, ok := marker.(bool); !ok || !b {
			return "x-secret marker must be the boolean value true"
		}
	}
	for _, kw := range []string{"additionalProperties", "contains", "contentSchema", "else", "if", "items",
		"not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"} {
		if child, ok := obj[kw]; ok {
			if msg := checkSecretAnnotations(child, locOther); msg != "" {
				return msg
			}
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if children, ok := obj[kw].([]any); ok {
			for _, child := range children {
				if msg := checkSecretAnnotations(child, locOther); msg != "" {
					return msg
				}
			}
		}
	}
	for _, kw := range []string{"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"} {
		children, ok := obj[kw].(map[string]any)
		if !ok {
			continue
		}
		childLoc := locOther
		if kw == "properties" && loc == locRoot {
			childLoc = locTopLevelProperty
		}
		for _, k := range sjson.SortedKeys(children) {
			if msg := checkSecretAnnotations(children[k], childLoc); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func isSecret(prop any) bool {
	obj, ok := prop.(map[string]any)
	if !ok {
		return false
	}
	b, ok := obj["x-secret"].(bool)
	return ok && b
}

// propertyKind resolves a property's single declared type, following local
// $ref pointers at most MaxSchemaDepth+1 times.
func propertyKind(root map[string]any, prop any) (Kind, string) {
	for range MaxSchemaDepth + 1 {
		obj, _ := prop.(map[string]any)
		if t, ok := obj["type"].(string); ok {
			switch k := Kind(t); k {
			case KindString, KindBoolean, KindInteger, KindNumber, KindArray, KindObject:
				return k, ""
			}
			return "", fmt.Sprintf("uses unsupported type '%s'", t)
		}
		ref, ok := obj["$ref"].(string)
		if !ok {
			return "", "must declare one explicit type (directly or through local $ref)"
		}
		ptr, ok := strings.CutPrefix(ref, "#")
		if !ok {
			return "", "must use a local $ref"
		}
		target, ok := sjson.Pointer(root, ptr)
		if !ok {
			return "", fmt.Sprintf("references missing schema location '%s'", ref)
		}
		prop = target
	}
	return "", "contains a cyclic or excessively deep $ref chain"
}

// schemaURL is the name the compiled schema is registered under; it never
// leaves the process.
const schemaURL = "urn:kobako:plugin-config-schema"

// refuseLoader keeps the compiler from fetching anything: admission has
// already limited references to the document itself.
type refuseLoader struct{}

// Load refuses every URL.
func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %q is not allowed: config schemas are package-local", url)
}

func compileDraft202012(doc map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(boundedRegexp)
	if err := c.AddResource(schemaURL, toValidatorValue(doc)); err != nil {
		return nil, errors.New(stripURL(err.Error()))
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, errors.New(compileMessage(err))
	}
	return sch, nil
}

// compileMessage flattens a compiler error to one line: for a schema that
// is invalid against the Draft 2020-12 metaschema, the first failing leaf.
func compileMessage(err error) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		u := ve.DetailedOutput()
		for len(u.Errors) > 0 {
			u = &u.Errors[0]
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		msg := "invalid"
		if u.Error != nil {
			msg = u.Error.String()
		}
		return fmt.Sprintf("invalid against the Draft 2020-12 metaschema at '%s': %s", loc, msg)
	}
	return stripURL(strings.Join(strings.Fields(err.Error()), " "))
}

func stripURL(msg string) string {
	msg = strings.ReplaceAll(msg, schemaURL+"#", "#")
	return strings.ReplaceAll(msg, schemaURL, "config_schema")
}

// boundedRegexp compiles "pattern" and "patternProperties" regular
// expressions with Go's linear-time engine, refusing programs larger than
// MaxPatternInsts instructions.
func boundedRegexp(s string) (jsonschema.Regexp, error) {
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > MaxPatternInsts {
		return nil, fmt.Errorf("pattern %q compiles to %d instructions, over the limit of %d", s, len(prog.Inst), MaxPatternInsts)
	}
	return regexp.Compile(s)
}

// fromManifest converts a manifest's JSON value (numbers as json.Number) into the sjson model, whose
// numbers keep the integer/float distinction serde_json makes: the text of a json.Number is parsed
// as sjson parses a document.
func fromManifest(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return sjson.Parse([]byte(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := fromManifest(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := fromManifest(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return v, nil
}

// toValidatorValue converts the sjson model into the validator's (numbers
// as json.Number).
func toValidatorValue(v any) any {
	switch x := v.(type) {
	case sjson.Number:
		return json.Number(x.String())
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toValidatorValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toValidatorValue(e)
		}
		return out
	}
	return v
}
