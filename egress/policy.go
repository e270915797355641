package egress

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// PolicyConfig is the egress policy an embedder sets for one invocation: which hosts the guest
// may reach and which credentials the host injects for which origins. The zero value admits no
// host at all.
type PolicyConfig struct {
	// AllowHosts is the host allowlist. Each entry is one of:
	//
	//   - an exact DNS name, "api.example.com": matches that name only (case-insensitive, a
	//     trailing dot ignored), not its subdomains;
	//   - a wildcard, "*.example.com": matches every name with at least one more label in
	//     front, "a.example.com" and "a.b.example.com", but not "example.com" itself and not
	//     "badexample.com". The part after "*." needs at least two labels, so "*.com" is
	//     refused; "*" may appear nowhere else;
	//   - an IP address, "203.0.113.7" or "2001:db8::1" (or "[2001:db8::1]"): matches a URL
	//     that names that address literally (never a DNS name that resolves to it);
	//   - "*": every host. The address rules still apply.
	//
	// Any entry may end in ":port" (IPv6 in brackets, "[2001:db8::1]:8443") to match only that
	// port; without a port it matches every port. Names are ASCII (IDNs in their xn-- form).
	// An empty list admits nothing.
	AllowHosts []string

	// AllowHTTPHosts lets plain http reach the hosts it matches (same syntax as AllowHosts; a
	// pattern without a port matches every port); the host must still be admitted by
	// AllowHosts. Credentials are never injected into plain http requests. Empty: https only.
	AllowHTTPHosts []string

	// Grants lists the origins for which the host injects a credential. At most one Grant per
	// origin.
	Grants []Grant
}

// Grant gives one origin a host-held credential. Candidates are the usable credentials the
// session's vaults hold for the origin, already filtered by the embedder (expired or revoked
// ones left out): exactly one must remain at request time, otherwise requests to the origin
// fail with KindCredentialUnavailable rather than going out without it.
type Grant struct {
	// Origin is "https://host" or "https://host:port".
	Origin string
	// Headers names the headers the credential sets, so that a guest that sets one of them
	// itself is refused (KindCredentialHeader) even when no candidate is available to say so.
	// The header names of the candidates are added to it.
	Headers []string
	// Candidates are the usable credentials; see the type comment.
	Candidates []Credential
}

// Credential is one injectable credential: a non-secret label for messages and the header
// fields it adds to requests for its origin.
type Credential struct {
	// Label identifies the credential in error messages and logs (never the secret).
	Label string
	// Header holds the fields to inject; names must be lower-case and may not be connection
	// headers.
	Header []Field
}

// Policy is a compiled PolicyConfig. It is immutable and safe for concurrent use; build it once
// per invocation (or share it across invocations with the same settings). A nil *Policy admits
// no host.
type Policy struct {
	patterns []hostPattern
	http     []hostPattern
	grants   map[Origin]*grant
	// sensitive holds header names removed when a redirect leaves the original origin: the
	// standard credential headers plus every header any grant sets.
	sensitive map[string]bool
}

type grant struct {
	origin     Origin
	names      map[string]bool
	candidates []Credential
}

// alwaysSensitive are the header names that carry credentials in standard HTTP; they are
// dropped when a redirect leaves the request's original origin (as Fetch does for
// authorization, and as net/http does for cookies), so nothing the guest attached for one
// origin reaches another. proxy-authorization never gets this far (proxy-* is a connection
// header), but is listed to keep the rule self-contained.
var alwaysSensitive = []string{"authorization", "cookie", "cookie2", "proxy-authorization"}

// NewPolicy validates and compiles cfg. Errors match ErrPolicy and name the offending entry.
func NewPolicy(cfg PolicyConfig) (*Policy, error) {
	p := &Policy{grants: make(map[Origin]*grant), sensitive: make(map[string]bool)}
	for _, s := range alwaysSensitive {
		p.sensitive[s] = true
	}
	for i, s := range cfg.AllowHosts {
		hp, err := parseHostPattern(s)
		if err != nil {
			return nil, fmt.Errorf("egress: new policy: allow host %d: %w: %w", i, err, ErrPolicy)
		}
		p.patterns = append(p.patterns, hp)
	}
	for i, s := range cfg.AllowHTTPHosts {
		hp, err := parseHostPattern(s)
		if err != nil {
			return nil, fmt.Errorf("egress: new policy: allow http host %d: %w: %w", i, err, ErrPolicy)
		}
		p.http = append(p.http, hp)
	}
	for i, g := range cfg.Grants {
		o, err := ParseOrigin(g.Origin)
		if err != nil {
			return nil, fmt.Errorf("egress: new policy: grant %d: %w: %w", i, err, ErrPolicy)
		}
		if _, dup := p.grants[o]; dup {
			return nil, fmt.Errorf("egress: new policy: grant %d: second grant for %s: %w", i, o, ErrPolicy)
		}
		cg := &grant{origin: o, names: make(map[string]bool)}
		for _, n := range g.Headers {
			if err := checkCredentialHeaderName(n); err != nil {
				return nil, fmt.Errorf("egress: new policy: grant %s: %w: %w", o, err, ErrPolicy)
			}
			cg.names[n] = true
		}
		for j, c := range g.Candidates {
			if len(c.Header) == 0 {
				return nil, fmt.Errorf("egress: new policy: grant %s: credential %d (%q) sets no header: %w", o, j, c.Label, ErrPolicy)
			}
			for _, f := range c.Header {
				if err := checkCredentialHeaderName(f.Name); err != nil {
					return nil, fmt.Errorf("egress: new policy: grant %s: credential %d (%q): %w: %w", o, j, c.Label, err, ErrPolicy)
				}
				if !validHeaderValue(f.Value) {
					// The value is secret: name the header, never print the value.
					return nil, fmt.Errorf("egress: new policy: grant %s: credential %d (%q): header %q has a value with control characters: %w", o, j, c.Label, f.Name, ErrPolicy)
				}
				cg.names[f.Name] = true
			}
			cg.candidates = append(cg.candidates, Credential{Label: c.Label, Header: append([]Field(nil), c.Header...)})
		}
		for n := range cg.names {
			p.sensitive[n] = true
		}
		p.grants[o] = cg
	}
	return p, nil
}

func checkCredentialHeaderName(n string) error {
	if !validHeaderName(n) {
		return fmt.Errorf("header name %q is not a lower-case HTTP token", n)
	}
	if isConnectionHeader(n) {
		return fmt.Errorf("header %q is a connection header, which the host always removes", n)
	}
	return nil
}

// allowsHTTP reports whether plain http may reach o.
func (p *Policy) allowsHTTP(o Origin) bool {
	if p == nil {
		return false
	}
	for _, hp := range p.http {
		if hp.matches(o) {
			return true
		}
	}
	return false
}

// AllowsOrigin reports whether the allowlist admits o.
func (p *Policy) AllowsOrigin(o Origin) bool {
	if p == nil {
		return false
	}
	for _, hp := range p.patterns {
		if hp.matches(o) {
			return true
		}
	}
	return false
}

// CheckURL applies the URL rules to raw without any network access and returns the parsed,
// normalized URL and its origin: at most MaxURLBytes, absolute, scheme https (plain http is
// KindForbiddenDestination, anything else KindInvalidRequest), no user info, a valid host (see
// PolicyConfig.AllowHosts for the name syntax) and port, the host admitted by the allowlist
// (KindHostNotAllowed), not a localhost name, and an IP literal not in a refused range
// (KindForbiddenDestination). The fragment is dropped: it is never sent.
func (p *Policy) CheckURL(raw string) (*url.URL, Origin, error) {
	u, err := parseRequestURL(raw)
	if err != nil {
		return nil, Origin{}, err
	}
	o, err := p.checkParsedURL(u, CheckAddr, false)
	if err != nil {
		return nil, Origin{}, err
	}
	return u, o, nil
}

func parseRequestURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLBytes {
		return nil, errorf(ReasonURLTooLong, nil, "url is %d bytes, more than the %d allowed", len(raw), MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL; keep the message short and the cause for logs.
		return nil, errorf(ReasonURL, err, "url does not parse")
	}
	return u, nil
}

// checkParsedURL applies every URL rule to u, normalizes its host in place and returns its
// origin. Redirect targets go through here too. checkAddr judges IP-literal hosts (the
// Client passes its own, which honours its exemptions); the dialler checks them again in any
// case. localhost admits "localhost" names (Options.AllowPrivate).
func (p *Policy) checkParsedURL(u *url.URL, checkAddr func(netip.Addr) error, localhost bool) (Origin, error) {
	plain := false
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		plain = true
	case "":
		return Origin{}, errorf(ReasonURL, nil, "url must be absolute (https://host/…)")
	default:
		return Origin{}, errorf(ReasonURL, nil, "url scheme %q is not supported; use https", u.Scheme)
	}
	if u.Opaque != "" {
		return Origin{}, errorf(ReasonURL, nil, "url must be of the form https://host/…")
	}
	if u.User != nil {
		return Origin{}, errorf(ReasonURL, nil, "url must not carry user info; credentials are injected by the host")
	}
	o, err := originOfURL(u)
	if err != nil {
		return Origin{}, errorf(ReasonURL, nil, "url %v", err)
	}
	if plain && !p.allowsHTTP(o) {
		return Origin{}, errorf(ReasonPlainHTTP, nil, "plain http is not allowed; use https")
	}
	if isLocalhostName(o.Host) && !localhost {
		return Origin{}, errorf(ReasonLocalhost, nil, "%s is a loopback name (RFC 6761 §6.3)", o.Host)
	}
	if !p.AllowsOrigin(o) {
		return Origin{}, errorf(ReasonHostNotAllowed, nil, "%s is not in this function's network allowlist", displayHost(o))
	}
	if a, err := netip.ParseAddr(o.Host); err == nil {
		if err := checkAddr(a); err != nil {
			return Origin{}, err
		}
	}
	u.Scheme = "https"
	u.Host = o.hostPort()
	if plain {
		u.Scheme = "http"
		if o.Port == defaultHTTPPort {
			u.Host = strings.TrimSuffix(u.Host, ":80")
		}
	} else if o.Port == defaultHTTPSPort {
		u.Host = strings.TrimSuffix(u.Host, ":443")
	}
	u.Fragment, u.RawFragment = "", ""
	return o, nil
}

func displayHost(o Origin) string {
	if o.Port == defaultHTTPSPort {
		return o.Host
	}
	return strings.TrimPrefix(o.String(), "https://")
}

// credentialFor returns the header fields to inject for o (nil when o is not granted) after
// checking the guest's fields against them.
func (p *Policy) credentialFor(o Origin, guest []Field) ([]Field, error) {
	if p == nil {
		return nil, nil
	}
	g := p.grants[o]
	if g == nil {
		return nil, nil
	}
	for _, f := range guest {
		if g.names[f.Name] {
			return nil, errorf(ReasonCredentialHeader, nil, "header %q is set by the credential the host injects for %s; do not set it", f.Name, o)
		}
	}
	switch len(g.candidates) {
	case 1:
		return g.candidates[0].Header, nil
	case 0:
		return nil, errorf(ReasonCredentialUnavailable, nil, "no usable credential for %s", o)
	default:
		labels := make([]string, len(g.candidates))
		for i, c := range g.candidates {
			labels[i] = fmt.Sprintf("%q", c.Label)
		}
		return nil, errorf(ReasonCredentialUnavailable, nil, "%d credentials (%s) are usable for %s; exactly one is needed", len(g.candidates), strings.Join(labels, ", "), o)
	}
}
