// Package registry reads ZeroClaw plugin registries, JSON indexes of
// installable plugin archives, and safely fetches and unpacks the archives.
//
// The index is `{"plugins": [entry…]}`; an entry names a zip archive by URL
// and optionally pins its sha256. Nothing in this package installs or runs a
// plugin: it produces a directory holding exactly one manifest.toml, which
// the host then admits like a local plugin.
//
//	ix, err := registry.FetchIndex(ctx, registry.Location(flag), nil)
//	entry, err := ix.Resolve(spec)
//	err = registry.Download(ctx, entry, ix.Base, archiveFile, progress)
//	err = registry.ExtractZip(archiveFile, size, dir, registry.MaxExtractedBytes)
package registry

import (
	"strings"

	"github.com/kobako/kobako/zeroclaw/internal/errs"
	"github.com/kobako/kobako/zeroclaw/internal/sjson"
)

// DefaultIndexURL is the reference host's default registry index.
const DefaultIndexURL = "https://raw.githubusercontent.com/zeroclaw-labs/zeroclaw-plugins/main/registry.json"

// Environment variables naming the registry, most specific first.
const (
	EnvRegistryURL         = "KOBAKO_PLUGIN_REGISTRY_URL"
	EnvZeroClawRegistryURL = "ZEROCLAW_PLUGIN_REGISTRY_URL"
)

// MaxIndexBytes caps a registry index.
const MaxIndexBytes = 16 << 20

// Entry is one installable archive.
type Entry struct {
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Description  string   `json:"description,omitempty"`
	Author       string   `json:"author,omitempty"`
	Capabilities []string `json:"capabilities"`
	URL          string   `json:"url"`
	// SHA256 is hex, optionally prefixed "sha256:"; empty when not pinned.
	SHA256 string `json:"sha256,omitempty"`
}

// Source is "name@version", the spec that installs exactly this entry.
func (e Entry) Source() string { return e.Name + "@" + e.Version }

// Index is a parsed registry index.
type Index struct {
	Plugins []Entry `json:"plugins"`
	// Base is where the index was read from; relative archive URLs resolve
	// against it.
	Base string `json:"-"`
}

// ParseIndex decodes an index the way the reference's serde types do: field
// names are case-sensitive, unknown fields are ignored (the public index
// carries provides and sender_match), name, version and url are required
// strings, description, author and sha256 are optional strings (null is
// absent), capabilities is an optional array of strings.
func ParseIndex(data []byte) (*Index, error) {
	v, err := sjson.Parse(data)
	if err != nil {
		return nil, errs.New(ErrIndex, "parsing plugin registry JSON: %v", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errs.New(ErrIndex, "parsing plugin registry JSON: expected an object")
	}
	ix := &Index{}
	plugins, present := root["plugins"]
	if !present {
		return ix, nil
	}
	list, ok := plugins.([]any)
	if !ok {
		return nil, errs.New(ErrIndex, "parsing plugin registry JSON: `plugins` must be an array")
	}
	for i, raw := range list {
		obj, ok := raw.(map[string]any)
		if !ok {
			return nil, errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d] must be an object", i)
		}
		field := func(name string, required bool) (string, error) {
			v, ok := obj[name]
			if !ok || (v == nil && !required) {
				if required {
					return "", errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d]: missing field `%s`", i, name)
				}
				return "", nil
			}
			s, ok := v.(string)
			if !ok {
				return "", errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d].%s must be a string", i, name)
			}
			return s, nil
		}
		var e Entry
		for _, f := range []struct {
			name     string
			required bool
			dst      *string
		}{
			{"name", true, &e.Name}, {"version", true, &e.Version}, {"description", false, &e.Description},
			{"author", false, &e.Author}, {"url", true, &e.URL}, {"sha256", false, &e.SHA256},
		} {
			if *f.dst, err = field(f.name, f.required); err != nil {
				return nil, err
			}
		}
		if _, pinned := obj["sha256"].(string); pinned && e.SHA256 == "" {
			// An empty pin would otherwise read as "not pinned"; fail closed.
			return nil, errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d].sha256 is empty", i)
		}
		e.Capabilities = []string{}
		if caps, ok := obj["capabilities"]; ok {
			arr, ok := caps.([]any)
			if !ok {
				return nil, errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d].capabilities must be an array of strings", i)
			}
			for _, c := range arr {
				s, ok := c.(string)
				if !ok {
					return nil, errs.New(ErrIndex, "parsing plugin registry JSON: plugins[%d].capabilities must be an array of strings", i)
				}
				e.Capabilities = append(e.Capabilities, s)
			}
		}
		ix.Plugins = append(ix.Plugins, e)
	}
	return ix, nil
}

// Search returns the entries whose name or description contains query,
// case-insensitively, in index order.
func (ix *Index) Search(query string) []Entry {
	q := strings.ToLower(query)
	var out []Entry
	for _, e := range ix.Plugins {
		if strings.Contains(strings.ToLower(e.Name), q) || strings.Contains(strings.ToLower(e.Description), q) {
			out = append(out, e)
		}
	}
	return out
}

// Spec is a parsed install request: a name and an optional version.
type Spec struct {
	Name    string
	Version string // empty: the last matching entry
}

// ParseSpec parses "name" or "name@version", splitting at the last '@'.
func ParseSpec(source string) (Spec, error) {
	source = strings.TrimSpace(source)
	if source == "" {
		return Spec{}, errs.New(ErrSpec, "plugin name must not be empty")
	}
	i := strings.LastIndexByte(source, '@')
	if i < 0 {
		return Spec{Name: source}, nil
	}
	name, version := source[:i], source[i+1:]
	if name == "" || version == "" {
		return Spec{}, errs.New(ErrSpec, "plugin registry source must be name or name@version")
	}
	return Spec{Name: name, Version: version}, nil
}

// Resolve selects the entry a spec names: with a version, that exact
// version; without, the last entry with the name, so publishers order
// duplicate names deliberately.
func (ix *Index) Resolve(spec Spec) (Entry, error) {
	for i := len(ix.Plugins) - 1; i >= 0; i-- {
		e := ix.Plugins[i]
		if e.Name == spec.Name && (spec.Version == "" || e.Version == spec.Version) {
			return e, nil
		}
	}
	var versions []string
	for _, e := range ix.Plugins {
		if e.Name == spec.Name {
			versions = append(versions, e.Version)
		}
	}
	if spec.Version != "" && len(versions) > 0 {
		return Entry{}, errs.New(ErrNotFound, "plugin '%s' not found in registry at version %s; its versions there: %s", spec.Name, spec.Version, strings.Join(versions, ", "))
	}
	return Entry{}, errs.New(ErrNotFound, "plugin '%s' not found in registry", spec.Name)
}
