// Package httpegress is kobako's default wasi:http sender: every request a component sends
// through wasi:http/outgoing-handler goes through the egress policy (package egress), the same
// one that guards ABI 1's subako_http, and every refusal answers the guest a wasi:http
// error-code and is logged, never a trap.
//
// What the policy does (see package egress for the details): https only, unless
// PolicyConfig.AllowHTTPHosts lets plain http reach named hosts; the host allowlist with
// "*.example.com" wildcards; private, loopback, link-local, multicast and other reserved
// addresses refused on the address actually dialled (so a DNS answer that rebinds a name to an
// internal address is refused too) unless the Client allows private addresses; credentials
// injected for granted origins; connection headers dropped; the response body capped. The guest
// follows redirects itself (wasi:http does not follow them), so every hop is a new request that
// passes every check again.
//
// Time: the guest's request-options can only shorten the sender's connect, first-byte and
// between-bytes timeouts, and the whole exchange ends at the deadline of the call that sent it.
//
// Errors map to error-codes as wasmtime-wasi-http's default sender maps hyper's: DNS failures to
// DNS-error, refused connections to connection-refused, TLS failures to TLS-certificate-error,
// TLS-alert-received or TLS-protocol-error, timeouts by phase, refusals by the policy to
// HTTP-request-denied or destination-IP-prohibited, and an oversized body to
// HTTP-response-body-size.
package httpegress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/wasi/preview2"
)

// Default timeouts, which the guest's request-options can shorten.
const (
	DefaultConnectTimeout      = 30 * time.Second
	DefaultFirstByteTimeout    = 60 * time.Second
	DefaultBetweenBytesTimeout = 60 * time.Second
)

// Config configures a sender.
type Config struct {
	// Policy is the allowlist, plain-http hosts and credentials; nil admits no host, so every
	// request answers HTTP-request-denied.
	Policy *egress.Policy
	// Client sends the requests; nil means egress.NewClient(egress.Options{}): system resolver
	// and roots, no private addresses.
	Client *egress.Client
	// ConnectTimeout, FirstByteTimeout and BetweenBytesTimeout bound each phase; 0 means the
	// Default. The guest's request-options can only shorten them.
	ConnectTimeout, FirstByteTimeout, BetweenBytesTimeout time.Duration
	// MaxResponseBytes caps each response body: 0 means egress.DefaultMaxResponseBytes, a
	// negative value means no cap.
	MaxResponseBytes int64
	// Logger receives one record per refused or failed request; nil means slog.Default().
	Logger *slog.Logger
}

// Sender is the default wasi:http sender.
type Sender struct {
	cfg    Config
	client *egress.Client
	log    *slog.Logger
}

// New returns a sender for cfg. Use its Send method as preview2.HTTPConfig.Send.
func New(cfg Config) *Sender {
	s := &Sender{cfg: cfg, client: cfg.Client, log: cfg.Logger}
	if s.client == nil {
		s.client = egress.NewClient(egress.Options{})
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	pick := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	pick(&s.cfg.ConnectTimeout, DefaultConnectTimeout)
	pick(&s.cfg.FirstByteTimeout, DefaultFirstByteTimeout)
	pick(&s.cfg.BetweenBytesTimeout, DefaultBetweenBytesTimeout)
	return s
}

// Causes by which a phase timeout cancels the exchange.
var (
	errConnectTimeout   = errors.New("connect timeout")
	errFirstByteTimeout = errors.New("first-byte timeout")
	errBetweenBytes     = errors.New("between-bytes timeout")
)

func shorter(guest, own time.Duration) time.Duration {
	if guest > 0 && guest < own {
		return guest
	}
	return own
}

// phaseTimers cancel the exchange when the connection or the response header is late.
type phaseTimers struct {
	mu        sync.Mutex
	connect   *time.Timer
	firstByte *time.Timer
	fbAfter   time.Duration
	cancel    context.CancelCauseFunc
	done      bool
}

func (p *phaseTimers) gotConn(httptrace.GotConnInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.connect.Stop()
	if !p.done && p.firstByte == nil {
		p.firstByte = time.AfterFunc(p.fbAfter, func() { p.cancel(errFirstByteTimeout) })
	}
}

func (p *phaseTimers) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	p.connect.Stop()
	if p.firstByte != nil {
		p.firstByte.Stop()
	}
}

// Send is a preview2.HTTPSender.
func (s *Sender) Send(ctx context.Context, req *http.Request, opts preview2.RequestOptions) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	pt := &phaseTimers{cancel: cancel, fbAfter: shorter(opts.FirstByteTimeout, s.cfg.FirstByteTimeout)}
	pt.connect = time.AfterFunc(shorter(opts.ConnectTimeout, s.cfg.ConnectTimeout), func() { cancel(errConnectTimeout) })
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              pt.gotConn,
		GotFirstResponseByte: pt.stop,
	})
	er := &egress.Request{
		Method:           req.Method,
		URL:              req.URL.String(),
		ContentLength:    req.ContentLength,
		NoRedirects:      true,
		MaxResponseBytes: s.cfg.MaxResponseBytes,
		Trailer:          req.Trailer,
	}
	if req.Body != nil && req.Body != http.NoBody {
		er.Body = req.Body
	} else {
		er.ContentLength = 0
	}
	for k, vs := range req.Header {
		n := strings.ToLower(k)
		for _, v := range vs {
			er.Header = append(er.Header, egress.Field{Name: n, Value: v})
		}
	}
	closeReqBody := func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}
	resp, err := s.client.Do(ctx, s.cfg.Policy, er)
	pt.stop()
	if err != nil {
		cause := context.Cause(ctx)
		cancel(nil)
		closeReqBody()
		code := s.mapError(err, cause, false)
		s.log.Warn("wasi:http request refused or failed", "method", req.Method, "url", redact(req), "error-code", code.Code.String(), "reason", err.Error())
		return nil, code
	}
	out := &http.Response{
		Status:        http.StatusText(resp.Status),
		StatusCode:    resp.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, len(resp.Header)),
		ContentLength: resp.ContentLength,
		Request:       req,
	}
	for _, f := range resp.Header {
		k := http.CanonicalHeaderKey(f.Name)
		out.Header[k] = append(out.Header[k], f.Value)
	}
	out.Body = &body{s: s, resp: resp, out: out, ctx: ctx, cancel: cancel, closeReq: closeReqBody,
		between: shorter(opts.BetweenBytesTimeout, s.cfg.BetweenBytesTimeout)}
	return out, nil
}

// redact returns the request's URL without its query, which may carry secrets.
func redact(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

// body is the response body the guest reads: between-bytes timeout, error-codes, trailers.
type body struct {
	s        *Sender
	resp     *egress.Response
	out      *http.Response
	ctx      context.Context
	cancel   context.CancelCauseFunc
	closeReq func()
	between  time.Duration
	once     sync.Once
}

func (b *body) Read(p []byte) (int, error) {
	t := time.AfterFunc(b.between, func() { b.cancel(errBetweenBytes) })
	n, err := b.resp.Body.Read(p)
	t.Stop()
	switch {
	case err == io.EOF:
		if tr := b.resp.Trailer(); len(tr) > 0 {
			b.out.Trailer = tr.Clone()
		}
	case err != nil:
		code := b.s.mapError(err, context.Cause(b.ctx), true)
		b.s.log.Warn("wasi:http response body failed", "url", redact(b.out.Request), "error-code", code.Code.String(), "reason", err.Error())
		return n, code
	}
	return n, err
}

func (b *body) Close() error {
	var err error
	b.once.Do(func() {
		err = b.resp.Body.Close()
		b.cancel(nil)
		b.closeReq()
	})
	return err
}

// mapError turns an egress failure into the error-code the guest receives. cause is the
// exchange context's cause (a phase timeout); reading tells a body read from the exchange.
func (s *Sender) mapError(err error, cause error, reading bool) *preview2.HTTPError {
	code := func(k preview2.ErrorKind) *preview2.HTTPError {
		return &preview2.HTTPError{Code: preview2.Code(k), Err: err}
	}
	switch {
	case errors.Is(cause, errConnectTimeout):
		return code(preview2.ConnectionTimeout)
	case errors.Is(cause, errFirstByteTimeout), errors.Is(cause, errBetweenBytes):
		return code(preview2.ConnectionReadTimeout)
	}
	var he *preview2.HTTPError
	if errors.As(err, &he) { // the guest's own body failed (content-length)
		return he
	}
	kind, _ := egress.KindOf(err)
	switch kind {
	case egress.KindHostNotAllowed, egress.KindCredentialHeader, egress.KindCredentialUnavailable:
		return code(preview2.HTTPRequestDenied)
	case egress.KindForbiddenDestination:
		var ee *egress.Error
		if errors.As(err, &ee) && strings.HasPrefix(ee.Message, "plain http") {
			return code(preview2.HTTPRequestDenied)
		}
		return code(preview2.DestinationIPProhibited)
	case egress.KindTooManyRedirects:
		return code(preview2.LoopDetected)
	case egress.KindTooLarge:
		c := preview2.Code(preview2.HTTPResponseBodySize)
		if n := s.cfg.MaxResponseBytes; n >= 0 {
			if n == 0 {
				n = egress.DefaultMaxResponseBytes
			}
			u := uint64(n)
			c.BodySize = &u
		}
		return &preview2.HTTPError{Code: c, Err: err}
	case egress.KindTimeout:
		if reading {
			return code(preview2.ConnectionReadTimeout)
		}
		return code(preview2.HTTPResponseTimeout)
	case egress.KindInvalidRequest:
		var ee *egress.Error
		errors.As(err, &ee)
		switch {
		case ee != nil && strings.HasPrefix(ee.Message, "method"):
			return code(preview2.HTTPRequestMethodInvalid)
		case ee != nil && strings.HasPrefix(ee.Message, "url is"):
			return code(preview2.HTTPRequestURITooLong)
		case ee != nil && strings.HasPrefix(ee.Message, "url"):
			return code(preview2.HTTPRequestURIInvalid)
		case ee != nil && strings.Contains(ee.Message, "header fields"):
			return code(preview2.HTTPRequestHeaderSectionSize)
		}
		return code(preview2.HTTPProtocolError)
	}
	return networkCode(err, reading)
}

// networkCode classifies what went wrong on the network, as wasmtime's default sender does for
// hyper's and rustls's errors.
func networkCode(err error, reading bool) *preview2.HTTPError {
	code := func(k preview2.ErrorKind) *preview2.HTTPError {
		return &preview2.HTTPError{Code: preview2.Code(k), Err: err}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsTimeout {
			return code(preview2.DNSTimeout)
		}
		c := preview2.Code(preview2.DNSError)
		rcode := "address not available"
		if dnsErr.IsNotFound {
			rcode = "NXDOMAIN"
		}
		var info uint16
		c.DNSRcode, c.DNSInfoCode = &rcode, &info
		return &preview2.HTTPError{Code: c, Err: err}
	}
	var alert tls.AlertError
	if errors.As(err, &alert) {
		c := preview2.Code(preview2.TLSAlertReceived)
		id, msg := uint8(alert), alert.Error()
		c.TLSAlertID, c.TLSAlertMessage = &id, &msg
		return &preview2.HTTPError{Code: c, Err: err}
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidCert) {
		return code(preview2.TLSCertificateError)
	}
	var recErr tls.RecordHeaderError
	if errors.As(err, &recErr) || strings.Contains(err.Error(), "tls: ") {
		return code(preview2.TLSProtocolError)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return code(preview2.ConnectionRefused)
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return code(preview2.DestinationUnavailable)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return code(preview2.ConnectionTerminated)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if reading {
			return code(preview2.HTTPResponseIncomplete)
		}
		return code(preview2.ConnectionTerminated)
	case strings.Contains(err.Error(), "header exceeds") || strings.Contains(err.Error(), "too large"):
		return code(preview2.HTTPResponseHeaderSectionSize)
	case strings.Contains(err.Error(), "malformed HTTP") || strings.Contains(err.Error(), "http2:"):
		return code(preview2.HTTPProtocolError)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		if reading {
			return code(preview2.ConnectionReadTimeout)
		}
		return code(preview2.ConnectionTimeout)
	}
	if reading {
		return code(preview2.HTTPResponseIncomplete)
	}
	return code(preview2.ConnectionTerminated)
}
