// Package manifest parses and checks ZeroClaw plugin manifests
// (manifest.toml): the data model of a plugin package before anything is
// signed, configured or run.
//
// Parsing follows the reference host's serde surface: the keys are the
// snake_case field names, unknown keys are accepted (and kept in
// [Manifest.Extra], because they are part of the signed bytes), capabilities
// and permissions are closed sets, and `env_read` is an alias of
// `config_read`. [ValidateShape] then applies the reference's shape checks in
// the reference's order.
//
//	m, err := manifest.Parse(raw)
//	if err != nil { ... }
//	skills, err := manifest.ValidateShape(m, pluginDir)
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/zeroclaw/internal/sjson"
	"github.com/kobako/kobako/zeroclaw/internal/tomldepth"
)

// FileName is the manifest's file name inside a plugin directory.
const FileName = "manifest.toml"

// MaxManifestBytes caps how much of a manifest.toml is read. Manifests are a
// few hundred bytes; the config_schema inside is itself capped at 64 KiB of
// JSON. The cap also bounds the TOML decoder's work on a hostile manifest.
const MaxManifestBytes = 256 << 10

// Capability is what a plugin provides: a WIT world to export, an
// observability backend, or a bundle of markdown skills.
type Capability string

// The capabilities of the reference's PluginCapability enum.
const (
	CapabilityTool     Capability = "tool"
	CapabilityChannel  Capability = "channel"
	CapabilityMemory   Capability = "memory"
	CapabilityObserver Capability = "observer"
	CapabilitySkill    Capability = "skill"
)

// Capabilities lists every capability in declaration order.
var Capabilities = []Capability{CapabilityTool, CapabilityChannel, CapabilityMemory, CapabilityObserver, CapabilitySkill}

// Valid reports whether c is one of the known capabilities.
func (c Capability) Valid() bool { return slices.Contains(Capabilities, c) }

// DebugName is the reference's Rust Debug rendering of the capability
// ("Tool", "Channel", ...), used in its error messages.
func (c Capability) DebugName() string {
	if c == "" {
		return ""
	}
	return strings.ToUpper(string(c[:1])) + string(c[1:])
}

// Permission is a host surface a plugin requests.
type Permission string

// The permissions of the reference's PluginPermission enum.
const (
	PermissionHTTPClient      Permission = "http_client"
	PermissionWebSocketClient Permission = "websocket_client"
	PermissionSocketClient    Permission = "socket_client"
	PermissionFileRead        Permission = "file_read"
	PermissionFileWrite       Permission = "file_write"
	PermissionConfigRead      Permission = "config_read"
	PermissionMemoryRead      Permission = "memory_read"
	PermissionMemoryWrite     Permission = "memory_write"
)

// Permissions lists every permission in declaration order.
var Permissions = []Permission{
	PermissionHTTPClient, PermissionWebSocketClient, PermissionSocketClient, PermissionFileRead,
	PermissionFileWrite, PermissionConfigRead, PermissionMemoryRead, PermissionMemoryWrite,
}

// permissionAliases are accepted when parsing and mapped to their permission.
var permissionAliases = map[string]Permission{"env_read": PermissionConfigRead}

// Valid reports whether p is one of the known permissions.
func (p Permission) Valid() bool { return slices.Contains(Permissions, p) }

// DebugName is the reference's Rust Debug rendering ("HttpClient",
// "WebSocketClient", ...), used in its error messages.
func (p Permission) DebugName() string {
	if p == PermissionWebSocketClient {
		return "WebSocketClient"
	}
	var sb strings.Builder
	for _, part := range strings.Split(string(p), "_") {
		if part == "" {
			continue
		}
		sb.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return sb.String()
}

// Manifest is a parsed manifest.toml.
type Manifest struct {
	// Name is the package name, the plugin's unique identifier.
	Name string
	// Version is free-form.
	Version string
	// Description and Author are optional; empty when absent.
	Description string
	Author      string
	// WasmPath is the component's path relative to the plugin directory;
	// empty when absent (only skill-only plugins may omit it).
	WasmPath string
	// Capabilities are the declared capabilities in manifest order.
	Capabilities []Capability
	// Permissions are the requested permissions in manifest order, with
	// aliases resolved.
	Permissions []Permission
	// ConfigSchema is the JSON Schema of the plugin's private config, as a
	// JSON value (map[string]any, []any, string, bool, nil or json.Number,
	// a number written as the reference's serde_json writes it: integers
	// without a point, floats with one or an exponent); nil when absent.
	ConfigSchema any
	// Signature (base64url Ed25519) and PublisherKey (hex) are nil when
	// absent. A manifest missing either is unsigned.
	Signature    *string
	PublisherKey *string
	// WasmSHA256 is the lower-case hex sha256 of the wasm file when the manifest pins it with
	// the kobako extension key wasm_sha256 (hex, optionally prefixed "sha256:"); empty
	// otherwise. A signature covers the manifest text, so a signed pin makes the signature cover
	// the component too; the reference host ignores the key.
	WasmSHA256 string
	// Extra holds the unknown root keys with their decoded TOML values. They
	// are not interpreted, but they are signed: the raw text is what a
	// signature covers.
	Extra map[string]any
	// Raw is the manifest text exactly as read. Installs write these bytes
	// and signatures are checked against them.
	Raw []byte
}

// HasCapability reports whether c is declared.
func (m *Manifest) HasCapability(c Capability) bool { return slices.Contains(m.Capabilities, c) }

// HasPermission reports whether p is requested.
func (m *Manifest) HasPermission(p Permission) bool { return slices.Contains(m.Permissions, p) }

// SkillOnly reports whether the only capability is skill, the one case that
// carries no wasm.
func (m *Manifest) SkillOnly() bool {
	return len(m.Capabilities) == 1 && m.Capabilities[0] == CapabilitySkill
}

// InertPermissions returns the requested permissions that grant nothing in
// this host today: config_read and http_client take effect only for the tool
// and channel worlds, and the file, memory, websocket and socket permissions
// are accepted but not wired to any host import.
func (m *Manifest) InertPermissions() []Permission {
	consumer := m.HasCapability(CapabilityTool) || m.HasCapability(CapabilityChannel)
	var inert []Permission
	for _, p := range m.Permissions {
		switch p {
		case PermissionConfigRead, PermissionHTTPClient:
			if consumer {
				continue
			}
		}
		if !slices.Contains(inert, p) {
			inert = append(inert, p)
		}
	}
	return inert
}

// ReadFile reads and parses the manifest at path, refusing files over
// MaxManifestBytes.
func ReadFile(path string) (*Manifest, error) {
	raw, err := ReadCapped(path, MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	m, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadCapped reads the regular file at path, refusing one longer than limit bytes (ErrTooLarge)
// without reading more than limit+1 of it, and anything but a regular file: a FIFO would block
// the open until a writer came, /dev/zero has no end.
func ReadCapped(path string, limit int64) ([]byte, error) {
	b, err := boundedfile.Read(path, limit)
	if errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, path, limit)
	}
	return b, err
}

// Parse decodes manifest text. Unknown root keys are kept in Extra; wrong
// types, unknown capabilities or permissions and missing required keys are
// ErrParse.
func Parse(raw []byte) (*Manifest, error) {
	if len(raw) > MaxManifestBytes {
		return nil, fmt.Errorf("%w: manifest is larger than %d bytes", ErrTooLarge, MaxManifestBytes)
	}
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: manifest is not valid UTF-8", ErrParse)
	}
	if err := tomldepth.Check(string(raw), tomldepth.Max); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	m := &Manifest{Raw: slices.Clone(raw)}
	var err error
	if m.Name, err = requiredString(doc, "name"); err != nil {
		return nil, err
	}
	if m.Version, err = requiredString(doc, "version"); err != nil {
		return nil, err
	}
	if m.Description, _, err = optionalString(doc, "description"); err != nil {
		return nil, err
	}
	if m.Author, _, err = optionalString(doc, "author"); err != nil {
		return nil, err
	}
	wasm, hasWasm, err := optionalString(doc, "wasm_path")
	if err != nil {
		return nil, err
	}
	if hasWasm && wasm == "" {
		// The reference would accept the empty path and then treat the plugin
		// directory itself as the component; refuse it up front instead.
		return nil, fmt.Errorf("%w: plugin '%s' has an invalid `wasm_path` (\"\"): it must be a relative path inside the plugin directory", ErrInvalidManifest, m.Name)
	}
	m.WasmPath = wasm
	pin, hasPin, err := optionalString(doc, "wasm_sha256")
	if err != nil {
		return nil, err
	}
	if hasPin {
		h := strings.ToLower(strings.TrimPrefix(pin, "sha256:"))
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%w: plugin '%s' has an invalid `wasm_sha256` (%q): want 64 hex digits", ErrInvalidManifest, m.Name, pin)
		}
		if wasm == "" {
			return nil, fmt.Errorf("%w: plugin '%s' pins `wasm_sha256` without a `wasm_path`", ErrInvalidManifest, m.Name)
		}
		m.WasmSHA256 = h
	}
	caps, ok := doc["capabilities"]
	if !ok {
		return nil, fmt.Errorf("%w: missing field `capabilities`", ErrParse)
	}
	capStrs, err := stringArray("capabilities", caps)
	if err != nil {
		return nil, err
	}
	for i, s := range capStrs {
		c := Capability(s)
		if !c.Valid() {
			return nil, fmt.Errorf("%w: capabilities[%d]: unknown variant `%s`, expected one of %s", ErrParse, i, s, variantList(Capabilities))
		}
		m.Capabilities = append(m.Capabilities, c)
	}
	if perms, ok := doc["permissions"]; ok {
		permStrs, err := stringArray("permissions", perms)
		if err != nil {
			return nil, err
		}
		for i, s := range permStrs {
			p := Permission(s)
			if alias, ok := permissionAliases[s]; ok {
				p = alias
			}
			if !p.Valid() {
				return nil, fmt.Errorf("%w: permissions[%d]: unknown variant `%s`, expected one of %s", ErrParse, i, s, variantList(Permissions))
			}
			m.Permissions = append(m.Permissions, p)
		}
	}
	if schema, ok := doc["config_schema"]; ok {
		js, err := FromTOML(schema, "config_schema")
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParse, err)
		}
		m.ConfigSchema = js
	}
	for _, key := range []string{"signature", "publisher_key"} {
		s, present, err := optionalString(doc, key)
		if err != nil {
			return nil, err
		}
		if present {
			v := s
			if key == "signature" {
				m.Signature = &v
			} else {
				m.PublisherKey = &v
			}
		}
	}
	for k, v := range doc {
		switch k {
		case "name", "version", "description", "author", "wasm_path", "wasm_sha256", "capabilities",
			"permissions", "config_schema", "signature", "publisher_key":
			continue
		}
		if m.Extra == nil {
			m.Extra = map[string]any{}
		}
		m.Extra[k] = v
	}
	return m, nil
}

func variantList[T ~string](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = "`" + string(v) + "`"
	}
	return strings.Join(parts, ", ")
}

func requiredString(doc map[string]any, key string) (string, error) {
	s, present, err := optionalString(doc, key)
	if err != nil {
		return "", err
	}
	if !present {
		return "", fmt.Errorf("%w: missing field `%s`", ErrParse, key)
	}
	return s, nil
}

func optionalString(doc map[string]any, key string) (string, bool, error) {
	v, ok := doc[key]
	if !ok {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("%w: `%s`: invalid type: %s, expected a string", ErrParse, key, tomlTypeName(v))
	}
	return s, true, nil
}

func stringArray(key string, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		if _, isTables := v.([]map[string]any); isTables {
			return nil, fmt.Errorf("%w: `%s`: invalid type: array of tables, expected a sequence of strings", ErrParse, key)
		}
		return nil, fmt.Errorf("%w: `%s`: invalid type: %s, expected a sequence", ErrParse, key, tomlTypeName(v))
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%w: %s[%d]: invalid type: %s, expected a string", ErrParse, key, i, tomlTypeName(e))
		}
		out[i] = s
	}
	return out, nil
}

func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// FromTOML converts a decoded TOML value into the JSON data model, the way
// the reference deserialises config_schema into serde_json::Value. TOML
// datetimes and non-finite floats have no JSON form and are refused (the
// reference would turn NaN into null and a datetime into a private marker
// object, neither of which is a meaningful schema). path names the value in
// errors.
func FromTOML(v any, path string) (any, error) {
	switch x := v.(type) {
	case string, bool:
		return x, nil
	case int64:
		return json.Number(sjson.Int(x).String()), nil
	case float64:
		n, ok := sjson.Float(x)
		if !ok {
			return nil, fmt.Errorf("%s: %v has no JSON representation", path, x)
		}
		return json.Number(n.String()), nil
	case time.Time:
		return nil, fmt.Errorf("%s: TOML datetime has no JSON representation", path)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			j, err := FromTOML(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			j, err := FromTOML(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			j, err := FromTOML(e, path+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: unsupported TOML value of type %T", path, v)
}
