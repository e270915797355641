package instance

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/zeroclaw/manifest"
)

// The reference's compatibility vectors (zeroclaw-host.md §6, §7).
func TestKey_ReferenceVectors(t *testing.T) {
	tests := []struct {
		pkg     string
		cap     manifest.Capability
		binding string
		want    string
	}{
		{"messaging.plugin", manifest.CapabilityChannel, "primary.東京", "zpi1_WyJtZXNzYWdpbmcucGx1Z2luIiwiY2hhbm5lbCIsInByaW1hcnku5p2x5LqsIl0"},
		{"tool-fixture", manifest.CapabilityTool, "tool-fixture", "zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0"},
	}
	for _, tt := range tests {
		id, err := NewID(tt.pkg, tt.cap, tt.binding)
		if err != nil {
			t.Fatal(err)
		}
		if got := id.Key(); got != tt.want {
			t.Errorf("Key(%s) = %s, want %s", tt.binding, got, tt.want)
		}
		if strings.Contains(id.Key(), ".") {
			t.Errorf("key %s is not dotted-path safe", id.Key())
		}
		back, err := ParseKey(tt.want)
		if err != nil || back != id {
			t.Errorf("ParseKey(%s) = %+v, %v", tt.want, back, err)
		}
	}
	// serde_json writes U+2028 raw where encoding/json would escape it.
	id, _ := NewID("p", manifest.CapabilityTool, "a\u2028b<&>")
	if got := id.Key(); got != "zpi1_WyJwIiwidG9vbCIsImHigKhiPCY-Il0" {
		t.Errorf("Key with U+2028 = %s", got)
	}
}

func TestNewID_Errors(t *testing.T) {
	tests := []struct {
		pkg     string
		cap     manifest.Capability
		binding string
		want    string
	}{
		{"../escape", manifest.CapabilityTool, "tool", "plugin package must be"},
		{"Mail", manifest.CapabilityTool, "tool", "plugin package must be"},
		{"mail.", manifest.CapabilityTool, "tool", "plugin package must be"},
		{"tool", manifest.CapabilityTool, "", "plugin binding must not be empty"},
		{"tool", manifest.CapabilityTool, "bad\nbinding", `plugin binding must not contain control characters (got "bad\nbinding")`},
		{"tool", manifest.CapabilityTool, "bad\x7f", "control characters"},
		{"tool", manifest.CapabilityTool, "bad\xff", "valid UTF-8"},
		{"tool", "gpu", "main", "unknown capability"},
	}
	for _, tt := range tests {
		_, err := NewID(tt.pkg, tt.cap, tt.binding)
		if !errors.Is(err, ErrInvalidID) || !strings.Contains(err.Error(), tt.want) ||
			!strings.HasPrefix(err.Error(), "invalid plugin instance identity: ") {
			t.Errorf("NewID(%q, %q, %q) = %v, want %q", tt.pkg, tt.cap, tt.binding, err, tt.want)
		}
	}
}

func TestParseKey_Errors(t *testing.T) {
	valid, _ := NewID("p", manifest.CapabilityTool, "main")
	for _, key := range []string{
		"", "zpi2_" + strings.TrimPrefix(valid.Key(), KeyPrefix), valid.Key() + "=", "zpi1_!!!",
		"zpi1_" + "eyJhIjoxfQ",                  // {"a":1}
		"zpi1_" + "WyJwIiwidG9vbCJd",            // ["p","tool"]
		"zpi1_" + "WyJwIiwiZ3B1IiwibWFpbiJd",    // ["p","gpu","main"]
		"zpi1_" + "WyAicCIsInRvb2wiLCJtYWluIl0", // [ "p",... non-canonical spacing
	} {
		if _, err := ParseKey(key); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ParseKey(%q) = %v", key, err)
		}
	}
}

func TestKey_RoundTrip_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pkg := rapid.StringMatching(`[a-z0-9]([a-z0-9._-]{0,20}[a-z0-9])?`).Draw(t, "pkg")
		capability := rapid.SampledFrom(manifest.Capabilities).Draw(t, "cap")
		binding := rapid.String().Draw(t, "binding")
		id, err := NewID(pkg, capability, binding)
		if err != nil {
			t.Skip("NewID refuses empty bindings and control characters")
		}
		key := id.Key()
		back, err := ParseKey(key)
		if err != nil {
			t.Fatalf("ParseKey(%s): %v", key, err)
		}
		if back != id {
			t.Fatalf("round trip %+v -> %+v", id, back)
		}
	})
}

func TestScope(t *testing.T) {
	m := &manifest.Manifest{Name: "fixture", Capabilities: []manifest.Capability{manifest.CapabilityTool},
		Permissions: []manifest.Permission{manifest.PermissionConfigRead}}
	s, err := PackageScope(m, manifest.CapabilityTool, NewGrants(manifest.PermissionConfigRead, manifest.PermissionConfigRead))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID.Binding != "fixture" || !s.Grants.Allows(manifest.PermissionConfigRead) || s.Grants.Allows(manifest.PermissionHTTPClient) ||
		len(s.Grants.List()) != 1 {
		t.Errorf("scope = %+v", s)
	}
	if err := s.RequireCapability(manifest.CapabilityTool); err != nil {
		t.Error(err)
	}
	if err := s.RequireCapability(manifest.CapabilityChannel); !errors.Is(err, ErrInvalidID) {
		t.Errorf("RequireCapability(channel) = %v", err)
	}
	_, err = NewScope(m, manifest.CapabilityChannel, "main", Grants{})
	if !errors.Is(err, ErrUnsupportedCapability) || err.Error() != "plugin capability not supported: plugin 'fixture' does not declare Channel" {
		t.Errorf("undeclared capability: %v", err)
	}
	_, err = NewScope(m, manifest.CapabilityTool, "main", NewGrants(manifest.PermissionHTTPClient))
	if !errors.Is(err, ErrPermissionDenied) || err.Error() != "permission denied: plugin 'fixture' is not authorized for 'HttpClient'" {
		t.Errorf("unrequested grant: %v", err)
	}
	if _, err := NewScope(m, manifest.CapabilityTool, "", Grants{}); !errors.Is(err, ErrInvalidID) {
		t.Errorf("empty binding: %v", err)
	}
	if g := RequestedGrants(m); !g.Allows(manifest.PermissionConfigRead) {
		t.Error("RequestedGrants misses config_read")
	}
}
