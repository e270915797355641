package egress

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// Sender sends one outbound request a plugin made and returns the response once its header has
// arrived. It is the one seam through which every request of both plugin protocols passes:
// subako.CallOptions.Send for ABI 1's subako_http and preview2.HTTPConfig.Send for wasi:http
// take this type, so an embedder audits, rate-limits or vetoes the requests of either protocol
// with one function. Its shape is wasmtime-wasi-http's send_request hook.
//
// req is a client request: Method, URL, Header (canonical keys), Body (nil or http.NoBody for
// none, ContentLength -1 when unknown) and Trailer; its context is ctx. opts carries what the
// protocol asks beyond the request itself. The caller closes the response body; a Sender closes
// req.Body once it is done with it.
//
// A failure should be an *Error: each protocol host answers its guest from the Kind and Reason
// (Deny builds the veto). Any other error reaches a subako_http guest as kind connection and a
// wasi:http guest as internal-error. Read errors of the response body are treated the same way.
//
// The default of both protocols is NewSender: kobako's egress policy. A Sender that audits or
// vetoes wraps it:
//
//	next := egress.NewSender(egress.SenderConfig{Client: client, Policy: policy})
//	audit := func(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
//		if !allowed(req) {
//			return nil, egress.Deny("refused by the audit")
//		}
//		return next(ctx, req, opts)
//	}
type Sender func(ctx context.Context, req *http.Request, opts SendOptions) (*http.Response, error)

// SendOptions are what a protocol asks of one request beyond the request itself. A zero
// duration means none: a Sender applies its own limits either way and lets these only shorten
// them.
type SendOptions struct {
	// ConnectTimeout, FirstByteTimeout and BetweenBytesTimeout are wasi:http's request-options.
	ConnectTimeout      time.Duration
	FirstByteTimeout    time.Duration
	BetweenBytesTimeout time.Duration
	// Timeout bounds the whole exchange, reading the body included (subako_http's timeout_ms).
	Timeout time.Duration
	// FollowRedirects asks the Sender to follow redirects (subako_http's follow_redirects);
	// wasi:http guests follow them themselves and leave it false.
	FollowRedirects bool
	// MaxResponseBytes caps the response body: 0 means the Sender's own cap, a negative value
	// means the protocol needs none (subako_http's file output, which the write budget caps).
	MaxResponseBytes int64
}

// SenderConfig configures NewSender.
type SenderConfig struct {
	// Client sends the requests; nil means NewClient(Options{}).
	Client *Client
	// Policy is the allowlist, plain-http hosts and credentials; nil admits no host.
	Policy *Policy
	// ConnectTimeout, FirstByteTimeout and BetweenBytesTimeout bound each phase of an exchange;
	// 0 means no bound of the sender's own (the request's options, its Timeout, the context and
	// the Client's MaxTimeout still apply). SendOptions can only shorten them.
	ConnectTimeout, FirstByteTimeout, BetweenBytesTimeout time.Duration
	// MaxResponseBytes caps each response body when SendOptions.MaxResponseBytes is 0: 0 means
	// DefaultMaxResponseBytes, a negative value means no cap.
	MaxResponseBytes int64
}

// NewSender returns the policy sender: every request goes through cfg.Client.Do under
// cfg.Policy, so every rule of this package applies, and every failure is an *Error (phase
// timeouts with ReasonConnectTimeout, ReasonFirstByteTimeout or ReasonBetweenBytesTimeout).
// The response's Trailer is filled in when its body reaches io.EOF.
func NewSender(cfg SenderConfig) Sender {
	if cfg.Client == nil {
		cfg.Client = NewClient(Options{})
	}
	s := &policySender{cfg: cfg}
	return s.send
}

type policySender struct{ cfg SenderConfig }

// Causes with which a phase timer cancels the exchange, turned into Reasons afterwards.
var (
	errConnectTimeout   = errors.New("connect timeout")
	errFirstByteTimeout = errors.New("first-byte timeout")
	errBetweenBytes     = errors.New("between-bytes timeout")
)

// shorter returns the smaller positive duration, 0 when neither is positive.
func shorter(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0 || a < b:
		return a
	}
	return b
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
	if p.connect != nil {
		p.connect.Stop()
	}
	if !p.done && p.firstByte == nil && p.fbAfter > 0 {
		p.firstByte = time.AfterFunc(p.fbAfter, func() { p.cancel(errFirstByteTimeout) })
	}
}

func (p *phaseTimers) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if p.connect != nil {
		p.connect.Stop()
	}
	if p.firstByte != nil {
		p.firstByte.Stop()
	}
}

func (s *policySender) send(ctx context.Context, req *http.Request, opts SendOptions) (*http.Response, error) {
	closeReqBody := func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}
	if req.URL == nil {
		closeReqBody()
		return nil, errorf(ReasonURL, nil, "the request has no url")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	pt := &phaseTimers{cancel: cancel, fbAfter: shorter(opts.FirstByteTimeout, s.cfg.FirstByteTimeout)}
	if d := shorter(opts.ConnectTimeout, s.cfg.ConnectTimeout); d > 0 {
		pt.connect = time.AfterFunc(d, func() { cancel(errConnectTimeout) })
	}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              pt.gotConn,
		GotFirstResponseByte: pt.stop,
	})
	maxBody := opts.MaxResponseBytes
	if maxBody == 0 {
		maxBody = s.cfg.MaxResponseBytes
	}
	er := &Request{
		Method:           req.Method,
		URL:              req.URL.String(),
		ContentLength:    req.ContentLength,
		NoRedirects:      !opts.FollowRedirects,
		Timeout:          opts.Timeout,
		MaxResponseBytes: maxBody,
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
			er.Header = append(er.Header, Field{Name: n, Value: v})
		}
	}
	resp, err := s.cfg.Client.Do(ctx, s.cfg.Policy, er)
	pt.stop()
	if err != nil {
		err = phaseError(err, context.Cause(ctx))
		cancel(nil)
		closeReqBody()
		return nil, err
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
	out.Body = &senderBody{resp: resp, out: out, ctx: ctx, cancel: cancel, closeReq: closeReqBody,
		between: shorter(opts.BetweenBytesTimeout, s.cfg.BetweenBytesTimeout)}
	return out, nil
}

// phaseError gives a failure that a phase timer caused the Reason of that phase: the Client
// only sees a cancelled context.
func phaseError(err, cause error) error {
	var r Reason
	switch {
	case errors.Is(cause, errConnectTimeout):
		r = ReasonConnectTimeout
	case errors.Is(cause, errFirstByteTimeout):
		r = ReasonFirstByteTimeout
	case errors.Is(cause, errBetweenBytes):
		r = ReasonBetweenBytesTimeout
	default:
		return err
	}
	return errorf(r, err, "%s", cause)
}

// senderBody is the response body a Sender returns: the between-bytes timer, phase reasons and
// trailers on top of Response.Body.
type senderBody struct {
	resp     *Response
	out      *http.Response
	ctx      context.Context
	cancel   context.CancelCauseFunc
	closeReq func()
	between  time.Duration
	once     sync.Once
}

func (b *senderBody) Read(p []byte) (int, error) {
	var t *time.Timer
	if b.between > 0 {
		t = time.AfterFunc(b.between, func() { b.cancel(errBetweenBytes) })
	}
	n, err := b.resp.Body.Read(p)
	if t != nil {
		t.Stop()
	}
	switch {
	case err == io.EOF:
		if tr := b.resp.Trailer(); len(tr) > 0 {
			b.out.Trailer = tr.Clone()
		}
	case err != nil:
		return n, phaseError(err, context.Cause(b.ctx))
	}
	return n, err
}

func (b *senderBody) Close() error {
	var err error
	b.once.Do(func() {
		err = b.resp.Body.Close()
		b.cancel(nil)
		b.closeReq()
	})
	return err
}
