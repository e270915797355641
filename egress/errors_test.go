package egress

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestKind_WireNames(t *testing.T) {
	want := []string{"invalid_request", "host_not_allowed", "forbidden_destination", "credential_header",
		"credential_unavailable", "too_many_redirects", "timeout", "too_large", "not_text", "write_budget",
		"bad_path", "connection", "abi"}
	if numKinds != len(want) {
		t.Fatalf("numKinds = %d, want %d", numKinds, len(want))
	}
	for i, name := range want {
		k := Kind(i + 1)
		if got := k.String(); got != name {
			t.Errorf("Kind(%d).String() = %q, want %q", i+1, got, name)
		}
		p, ok := ParseKind(name)
		if !ok || p != k {
			t.Errorf("ParseKind(%q) = %v, %v", name, p, ok)
		}
		b, err := json.Marshal(struct{ K Kind }{k})
		if err != nil || string(b) != fmt.Sprintf(`{"K":%q}`, name) {
			t.Errorf("json %v: %s %v", k, b, err)
		}
		var back struct{ K Kind }
		if err := json.Unmarshal(b, &back); err != nil || back.K != k {
			t.Errorf("json round trip %v: %v %v", k, back.K, err)
		}
		e := NewError(k, "m")
		if !errors.Is(e, kindSentinels[k]) {
			t.Errorf("%v does not match its sentinel", k)
		}
		for j := KindInvalidRequest; int(j) <= numKinds; j++ {
			if j != k && errors.Is(e, kindSentinels[j]) {
				t.Errorf("%v matches the sentinel of %v", k, j)
			}
		}
		if got, ok := KindOf(fmt.Errorf("subako: request: %w", e)); !ok || got != k {
			t.Errorf("KindOf(wrapped %v) = %v, %v", k, got, ok)
		}
	}
}

func TestKind_Errors(t *testing.T) {
	for _, k := range []Kind{0, Kind(numKinds + 1), 255} {
		if k.Valid() {
			t.Errorf("Kind(%d) is valid", k)
		}
		if _, err := k.MarshalText(); err == nil {
			t.Errorf("Kind(%d).MarshalText succeeded", k)
		}
		if got := k.String(); got != fmt.Sprintf("kind(%d)", uint8(k)) {
			t.Errorf("Kind(%d).String() = %q", k, got)
		}
	}
	for _, s := range []string{"", "HOST_NOT_ALLOWED", "HostNotAllowed", "unknown", "kind(1)"} {
		if _, ok := ParseKind(s); ok {
			t.Errorf("ParseKind(%q) succeeded", s)
		}
		var k Kind
		if err := k.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("UnmarshalText(%q) succeeded", s)
		}
	}
	if _, ok := KindOf(errors.New("plain")); ok {
		t.Error("KindOf(plain error) reported a kind")
	}
	if _, ok := KindOf(nil); ok {
		t.Error("KindOf(nil) reported a kind")
	}
}

func TestError_Format(t *testing.T) {
	cause := errors.New("dial tcp: refused")
	e := errorf(ReasonConnect, cause, "cannot connect to %s", "a.example")
	if got, want := e.Error(), "egress: connection: cannot connect to a.example: dial tcp: refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Message != "cannot connect to a.example" {
		t.Errorf("Message = %q", e.Message)
	}
	if !errors.Is(e, cause) || !errors.Is(e, ErrConnection) {
		t.Error("cause or sentinel lost")
	}
}
