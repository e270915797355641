package egress

import (
	"errors"
	"strings"
	"testing"
)

const secret = "s3cret-token-value"

func TestNewPolicy_Errors(t *testing.T) {
	cred := func(name, value string) Credential {
		return Credential{Label: "vault/a", Header: []Field{{name, value}}}
	}
	tests := []struct {
		name string
		cfg  PolicyConfig
		want string
	}{
		{"bad pattern", PolicyConfig{AllowHosts: []string{"ok.example", "*.com"}}, "allow host 1"},
		{"empty pattern", PolicyConfig{AllowHosts: []string{""}}, "empty host pattern"},
		{"http origin", PolicyConfig{Grants: []Grant{{Origin: "http://a.example"}}}, "scheme must be https"},
		{"origin with path", PolicyConfig{Grants: []Grant{{Origin: "https://a.example/x"}}}, "only a scheme"},
		{"duplicate grant", PolicyConfig{Grants: []Grant{{Origin: "https://a.example"}, {Origin: "https://A.example:443/"}}}, "second grant"},
		{"upper-case declared header", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Headers: []string{"Authorization"}}}}, "lower-case"},
		{"connection header declared", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Headers: []string{"proxy-authorization"}}}}, "connection header"},
		{"credential without header", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Candidates: []Credential{{Label: "x"}}}}}, "sets no header"},
		{"credential connection header", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Candidates: []Credential{cred("host", "x")}}}}, "connection header"},
		{"credential bad name", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Candidates: []Credential{cred("x y", "x")}}}}, "not a lower-case HTTP token"},
		{"credential CRLF value", PolicyConfig{Grants: []Grant{{Origin: "https://a.example", Candidates: []Credential{cred("authorization", secret+"\r\nx-injected: 1")}}}}, "control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPolicy(tt.cfg)
			if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewPolicy = %v, want ErrPolicy containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the credential value: %v", err)
			}
			if _, ok := KindOf(err); ok {
				t.Fatalf("a configuration error must not look like a guest-facing kind: %v", err)
			}
		})
	}
}

func TestPolicy_CredentialFor(t *testing.T) {
	bearer := Credential{Label: "vault/main", Header: []Field{{"authorization", "Bearer " + secret}}}
	other := Credential{Label: "vault/other", Header: []Field{{"authorization", "Bearer other"}}}
	p, err := NewPolicy(PolicyConfig{
		AllowHosts: []string{"*"},
		Grants: []Grant{
			{Origin: "https://one.example", Candidates: []Credential{bearer}},
			{Origin: "https://none.example", Headers: []string{"x-api-key"}},
			{Origin: "https://two.example", Candidates: []Credential{bearer, other}},
			{Origin: "https://port.example:8443", Candidates: []Credential{bearer}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	o := func(s string) Origin {
		t.Helper()
		o, err := ParseOrigin(s)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	tests := []struct {
		name   string
		origin Origin
		guest  []Field
		inject []Field
		kind   Kind
	}{
		{"granted", o("https://one.example"), []Field{{"accept", "x"}}, bearer.Header, 0},
		{"not granted", o("https://three.example"), []Field{{"authorization", "mine"}}, nil, 0},
		{"other port not granted", o("https://one.example:8443"), nil, nil, 0},
		{"port granted", o("https://port.example:8443"), nil, bearer.Header, 0},
		{"port 443 not granted", o("https://port.example"), nil, nil, 0},
		{"guest sets credential header", o("https://one.example"), []Field{{"authorization", "mine"}}, nil, KindCredentialHeader},
		{"no candidate", o("https://none.example"), nil, nil, KindCredentialUnavailable},
		{"declared header conflicts even without candidate", o("https://none.example"), []Field{{"x-api-key", "k"}}, nil, KindCredentialHeader},
		{"two candidates", o("https://two.example"), nil, nil, KindCredentialUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inject, err := p.credentialFor(tt.origin, tt.guest)
			if k, _ := KindOf(err); k != tt.kind {
				t.Fatalf("kind = %v (%v), want %v", k, err, tt.kind)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the credential: %v", err)
			}
			if len(inject) != len(tt.inject) || (len(inject) > 0 && inject[0] != tt.inject[0]) {
				t.Fatalf("inject = %v, want %v", inject, tt.inject)
			}
		})
	}
	_, err = p.credentialFor(o("https://two.example"), nil)
	if !strings.Contains(err.Error(), `"vault/main", "vault/other"`) {
		t.Errorf("several-candidates message does not name them: %v", err)
	}
	// The sensitive set holds the standard names and every granted header name.
	for _, n := range []string{"authorization", "cookie", "x-api-key"} {
		if !p.sensitive[n] {
			t.Errorf("%q not sensitive", n)
		}
	}
}

func TestNewPolicy_CopiesCredentials(t *testing.T) {
	h := []Field{{"authorization", "Bearer a"}}
	p, err := NewPolicy(PolicyConfig{AllowHosts: []string{"a.example"}, Grants: []Grant{{Origin: "https://a.example", Candidates: []Credential{{Label: "l", Header: h}}}}})
	if err != nil {
		t.Fatal(err)
	}
	h[0].Value = "Bearer changed"
	inject, err := p.credentialFor(Origin{"a.example", 443}, nil)
	if err != nil || inject[0].Value != "Bearer a" {
		t.Fatalf("policy shares the caller's slice: %v %v", inject, err)
	}
}
