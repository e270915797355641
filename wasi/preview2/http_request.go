package preview2

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kobako/kobako/abi"
)

// outgoingRequest is an outgoing-request resource.
type outgoingRequest struct {
	method    method
	scheme    *scheme
	authority *string
	path      *string
	headers   *fields
	body      *outgoingBody // set once body() was called
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*outgoingRequest) ResourceName() string { return "outgoing-request" }

// requestOptions is a request-options resource; nil fields are unset.
type requestOptions struct {
	connect, firstByte, betweenBytes *uint64
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*requestOptions) ResourceName() string { return "request-options" }

// outgoingBody is an outgoing-body resource.
type outgoingBody struct {
	pipe        *bodyPipe
	streamTaken bool
	streamAlive bool
	finished    bool
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*outgoingBody) ResourceName() string { return "outgoing-body" }

func (b *outgoingBody) close() error {
	if !b.finished {
		b.pipe.abort(errBodyDropped)
	}
	return nil
}

// waitFree waits until n bytes may be written or ctx ends (an error: the guest traps at its
// deadline).
func (b *outgoingBody) waitFree(ctx context.Context, n int) error {
	for {
		if b.pipe.free() >= n {
			return nil
		}
		select {
		case <-b.pipe.spaceChan():
		case <-ctx.Done():
			return fmt.Errorf("preview2: blocking-write-and-flush: %w", context.Cause(ctx))
		}
	}
}

// bodySpace is the readiness of an outgoing body's stream: room to write.
type bodySpace struct{ p *bodyPipe }

func (s bodySpace) Ready() bool { return s.p.free() > 0 }

func (s bodySpace) ReadyChan() <-chan struct{} { return s.p.spaceChan() }

type unitRes = abi.Result[struct{}, struct{}]

var (
	unitOk  = abi.Ok[struct{}, struct{}](struct{}{})
	unitErr = abi.Err[struct{}](struct{}{})
)

func (h *Host) newOutgoingRequest(hdrs abi.Own[*fields]) (abi.Own[*outgoingRequest], error) {
	f, err := take(h, hdrs)
	if err != nil {
		return abi.Own[*outgoingRequest]{}, err
	}
	f.immutable = true // the request owns them now; headers() hands out copies
	return push(h, &outgoingRequest{method: method{Get: true}, headers: f})
}

func validMethod(m method) bool {
	return m.Other == nil || validFieldName(*m.Other)
}

func validScheme(s scheme) bool {
	if s.Other == nil {
		return true
	}
	o := *s.Other
	if o == "" || !(o[0] >= 'a' && o[0] <= 'z' || o[0] >= 'A' && o[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(o); i++ {
		c := o[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// parseAuthority checks an authority (host[:port], no user info) and returns host and port
// ("" when absent).
func parseAuthority(a string) (host, port string, ok bool) {
	if a == "" || len(a) > 2048 || strings.ContainsAny(a, "@/?#\\ \t\r\n") {
		return "", "", false
	}
	u, err := url.Parse("http://" + a)
	if err != nil || u.Host != a || u.User != nil {
		return "", "", false
	}
	host, port = u.Hostname(), u.Port()
	if host == "" || strings.HasSuffix(a, ":") {
		return "", "", false
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", "", false
		}
	}
	return host, port, true
}

// validPath checks a path-with-query: origin-form ("/…") with only the characters a request
// target may carry (RFC 3986 pchar, "/" and "?", percent-escapes well formed), or "*". It is
// sent exactly as given, so what net/http would re-escape is refused.
func validPath(p string) bool {
	if p == "*" {
		return true
	}
	if p == "" || p[0] != '/' || len(p) > 16<<10 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			return false
		}
	}
	u, err := url.ParseRequestURI(p)
	return err == nil && u.RequestURI() == p
}

func httpRequestFuncs() map[string]any {
	type (
		reqHandle  = abi.Borrow[*outgoingRequest]
		optsHandle = abi.Borrow[*requestOptions]
		bodyResult = abi.Result[abi.Own[*outgoingBody], struct{}]
	)
	req := func(h *Host, self reqHandle) (*outgoingRequest, error) { return borrowed(h, self) }
	setDur := func(h *Host, self optsHandle, pick func(*requestOptions) **uint64, d *uint64) (unitRes, error) {
		o, err := borrowed(h, self)
		if err != nil {
			return unitRes{}, err
		}
		*pick(o) = d
		return unitOk, nil
	}
	getDur := func(h *Host, self optsHandle, pick func(*requestOptions) **uint64) (*uint64, error) {
		o, err := borrowed(h, self)
		if err != nil {
			return nil, err
		}
		return *pick(o), nil
	}
	connect := func(o *requestOptions) **uint64 { return &o.connect }
	firstByte := func(o *requestOptions) **uint64 { return &o.firstByte }
	between := func(o *requestOptions) **uint64 { return &o.betweenBytes }
	return map[string]any{
		"[constructor]outgoing-request": func(_ context.Context, h *Host, hdrs abi.Own[*fields]) (abi.Own[*outgoingRequest], error) {
			return h.newOutgoingRequest(hdrs)
		},
		"[method]outgoing-request.body": func(_ context.Context, h *Host, self reqHandle) (bodyResult, error) {
			r, err := req(h, self)
			if err != nil {
				return bodyResult{}, err
			}
			if r.body != nil {
				return abi.Err[abi.Own[*outgoingBody]](struct{}{}), nil
			}
			declared := int64(-1)
			if vs := fieldValues(r.headers, "content-length"); len(vs) == 1 {
				if n, err := strconv.ParseInt(string(vs[0]), 10, 64); err == nil && n >= 0 {
					declared = n
				}
			}
			b := &outgoingBody{pipe: newBodyPipe(declared)}
			o, err := push(h, b)
			if err != nil {
				return bodyResult{}, err
			}
			r.body = b
			return abi.Ok[abi.Own[*outgoingBody], struct{}](o), nil
		},
		"[method]outgoing-request.method": func(_ context.Context, h *Host, self reqHandle) (method, error) {
			r, err := req(h, self)
			if err != nil {
				return method{}, err
			}
			return r.method, nil
		},
		"[method]outgoing-request.set-method": func(_ context.Context, h *Host, self reqHandle, m method) (unitRes, error) {
			r, err := req(h, self)
			if err != nil {
				return unitRes{}, err
			}
			if !validMethod(m) {
				return unitErr, nil
			}
			r.method = m
			return unitOk, nil
		},
		"[method]outgoing-request.path-with-query": func(_ context.Context, h *Host, self reqHandle) (*string, error) {
			r, err := req(h, self)
			if err != nil {
				return nil, err
			}
			return r.path, nil
		},
		"[method]outgoing-request.set-path-with-query": func(_ context.Context, h *Host, self reqHandle, p *string) (unitRes, error) {
			r, err := req(h, self)
			if err != nil {
				return unitRes{}, err
			}
			if p != nil && !validPath(*p) {
				return unitErr, nil
			}
			r.path = p
			return unitOk, nil
		},
		"[method]outgoing-request.scheme": func(_ context.Context, h *Host, self reqHandle) (*scheme, error) {
			r, err := req(h, self)
			if err != nil {
				return nil, err
			}
			return r.scheme, nil
		},
		"[method]outgoing-request.set-scheme": func(_ context.Context, h *Host, self reqHandle, s *scheme) (unitRes, error) {
			r, err := req(h, self)
			if err != nil {
				return unitRes{}, err
			}
			if s != nil && !validScheme(*s) {
				return unitErr, nil
			}
			r.scheme = s
			return unitOk, nil
		},
		"[method]outgoing-request.authority": func(_ context.Context, h *Host, self reqHandle) (*string, error) {
			r, err := req(h, self)
			if err != nil {
				return nil, err
			}
			return r.authority, nil
		},
		"[method]outgoing-request.set-authority": func(_ context.Context, h *Host, self reqHandle, a *string) (unitRes, error) {
			r, err := req(h, self)
			if err != nil {
				return unitRes{}, err
			}
			if a != nil {
				if _, _, ok := parseAuthority(*a); !ok {
					return unitErr, nil
				}
			}
			r.authority = a
			return unitOk, nil
		},
		"[method]outgoing-request.headers": func(_ context.Context, h *Host, self reqHandle) (abi.Own[*fields], error) {
			r, err := req(h, self)
			if err != nil {
				return abi.Own[*fields]{}, err
			}
			return push(h, r.headers.clone(true))
		},
		"[constructor]request-options": func(_ context.Context, h *Host) (abi.Own[*requestOptions], error) {
			return push(h, &requestOptions{})
		},
		"[method]request-options.connect-timeout": func(_ context.Context, h *Host, self optsHandle) (*uint64, error) {
			return getDur(h, self, connect)
		},
		"[method]request-options.set-connect-timeout": func(_ context.Context, h *Host, self optsHandle, d *uint64) (unitRes, error) {
			return setDur(h, self, connect, d)
		},
		"[method]request-options.first-byte-timeout": func(_ context.Context, h *Host, self optsHandle) (*uint64, error) {
			return getDur(h, self, firstByte)
		},
		"[method]request-options.set-first-byte-timeout": func(_ context.Context, h *Host, self optsHandle, d *uint64) (unitRes, error) {
			return setDur(h, self, firstByte, d)
		},
		"[method]request-options.between-bytes-timeout": func(_ context.Context, h *Host, self optsHandle) (*uint64, error) {
			return getDur(h, self, between)
		},
		"[method]request-options.set-between-bytes-timeout": func(_ context.Context, h *Host, self optsHandle, d *uint64) (unitRes, error) {
			return setDur(h, self, between, d)
		},
		"[method]outgoing-body.write": func(_ context.Context, h *Host, self abi.Borrow[*outgoingBody]) (abi.Result[abi.Own[*OutputStream], struct{}], error) {
			b, err := borrowed(h, self)
			if err != nil {
				return abi.Result[abi.Own[*OutputStream], struct{}]{}, err
			}
			if b.streamTaken {
				return abi.Err[abi.Own[*OutputStream]](struct{}{}), nil
			}
			o, err := push(h, &OutputStream{body: b})
			if err != nil {
				return abi.Result[abi.Own[*OutputStream], struct{}]{}, err
			}
			b.streamTaken, b.streamAlive = true, true
			return abi.Ok[abi.Own[*OutputStream], struct{}](o), nil
		},
		"[static]outgoing-body.finish": func(_ context.Context, h *Host, self abi.Own[*outgoingBody], trailers *abi.Own[*fields]) (abi.Result[struct{}, httpErrorCode], error) {
			b, err := take(h, self)
			if err != nil {
				return abi.Result[struct{}, httpErrorCode]{}, err
			}
			b.finished = true
			var t http.Header
			if trailers != nil {
				f, err := take(h, *trailers)
				if err != nil {
					b.pipe.abort(errBodyDropped)
					return abi.Result[struct{}, httpErrorCode]{}, err
				}
				t = f.header()
			}
			if b.streamAlive {
				b.pipe.abort(errBodyDropped)
				return abi.Result[struct{}, httpErrorCode]{}, fmt.Errorf("preview2: outgoing-body.finish: its output-stream is still alive")
			}
			if err := b.pipe.finish(t); err != nil {
				return abi.Err[struct{}](ErrorCodeOf(err).toWIT()), nil
			}
			return abi.Ok[struct{}, httpErrorCode](struct{}{}), nil
		},
	}
}

func fieldValues(f *fields, name string) [][]byte {
	var out [][]byte
	for _, e := range f.entries {
		if e.Name == name {
			out = append(out, e.Value)
		}
	}
	return out
}

func reqErr(k ErrorKind, format string, args ...any) *HTTPError {
	return &HTTPError{Code: Code(k), Err: fmt.Errorf(format, args...)}
}

// buildRequest turns r into a net/http request, checking what the setters did not: that the
// combination can be sent.
func (h *Host) buildRequest(r *outgoingRequest) (*http.Request, *HTTPError) {
	m := methodString(r.method)
	if !validMethod(r.method) {
		return nil, reqErr(HTTPRequestMethodInvalid, "method %q is not a token", m)
	}
	sch := "https"
	if r.scheme != nil {
		switch {
		case r.scheme.HTTP:
			sch = "http"
		case r.scheme.HTTPS:
		default:
			return nil, reqErr(HTTPRequestURIInvalid, "scheme %q is not http or https", schemeString(*r.scheme))
		}
	}
	if r.authority == nil {
		return nil, reqErr(HTTPRequestURIInvalid, "the request has no authority")
	}
	if _, _, ok := parseAuthority(*r.authority); !ok {
		return nil, reqErr(HTTPRequestURIInvalid, "authority %q is not host[:port]", *r.authority)
	}
	path := "/"
	if r.path != nil {
		path = *r.path
	}
	if !validPath(path) || path == "*" && m != http.MethodOptions {
		return nil, reqErr(HTTPRequestURIInvalid, "path-with-query %q is not a request target", path)
	}
	u, err := url.Parse(sch + "://" + *r.authority + path)
	if err != nil {
		return nil, reqErr(HTTPRequestURIInvalid, "%v", err)
	}
	hd := r.headers.header()
	for k := range hd {
		if h.http.forbidden(lowerASCII(k)) {
			return nil, reqErr(HTTPRequestDenied, "header %q may not be set", lowerASCII(k))
		}
	}
	req := &http.Request{
		Method: m, URL: u, Header: hd, Host: *r.authority,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Body: http.NoBody,
	}
	if cl := hd.Values("Content-Length"); len(cl) > 0 {
		n, err := strconv.ParseInt(cl[0], 10, 64)
		if len(cl) > 1 || err != nil || n < 0 {
			return nil, reqErr(HTTPProtocolError, "content-length %q is not one non-negative number", strings.Join(cl, ", "))
		}
		req.ContentLength = n
		hd.Del("Content-Length")
	}
	if r.body != nil {
		switch req.Body = r.body.pipe; {
		case r.body.pipe.declared < 0:
			req.ContentLength = -1
			req.Trailer = http.Header{}
			r.body.pipe.target = req.Trailer
		case r.body.pipe.declared == 0:
			// net/http reads a zero length with a body as "unknown"; the pipe refuses any
			// byte written to a body declared empty.
			req.Body = http.NoBody
		}
	} else if req.ContentLength > 0 {
		n := uint64(0)
		return nil, &HTTPError{Code: ErrorCode{Kind: HTTPRequestBodySize, BodySize: &n},
			Err: errors.New("content-length is set but the request has no body")}
	}
	return req, nil
}

func optDuration(d *uint64) time.Duration {
	if d == nil {
		return 0
	}
	return time.Duration(min(*d, uint64(1<<63-1)))
}
