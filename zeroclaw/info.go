package zeroclaw

import (
	"encoding/json"
	"sort"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// InstanceKeyInfo names one config entry key of a plugin.
type InstanceKeyInfo struct {
	Capability manifest.Capability `json:"capability"`
	Binding    string              `json:"binding"`
	Key        string              `json:"key"`
}

// Info is everything known about an admitted plugin, for display and for
// machine-readable output.
type Info struct {
	Name         string                `json:"name"`
	Version      string                `json:"version"`
	Description  string                `json:"description,omitempty"`
	Author       string                `json:"author,omitempty"`
	Dir          string                `json:"dir"`
	WasmPath     string                `json:"wasm_path,omitempty"`
	WasmFile     string                `json:"wasm_file,omitempty"`
	Loaded       bool                  `json:"loaded"`
	Capabilities []manifest.Capability `json:"capabilities"`
	Permissions  []manifest.Permission `json:"permissions"`
	// InertPermissions are declared but grant nothing in this host.
	InertPermissions []manifest.Permission `json:"inert_permissions"`
	// Signature is the verdict of the host's signature mode; Verification
	// checks the manifest against the trusted keys whatever the mode (so
	// it says something even when checking is disabled).
	Signature    signature.Result `json:"signature"`
	Verification signature.Result `json:"verification"`
	// SignedBy is the manifest's publisher_key, whatever the verdict.
	SignedBy string `json:"publisher_key,omitempty"`
	// ConfigSchema is the schema as compact JSON; absent without one.
	ConfigSchema     json.RawMessage         `json:"config_schema,omitempty"`
	ConfigProperties []pluginconfig.Property `json:"config_properties,omitempty"`
	// InstanceKeys are the [[plugins.entries]] keys of the default bindings.
	InstanceKeys []InstanceKeyInfo `json:"instance_keys,omitempty"`
	Skills       []manifest.Skill  `json:"skills,omitempty"`
	// UnknownKeys are manifest keys this host does not interpret (kept and
	// signed).
	UnknownKeys []string `json:"unknown_keys,omitempty"`
	// Origin is where the plugin was installed from, when recorded.
	Origin *Origin `json:"origin,omitempty"`
}

// Describe summarises a plugin; trusted are the publisher keys to verify
// against.
func (p *Plugin) Describe(trusted []string) Info {
	m := p.Manifest
	info := Info{
		Name:             m.Name,
		Version:          m.Version,
		Description:      m.Description,
		Author:           m.Author,
		Dir:              p.Dir,
		WasmPath:         m.WasmPath,
		WasmFile:         p.WasmFile(),
		Loaded:           p.Loaded(),
		Capabilities:     nonNil(m.Capabilities),
		Permissions:      nonNil(m.Permissions),
		InertPermissions: nonNil(p.InertPermissions()),
		Signature:        p.Signature,
		Skills:           p.Skills,
		Origin:           p.Origin,
	}
	if m.PublisherKey != nil {
		info.SignedBy = *m.PublisherKey
	}
	if m.Signature != nil && m.PublisherKey != nil {
		info.Verification = signature.Examine(string(m.Raw), *m.Signature, *m.PublisherKey, trusted)
	}
	if p.Schema != nil {
		info.ConfigSchema = json.RawMessage(p.Schema.JSON())
		info.ConfigProperties = p.Schema.Properties()
	}
	for _, id := range p.ConfigEntryKeys() {
		info.InstanceKeys = append(info.InstanceKeys, InstanceKeyInfo{Capability: id.Capability, Binding: id.Binding, Key: id.Key()})
	}
	for k := range m.Extra {
		info.UnknownKeys = append(info.UnknownKeys, k)
	}
	sort.Strings(info.UnknownKeys)
	return info
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
