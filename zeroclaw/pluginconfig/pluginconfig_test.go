package pluginconfig

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/internal/sjson"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// fixtureManifest is the reference fixture's manifest, read from the one copy in
// zeroclaw/testdata/tool-fixture so that every package's tests agree on it.
var fixtureManifest = func() string {
	b, err := os.ReadFile("../testdata/tool-fixture/manifest.toml")
	if err != nil {
		panic("the reference fixture manifest is missing: " + err.Error())
	}
	return string(b)
}()

func parse(t testing.TB, text string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withSchema builds a tool manifest whose config_schema is the JSON text.
func withSchema(t testing.TB, schemaJSON string, caps ...manifest.Capability) *manifest.Manifest {
	t.Helper()
	v, err := sjson.Parse([]byte(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) == 0 {
		caps = []manifest.Capability{manifest.CapabilityTool}
	}
	return &manifest.Manifest{Name: "fixture", Version: "0.1.0", WasmPath: "f.wasm", Capabilities: caps,
		Permissions: []manifest.Permission{manifest.PermissionConfigRead}, ConfigSchema: v}
}

func scope(t testing.TB, m *manifest.Manifest, granted bool) instance.Scope {
	t.Helper()
	var g instance.Grants
	if granted {
		g = instance.NewGrants(manifest.PermissionConfigRead)
	}
	s, err := instance.PackageScope(m, m.Capabilities[0], g)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompile_ReferenceFixture(t *testing.T) {
	s, err := Compile(parse(t, fixtureManifest))
	if err != nil {
		t.Fatal(err)
	}
	want := []Property{{"label", KindString, false}, {"max_len", KindInteger, false}, {"uppercase", KindBoolean, false}}
	if got := s.Properties(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("properties = %v", got)
	}
}

func obj(props string) string {
	return `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":` + props + `}`
}

func TestCompile_Errors(t *testing.T) {
	deep := `{"annotation":1}`
	for range MaxSchemaDepth {
		deep = `{"annotation":` + deep + `}`
	}
	tests := []struct {
		name   string
		schema string
		caps   []manifest.Capability
		want   string
	}{
		{"root not object", `{"type":"string","properties":{},"additionalProperties":false}`, nil, "config_schema root type must be object"},
		{"root schema not an object", `"object"`, nil, "config_schema root type must be object"},
		{"additional properties true", `{"type":"object","properties":{},"additionalProperties":true}`, nil, "must set additionalProperties = false"},
		{"additional properties missing", `{"type":"object","properties":{}}`, nil, "must set additionalProperties = false"},
		{"additional properties schema", `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, nil, "must set additionalProperties = false"},
		{"null type", obj(`{"value":{"type":"null"}}`), nil, "property 'value' uses unsupported type 'null'"},
		{"two types", obj(`{"value":{"type":["string","null"]}}`), nil, "property 'value' must declare one explicit type (directly or through local $ref)"},
		{"no type", obj(`{"value":{}}`), nil, "must declare one explicit type"},
		{"remote ref", obj(`{"value":{"$ref":"https://example.test/schema"}}`), nil, "contains non-local $ref reference 'https://example.test/schema'"},
		{"anchor ref", obj(`{"value":{"$ref":"#named-anchor"}}`), nil, "contains unsupported $ref anchor '#named-anchor'; use a local JSON Pointer"},
		{"dynamic ref", obj(`{"value":{"$dynamicRef":"other.json"}}`), nil, "contains non-local $dynamicRef reference"},
		{"missing ref target", obj(`{"value":{"$ref":"#/$defs/nope"}}`), nil, "cannot be compiled"},
		{"id", `{"$id":"https://example.test/s","type":"object","properties":{},"additionalProperties":false}`, nil, "must not declare $id; schemas are package-local"},
		{"nested id", obj(`{"value":{"type":"string","$id":"x"}}`), nil, "must not declare $id"},
		{"draft 7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{},"additionalProperties":false}`, nil, "must use JSON Schema Draft 2020-12"},
		{"no properties", `{"type":"object","additionalProperties":false}`, nil, "must declare an object properties map"},
		{"pattern properties", `{"type":"object","additionalProperties":false,"properties":{},"patternProperties":{"^x-":{"type":"string"}}}`, nil, "must not declare 'patternProperties' at the root"},
		{"property names", `{"type":"object","additionalProperties":false,"properties":{},"propertyNames":{"pattern":"^x"}}`, nil, "must not declare 'propertyNames' at the root"},
		{"unevaluated", `{"type":"object","additionalProperties":false,"properties":{},"unevaluatedProperties":false}`, nil, "must not declare 'unevaluatedProperties' at the root"},
		{"too deep", `{"type":"object","additionalProperties":false,"properties":{},"x":` + deep + `}`, nil, "exceeds maximum nesting depth 32"},
		{"too large", `{"type":"object","additionalProperties":false,"properties":{},"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, nil, "config_schema exceeds 65536 bytes"},
		{"invalid against metaschema", obj(`{"value":{"type":"string","minLength":-1}}`), nil, "cannot be compiled"},
		{"lookaround pattern", obj(`{"value":{"type":"string","pattern":"(?=a)"}}`), nil, "cannot be compiled"},
		{"huge pattern", obj(`{"value":{"type":"string","pattern":"^[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}[\\s\\S]{0,1000}$"}}`), nil, "over the limit"},
		{"cyclic ref", obj(`{"value":{"$ref":"#/properties/value"}}`), nil, "cyclic or excessively deep $ref chain"},
		{"secret false", obj(`{"k":{"type":"string","x-secret":false}}`), nil, "x-secret marker must be the boolean value true"},
		{"secret string", obj(`{"k":{"type":"string","x-secret":"true"}}`), nil, "x-secret marker must be the boolean value true"},
		{"secret nested", obj(`{"k":{"type":"object","properties":{"inner":{"type":"string","x-secret":true}}}}`), nil, "declares x-secret outside a top-level property"},
		{"secret at root", `{"type":"object","additionalProperties":false,"properties":{},"x-secret":true}`, nil, "declares x-secret outside a top-level property"},
		{"secret in defs", obj(`{}`)[:len(obj(`{}`))-1] + `,"$defs":{"s":{"type":"string","x-secret":true}}}`, nil, "declares x-secret outside a top-level property"},
		{"secret in items", obj(`{"k":{"type":"array","items":{"type":"string","x-secret":true}}}`), nil, "declares x-secret outside a top-level property"},
		{"secret non-string", obj(`{"k":{"type":"integer","x-secret":true}}`), nil, "property 'k' marks x-secret but does not resolve to type string"},
		{"secret on memory", obj(`{"k":{"type":"string","x-secret":true}}`), []manifest.Capability{manifest.CapabilityMemory}, "uses x-secret, which is supported only by manifests whose executable config consumer is the tool or channel world"},
		{"secret on observer", obj(`{"k":{"type":"string","x-secret":true}}`), []manifest.Capability{manifest.CapabilityObserver}, "uses x-secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(withSchema(t, tt.schema, tt.caps...))
			if !errors.Is(err, manifest.ErrInvalidManifest) || !strings.Contains(err.Error(), tt.want) ||
				!strings.HasPrefix(err.Error(), "invalid manifest: plugin 'fixture' ") {
				t.Fatalf("err = %v\nwant %q", err, tt.want)
			}
		})
	}
}

// config_read if and only if config_schema.
func TestCompile_PermissionBiconditional(t *testing.T) {
	noSchema := parse(t, "name = \"schemaless-tool\"\nversion = \"0.0.0\"\nwasm_path = \"s.wasm\"\ncapabilities = [\"tool\"]\npermissions = [\"config_read\"]\n")
	_, err := Compile(noSchema)
	if err == nil || err.Error() != "invalid manifest: plugin 'schemaless-tool' requests config_read but declares no config_schema" {
		t.Errorf("config_read without schema: %v", err)
	}
	m := withSchema(t, obj(`{}`))
	m.Permissions = nil
	if _, err := Compile(m); err == nil || !strings.Contains(err.Error(), "declares config_schema without requesting config_read") {
		t.Errorf("schema without config_read: %v", err)
	}
	plain := parse(t, "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
	if s, err := Compile(plain); s != nil || err != nil {
		t.Errorf("neither: %v %v", s, err)
	}
	if _, err := Compile(withSchema(t, obj(`{}`))); err != nil {
		t.Errorf("empty properties: %v", err)
	}
}

func TestCompile_AcceptedShapes(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","additionalProperties":false,"properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"$ref":"#/$defs/t"},"t":{"type":"string"}}}`,
		obj(`{"n":{"type":"number","minimum":0},"arr":{"type":"array","items":{"type":"string"}},"o":{"type":"object","patternProperties":{"^x":{"type":"string"}}}}`),
		obj(`{"slug":{"type":"string","pattern":"^[a-z0-9-]{1,64}$"},"uuid":{"type":"string","pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}}`),
		obj(`{"k":{"type":"string","x-secret":true,"minLength":1}}`),
	} {
		if _, err := Compile(withSchema(t, schema)); err != nil {
			t.Errorf("Compile(%s) = %v", schema, err)
		}
	}
	// The seed lets channels read x-secret properties with secrets.get (the reference code
	// refused them): a channel, and a tool that is also a channel, are admitted.
	secret := obj(`{"k":{"type":"string","x-secret":true}}`)
	for _, caps := range [][]manifest.Capability{{manifest.CapabilityChannel}, {manifest.CapabilityTool, manifest.CapabilityChannel}} {
		s, err := Compile(withSchema(t, secret, caps...))
		if err != nil || !s.HasSecrets() {
			t.Errorf("x-secret for %v: %v", caps, err)
		}
	}
}

func mustCompile(t testing.TB, m *manifest.Manifest) *Schema {
	t.Helper()
	s, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The reference's reference_plugin.rs assertions that do not need wasm: the
// resolved __config a tool receives.
func TestResolve_ReferenceFixture(t *testing.T) {
	m := parse(t, fixtureManifest)
	schema := mustCompile(t, m)
	operator := map[string]string{"label": "masked", "uppercase": "true", "max_len": "5"}

	tests := []struct {
		name    string
		granted bool
		values  map[string]string
		args    string
		want    string
	}{
		{"granted", true, operator, `{"text":"hello world"}`, `{"__config":{"label":"masked","max_len":5,"uppercase":true},"text":"hello world"}`},
		{"withheld", false, operator, `{"text":"hello world"}`, `{"text":"hello world"}`},
		{"forged __config stripped", false, operator, `{"text":"hi","__config":{"label":"forged","uppercase":true}}`, `{"text":"hi"}`},
		{"forged __config replaced", true, operator, `{"text":"hi","__config":{"label":"forged"}}`, `{"__config":{"label":"masked","max_len":5,"uppercase":true},"text":"hi"}`},
		{"granted without values", true, nil, `{"text":"x"}`, `{"text":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Resolve(m, schema, scope(t, m, tt.granted), Values(tt.values))
			if err != nil {
				t.Fatal(err)
			}
			out, err := InjectConfig([]byte(tt.args), res.Public())
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Fatalf("args = %s\nwant %s", out, tt.want)
			}
		})
	}
}

func TestResolve_WithheldNeverReadsValues(t *testing.T) {
	m := parse(t, fixtureManifest)
	called := false
	res, err := Resolve(m, nil, scope(t, m, false), func() (map[string]string, error) {
		called = true
		return map[string]string{"bogus": "x"}, nil
	})
	if err != nil || called || len(res.Public()) != 0 || res.PublicJSON() != "{}" {
		t.Fatalf("withheld: %v called=%v public=%v", err, called, res.Public())
	}
	// A schema with required properties fails closed when the grant is withheld.
	req := withSchema(t, `{"type":"object","additionalProperties":false,"properties":{"api_key":{"type":"string"}},"required":["api_key"]}`)
	_, err = Resolve(req, nil, scope(t, req, false), Values(map[string]string{"api_key": "k"}))
	if !errors.Is(err, ErrInvalidConfig) || err.Error() != "invalid plugin config: plugin 'fixture' config violates config_schema at '/required'" {
		t.Errorf("required + withheld: %v", err)
	}
}

// The four typed-value messages of reference_plugin.rs, and the rest.
func TestResolve_Errors(t *testing.T) {
	m := parse(t, fixtureManifest)
	schema := mustCompile(t, m)
	tests := []struct {
		values map[string]string
		want   string
	}{
		{map[string]string{"max_len": "not-a-number"}, "invalid plugin config: config property 'max_len' must contain valid JSON"},
		{map[string]string{"max_len": "5.5"}, "invalid plugin config: config property 'max_len' must be a JSON integer"},
		{map[string]string{"uppercase": "yes"}, "invalid plugin config: config property 'uppercase' must contain valid JSON"},
		{map[string]string{"unknown": "1"}, "invalid plugin config: plugin 'tool-fixture' config contains a property absent from config_schema"},
		{map[string]string{"uppercase": `"true"`}, "invalid plugin config: config property 'uppercase' must be a JSON boolean"},
		{map[string]string{"max_len": "-0"}, "must be a JSON integer"},
		{map[string]string{"max_len": "1e2"}, "must be a JSON integer"},
		{map[string]string{"max_len": "18446744073709551616"}, "must be a JSON integer"},
		{map[string]string{"max_len": " 5 x"}, "must contain valid JSON"},
	}
	for _, tt := range tests {
		_, err := Resolve(m, schema, scope(t, m, true), Values(tt.values))
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v\nwant %q", tt.values, err, tt.want)
		}
	}
	// The plugin still resolves afterwards with valid values.
	res, err := Resolve(m, schema, scope(t, m, true), Values(map[string]string{"max_len": " 18446744073709551615 "}))
	if err != nil || res.PublicJSON() != `{"max_len":18446744073709551615}` {
		t.Errorf("valid after errors: %v %v", res, err)
	}
	other, _ := instance.NewID("other", manifest.CapabilityTool, "other")
	if _, err := Resolve(m, schema, instance.Scope{ID: other}, nil); err == nil || !strings.Contains(err.Error(), "instance package 'other' does not match manifest 'tool-fixture'") {
		t.Errorf("foreign scope: %v", err)
	}
	plain := parse(t, "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
	if _, err := Resolve(plain, nil, scope(t, plain, false), Values(map[string]string{"a": "b"})); err == nil ||
		err.Error() != "invalid plugin config: plugin 'p' has configured values but declares no config_schema" {
		t.Errorf("values without schema: %v", err)
	}
	if res, err := Resolve(plain, nil, scope(t, plain, false), Values(map[string]string{})); err != nil || res.PublicJSON() != "{}" {
		t.Errorf("no schema, no values: %v", err)
	}
	if _, err := Resolve(m, schema, scope(t, m, true), func() (map[string]string, error) { return nil, errors.New("vault locked") }); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("source error: %v", err)
	}
}

func TestResolve_EveryTypeAndSecrets(t *testing.T) {
	m := withSchema(t, `{"type":"object","additionalProperties":false,"required":["endpoint","api_key"],"properties":{
		"endpoint":{"type":"string","format":"uri"},"api_key":{"type":"string","x-secret":true,"minLength":3},
		"retries":{"type":"integer","maximum":5},"ratio":{"type":"number"},"enabled":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"}},"options":{"type":"object"},
		"alias":{"$ref":"#/$defs/name"}},"$defs":{"name":{"type":"string"}}}`)
	schema := mustCompile(t, m)
	values := map[string]string{"endpoint": "https://example.test", "api_key": "secret-value", "retries": "4",
		"ratio": "0.5", "enabled": "true", "tags": `["urgent","ops"]`, "options": `{"nested":false}`, "alias": "x"}
	res, err := Resolve(m, schema, scope(t, m, true), Values(values))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"alias":"x","enabled":true,"endpoint":"https://example.test","options":{"nested":false},"ratio":0.5,"retries":4,"tags":["urgent","ops"]}`
	if res.PublicJSON() != want {
		t.Errorf("public = %s\nwant %s", res.PublicJSON(), want)
	}
	if v, ok := res.Secret("api_key"); !ok || v != "secret-value" {
		t.Errorf("secret = %q %v", v, ok)
	}
	if _, ok := res.Secret("endpoint"); ok {
		t.Error("a public property is readable as a secret")
	}
	if strings.Contains(res.PublicJSON(), "secret-value") {
		t.Error("secret leaked into the public object")
	}
	// Constraint violations report the schema path, never the value.
	for values, path := range map[string]string{
		`{"retries":"9"}`:  "/properties/retries/maximum",
		`{"api_key":"ab"}`: "/properties/api_key/minLength",
		`{"tags":"[1]"}`:   "/properties/tags/items/type",
	} {
		v, _ := sjson.Parse([]byte(values))
		vals := map[string]string{"endpoint": "https://e", "api_key": "secret-value"}
		for k, x := range v.(map[string]any) {
			vals[k] = x.(string)
		}
		_, err := Resolve(m, schema, scope(t, m, true), Values(vals))
		if err == nil || err.Error() != "invalid plugin config: plugin 'fixture' config violates config_schema at '"+path+"'" {
			t.Errorf("%s: %v, want path %s", values, err, path)
		}
		if err != nil && strings.Contains(err.Error(), "ab") {
			t.Errorf("%s: error leaks the value: %v", values, err)
		}
	}
}

func TestInjectConfig_Errors(t *testing.T) {
	for _, args := range []string{`[1,2,3]`, `"x"`, `{"a":`, ``, `{"a":1} x`} {
		if _, err := InjectConfig([]byte(args), map[string]any{"k": "v"}); !errors.Is(err, ErrInvalidArgs) {
			t.Errorf("InjectConfig(%q) = %v", args, err)
		}
	}
}

// Whatever the caller sends, the __config the plugin receives is exactly the
// host's public object (or absent when that is empty).
func TestInjectConfig_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		args := map[string]any{}
		for _, k := range rapid.SliceOfN(rapid.StringMatching(`[a-z_]{1,8}`), 0, 4).Draw(t, "keys") {
			args[k] = rapid.String().Draw(t, "v")
		}
		if rapid.Bool().Draw(t, "forge") {
			args[ConfigKey] = map[string]any{"label": "forged"}
		}
		public := map[string]any{}
		if rapid.Bool().Draw(t, "public") {
			public["label"] = rapid.String().Draw(t, "label")
		}
		raw, _ := sjson.Marshal(args)
		out, err := InjectConfig(raw, public)
		if err != nil {
			t.Fatal(err)
		}
		v, err := sjson.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		got, present := v.(map[string]any)[ConfigKey]
		if len(public) == 0 {
			if present {
				t.Fatalf("__config present with an empty public config: %s", out)
			}
		} else if !sjson.Equal(got, public) {
			t.Fatalf("__config = %v, want %v", got, public)
		}
	})
}

func TestMaterialize_Property(t *testing.T) {
	// Every JSON text of the right kind materialises to its parsed value.
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64().Draw(t, "n")
		v, err := Materialize("k", fmt.Sprint(n), KindInteger)
		if err != nil || !sjson.Equal(v, sjson.Int(n)) {
			t.Fatalf("Materialize(%d) = %v %v", n, v, err)
		}
		s := rapid.String().Draw(t, "s")
		if v, err := Materialize("k", s, KindString); err != nil || v != s {
			t.Fatalf("string %q: %v %v", s, v, err)
		}
	})
}
