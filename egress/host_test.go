package egress

import (
	"errors"
	"strings"
	"testing"
)

func TestParseOrigin(t *testing.T) {
	tests := []struct {
		in   string
		want Origin
		str  string
	}{
		{"https://api.example.com", Origin{"api.example.com", 443}, "https://api.example.com"},
		{"https://API.Example.COM.", Origin{"api.example.com", 443}, "https://api.example.com"},
		{"https://api.example.com:443/", Origin{"api.example.com", 443}, "https://api.example.com"},
		{"HTTPS://api.example.com:8443", Origin{"api.example.com", 8443}, "https://api.example.com:8443"},
		{"https://203.0.113.7:1", Origin{"203.0.113.7", 1}, "https://203.0.113.7:1"},
		{"https://[2001:DB8::1]", Origin{"2001:db8::1", 443}, "https://[2001:db8::1]"},
		{"https://[2001:db8::1]:65535", Origin{"2001:db8::1", 65535}, "https://[2001:db8::1]:65535"},
		{"https://xn--bcher-kva.example", Origin{"xn--bcher-kva.example", 443}, "https://xn--bcher-kva.example"},
	}
	for _, tt := range tests {
		got, err := ParseOrigin(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseOrigin(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if got.String() != tt.str {
			t.Errorf("ParseOrigin(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
		if again, err := ParseOrigin(got.String()); err != nil || again != got {
			t.Errorf("ParseOrigin(String()) of %q = %+v, %v", tt.in, again, err)
		}
	}
}

func TestParseOrigin_Errors(t *testing.T) {
	for _, in := range []string{
		"", "api.example.com", "http://api.example.com", "ftp://a.example", "https://", "https://:443",
		"https://a.example/path", "https://a.example?q", "https://a.example#f", "https://u@a.example",
		"https://a.example:0", "https://a.example:65536", "https://a.example:", "https://a.example:x",
		"https://[fe80::1%25eth0]", "https://[1.2.3.4]", "https://127.1", "https://0x7f.0.0.1", "https://a..example",
		"https://bücher.example", "https://a b.example", "https://" + strings.Repeat("a", 64) + ".example",
		"https://" + strings.Repeat("a.", 127) + "example", "https://example.123",
	} {
		if o, err := ParseOrigin(in); err == nil {
			t.Errorf("ParseOrigin(%q) = %+v, want error", in, o)
		}
	}
}

func TestHostPattern(t *testing.T) {
	o := func(h string, p uint16) Origin { return Origin{h, p} }
	tests := []struct {
		pattern string
		match   []Origin
		noMatch []Origin
	}{
		{"api.example.com",
			[]Origin{o("api.example.com", 443), o("api.example.com", 8443)},
			[]Origin{o("example.com", 443), o("x.api.example.com", 443), o("api.example.co", 443), o("api.example.com.evil.test", 443)}},
		{"API.Example.com.",
			[]Origin{o("api.example.com", 443)}, nil},
		{"*.example.com",
			[]Origin{o("a.example.com", 443), o("a.b.example.com", 1), o("_dmarc.example.com", 443)},
			[]Origin{o("example.com", 443), o("badexample.com", 443), o("example.com.evil.test", 443), o("a.example.co", 443)}},
		{"*.example.com:8443",
			[]Origin{o("a.example.com", 8443)},
			[]Origin{o("a.example.com", 443), o("example.com", 8443)}},
		{"api.example.com:443",
			[]Origin{o("api.example.com", 443)},
			[]Origin{o("api.example.com", 8443)}},
		{"203.0.113.7",
			[]Origin{o("203.0.113.7", 443), o("203.0.113.7", 9)},
			[]Origin{o("203.0.113.8", 443)}},
		{"203.0.113.7:8443",
			[]Origin{o("203.0.113.7", 8443)},
			[]Origin{o("203.0.113.7", 443)}},
		{"2001:DB8::1",
			[]Origin{o("2001:db8::1", 443)},
			[]Origin{o("2001:db8::2", 443)}},
		{"[2001:db8::1]",
			[]Origin{o("2001:db8::1", 443)}, nil},
		{"[2001:db8::1]:8443",
			[]Origin{o("2001:db8::1", 8443)},
			[]Origin{o("2001:db8::1", 443)}},
		{"*",
			[]Origin{o("anything.example", 443), o("8.8.8.8", 1)}, nil},
		{"*:443",
			[]Origin{o("anything.example", 443)},
			[]Origin{o("anything.example", 444)}},
	}
	for _, tt := range tests {
		p, err := parseHostPattern(tt.pattern)
		if err != nil {
			t.Errorf("parseHostPattern(%q): %v", tt.pattern, err)
			continue
		}
		for _, m := range tt.match {
			if !p.matches(m) {
				t.Errorf("%q does not match %+v", tt.pattern, m)
			}
		}
		for _, m := range tt.noMatch {
			if p.matches(m) {
				t.Errorf("%q matches %+v", tt.pattern, m)
			}
		}
	}
}

func TestHostPattern_Errors(t *testing.T) {
	for _, in := range []string{
		"", "*.com", "*.", "**.example.com", "a.*.example.com", "*example.com", "example.*", "*.*.example.com",
		"api.example.com:0", "api.example.com:99999", "api.example.com:", "api.example.com:http",
		"[2001:db8::1", "[2001:db8::1]x", "[203.0.113.7]", "[fe80::1%eth0]", "fe80::1%eth0", "a..example.com",
		"bücher.example", "https://api.example.com", "api.example.com/", "127.1", "example.123",
		"2001:db8::1:8443x", "::1]:443",
	} {
		if p, err := parseHostPattern(in); err == nil {
			t.Errorf("parseHostPattern(%q) = %+v, want error", in, p)
		}
	}
	// P35: a CIDR range is named as one, not as a host name with a bad character.
	for _, in := range []string{"127.0.0.0/8", "10.0.0.1/32", "2001:db8::/32"} {
		_, err := parseHostPattern(in)
		if err == nil || !strings.Contains(err.Error(), "is a CIDR range, and ranges are not patterns") || strings.Contains(err.Error(), "not allowed in a host name") {
			t.Errorf("parseHostPattern(%q): %v", in, err)
		}
	}
}

func TestPolicy_CheckURL(t *testing.T) {
	p, err := NewPolicy(PolicyConfig{AllowHosts: []string{"api.example.com", "*.svc.example", "203.0.113.7", "127.0.0.1", "[::1]", "10.0.0.1", "localhost", "*.localhost.example"}})
	if err != nil {
		t.Fatal(err)
	}
	ok := []struct {
		raw, url string
		origin   Origin
	}{
		{"https://api.example.com/v1?x=1", "https://api.example.com/v1?x=1", Origin{"api.example.com", 443}},
		{"https://API.EXAMPLE.COM./v1#frag", "https://api.example.com/v1", Origin{"api.example.com", 443}},
		{"HTTPS://api.example.com:443/", "https://api.example.com/", Origin{"api.example.com", 443}},
		{"https://api.example.com:8443", "https://api.example.com:8443", Origin{"api.example.com", 8443}},
		{"https://a.svc.example/p%20q", "https://a.svc.example/p%20q", Origin{"a.svc.example", 443}},
	}
	for _, tt := range ok {
		u, o, err := p.CheckURL(tt.raw)
		if err != nil {
			t.Errorf("CheckURL(%q): %v", tt.raw, err)
			continue
		}
		if u.String() != tt.url || o != tt.origin {
			t.Errorf("CheckURL(%q) = %q %+v, want %q %+v", tt.raw, u, o, tt.url, tt.origin)
		}
	}
}

func TestPolicy_CheckURL_Errors(t *testing.T) {
	p, err := NewPolicy(PolicyConfig{AllowHosts: []string{"api.example.com", "127.0.0.1", "[::1]", "10.0.0.1", "169.254.169.254", "localhost", "*.example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		raw  string
		kind Kind
	}{
		{"http://api.example.com/", KindForbiddenDestination},
		{"HTTP://api.example.com/", KindForbiddenDestination},
		{"ftp://api.example.com/", KindInvalidRequest},
		{"file:///etc/passwd", KindInvalidRequest},
		{"ws://api.example.com/", KindInvalidRequest},
		{"/relative", KindInvalidRequest},
		{"api.example.com/x", KindInvalidRequest},
		{"https:opaque", KindInvalidRequest},
		{"https://user:pw@api.example.com/", KindInvalidRequest},
		{"https://api.example.com:0/", KindInvalidRequest},
		{"https://api.example.com:70000/", KindInvalidRequest},
		{"https://api.example.com:/", KindInvalidRequest},
		{"https:///path", KindInvalidRequest},
		{"https://[fe80::1%25eth0]/", KindInvalidRequest},
		{"https://127.1/", KindInvalidRequest},
		{"https://2130706433/", KindInvalidRequest},
		{"https://0x7f000001/", KindInvalidRequest},
		{"https://0177.0.0.1/", KindInvalidRequest},
		{"https://api.example.com\x00.evil/", KindInvalidRequest},
		{"https://bücher.example.org/", KindInvalidRequest},
		{"https://" + strings.Repeat("a", MaxURLBytes), KindInvalidRequest},
		{"https://%zz/", KindInvalidRequest},
		{"https://%61pi.example.com/", KindInvalidRequest},
		{"https://evil.example/", KindHostNotAllowed},
		{"https://api.example.com.evil.example/", KindHostNotAllowed},
		{"https://example.org/", KindHostNotAllowed},
		{"https://8.8.8.8/", KindHostNotAllowed},
		{"https://127.0.0.1/", KindForbiddenDestination},
		{"https://[::1]/", KindForbiddenDestination},
		{"https://10.0.0.1/", KindForbiddenDestination},
		{"https://169.254.169.254/latest/meta-data/", KindForbiddenDestination},
		{"https://localhost/", KindForbiddenDestination},
		{"https://a.localhost/", KindForbiddenDestination},
		{"https://LOCALHOST./", KindForbiddenDestination},
	}
	for _, tt := range tests {
		_, _, err := p.CheckURL(tt.raw)
		if k, _ := KindOf(err); k != tt.kind {
			t.Errorf("CheckURL(%.60q) = %v, want kind %v", tt.raw, err, tt.kind)
		}
	}
	// A nil policy admits nothing.
	var nilPolicy *Policy
	if _, _, err := nilPolicy.CheckURL("https://api.example.com/"); !errors.Is(err, ErrHostNotAllowed) {
		t.Errorf("nil policy: %v", err)
	}
	// The seed's message shape.
	_, _, err = p.CheckURL("https://evil.example/")
	var e *Error
	if !errors.As(err, &e) || e.Message != "evil.example is not in this function's network allowlist" {
		t.Errorf("message = %v", err)
	}
}
