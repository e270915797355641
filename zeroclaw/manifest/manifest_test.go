package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/kobako/kobako/zeroclaw/internal/sjson"
)

// fixtureManifest is the reference fixture's manifest (spec/reference-fixture-manifest.toml), read from the one copy in
// zeroclaw/testdata/tool-fixture so that every package's tests agree on it.
var fixtureManifest = func() string {
	b, err := os.ReadFile("../testdata/tool-fixture/manifest.toml")
	if err != nil {
		panic("the reference fixture manifest is missing: " + err.Error())
	}
	return string(b)
}()

func TestParse_ReferenceFixture(t *testing.T) {
	m, err := Parse([]byte(fixtureManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "tool-fixture" || m.Version != "0.0.0" || m.WasmPath != "tool-fixture.wasm" {
		t.Errorf("fields = %q %q %q", m.Name, m.Version, m.WasmPath)
	}
	if !reflect.DeepEqual(m.Capabilities, []Capability{CapabilityTool}) ||
		!reflect.DeepEqual(m.Permissions, []Permission{PermissionConfigRead}) {
		t.Errorf("capabilities %v permissions %v", m.Capabilities, m.Permissions)
	}
	got, _ := sjson.MarshalString(m.ConfigSchema)
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"properties":{"label":{"type":"string"},"max_len":{"type":"integer"},"uppercase":{"type":"boolean"}},"type":"object"}`
	if got != want {
		t.Errorf("config_schema = %s\nwant %s", got, want)
	}
	if m.Signature != nil || m.PublisherKey != nil || m.Extra != nil {
		t.Errorf("unexpected signature/extra: %v %v %v", m.Signature, m.PublisherKey, m.Extra)
	}
	if string(m.Raw) != fixtureManifest {
		t.Error("Raw is not the exact input")
	}
}

func TestParse_KeepsUnknownKeysAndAliases(t *testing.T) {
	m, err := Parse([]byte(`name = "telegram"
version = "0.2.0"
description = "Telegram channel"
author = "someone"
wasm_path = "plugin.wasm"
capabilities = ["channel", "tool"]
permissions = ["http_client", "env_read", "websocket_client"]
provides = "telegram"
sender_match = "case_insensitive"
signature = ""
[meta]
x = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Permissions, []Permission{PermissionHTTPClient, PermissionConfigRead, PermissionWebSocketClient}) {
		t.Errorf("permissions = %v", m.Permissions)
	}
	if m.Extra["provides"] != "telegram" || m.Extra["sender_match"] != "case_insensitive" || m.Extra["meta"] == nil {
		t.Errorf("Extra = %v", m.Extra)
	}
	if m.Signature == nil || *m.Signature != "" || m.PublisherKey != nil {
		t.Errorf("an empty signature is present, publisher_key absent: %v %v", m.Signature, m.PublisherKey)
	}
	if m.Description != "Telegram channel" || m.Author != "someone" {
		t.Errorf("description/author = %q %q", m.Description, m.Author)
	}
}

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name, text, want string
		is               error
	}{
		{"syntax", `name = "unterminated`, "TOML parse error", ErrParse},
		{"missing name", "version = \"1\"\ncapabilities = [\"tool\"]", "missing field `name`", ErrParse},
		{"missing version", "name = \"a\"\ncapabilities = [\"tool\"]", "missing field `version`", ErrParse},
		{"missing capabilities", "name = \"a\"\nversion = \"1\"", "missing field `capabilities`", ErrParse},
		{"name type", "name = 1\nversion = \"1\"\ncapabilities = []", "`name`: invalid type: integer, expected a string", ErrParse},
		{"capabilities type", "name = \"a\"\nversion = \"1\"\ncapabilities = \"tool\"", "expected a sequence", ErrParse},
		{"unknown capability", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\", \"gpu\"]", "capabilities[1]: unknown variant `gpu`", ErrParse},
		{"unknown permission", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\"]\npermissions = [\"root\"]", "permissions[0]: unknown variant `root`", ErrParse},
		{"permission type", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\"]\npermissions = [1]", "permissions[0]: invalid type: integer", ErrParse},
		{"signature type", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\"]\nsignature = 5", "`signature`: invalid type", ErrParse},
		{"schema datetime", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n[config_schema]\nd = 1979-05-27", "config_schema.d: TOML datetime", ErrParse},
		{"schema nan", "name = \"a\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n[config_schema]\nd = nan", "config_schema.d: NaN has no JSON", ErrParse},
		{"empty wasm_path", "name = \"a\"\nversion = \"1\"\nwasm_path = \"\"\ncapabilities = [\"tool\"]", "invalid `wasm_path` (\"\")", ErrInvalidManifest},
		{"deep nesting", "a = " + strings.Repeat("{b=", 200), "nest deeper than 40", ErrParse},
		{"invalid utf8", "name = \"\xff\"", "not valid UTF-8", ErrParse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.text))
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
	if _, err := Parse(make([]byte, MaxManifestBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized manifest: %v", err)
	}
}

func TestReadFile_Capped(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(strings.Repeat("#", MaxManifestBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile of an oversized manifest: %v", err)
	}
}

func TestValidatePackageName(t *testing.T) {
	good := []string{"a", "0", "tool-fixture", "messaging.plugin", "a_b-c.d9", strings.Repeat("a", 128)}
	bad := []string{"", "A", "Mail", "mail.", "-a", ".a", "a-", "../escape", "a/b", "é", "a b", strings.Repeat("a", 129), "aB"}
	for _, n := range good {
		if err := ValidatePackageName(n); err != nil {
			t.Errorf("ValidatePackageName(%q) = %v", n, err)
		}
	}
	for _, n := range bad {
		err := ValidatePackageName(n)
		if err == nil || !strings.Contains(err.Error(), "plugin package must be a 1-128 character lowercase ASCII slug") {
			t.Errorf("ValidatePackageName(%q) = %v", n, err)
		}
	}
}

func TestValidateSubpath(t *testing.T) {
	good := []string{"plugin.wasm", "bin/plugin.wasm", "./plugin.wasm", "a..b.wasm"}
	bad := []string{"/etc/passwd", `\\server\share`, "../x.wasm", "a/../../x", `a\..\x`, "C:/x.wasm", "c:x.wasm", "", "a\x00b"}
	for _, p := range good {
		if err := ValidateSubpath("wasm_path", "p", p); err != nil {
			t.Errorf("ValidateSubpath(%q) = %v", p, err)
		}
	}
	for _, p := range bad {
		err := ValidateSubpath("wasm_path", "p", p)
		if !errors.Is(err, ErrInvalidManifest) || !strings.Contains(err.Error(), "must be a relative path inside the plugin directory") {
			t.Errorf("ValidateSubpath(%q) = %v", p, err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t *testing.T, text string) *Manifest {
	t.Helper()
	m, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The reference's shape checks, in its order.
func TestValidateShape_Errors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"bad name", "name = \"Bad\"\nversion = \"1\"\nwasm_path = \"../x\"\ncapabilities = []", "plugin package must be"},
		{"wasm traversal", "name = \"p\"\nversion = \"1\"\nwasm_path = \"../x.wasm\"\ncapabilities = []", "plugin 'p' has an invalid `wasm_path` (\"../x.wasm\")"},
		{"no capabilities", "name = \"p\"\nversion = \"1\"\ncapabilities = []", "plugin 'p' declares no capabilities"},
		{"no wasm_path", "name = \"broken-tool\"\nversion = \"0.0.0\"\ncapabilities = [\"tool\"]", "plugin 'broken-tool' is missing required `wasm_path` for non-skill capabilities"},
		{"skill plus tool without wasm", "name = \"p\"\nversion = \"1\"\ncapabilities = [\"skill\", \"tool\"]", "missing required `wasm_path`"},
		{"skill without skills dir", "name = \"p\"\nversion = \"1\"\ncapabilities = [\"skill\"]", "skill plugin 'p' is missing `skills/` directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateShape(mustParse(t, tt.text), t.TempDir())
			if !errors.Is(err, ErrInvalidManifest) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestValidateShape_SkillBundle(t *testing.T) {
	const skillOnly = "name = \"my-toolkit\"\nversion = \"1\"\ncapabilities = [\"skill\"]\n"
	md := func(name, desc string) string {
		return "---\r\nname: " + name + "\r\ndescription: " + desc + "\r\n---\r\nBody\r\n"
	}
	t.Run("valid", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "skills", "design-review", SkillFile), md("design-review", "Review designs"))
		writeFile(t, filepath.Join(dir, "skills", "code-review", SkillFile), "---\nname: \"code-review\"\n  description:   Review code\n---")
		writeFile(t, filepath.Join(dir, "skills", "README.md"), "top-level files are ignored")
		skills, err := ValidateShape(mustParse(t, skillOnly), dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(skills) != 2 || skills[0].ID != "plugin:my-toolkit/code-review" || skills[1].ID != "plugin:my-toolkit/design-review" ||
			skills[0].Description != "Review code" || skills[1].Name != "design-review" {
			t.Fatalf("skills = %+v", skills)
		}
	})
	cases := []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		{"empty skills dir", func(dir string) { os.MkdirAll(filepath.Join(dir, "skills"), 0o755) }, "has empty `skills/` directory"},
		{"only files", func(dir string) { writeFile(t, filepath.Join(dir, "skills", "x.md"), "x") }, "has empty `skills/` directory"},
		{"missing SKILL.md", func(dir string) { os.MkdirAll(filepath.Join(dir, "skills", "a"), 0o755) }, "subdirectory 'a' is missing SKILL.md"},
		{"no front matter", func(dir string) { writeFile(t, filepath.Join(dir, "skills", "a", SkillFile), "# title\n") }, "is missing YAML frontmatter"},
		{"unterminated", func(dir string) { writeFile(t, filepath.Join(dir, "skills", "a", SkillFile), "---\nname: a\n") }, "has unterminated frontmatter"},
		{"empty description", func(dir string) {
			writeFile(t, filepath.Join(dir, "skills", "a", SkillFile), "---\nname: a\ndescription:\n---\n")
		}, "frontmatter must declare `name` and `description`"},
		{"missing name", func(dir string) {
			writeFile(t, filepath.Join(dir, "skills", "a", SkillFile), "---\ndescription: d\n---\n")
		}, "frontmatter must declare `name` and `description`"},
		{"oversized", func(dir string) {
			writeFile(t, filepath.Join(dir, "skills", "a", SkillFile), "---\nname: a\ndescription: d\n---\n"+strings.Repeat("x", MaxSkillFileBytes))
		}, "larger than"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(dir)
			_, err := ValidateShape(mustParse(t, skillOnly), dir)
			if !errors.Is(err, ErrInvalidManifest) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestInertPermissions(t *testing.T) {
	tests := []struct {
		caps  string
		perms string
		want  []Permission
	}{
		{`["tool"]`, `["config_read","http_client","file_read","memory_write"]`, []Permission{PermissionFileRead, PermissionMemoryWrite}},
		{`["channel"]`, `["websocket_client","socket_client"]`, []Permission{PermissionWebSocketClient, PermissionSocketClient}},
		{`["memory"]`, `["http_client","config_read","memory_read"]`, []Permission{PermissionHTTPClient, PermissionConfigRead, PermissionMemoryRead}},
		{`["tool"]`, `[]`, nil},
	}
	for _, tt := range tests {
		m := mustParse(t, "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = "+tt.caps+"\npermissions = "+tt.perms)
		if got := m.InertPermissions(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s: InertPermissions = %v, want %v", tt.caps, tt.perms, got, tt.want)
		}
	}
}

func TestDebugNames(t *testing.T) {
	if CapabilityChannel.DebugName() != "Channel" || PermissionHTTPClient.DebugName() != "HttpClient" ||
		PermissionWebSocketClient.DebugName() != "WebSocketClient" || PermissionConfigRead.DebugName() != "ConfigRead" {
		t.Error("debug names differ from the reference's Rust Debug output")
	}
}

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"0.1.0", "1", "1.2", "1.2.3", "1.0.0-beta.1", "1.0.0+build.5", "10.20.30-rc.1+sha.abc"} {
		if err := CheckVersion(&Manifest{Name: "p", Version: v}); err != nil {
			t.Errorf("CheckVersion(%q) = %v", v, err)
		}
	}
}

func TestCheckVersion_Errors(t *testing.T) {
	for _, v := range []string{"not-a-version", "", "v1.0.0", "1.0.0.0", "01.0.0", "1.0.0-", "1.0.0-beta..1", " 1.0.0", "1.0.0\n"} {
		err := CheckVersion(&Manifest{Name: "p", Version: v})
		if !errors.Is(err, ErrInvalidManifest) || !strings.Contains(err.Error(), fmt.Sprintf("plugin 'p' has version %q, which is not a version number", v)) {
			t.Errorf("CheckVersion(%q) = %v", v, err)
		}
	}
}

// TestConfigSchemaNumbers: the schema's numbers reach the API as json.Number (no internal type),
// written as serde_json writes them, integers and floats kept apart.
func TestConfigSchemaNumbers(t *testing.T) {
	tests := []struct {
		toml string
		want json.Number
	}{
		{"3", "3"},
		{"-7", "-7"},
		{"1.5", "1.5"},
		{"2.0", "2.0"},
		{"1e300", "1e300"},
	}
	for _, tt := range tests {
		v, err := FromTOML(map[string]any{"maximum": mustTOML(t, tt.toml)}, "config_schema")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := v.(map[string]any)["maximum"].(json.Number)
		if !ok || got != tt.want {
			t.Errorf("%s: %#v, want json.Number %q", tt.toml, v.(map[string]any)["maximum"], tt.want)
		}
	}
}

func mustTOML(t *testing.T, lit string) any {
	t.Helper()
	var doc map[string]any
	if _, err := toml.Decode("x = "+lit, &doc); err != nil {
		t.Fatal(err)
	}
	return doc["x"]
}
