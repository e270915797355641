package egress

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Limits on the names this package accepts. A URL longer than MaxURLBytes is refused before
// parsing, so a guest cannot make the host spend time on a megabyte of URL.
const (
	MaxURLBytes      = 16 << 10
	maxHostBytes     = 253 // RFC 1035 §2.3.4, without the trailing dot
	maxLabelBytes    = 63
	defaultHTTPSPort = 443
	defaultHTTPPort  = 80
)

// Origin is an https origin (RFC 6454): a normalized host and a port. The scheme is always
// https, because no other scheme is ever dialled.
type Origin struct {
	// Host is lower-case ASCII without a trailing dot, or an IP address in canonical form
	// (IPv6 without brackets).
	Host string
	Port uint16
}

// String returns "https://host" for port 443 and "https://host:port" otherwise, with IPv6 in
// brackets.
func (o Origin) String() string {
	h := o.Host
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	if o.Port == defaultHTTPSPort {
		return "https://" + h
	}
	return "https://" + h + ":" + strconv.Itoa(int(o.Port))
}

// hostPort returns "host:port" as net.Dial wants it.
func (o Origin) hostPort() string {
	h := o.Host
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(int(o.Port))
}

// ParseOrigin parses "https://host" or "https://host:port" (no path, query, fragment or
// user info; a single trailing "/" is tolerated). It is how grants name origins.
func ParseOrigin(s string) (Origin, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Origin{}, fmt.Errorf("egress: parse origin %q: %w", s, err)
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return Origin{}, fmt.Errorf("egress: parse origin %q: scheme must be https", s)
	}
	if u.Opaque != "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return Origin{}, fmt.Errorf("egress: parse origin %q: an origin has only a scheme, a host and a port", s)
	}
	o, err := originOfURL(u)
	if err != nil {
		return Origin{}, fmt.Errorf("egress: parse origin %q: %w", s, err)
	}
	return o, nil
}

// originOfURL validates u's host and port (the scheme is checked by the caller); a URL
// without a port gets 443, or 80 for plain http.
func originOfURL(u *url.URL) (Origin, error) {
	if u.Host == "" {
		return Origin{}, fmt.Errorf("missing host")
	}
	host, err := normalizeHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return Origin{}, err
	}
	port := uint16(defaultHTTPSPort)
	if strings.EqualFold(u.Scheme, "http") {
		port = defaultHTTPPort
	}
	if p := u.Port(); p != "" {
		port, err = parsePort(p)
		if err != nil {
			return Origin{}, err
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return Origin{}, fmt.Errorf("empty port")
	}
	return Origin{Host: host, Port: port}, nil
}

func parsePort(p string) (uint16, error) {
	if p == "" || len(p) > 5 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
	}
	n := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
	}
	return uint16(n), nil
}

// normalizeHost returns the canonical form of a URL host (already percent-decoded by net/url):
// an IP address in netip's canonical text, or a DNS name in lower case without a trailing dot.
// bracketed says whether the URL wrote the host in brackets, which only IPv6 may use.
//
// DNS names must be ASCII (IDNs must arrive in their xn-- form: there is no IDNA mapping in
// the standard library, and guessing one would make allowlist matching ambiguous), made of
// labels of 1 to 63 letters, digits, '-' or '_', at most 253 bytes. A name whose last label is
// numeric (or starts "0x") is refused: URL parsers disagree on whether "127.1" or "0x7f.1" is
// an IPv4 address, and such a name has no legitimate DNS meaning.
func normalizeHost(h string, bracketed bool) (string, error) {
	if h == "" {
		return "", fmt.Errorf("missing host")
	}
	if bracketed || strings.IndexByte(h, ':') >= 0 {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", fmt.Errorf("host %q is not a valid IPv6 address", h)
		}
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q has an IPv6 zone, which a URL must not carry", h)
		}
		return a.String(), nil
	}
	if a, err := netip.ParseAddr(h); err == nil {
		// Only the strict dotted-quad form reaches here: netip refuses leading zeros,
		// octal, hex and short forms.
		return a.String(), nil
	}
	name := strings.ToLower(strings.TrimSuffix(h, "."))
	if err := checkDNSName(name); err != nil {
		return "", fmt.Errorf("host %q: %w", h, err)
	}
	return name, nil
}

func checkDNSName(name string) error {
	if name == "" {
		return fmt.Errorf("empty name")
	}
	if len(name) > maxHostBytes {
		return fmt.Errorf("name is longer than %d bytes", maxHostBytes)
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" {
			return fmt.Errorf("empty label")
		}
		if len(l) > maxLabelBytes {
			return fmt.Errorf("label longer than %d bytes", maxLabelBytes)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("character %q is not allowed in a host name (letters, digits, '-', '_'; IDNs in xn-- form)", c)
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.HasPrefix(last, "0x") || strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("numeric top-level label makes the name ambiguous with an IPv4 address")
	}
	return nil
}

// isLocalhostName reports names reserved for loopback (RFC 6761 §6.3). They are refused
// before any lookup, as well as by the address check, so that a resolver configured to map
// them elsewhere cannot change the outcome.
func isLocalhostName(h string) bool {
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// hostPattern is one compiled allowlist entry.
type hostPattern struct {
	any      bool   // "*": every host
	suffix   string // "*.example.com" → ".example.com"
	exact    string // normalized host
	port     uint16 // 0: any port
	original string
}

// parseHostPattern compiles one allowlist entry. The syntax is documented on PolicyConfig.
func parseHostPattern(s string) (hostPattern, error) {
	p := hostPattern{original: s}
	if s == "" {
		return p, fmt.Errorf("empty host pattern")
	}
	if _, err := netip.ParsePrefix(s); err == nil {
		return p, fmt.Errorf("host pattern %q is a CIDR range, and ranges are not patterns: give host names or single addresses (api.example.com, *.example.com, 127.0.0.1)", s)
	}
	hostPart := s
	// Split an optional ":port". A bracketed IPv6 literal keeps its colons inside brackets;
	// an unbracketed IPv6 literal has no port.
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return p, fmt.Errorf("host pattern %q: missing ']'", s)
		}
		hostPart = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return p, fmt.Errorf("host pattern %q: unexpected %q after ']'", s, rest)
			}
			port, err := parsePort(rest[1:])
			if err != nil {
				return p, fmt.Errorf("host pattern %q: %w", s, err)
			}
			p.port = port
		}
		a, err := netip.ParseAddr(hostPart)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return p, fmt.Errorf("host pattern %q: %q is not an IPv6 address without zone", s, hostPart)
		}
		p.exact = a.String()
		return p, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return p, fmt.Errorf("host pattern %q: IPv6 zones are not allowed", s)
		}
		p.exact = a.String()
		return p, nil
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		port, err := parsePort(s[i+1:])
		if err != nil {
			return p, fmt.Errorf("host pattern %q: %w", s, err)
		}
		p.port = port
		hostPart = s[:i]
	}
	if hostPart == "*" {
		p.any = true
		return p, nil
	}
	if rest, ok := strings.CutPrefix(hostPart, "*."); ok {
		name := strings.ToLower(strings.TrimSuffix(rest, "."))
		if err := checkDNSName(name); err != nil {
			return p, fmt.Errorf("host pattern %q: %w", s, err)
		}
		if !strings.Contains(name, ".") {
			return p, fmt.Errorf("host pattern %q: a wildcard needs at least two labels after \"*.\" (\"*.com\" would admit a whole top-level domain)", s)
		}
		p.suffix = "." + name
		return p, nil
	}
	if strings.Contains(hostPart, "*") {
		return p, fmt.Errorf("host pattern %q: '*' is allowed only as \"*\" or as a leading \"*.\" label", s)
	}
	if a, err := netip.ParseAddr(hostPart); err == nil {
		if !a.Is4() {
			return p, fmt.Errorf("host pattern %q: write an IPv6 address with a port in brackets", s)
		}
		p.exact = a.String()
		return p, nil
	}
	name := strings.ToLower(strings.TrimSuffix(hostPart, "."))
	if err := checkDNSName(name); err != nil {
		return p, fmt.Errorf("host pattern %q: %w", s, err)
	}
	p.exact = name
	return p, nil
}

func (p hostPattern) matches(o Origin) bool {
	if p.port != 0 && p.port != o.Port {
		return false
	}
	switch {
	case p.any:
		return true
	case p.suffix != "":
		return len(o.Host) > len(p.suffix) && strings.HasSuffix(o.Host, p.suffix)
	default:
		return o.Host == p.exact
	}
}
