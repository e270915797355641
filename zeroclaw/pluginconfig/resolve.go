package pluginconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/internal/sjson"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// ErrInvalidConfig is wrapped by every resolution failure; its text is the
// reference's prefix, so errors read "invalid plugin config: …".
var ErrInvalidConfig = errors.New("invalid plugin config")

// ErrInvalidArgs reports tool arguments that cannot carry __config.
var ErrInvalidArgs = errors.New("invalid plugin args")

// ConfigKey is the reserved tool argument the public config is injected
// under.
const ConfigKey = "__config"

// Source yields an instance's operator values: the string map of its
// [[plugins.entries]] section, or nil when there is none. Resolve calls it
// only when config_read is effectively granted, so withheld values are never
// read.
type Source func() (map[string]string, error)

// Values is a Source over a fixed map.
func Values(m map[string]string) Source {
	return func() (map[string]string, error) { return m, nil }
}

// Resolved is one instance's validated config view: the public object a
// guest may see and the secrets it may read through secrets.get. It is meant
// to live for one host call.
type Resolved struct {
	scope   instance.Scope
	public  map[string]any
	secrets map[string]string
}

// Scope is the instance the view was resolved for.
func (r *Resolved) Scope() instance.Scope { return r.scope }

// Public returns the validated non-secret object (shared; do not modify).
func (r *Resolved) Public() map[string]any { return r.public }

// PublicJSON serialises the public object as the reference does (compact,
// keys sorted), the string a channel's config.get returns.
func (r *Resolved) PublicJSON() string {
	s, err := sjson.MarshalString(r.public)
	if err != nil {
		panic("BUG: pluginconfig: resolved config does not serialise: " + err.Error())
	}
	return s
}

// Secret returns an x-secret property's value. Public properties and
// unset secrets are not found.
func (r *Resolved) Secret(name string) (string, bool) {
	v, ok := r.secrets[name]
	return v, ok
}

// SecretNames lists the secrets that have values, sorted.
func (r *Resolved) SecretNames() []string {
	names := make([]string, 0, len(r.secrets))
	for k := range r.secrets {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Resolve materialises an instance's operator values against the
// manifest's admitted schema (from Compile; pass nil for a manifest without
// one), following the reference's steps:
//
//  1. the scope's package must be the manifest's;
//  2. without a schema, configured values must be empty and the result is {};
//  3. without an effective config_read grant the values are never read: {}
//     is validated (so a schema with required properties fails closed) and
//     returned without secrets;
//  4. otherwise every configured key must be a declared property and its
//     string is materialised by the property's type;
//  5. the whole object is validated against the schema;
//  6. x-secret properties go to the secrets, the rest to the public object.
//
// Errors wrap ErrInvalidConfig and never contain operator values.
func Resolve(m *manifest.Manifest, schema *Schema, scope instance.Scope, source Source) (*Resolved, error) {
	if scope.ID.Package != m.Name {
		return nil, invalidConfig("instance package '%s' does not match manifest '%s'", scope.ID.Package, m.Name)
	}
	if schema == nil {
		if m.ConfigSchema != nil || m.HasPermission(manifest.PermissionConfigRead) {
			compiled, err := Compile(m)
			if err != nil {
				return nil, err
			}
			schema = compiled
		}
	}
	if schema == nil {
		configured, err := readSource(source)
		if err != nil {
			return nil, err
		}
		if len(configured) > 0 {
			return nil, invalidConfig("plugin '%s' has configured values but declares no config_schema", m.Name)
		}
		return &Resolved{scope: scope, public: map[string]any{}}, nil
	}
	if !scope.Grants.Allows(manifest.PermissionConfigRead) {
		withheld := map[string]any{}
		if err := schema.validate(m.Name, withheld); err != nil {
			return nil, err
		}
		return &Resolved{scope: scope, public: withheld}, nil
	}
	configured, err := readSource(source)
	if err != nil {
		return nil, err
	}
	resolved := make(map[string]any, len(configured))
	names := make([]string, 0, len(configured))
	for k := range configured {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		prop, ok := schema.properties[name]
		if !ok {
			return nil, invalidConfig("plugin '%s' config contains a property absent from config_schema", m.Name)
		}
		v, err := Materialize(name, configured[name], prop.Kind)
		if err != nil {
			return nil, err
		}
		resolved[name] = v
	}
	if err := schema.validate(m.Name, resolved); err != nil {
		return nil, err
	}
	res := &Resolved{scope: scope, public: map[string]any{}, secrets: map[string]string{}}
	for name, v := range resolved {
		if schema.properties[name].Secret {
			s, ok := v.(string)
			if !ok {
				return nil, invalidConfig("plugin '%s' resolved secret config is not a string", m.Name)
			}
			res.secrets[name] = s
		} else {
			res.public[name] = v
		}
	}
	return res, nil
}

func readSource(source Source) (map[string]string, error) {
	if source == nil {
		return nil, nil
	}
	configured, err := source()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return configured, nil
}

func invalidConfig(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
}

// Materialize turns one operator string into the JSON value its property
// type demands: a string is taken as is; every other type is parsed as JSON
// and must be that kind (integers must fit 64 bits and have no fraction or
// exponent). The errors are the reference's:
// "config property 'NAME' must contain valid JSON" or "… must be a JSON
// integer" (boolean, number, array, object).
func Materialize(name, raw string, kind Kind) (any, error) {
	if kind == KindString {
		return raw, nil
	}
	v, err := sjson.Parse([]byte(raw))
	if err != nil {
		return nil, invalidConfig("config property '%s' must contain valid JSON", name)
	}
	ok := false
	switch kind {
	case KindBoolean:
		_, ok = v.(bool)
	case KindInteger:
		n, isNum := v.(sjson.Number)
		ok = isNum && n.IsInteger()
	case KindNumber:
		_, ok = v.(sjson.Number)
	case KindArray:
		_, ok = v.([]any)
	case KindObject:
		_, ok = v.(map[string]any)
	default:
		return nil, invalidConfig("config property '%s' has unsupported type '%s'", name, kind)
	}
	if !ok {
		return nil, invalidConfig("config property '%s' must be a JSON %s", name, kind)
	}
	return v, nil
}

// validate checks an instance against the compiled schema; the error names
// only the schema location of the first failing keyword, never a value.
func (s *Schema) validate(plugin string, value map[string]any) error {
	err := s.compiled.Validate(toValidatorValue(value))
	if err == nil {
		return nil
	}
	path := ""
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		path = firstKeywordLocation(ve.DetailedOutput())
	}
	return invalidConfig("plugin '%s' config violates config_schema at '%s'", plugin, path)
}

// firstKeywordLocation walks to the first leaf of the detailed output: the
// most specific failing keyword, as a JSON Pointer into the schema (through
// $ref keywords, like the reference's schema_path).
func firstKeywordLocation(u *jsonschema.OutputUnit) string {
	for u != nil && len(u.Errors) > 0 {
		u = &u.Errors[0]
	}
	if u == nil {
		return ""
	}
	return strings.TrimPrefix(u.KeywordLocation, "#")
}

// InjectConfig prepares a tool's execute arguments: they must be a JSON
// object; any caller-supplied __config is always removed (so a caller cannot
// forge the section); the public config is inserted under __config only when
// it is non-empty. The result is serialised like the reference's (compact,
// keys sorted).
func InjectConfig(args []byte, public map[string]any) ([]byte, error) {
	v, err := sjson.Parse(args)
	if err != nil {
		return nil, fmt.Errorf("%w: plugin args are not valid JSON: %v", ErrInvalidArgs, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: plugin args must be a JSON object", ErrInvalidArgs)
	}
	delete(obj, ConfigKey)
	if len(public) > 0 {
		obj[ConfigKey] = public
	}
	out, err := sjson.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: failed to serialize plugin input: %v", ErrInvalidArgs, err)
	}
	return out, nil
}
