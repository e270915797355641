package mcpserve

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxBodyBytes caps an HTTP request body when HTTPOptions.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 4 << 20

// statelessVersion is the first protocol revision without sessions (SEP-2575).
const statelessVersion = "2026-07-28"

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// AllowedHosts are the host names (without port) a request's Host header may carry; empty
	// means localhost, 127.0.0.1 and ::1. A request naming any other host is refused with 403,
	// which defeats DNS rebinding: a page whose name was pointed at 127.0.0.1 still sends its own
	// name. "*" admits every host.
	AllowedHosts []string
	// AllowedOrigins are the origins (scheme://host[:port]) a browser request may come from,
	// besides http(s) origins on an allowed host. A request with any other Origin header is refused
	// with 403; a request without one (every non-browser client) passes.
	AllowedOrigins []string
	// Token, when set, must be presented as "Authorization: Bearer TOKEN"; anything else is 401.
	Token string
	// MaxBodyBytes caps a request body (413 beyond); 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// JSONResponse answers POSTs with application/json instead of an event stream.
	JSONResponse bool
}

// Handler returns the Streamable HTTP handler. Both protocol eras are served on one endpoint:
// requests that carry MCP-Protocol-Version 2026-07-28 or later go to the SDK's stateless handler
// (each POST a whole request, cancelled when the client goes away); everything else, the
// initialize handshake first, to its session handler (Mcp-Session-Id, GET for the event stream,
// DELETE to end a session). The guards of opts run before either.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	max := opts.MaxBodyBytes
	if max == 0 {
		max = DefaultMaxBodyBytes
	}
	hosts := opts.AllowedHosts
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	get := func(*http.Request) *mcp.Server { return s.mcp }
	// The SDK's own localhost check is left on unless other names are allowed: it is the same
	// rule as ours for the default list.
	customHosts := len(opts.AllowedHosts) > 0
	stateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger: s.sdkLog(), MaxRequestBodyBytes: max, JSONResponse: opts.JSONResponse,
		DisableLocalhostProtection: customHosts,
	})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: s.sdkLog(), MaxRequestBodyBytes: max, JSONResponse: opts.JSONResponse,
		DisableLocalhostProtection: customHosts, PropagateRequestCancellation: true,
	})
	g := &guard{hosts: hosts, origins: opts.AllowedOrigins, token: opts.Token, max: max}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.check(w, r) {
			return
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v >= statelessVersion && r.Header.Get("Mcp-Session-Id") == "" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

type guard struct {
	hosts   []string
	origins []string
	token   string
	max     int64
}

func (g *guard) check(w http.ResponseWriter, r *http.Request) bool {
	if !g.hostAllowed(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: the Host %q is not allowed", r.Host), http.StatusForbidden)
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
		http.Error(w, fmt.Sprintf("Forbidden: the Origin %q is not allowed", o), http.StatusForbidden)
		return false
	}
	if g.token != "" {
		auth := r.Header.Get("Authorization")
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(g.token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kobako mcp"`)
			http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
			return false
		}
	}
	if r.ContentLength > g.max {
		http.Error(w, fmt.Sprintf("request body is %d bytes, more than %d", r.ContentLength, g.max), http.StatusRequestEntityTooLarge)
		return false
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, g.max)
	}
	return true
}

// hostAllowed reports whether a Host header (name, optionally with a port) names an allowed host.
func (g *guard) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	for _, h := range g.hosts {
		if h == "*" || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

func (g *guard) originAllowed(o string) bool {
	for _, a := range g.origins {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), o) {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return g.hostAllowed(u.Host)
}
