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
	"io"
	"log/slog"
	"net/http"
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

// Sender is the default wasi:http sender: egress.NewSender with wasi:http's default phase
// timeouts, logging every refused or failed request.
type Sender struct {
	send egress.Sender
	log  *slog.Logger
}

// New returns a sender for cfg. Use its Send method as preview2.HTTPConfig.Send.
func New(cfg Config) *Sender {
	pick := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	s := &Sender{log: cfg.Logger, send: egress.NewSender(egress.SenderConfig{
		Client:              cfg.Client,
		Policy:              cfg.Policy,
		ConnectTimeout:      pick(cfg.ConnectTimeout, DefaultConnectTimeout),
		FirstByteTimeout:    pick(cfg.FirstByteTimeout, DefaultFirstByteTimeout),
		BetweenBytesTimeout: pick(cfg.BetweenBytesTimeout, DefaultBetweenBytesTimeout),
		MaxResponseBytes:    cfg.MaxResponseBytes,
	})}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Send is an egress.Sender for preview2.HTTPConfig.Send. Its failures, and those of its
// response bodies, are *preview2.HTTPError carrying the error-code the *egress.Error maps to.
func (s *Sender) Send(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
	resp, err := s.send(ctx, req, opts)
	if err != nil {
		he := &preview2.HTTPError{Code: preview2.ErrorCodeOf(err), Err: err}
		s.log.Warn("wasi:http request refused or failed", "method", req.Method, "url", redact(req), "error-code", he.Code.String(), "reason", reasonOf(err), "error", err.Error())
		return nil, he
	}
	resp.Body = &body{s: s, rc: resp.Body, req: req}
	return resp, nil
}

func reasonOf(err error) string {
	if r, ok := egress.ReasonOf(err); ok {
		return r.String()
	}
	return ""
}

// redact returns the request's URL without its query, which may carry secrets.
func redact(req *http.Request) string {
	if req.URL == nil {
		return ""
	}
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

// body logs and maps the failures of a response body read.
type body struct {
	s   *Sender
	rc  io.ReadCloser
	req *http.Request
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		he := &preview2.HTTPError{Code: preview2.ErrorCodeOf(err), Err: err}
		b.s.log.Warn("wasi:http response body failed", "url", redact(b.req), "error-code", he.Code.String(), "reason", reasonOf(err), "error", err.Error())
		return n, he
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }
