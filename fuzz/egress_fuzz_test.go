package fuzz

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/kobako/kobako/egress"
)

// FuzzEgressURL feeds an allowlist entry and a URL through policy compilation and the URL
// rules. Nothing may panic, and whatever is accepted must be self-consistent: https only, a
// host the allowlist admits, a normalized form that checks again to the same origin, and an
// IP-literal host outside every refused range.
func FuzzEgressURL(f *testing.F) {
	seeds := [][2]string{
		{"api.example.com", "https://api.example.com/v1?x=1#f"},
		{"*.example.com", "https://a.b.example.com:8443/"},
		{"*.example.com", "https://example.com/"},
		{"*", "https://[2606:4700:4700::1111]/"},
		{"*", "https://[::ffff:127.0.0.1]/"},
		{"*", "https://127.1/"},
		{"*", "https://0x7f.0.0.1/"},
		{"*", "http://api.example.com/"},
		{"*:443", "https://API.EXAMPLE.COM./"},
		{"[2001:db8::1]:8443", "https://[2001:db8::1]:8443/"},
		{"203.0.113.7", "https://203.0.113.7/"},
		{"8.8.8.8", "https://8.8.8.8:443/"},
		{"api.example.com", "https://user:pw@api.example.com/"},
		{"*.com", "https://x.com/"},
		{"a.example", "https://a.example:0/"},
		{"a.example", "https://[fe80::1%25eth0]/"},
		{"xn--bcher-kva.example", "https://xn--bcher-kva.example/"},
		{"localhost", "https://localhost/"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, raw string) {
		p, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{pattern}})
		if err != nil {
			if !errors.Is(err, egress.ErrPolicy) {
				t.Fatalf("NewPolicy(%q) error does not match ErrPolicy: %v", pattern, err)
			}
			return
		}
		u, o, err := p.CheckURL(raw)
		if err != nil {
			k, ok := egress.KindOf(err)
			switch {
			case !ok:
				t.Fatalf("CheckURL(%q) error without a kind: %v", raw, err)
			case k != egress.KindInvalidRequest && k != egress.KindHostNotAllowed && k != egress.KindForbiddenDestination:
				t.Fatalf("CheckURL(%q) kind %v", raw, k)
			}
			return
		}
		if u.Scheme != "https" || u.User != nil || u.Fragment != "" || o.Port == 0 {
			t.Fatalf("CheckURL(%q) accepted %q (%+v)", raw, u, o)
		}
		if !p.AllowsOrigin(o) {
			t.Fatalf("CheckURL(%q) returned origin %+v the policy does not admit", raw, o)
		}
		if strings.ToLower(o.Host) != o.Host || strings.HasSuffix(o.Host, ".") || o.Host == "" {
			t.Fatalf("host %q is not normalized", o.Host)
		}
		if a, err := netip.ParseAddr(o.Host); err == nil {
			if err := egress.CheckAddr(a); err != nil {
				t.Fatalf("CheckURL(%q) accepted refused address %v: %v", raw, a, err)
			}
		} else if o.Host == "localhost" || strings.HasSuffix(o.Host, ".localhost") {
			t.Fatalf("CheckURL(%q) accepted loopback name %q", raw, o.Host)
		}
		// The normalized URL checks again to the same origin and the same text.
		u2, o2, err := p.CheckURL(u.String())
		if err != nil || o2 != o || u2.String() != u.String() {
			t.Fatalf("re-check of %q: %q %+v %v; first %q %+v", raw, u2, o2, err, u, o)
		}
		// The origin's own text parses back to it, and an exact allowlist entry for its host
		// admits it.
		if o3, err := egress.ParseOrigin(o.String()); err != nil || o3 != o {
			t.Fatalf("ParseOrigin(%q) = %+v, %v; want %+v", o.String(), o3, err, o)
		}
		exact, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{o.Host}})
		if err != nil || !exact.AllowsOrigin(o) {
			t.Fatalf("exact entry %q: %v, admits %v", o.Host, err, err == nil && exact.AllowsOrigin(o))
		}
		// A wildcard never admits its own base name or a name that merely ends in it.
		if base, ok := strings.CutPrefix(pattern, "*."); ok && !strings.Contains(base, ":") {
			base = strings.ToLower(strings.TrimSuffix(base, "."))
			if o.Host == base || !strings.HasSuffix(o.Host, "."+base) {
				t.Fatalf("wildcard %q admitted %q", pattern, o.Host)
			}
		}
	})
}

// FuzzEgressAddr checks the address rules on arbitrary 16-byte addresses: no panic, the IPv4
// and IPv4-mapped forms of an address agree, and a NAT64 address is refused whenever its
// embedded IPv4 address is.
func FuzzEgressAddr(f *testing.F) {
	for _, s := range []string{"::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "2606:4700:4700::1111", "fe80::1", "2001:db8::1", "::"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:])
	}
	nat64 := netip.MustParsePrefix("64:ff9b::/96")
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(raw))
		err := egress.CheckAddr(a)
		if err != nil && !errors.Is(err, egress.ErrForbiddenDestination) {
			t.Fatalf("CheckAddr(%v) = %v", a, err)
		}
		if a.Is4In6() {
			if (egress.CheckAddr(a.Unmap()) == nil) != (err == nil) {
				t.Fatalf("%v and %v disagree", a, a.Unmap())
			}
		}
		if nat64.Contains(a) {
			v4 := netip.AddrFrom4([4]byte(raw[12:16]))
			if egress.CheckAddr(v4) != nil && err == nil {
				t.Fatalf("NAT64 %v of refused %v allowed", a, v4)
			}
		}
	})
}
