package egress

import (
	"net/http"
	"sort"
	"strings"
)

// Limits on the request header a guest may send. net/http would send far more; these keep one
// request from carrying megabytes of header, which no legitimate API call needs.
const (
	MaxHeaderFields = 256
	MaxHeaderBytes  = 64 << 10
)

// Field is one header field. Names are lower-case on both the request and the response side.
type Field struct {
	Name  string
	Value string
}

// connectionHeaders are the header names that describe the connection rather than the
// message (RFC 9110 §7.6.1, §7.2, §8.6; RFC 9112 §6.1, §7.4). The host computes them itself
// (host from the URL, content-length from the body, framing from the transport), so a guest
// value would only allow request smuggling or a mismatch; they are dropped silently, as the
// ABI 1 document says. Every name starting "proxy-" is dropped as well.
var connectionHeaders = map[string]bool{
	"host":              true,
	"content-length":    true,
	"connection":        true,
	"transfer-encoding": true,
	"upgrade":           true,
	"keep-alive":        true,
	"te":                true,
	"trailer":           true,
}

func isConnectionHeader(name string) bool {
	return connectionHeaders[name] || strings.HasPrefix(name, "proxy-")
}

// validHeaderName reports whether n is a non-empty lower-case token (RFC 9110 §5.1, §5.6.2).
func validHeaderName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v may be sent as a field value: no control characters
// other than horizontal tab (RFC 9110 §5.5), so no CR, LF or NUL can split a header.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// cleanRequestHeader checks the guest's header fields and returns them without connection
// headers. Names must already be lower-case: the ABI 1 document requires it, and folding
// case here would silently merge "X-A" and "x-a".
func cleanRequestHeader(h []Field) ([]Field, error) {
	if len(h) > MaxHeaderFields {
		return nil, errorf(ReasonHeaderTooLarge, nil, "%d header fields, more than the %d allowed", len(h), MaxHeaderFields)
	}
	out := make([]Field, 0, len(h))
	total := 0
	for _, f := range h {
		total += len(f.Name) + len(f.Value)
		if total > MaxHeaderBytes {
			return nil, errorf(ReasonHeaderTooLarge, nil, "header fields exceed %d bytes", MaxHeaderBytes)
		}
		if !validHeaderName(f.Name) {
			if validHeaderName(strings.ToLower(f.Name)) {
				return nil, errorf(ReasonHeader, nil, "header name %q must be lower-case", f.Name)
			}
			return nil, errorf(ReasonHeader, nil, "header name %q is not a valid HTTP token", f.Name)
		}
		if !validHeaderValue(f.Value) {
			return nil, errorf(ReasonHeader, nil, "header %q has a value with control characters", f.Name)
		}
		if isConnectionHeader(f.Name) {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// responseHeader converts a net/http header to lower-case fields sorted by name, keeping the
// order of repeated values.
func responseHeader(h http.Header) []Field {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Field
	for _, k := range names {
		n := strings.ToLower(k)
		for _, v := range h[k] {
			out = append(out, Field{Name: n, Value: v})
		}
	}
	// Two keys that differ only in case (possible for non-canonical names) now share a name;
	// a stable sort keeps them together without reordering their values.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HeaderMap folds fields into one value per name, joining repeated values with ", " (RFC 9110
// §5.3). That is the shape of the ABI 1 answer's "headers" object. set-cookie cannot be
// folded that way (RFC 6265 §3), so its values are joined with "\n" instead.
func HeaderMap(fields []Field) map[string]string {
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		if prev, ok := m[f.Name]; ok {
			sep := ", "
			if f.Name == "set-cookie" {
				sep = "\n"
			}
			m[f.Name] = prev + sep + f.Value
		} else {
			m[f.Name] = f.Value
		}
	}
	return m
}
