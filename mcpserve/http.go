package mcpserve

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

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
	// StrictProtocolHeader refuses a request whose MCP-Protocol-Version header and _meta protocol
	// version disagree (or whose _meta names 2026-07-28 without the header) with the 2026-07-28
	// header-mismatch error, -32020. By default the request is served under _meta's version,
	// which is what it was written for: claude.ai's connectors send the header of the handshake
	// era with a 2026-07-28 _meta.
	StrictProtocolHeader bool
	// SessionTimeout closes a 2025-11-25 session that has had no request for this long (the
	// client starts a new one with initialize, as the specification says it must on a 404), so
	// clients that go away without a DELETE do not keep theirs forever. 0 means
	// DefaultSessionTimeout; negative means never.
	SessionTimeout time.Duration
}

// DefaultSessionTimeout is HTTPOptions.SessionTimeout when 0.
const DefaultSessionTimeout = time.Hour

// Handler returns the Streamable HTTP handler. Both protocol eras are served on one endpoint:
// requests of the 2026-07-28 revision (a _meta protocol version, else the MCP-Protocol-Version
// header, of 2026-07-28 or later) go to the SDK's stateless handler, each POST a whole request
// cancelled when the client goes away; everything else, the initialize handshake first, to its
// session handler (Mcp-Session-Id, GET for the event stream, DELETE to end a session). The guards
// of opts run before either, and every POST body is checked as a stdio line is (see ServeStdio):
// a body that is not one JSON-RPC message kobako serves is answered with its JSON-RPC error.
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
	idle := opts.SessionTimeout
	switch {
	case idle == 0:
		idle = DefaultSessionTimeout
	case idle < 0:
		idle = 0 // the SDK's "never"
	}
	// The SDK's own localhost check compares host names case-sensitively; the guard below does the
	// same check without that mistake, so the SDK's is off.
	stateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger: s.sdkLog(), MaxRequestBodyBytes: max, JSONResponse: opts.JSONResponse,
		DisableLocalhostProtection: true, SessionTimeout: idle,
	})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: s.sdkLog(), MaxRequestBodyBytes: max, JSONResponse: opts.JSONResponse,
		DisableLocalhostProtection: true, PropagateRequestCancellation: true,
	})
	g := &guard{hosts: hosts, origins: opts.AllowedOrigins, token: opts.Token, max: max}
	var mismatchLogged sync.Map
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.check(w, r) {
			return
		}
		header := r.Header.Get("MCP-Protocol-Version")
		if r.Method != http.MethodPost {
			if header != "" && !versionSupported(header) {
				writeRPCError(w, http.StatusBadRequest, unsupportedVersion(nil, header, "the MCP-Protocol-Version header"))
				return
			}
			if header >= statelessVersion && r.Header.Get("Mcp-Session-Id") == "" {
				stateless.ServeHTTP(w, r)
				return
			}
			stateful.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeRPCError(w, http.StatusRequestEntityTooLarge, &rpcError{code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: the body is longer than %d bytes", mbe.Limit)})
				return
			}
			http.Error(w, fmt.Sprintf("reading the body: %v", err), http.StatusBadRequest)
			return
		}
		m, rerr := inspect(body)
		if rerr != nil {
			if rerr.notify {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			status := http.StatusBadRequest
			if rerr.code == codeMethodNotFound {
				// SEP-2575 answers an unknown method with 404; the handshake era with 200 and the
				// error, as any JSON-RPC answer.
				status = http.StatusOK
				if header >= statelessVersion || metaVersionOf(body) >= statelessVersion {
					status = http.StatusNotFound
				}
			}
			writeRPCError(w, status, rerr)
			return
		}
		original := header
		mv := ""
		if m.call() {
			mv = m.metaVersion
		}
		switch {
		case mv != "" && header != "" && mv != header:
			if opts.StrictProtocolHeader || !versionSupported(header) || !versionSupported(mv) {
				writeRPCError(w, http.StatusBadRequest, &rpcError{id: m.id, code: codeHeaderMismatch, message: mismatchMessage(header, mv)})
				return
			}
		case header != "" && !versionSupported(header):
			writeRPCError(w, http.StatusBadRequest, unsupportedVersion(m.id, header, "the MCP-Protocol-Version header"))
			return
		case mv != "" && !versionSupported(mv):
			writeRPCError(w, http.StatusBadRequest, unsupportedVersion(m.id, mv, "_meta"))
			return
		case mv >= statelessVersion && header == "" && opts.StrictProtocolHeader:
			writeRPCError(w, http.StatusBadRequest, &rpcError{id: m.id, code: codeHeaderMismatch, message: mismatchMessage(header, mv)})
			return
		}
		if mv != "" && mv != header {
			// Both versions are supported (or the header is absent): serve the request under the
			// version it was written for.
			if _, seen := mismatchLogged.LoadOrStore(header+" "+mv, true); !seen {
				s.log.Debug("serving a request under its _meta protocol version, not its header's", "header", header, "meta", mv)
			}
			if mv < statelessVersion {
				if err := m.withMeta(""); err != nil {
					writeRPCError(w, http.StatusInternalServerError, &rpcError{id: m.id, code: codeInternalError, message: err.Error()})
					return
				}
			}
			r.Header.Set("MCP-Protocol-Version", mv)
			header = mv
		}
		r.Body = io.NopCloser(bytes.NewReader(m.raw))
		r.ContentLength = int64(len(m.raw))
		if header >= statelessVersion {
			// A stateless request stands alone, even from a client that also holds a session.
			r.Header.Del("Mcp-Session-Id")
			if original != header && m.call() {
				// 2026-07-28 mirrors the method and the tool's name in headers; a client that sent
				// the handshake era's header (or none) did not send them either. A client that sent
				// 2026-07-28 itself must send them, and the SDK refuses it otherwise.
				if r.Header.Get("Mcp-Method") == "" {
					r.Header.Set("Mcp-Method", m.method)
				}
				var name string
				if m.method == "tools/call" && r.Header.Get("Mcp-Name") == "" && json.Unmarshal(m.params["name"], &name) == nil {
					r.Header.Set("Mcp-Name", name)
				}
			}
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

func mismatchMessage(header, meta string) string {
	if header == "" {
		return fmt.Sprintf("Header mismatch: the request's _meta names protocol %q but it has no MCP-Protocol-Version header", meta)
	}
	return fmt.Sprintf("Header mismatch: the MCP-Protocol-Version header names %q but the request's _meta names %q", header, meta)
}

// metaVersionOf reads a body's _meta protocol version without checking anything else.
func metaVersionOf(body []byte) string {
	var doc struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal(body, &doc)
	v, _ := doc.Params.Meta[metaVersionKey].(string)
	return v
}

func writeRPCError(w http.ResponseWriter, status int, e *rpcError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(e.encode())
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
