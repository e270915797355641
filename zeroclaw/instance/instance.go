// Package instance holds the host-owned identity and authority of one plugin
// instance: which package, which capability world, which binding, and which
// of the requested permissions the host granted.
//
// The identity's config-entry key ("zpi1_…") names the operator's config
// section for the instance in [[plugins.entries]]:
//
//	id, _ := instance.NewID("tool-fixture", manifest.CapabilityTool, "tool-fixture")
//	id.Key() // zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0
package instance

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kobako/kobako/zeroclaw/internal/sjson"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// Sentinel errors, with the reference host's message prefixes.
var (
	// ErrInvalidID reports a malformed package, binding or instance key.
	ErrInvalidID = errors.New("invalid plugin instance identity")
	// ErrUnsupportedCapability reports a scope for an undeclared capability.
	ErrUnsupportedCapability = errors.New("plugin capability not supported")
	// ErrPermissionDenied reports a grant the manifest did not request.
	ErrPermissionDenied = errors.New("permission denied")
)

// KeyPrefix versions the config-entry key encoding.
const KeyPrefix = "zpi1_"

// ID is the logical namespace of one capability binding of one package.
// Versions and digests are deliberately not part of it, so upgrading a
// plugin keeps its config.
type ID struct {
	Package    string
	Capability manifest.Capability
	Binding    string
}

// NewID validates and builds an identity: the package must satisfy the
// package-name grammar, the capability must be known, and the binding must
// be non-empty valid UTF-8 without control characters.
func NewID(pkg string, capability manifest.Capability, binding string) (ID, error) {
	if err := manifest.ValidatePackageName(pkg); err != nil {
		return ID{}, fmt.Errorf("%w: %v", ErrInvalidID, err)
	}
	if !capability.Valid() {
		return ID{}, fmt.Errorf("%w: unknown capability %q", ErrInvalidID, string(capability))
	}
	if binding == "" {
		return ID{}, fmt.Errorf("%w: plugin binding must not be empty", ErrInvalidID)
	}
	if !utf8.ValidString(binding) {
		return ID{}, fmt.Errorf("%w: plugin binding must be valid UTF-8", ErrInvalidID)
	}
	if strings.IndexFunc(binding, unicode.IsControl) >= 0 {
		return ID{}, fmt.Errorf("%w: plugin binding must not contain control characters (got %s)", ErrInvalidID, manifest.RustDebugString(binding))
	}
	return ID{Package: pkg, Capability: capability, Binding: binding}, nil
}

// Key returns the config-entry key: "zpi1_" and the unpadded base64url of
// the compact JSON array [package, capability, binding], with UTF-8 written
// raw, byte for byte what the reference derives.
func (id ID) Key() string {
	tuple, err := sjson.Marshal([]any{id.Package, string(id.Capability), id.Binding})
	if err != nil {
		panic("BUG: instance: encoding a string tuple failed: " + err.Error())
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(tuple)
}

// String is the key.
func (id ID) String() string { return id.Key() }

// ParseKey decodes a config-entry key back into a validated identity. Only
// canonical keys parse: the key must re-encode to itself.
func ParseKey(key string) (ID, error) {
	payload, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok {
		return ID{}, fmt.Errorf("%w: instance key %q does not start with %q", ErrInvalidID, key, KeyPrefix)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(payload)
	if err != nil || strings.ContainsAny(payload, "\r\n") {
		return ID{}, fmt.Errorf("%w: instance key %q is not unpadded base64url", ErrInvalidID, key)
	}
	v, err := sjson.Parse(raw)
	if err != nil {
		return ID{}, fmt.Errorf("%w: instance key %q: %v", ErrInvalidID, key, err)
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != 3 {
		return ID{}, fmt.Errorf("%w: instance key %q does not hold a [package, capability, binding] triple", ErrInvalidID, key)
	}
	parts := make([]string, 3)
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return ID{}, fmt.Errorf("%w: instance key %q does not hold a [package, capability, binding] triple", ErrInvalidID, key)
		}
		parts[i] = s
	}
	id, err := NewID(parts[0], manifest.Capability(parts[1]), parts[2])
	if err != nil {
		return ID{}, err
	}
	if id.Key() != key {
		return ID{}, fmt.Errorf("%w: instance key %q is not in canonical form", ErrInvalidID, key)
	}
	return id, nil
}

// Grants is the host's decision about which requested permissions an
// instance may use. The zero value grants nothing.
type Grants struct {
	set []manifest.Permission
}

// NewGrants builds a deduplicated grant set.
func NewGrants(perms ...manifest.Permission) Grants {
	var g Grants
	for _, p := range perms {
		if !slices.Contains(g.set, p) {
			g.set = append(g.set, p)
		}
	}
	return g
}

// Allows reports whether p is granted.
func (g Grants) Allows(p manifest.Permission) bool { return slices.Contains(g.set, p) }

// List returns the granted permissions in grant order.
func (g Grants) List() []manifest.Permission { return slices.Clone(g.set) }

// Scope is the identity and authority injected into every store of one
// admitted instance. Execution code derives everything it authorises (config
// section, secrets, network surface) from the scope, never from the guest.
type Scope struct {
	ID     ID
	Grants Grants
}

// NewScope admits a host-selected binding of a validated manifest: the
// capability must be declared and every grant must have been requested.
// Signature policy is the caller's job.
func NewScope(m *manifest.Manifest, capability manifest.Capability, binding string, grants Grants) (Scope, error) {
	if !m.HasCapability(capability) {
		return Scope{}, fmt.Errorf("%w: plugin '%s' does not declare %s", ErrUnsupportedCapability, m.Name, capability.DebugName())
	}
	for _, p := range grants.set {
		if !m.HasPermission(p) {
			return Scope{}, fmt.Errorf("%w: plugin '%s' is not authorized for '%s'", ErrPermissionDenied, m.Name, p.DebugName())
		}
	}
	id, err := NewID(m.Name, capability, binding)
	if err != nil {
		return Scope{}, err
	}
	return Scope{ID: id, Grants: grants}, nil
}

// PackageScope admits the default binding, the package name, which the
// runtime uses for tools.
func PackageScope(m *manifest.Manifest, capability manifest.Capability, grants Grants) (Scope, error) {
	return NewScope(m, capability, m.Name, grants)
}

// RequestedGrants grants everything the manifest requests, which is what the
// reference runtime does today.
func RequestedGrants(m *manifest.Manifest) Grants { return NewGrants(m.Permissions...) }

// RequireCapability rejects wiring the scope into an adapter for another
// world.
func (s Scope) RequireCapability(expected manifest.Capability) error {
	if s.ID.Capability != expected {
		return fmt.Errorf("%w: plugin package %s binding %s has capability %s, not %s", ErrInvalidID,
			manifest.RustDebugString(s.ID.Package), manifest.RustDebugString(s.ID.Binding),
			s.ID.Capability.DebugName(), expected.DebugName())
	}
	return nil
}
