package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

const (
	// MaxRedirects is the most redirects one request follows (ABI 1: MAX_REDIRECTS).
	MaxRedirects = 10
	// DefaultMaxResponseBytes is the response body cap when Request.MaxResponseBytes is 0.
	DefaultMaxResponseBytes = 16 << 20
	// DefaultMaxTimeout bounds every request when Options.MaxTimeout is 0, so that a request
	// made with a context without deadline still ends.
	DefaultMaxTimeout = 2 * time.Minute
	// DefaultMaxResponseHeaderBytes caps the response header when
	// Options.MaxResponseHeaderBytes is 0.
	DefaultMaxResponseHeaderBytes = 1 << 20

	// redirectDrainBytes is how much of a redirect response's body is read so that its
	// connection can be reused; a longer body costs a new connection instead of time.
	redirectDrainBytes = 64 << 10
	maxMessageBytes    = 512
)

// Options configures a Client. The zero value is the production configuration: the system
// resolver and root certificates, loopback and every other refused range unreachable.
type Options struct {
	// Resolver looks up host names; nil means net.DefaultResolver. Its answers are checked.
	Resolver Resolver
	// RootCAs verifies servers; nil means the system roots.
	RootCAs *x509.CertPool
	// MaxTimeout bounds every request; 0 means DefaultMaxTimeout.
	MaxTimeout time.Duration
	// MaxResponseHeaderBytes bounds the response header; 0 means DefaultMaxResponseHeaderBytes.
	MaxResponseHeaderBytes int64

	// AllowPrivate lets requests reach every address the refused-range table would refuse
	// (loopback, private, link-local, multicast and the other reserved ranges) and "localhost"
	// names: for an embedder that grants a plugin its local network on purpose (ZeroClaw's
	// egress_allow_private, kobako run --allow-private). The allowlist still applies. Clients
	// with and without it keep separate connection pools, since they are separate Clients.
	AllowPrivate bool

	// UnsafeAllowAddrs exempts address prefixes from the refused-range table. FOR TESTS ONLY,
	// to reach an httptest.NewTLSServer on 127.0.0.1; a production embedder must leave it
	// empty. Exemptions are exact prefixes: exempting 127.0.0.1/32 does not exempt ::1.
	UnsafeAllowAddrs []netip.Prefix
	// UnsafeDialIP replaces the final TCP dial. FOR TESTS ONLY: it receives an "ip:port" that
	// has already passed the address rules, so a test can route a (fake) public address to a
	// local test server while the rules stay fully in force. When set, the net.Dialer Control
	// hook is not used, since no real socket to that address is made.
	UnsafeDialIP DialFunc

	// Fetch sends requests through the JavaScript host's fetch instead of dialling, for a
	// program built with GOOS=js that runs in a browser, where there are no sockets. Every rule
	// that Do applies before a request leaves (method, URL, allowlist, "localhost" names and
	// IP literals in the URL, headers, credentials, body length, timeouts, response size) still
	// applies; what a browser cannot offer is the check of the address a name resolves to, since
	// it resolves names itself and never tells the page which address it connected to. Requests
	// go out without the page's cookies, a redirect fails with ReasonProtocol (fetch hides where
	// it leads, so it cannot be checked), and the destination must allow the page's origin by
	// CORS. Where fetch is missing (node), every request fails rather than being dialled without
	// the address rules. It has no effect on other platforms, where requests are always dialled.
	Fetch bool
}

// Client performs HTTPS requests under a Policy. It keeps a connection pool; connections are
// keyed by origin and were checked by the address rules when dialled, and the allowlist and
// credentials are applied to every request, so one Client may serve many policies. It is safe
// for concurrent use.
type Client struct {
	transport  roundTripper
	dialer     *dialer
	maxTimeout time.Duration
}

// NewClient returns a Client configured by opts.
func NewClient(opts Options) *Client {
	d := newDialer(opts)
	hdr := opts.MaxResponseHeaderBytes
	if hdr <= 0 {
		hdr = DefaultMaxResponseHeaderBytes
	}
	mt := opts.MaxTimeout
	if mt <= 0 {
		mt = DefaultMaxTimeout
	}
	t := &http.Transport{
		// Never a proxy: HTTPS_PROXY in the environment would otherwise send every request
		// to an address the rules never see.
		Proxy:                  nil,
		DialContext:            d.dialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		TLSHandshakeTimeout:    15 * time.Second,
		ForceAttemptHTTP2:      true,
		DisableCompression:     true, // the guest gets the bytes the server sent, and the cap counts them
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: hdr,
	}
	var rt roundTripper = t
	if opts.Fetch {
		rt = fetchTransport(t)
	}
	return &Client{transport: rt, dialer: d, maxTimeout: mt}
}

// roundTripper is what a Client sends hops through: an *http.Transport that dials, or on GOOS=js
// with Options.Fetch the browser's fetch.
type roundTripper interface {
	http.RoundTripper
	CloseIdleConnections()
}

// CloseIdleConnections closes pooled connections.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// Request is one outbound request, as the guest asked for it plus the caller's size cap.
type Request struct {
	// Method is GET (also when empty), HEAD, POST, PUT, PATCH, DELETE or OPTIONS, upper-case.
	Method string
	// URL is an absolute https URL.
	URL string
	// Header holds the guest's fields. Names must be lower-case tokens; connection headers
	// (host, content-length, connection, transfer-encoding, upgrade, keep-alive, te, trailer,
	// proxy-*) are removed.
	Header []Field
	// Body is the request body, nil for none. Do reads it until the response body is closed
	// (or Do returns an error) and never after; it does not close it. A Body that is an
	// io.Seeker can be replayed on a 307/308 redirect; otherwise such a redirect is returned
	// to the caller unfollowed, as net/http does.
	Body io.Reader
	// ContentLength is Body's length in bytes, or -1 if unknown (the body is then sent in
	// chunks). A Body that ends early or runs longer is a KindInvalidRequest error.
	ContentLength int64
	// NoRedirects returns 3xx responses instead of following them.
	NoRedirects bool
	// Timeout, if positive, bounds the whole exchange including reading the body. It can only
	// shorten ctx's deadline, never extend it.
	Timeout time.Duration
	// Trailer, if not nil, is sent as the request's trailer section after the body (which
	// must then be of unknown length, ContentLength -1). The Body may fill it in until it
	// returns io.EOF.
	Trailer http.Header
	// MaxResponseBytes caps the response body: 0 means DefaultMaxResponseBytes, a negative
	// value means no cap (the caller enforces its own, e.g. a write budget). Larger bodies fail
	// with KindTooLarge: at once when Content-Length says so, otherwise while reading.
	MaxResponseBytes int64
}

// Response is the answer to a Request.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response fields, names lower-case, sorted by name.
	Header []Field
	// Body yields at most the request's MaxResponseBytes; the caller must Close it, which
	// also releases the request's deadline and its request body.
	Body io.ReadCloser
	// ContentLength is the declared body length, or -1.
	ContentLength int64
	// URL is the URL that produced this response, after redirects.
	URL string
	// Redirects is the number of redirects followed.
	Redirects int

	resp *http.Response
}

// Trailer returns the response's trailer fields. Call it only after Body has returned
// io.EOF: net/http fills them in then, from the goroutine that reads the body.
func (r *Response) Trailer() http.Header {
	if r.resp == nil {
		return nil
	}
	return r.resp.Trailer
}

var methods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// Do performs req under p (a nil p admits no host). Every failure, including a policy refusal,
// is an *Error. On success the caller must close Response.Body.
//
// Checks, in order: method; URL (see Policy.CheckURL); header fields; body length; then, per
// hop: credentials for the hop's origin, the dial (every resolved address checked, and the
// socket address again in the dialer's Control hook), and on a redirect the new URL through
// the same URL rules. A redirect that leaves the original origin drops the guest's
// authorization, cookie and granted-credential headers for the rest of the chain; host
// credentials are injected per hop, for that hop's origin only.
func (c *Client) Do(ctx context.Context, p *Policy, req *Request) (*Response, error) {
	if req == nil {
		return nil, errorf(ReasonRequest, nil, "no request")
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if !methods[method] {
		return nil, errorf(ReasonMethod, nil, "method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", truncate(method, 32))
	}
	u, err := parseRequestURL(req.URL)
	if err != nil {
		return nil, err
	}
	origin, err := p.checkParsedURL(u, c.dialer.checkAddr, c.dialer.allowPrivate)
	if err != nil {
		return nil, err
	}
	guest, err := cleanRequestHeader(req.Header)
	if err != nil {
		return nil, err
	}
	if req.ContentLength < -1 {
		return nil, errorf(ReasonBody, nil, "body length %d is negative", req.ContentLength)
	}
	if req.Body != nil && req.ContentLength == 0 {
		// A declared empty body is not sent, but one that is not empty is a caller error, as
		// for any other length.
		var probe [1]byte
		if n, _ := req.Body.Read(probe[:]); n > 0 {
			return nil, errorf(ReasonBody, errBodyLong, "%v", errBodyLong)
		}
	}
	if req.Timeout < 0 {
		return nil, errorf(ReasonRequest, nil, "timeout %v is negative", req.Timeout)
	}
	maxBody := req.MaxResponseBytes
	if maxBody == 0 {
		maxBody = DefaultMaxResponseBytes
	}
	timeout := c.maxTimeout
	if req.Timeout > 0 && req.Timeout < timeout {
		timeout = req.Timeout
	}
	// WithTimeout keeps the parent's deadline when it is earlier: the request timeout can only
	// shorten it.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	var src *bodySource
	if req.Body != nil && req.ContentLength != 0 {
		src = newBodySource(req.Body, req.ContentLength)
	}
	if req.Trailer != nil && req.ContentLength != -1 {
		cancel()
		return nil, errorf(ReasonRequest, nil, "a request with trailers must have a body of unknown length")
	}
	resp, hops, err := c.exchange(ctx, p, method, u, origin, guest, src, req.NoRedirects, req.Trailer)
	if err != nil {
		cancel()
		src.detach()
		return nil, err
	}
	// A HEAD response's Content-Length describes a body that is not sent.
	if maxBody >= 0 && resp.ContentLength > maxBody && resp.Request.Method != http.MethodHead {
		_ = resp.Body.Close()
		cancel()
		src.detach()
		e := errorf(ReasonBodyTooLarge, nil, "response body of %d bytes is larger than the %d-byte limit", resp.ContentLength, maxBody)
		e.Limit = maxBody
		return nil, e
	}
	final, err := originOfURL(resp.Request.URL)
	if err != nil {
		final = origin // unreachable: every hop's URL passed the same check
	}
	body := io.ReadCloser(&responseBody{rc: resp.Body, max: maxBody, ctx: ctx, cancel: cancel, source: src, origin: final})
	return &Response{
		Status:        resp.StatusCode,
		Header:        responseHeader(resp.Header),
		Body:          body,
		ContentLength: resp.ContentLength,
		URL:           resp.Request.URL.String(),
		Redirects:     hops,
		resp:          resp,
	}, nil
}

// exchange runs the hops of one request.
func (c *Client) exchange(ctx context.Context, p *Policy, method string, u *url.URL, origin Origin, guest []Field, src *bodySource, noRedirects bool, trailer http.Header) (*http.Response, int, error) {
	first := origin
	crossOrigin := false
	hops := 0
	for {
		var inject []Field
		if u.Scheme == "https" { // never a credential in clear text
			var err error
			inject, err = p.credentialFor(origin, guest)
			if err != nil {
				return nil, hops, err
			}
		}
		hreq, err := c.newHTTPRequest(ctx, method, u, guest, inject, src)
		if err != nil {
			return nil, hops, err
		}
		if trailer != nil && hreq.Body != http.NoBody {
			hreq.Trailer = trailer
		}
		resp, err := c.transport.RoundTrip(hreq)
		if err != nil {
			return nil, hops, classify(ctx, err, origin, false)
		}
		// A response that arrives when the exchange's time is already up is not one: on a
		// stalled process the timer and the response can both be ready, and the transport may
		// pick either.
		if err := expired(ctx); err != nil {
			discard(resp)
			return nil, hops, classify(ctx, err, origin, false)
		}
		if noRedirects || !isRedirect(resp.StatusCode) {
			return resp, hops, nil
		}
		loc := resp.Header.Get("Location")
		if loc == "" {
			return resp, hops, nil
		}
		if len(loc) > MaxURLBytes {
			discard(resp)
			return nil, hops, errorf(ReasonProtocol, nil, "%s sent a redirect Location longer than %d bytes", origin, MaxURLBytes)
		}
		next, err := u.Parse(loc)
		if err != nil {
			discard(resp)
			return nil, hops, errorf(ReasonProtocol, err, "%s sent a redirect to a Location that does not parse", origin)
		}
		nextMethod, keepBody := redirectMethod(resp.StatusCode, method)
		if keepBody && !src.canReplay() {
			// The body has been streamed and cannot be sent again: hand the redirect to the
			// caller, as net/http does, rather than sending an empty body.
			return resp, hops, nil
		}
		discard(resp)
		hops++
		if hops > MaxRedirects {
			e := errorf(ReasonTooManyRedirects, nil, "more than %d redirects", MaxRedirects)
			e.Limit = MaxRedirects
			return nil, hops, e
		}
		nextOrigin, err := p.checkParsedURL(next, c.dialer.checkAddr, c.dialer.allowPrivate)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Message = "redirect: " + e.Message
			}
			return nil, hops, err
		}
		if !crossOrigin && nextOrigin != first {
			crossOrigin = true
			guest = dropSensitive(guest, p)
		}
		if !keepBody {
			src.detach()
			src = nil
			guest = dropBodyHeaders(guest)
		}
		method, u, origin = nextMethod, next, nextOrigin
	}
}

func (c *Client) newHTTPRequest(ctx context.Context, method string, u *url.URL, guest, inject []Field, src *bodySource) (*http.Request, error) {
	var body io.ReadCloser
	length := int64(0)
	if !src.empty() {
		b, err := src.next()
		if err != nil {
			return nil, errorf(ReasonBody, err, "request body cannot be sent again for a redirect")
		}
		body, length = b, src.length
	}
	uu := *u
	hreq := &http.Request{
		Method:        method,
		URL:           &uu,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, len(guest)+len(inject)),
		Body:          body,
		ContentLength: length,
		Host:          u.Host,
	}
	if body == nil {
		hreq.Body = http.NoBody
	}
	// Add canonicalizes the key: net/http looks some names up in canonical form (user-agent,
	// expect), and a lower-case key would be missed and duplicated. Field names are
	// case-insensitive on the wire (RFC 9110 §5.1); HTTP/2 sends them in lower case.
	for _, f := range guest {
		hreq.Header.Add(f.Name, f.Value)
	}
	for _, f := range inject {
		hreq.Header.Add(f.Name, f.Value)
	}
	return hreq.WithContext(ctx), nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectMethod follows Fetch (https://fetch.spec.whatwg.org/#http-redirect-fetch, step 12):
// 303 turns anything but HEAD into GET without body; 301 and 302 turn POST into GET; 307 and
// 308 keep method and body.
func redirectMethod(status int, method string) (string, bool) {
	switch {
	case status == http.StatusSeeOther && method != http.MethodHead:
		return http.MethodGet, false
	case (status == http.StatusMovedPermanently || status == http.StatusFound) && method == http.MethodPost:
		return http.MethodGet, false
	}
	return method, true
}

// dropSensitive removes the credential-bearing fields when a redirect leaves the origin.
func dropSensitive(h []Field, p *Policy) []Field {
	out := make([]Field, 0, len(h))
	for _, f := range h {
		if sensitiveHeader(p, f.Name) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func sensitiveHeader(p *Policy, name string) bool {
	if p != nil {
		return p.sensitive[name]
	}
	for _, s := range alwaysSensitive {
		if s == name {
			return true
		}
	}
	return false
}

// dropBodyHeaders removes the fields that describe a body, once the body is dropped
// (Fetch's request-body-header names).
func dropBodyHeaders(h []Field) []Field {
	out := make([]Field, 0, len(h))
	for _, f := range h {
		switch f.Name {
		case "content-type", "content-encoding", "content-language", "content-location":
			continue
		}
		out = append(out, f)
	}
	return out
}

// discard reads a little of a response body so the connection can be reused, then closes it.
func discard(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, redirectDrainBytes)
	_ = resp.Body.Close()
}

// classify turns a net/http, net or TLS error into an *Error. body tells a failure while the
// response body was being read from one while the request was being sent.
func classify(ctx context.Context, err error, o Origin, body bool) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	where := "request to"
	if body {
		where = "reading the response body from"
	}
	timeout := ReasonTimeout
	if body {
		timeout = ReasonBodyTimeout
	}
	switch {
	case errors.Is(err, errBodyShort), errors.Is(err, errBodyLong):
		return errorf(ReasonBody, err, "%v", err)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return errorf(timeout, err, "%s %s timed out", where, o)
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return errorf(ReasonCancelled, err, "%s %s was cancelled", where, o)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errorf(timeout, err, "%s %s timed out", where, o)
	}
	return errorf(networkReason(err, body), err, "%s %s failed: %s", where, o, truncate(err.Error(), maxMessageBytes))
}

// networkReason classifies a failed exchange by its cause. Typed errors come first; net/http and
// crypto/tls report some failures only as text (an oversized response header, a malformed
// response, most TLS protocol errors), and this is the one place their text is read, so that
// callers switch on the Reason instead.
func networkReason(err error, body bool) Reason {
	var dnsErr *net.DNSError
	var alert tls.AlertError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recErr tls.RecordHeaderError
	msg := err.Error()
	switch {
	case errors.As(err, &dnsErr):
		return ReasonDNS
	case errors.As(err, &alert), errors.As(err, &certErr), errors.As(err, &unknownAuth),
		errors.As(err, &hostErr), errors.As(err, &invalidCert), errors.As(err, &recErr),
		strings.Contains(msg, "tls: "):
		return ReasonTLS
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return ReasonConnect
	case !body && (strings.Contains(msg, "header exceeds") || strings.Contains(msg, "headers exceeded") || strings.Contains(msg, "too large")):
		return ReasonResponseHeaderTooLarge
	case strings.Contains(msg, "malformed HTTP") || strings.Contains(msg, "http2:"):
		return ReasonProtocol
	case body:
		return ReasonIncomplete
	}
	return ReasonConnection
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// expired returns ctx's error, or context.DeadlineExceeded once its deadline has passed even if
// the timer that ends it has not run yet.
func expired(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
