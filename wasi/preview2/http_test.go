package preview2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/egress"
)

// newHTTPTestHost returns a Host whose wasi:http sends through send.
func newHTTPTestHost(t *testing.T, send egress.Sender) *Host {
	t.Helper()
	h, err := NewHost(Config{}, WithHTTP(HTTPConfig{Send: send}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// The types of the host functions the tests take from httpRequestFuncs and httpResponseFuncs.
type (
	reqBodyFn    = func(context.Context, *Host, abi.Borrow[*outgoingRequest]) (abi.Result[abi.Own[*outgoingBody], struct{}], error)
	bodyWriteFn  = func(context.Context, *Host, abi.Borrow[*outgoingBody]) (abi.Result[abi.Own[*OutputStream], struct{}], error)
	bodyFinishFn = func(context.Context, *Host, abi.Own[*outgoingBody], *abi.Own[*fields]) (abi.Result[struct{}, httpErrorCode], error)
	consumeFn    = func(context.Context, *Host, abi.Borrow[*incomingResponse]) (abi.Result[abi.Own[*incomingBody], struct{}], error)
	bodyStreamFn = func(context.Context, *Host, abi.Borrow[*incomingBody]) (abi.Result[abi.Own[*InputStream], struct{}], error)
)

func fn[F any](t *testing.T, fns map[string]any, name string) F {
	t.Helper()
	f, ok := fns[name].(F)
	if !ok {
		t.Fatalf("%s has type %T", name, fns[name])
	}
	return f
}

func TestFieldsRules(t *testing.T) {
	h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
		return nil, errors.New("unused")
	})
	tests := []struct {
		name string
		list []fieldEntry
		want string // "" for ok, else the header-error case
	}{
		{"ok", []fieldEntry{{"Content-Type", []byte("text/plain")}, {"x-a", []byte("1")}, {"X-A", []byte("2")}}, ""},
		{"empty value", []fieldEntry{{"x-empty", nil}}, ""},
		{"name with space", []fieldEntry{{"bad name", []byte("v")}}, "invalid-syntax"},
		{"empty name", []fieldEntry{{"", []byte("v")}}, "invalid-syntax"},
		{"name with colon", []fieldEntry{{"a:b", []byte("v")}}, "invalid-syntax"},
		{"value with CRLF", []fieldEntry{{"x", []byte("a\r\nInjected: 1")}}, "invalid-syntax"},
		{"value with NUL", []fieldEntry{{"x", []byte("a\x00b")}}, "invalid-syntax"},
		{"value with leading space", []fieldEntry{{"x", []byte(" a")}}, "invalid-syntax"},
		{"too large", []fieldEntry{{"x", bytes.Repeat([]byte("a"), DefaultMaxFieldsBytes)}}, "invalid-syntax"},
	}
	for _, name := range []string{"connection", "Keep-Alive", "proxy-authorization", "Proxy-Connection",
		"transfer-encoding", "upgrade", "host", "HTTP2-Settings", "te", "trailer"} {
		tests = append(tests, struct {
			name string
			list []fieldEntry
			want string
		}{"forbidden " + name, []fieldEntry{{name, []byte("x")}}, "forbidden"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := h.fieldsFromList(tt.list)
			if err != nil {
				t.Fatal(err)
			}
			if got := headerErrName(r.Err); r.IsErr && got != tt.want || !r.IsErr && tt.want != "" {
				t.Fatalf("got %+v, want %q", r, tt.want)
			}
		})
	}

	r, _ := h.fieldsFromList([]fieldEntry{{"X-A", []byte("1")}, {"b", []byte("2")}, {"x-a", []byte("3")}})
	rep := lend(r.Ok)
	if vs, _ := h.fieldsGet(rep, "x-A"); len(vs) != 2 || string(vs[0]) != "1" || string(vs[1]) != "3" {
		t.Fatalf("get x-A = %q", vs)
	}
	if vs, _ := h.fieldsGet(rep, "bad name"); vs == nil || len(vs) != 0 {
		t.Fatalf("get of an invalid name = %q, want an empty list", vs)
	}
	if got := mustHeader(t)(h.fieldsSet(rep, "connection", [][]byte{[]byte("x")})); got != "forbidden" {
		t.Fatalf("set connection: %q", got)
	}
	if got := mustHeader(t)(h.fieldsDelete(rep, "host")); got != "forbidden" {
		t.Fatalf("delete host: %q", got)
	}
	if got := mustHeader(t)(h.fieldsSet(rep, "x-a", [][]byte{[]byte("ok"), []byte("bad\n")})); got != "invalid-syntax" {
		t.Fatalf("set with a bad value: %q", got)
	}
	if vs, _ := h.fieldsGet(rep, "x-a"); len(vs) != 2 {
		t.Fatalf("a failed set changed the fields: %q", vs)
	}
	if got := mustHeader(t)(h.fieldsSet(rep, "x-a", [][]byte{[]byte("9")})); got != "" {
		t.Fatalf("set: %q", got)
	}
	if got := mustHeader(t)(h.fieldsAppend(rep, "c", []byte("4"))); got != "" {
		t.Fatalf("append: %q", got)
	}
	es, _ := h.fieldsEntries(rep)
	var names []string
	for _, e := range es {
		names = append(names, e.Name+"="+string(e.Value))
	}
	if got := strings.Join(names, ","); got != "b=2,x-a=9,c=4" {
		t.Fatalf("entries %s", got)
	}

	// Headers a request owns are immutable; its headers() hands out immutable copies, and
	// clone makes a mutable one.
	req, err := h.newOutgoingRequest(r.Ok)
	if err != nil {
		t.Fatal(err)
	}
	fns := httpRequestFuncs()
	hdrsOwn, _ := fn[func(context.Context, *Host, abi.Borrow[*outgoingRequest]) (abi.Own[*fields], error)](t, fns, "[method]outgoing-request.headers")(context.Background(), h, lend(req))
	hdrs := lend(hdrsOwn)
	for name, res := range map[string]func() (headerResult, error){
		"set":    func() (headerResult, error) { return h.fieldsSet(hdrs, "x-a", nil) },
		"append": func() (headerResult, error) { return h.fieldsAppend(hdrs, "x-b", nil) },
		"delete": func() (headerResult, error) { return h.fieldsDelete(hdrs, "x-a") },
	} {
		if got := mustHeader(t)(res()); got != "immutable" {
			t.Errorf("%s on request headers: %q", name, got)
		}
	}
	c, _ := h.fieldsClone(hdrs)
	if got := mustHeader(t)(h.fieldsAppend(lend(c), "x-b", []byte("1"))); got != "" {
		t.Fatalf("append on a clone: %q", got)
	}
	if _, err := h.fieldsGet(rep, "x"); !errors.Is(err, ErrHandle) {
		t.Fatalf("fields given to a request are still usable: %v", err)
	}
}

func headerErrName(e headerError) string {
	switch {
	case e.InvalidSyntax:
		return "invalid-syntax"
	case e.Forbidden:
		return "forbidden"
	case e.Immutable:
		return "immutable"
	}
	return "?"
}

func mustHeader(t *testing.T) func(headerResult, error) string {
	return func(r headerResult, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsErr {
			return ""
		}
		return headerErrName(r.Err)
	}
}

func strp(s string) *string { return &s }

func TestOutgoingRequestSetters(t *testing.T) {
	h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
		return nil, errors.New("unused")
	})
	fr, _ := h.fieldsFromList(nil)
	req, _ := h.newOutgoingRequest(fr.Ok)
	rep := lend(req)
	fns := httpRequestFuncs()
	ctx := context.Background()
	setMethod := fn[func(context.Context, *Host, abi.Borrow[*outgoingRequest], method) (unitRes, error)](t, fns, "[method]outgoing-request.set-method")
	setScheme := fn[func(context.Context, *Host, abi.Borrow[*outgoingRequest], *scheme) (unitRes, error)](t, fns, "[method]outgoing-request.set-scheme")
	setAuth := fn[func(context.Context, *Host, abi.Borrow[*outgoingRequest], *string) (unitRes, error)](t, fns, "[method]outgoing-request.set-authority")
	setPath := fn[func(context.Context, *Host, abi.Borrow[*outgoingRequest], *string) (unitRes, error)](t, fns, "[method]outgoing-request.set-path-with-query")
	tests := []struct {
		name string
		set  func() (unitRes, error)
		ok   bool
	}{
		{"method get", func() (unitRes, error) { return setMethod(ctx, h, rep, method{Get: true}) }, true},
		{"method other token", func() (unitRes, error) { return setMethod(ctx, h, rep, method{Other: strp("PROPFIND")}) }, true},
		{"method other with space", func() (unitRes, error) { return setMethod(ctx, h, rep, method{Other: strp("GET X")}) }, false},
		{"method other empty", func() (unitRes, error) { return setMethod(ctx, h, rep, method{Other: strp("")}) }, false},
		{"scheme https", func() (unitRes, error) { return setScheme(ctx, h, rep, &scheme{HTTPS: true}) }, true},
		{"scheme other", func() (unitRes, error) { return setScheme(ctx, h, rep, &scheme{Other: strp("ftp")}) }, true},
		{"scheme other invalid", func() (unitRes, error) { return setScheme(ctx, h, rep, &scheme{Other: strp("1tp")}) }, false},
		{"authority", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("api.example.com:8443")) }, true},
		{"authority ipv6", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("[2001:db8::1]:443")) }, true},
		{"authority userinfo", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("user@api.example.com")) }, false},
		{"authority port too big", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("api.example.com:70000")) }, false},
		{"authority port zero", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("api.example.com:0")) }, false},
		{"authority empty port", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("api.example.com:")) }, false},
		{"authority with path", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("a.com/x")) }, false},
		{"authority empty", func() (unitRes, error) { return setAuth(ctx, h, rep, strp("")) }, false},
		{"path", func() (unitRes, error) { return setPath(ctx, h, rep, strp("/a/b?c=d&e")) }, true},
		{"path star", func() (unitRes, error) { return setPath(ctx, h, rep, strp("*")) }, true},
		{"path relative", func() (unitRes, error) { return setPath(ctx, h, rep, strp("a/b")) }, false},
		{"path with space", func() (unitRes, error) { return setPath(ctx, h, rep, strp("/a b")) }, false},
		{"path with fragment", func() (unitRes, error) { return setPath(ctx, h, rep, strp("/a#b")) }, false},
		{"path with CRLF", func() (unitRes, error) { return setPath(ctx, h, rep, strp("/a\r\nHost: x")) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.set()
			if err != nil {
				t.Fatal(err)
			}
			if r.IsErr == tt.ok {
				t.Fatalf("ok = %v, want %v", !r.IsErr, tt.ok)
			}
		})
	}
}

// sendRecorder is a sender that records the request and answers with resp.
type sendRecorder struct {
	mu    sync.Mutex
	req   *http.Request
	body  []byte
	trail http.Header
	opts  egress.SendOptions
	resp  func(*http.Request) (*http.Response, error)
}

func (s *sendRecorder) send(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	s.mu.Lock()
	s.req, s.body, s.opts, s.trail = req, b, opts, req.Trailer
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return s.resp(req)
}

// newRequest makes an outgoing-request for https://api.example.com/p with the given headers.
func newRequest(t *testing.T, h *Host, hdrs []fieldEntry) abi.Own[*outgoingRequest] {
	t.Helper()
	fr, err := h.fieldsFromList(hdrs)
	if err != nil || fr.IsErr {
		t.Fatalf("fields: %v %+v", err, fr)
	}
	req, err := h.newOutgoingRequest(fr.Ok)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := borrowed(h, lend(req))
	r.authority, r.path = strp("api.example.com"), strp("/p")
	return req
}

// await blocks on a future and returns the incoming-response or the error-code.
func await(t *testing.T, h *Host, fut abi.Own[*futureResponse]) (abi.Own[*incomingResponse], *httpErrorCode) {
	t.Helper()
	f, _ := borrowed(h, lend(fut))
	if _, err := h.wait(context.Background(), []*Pollable{{src: f}}); err != nil {
		t.Fatal(err)
	}
	r, err := h.futureGet(lend(fut))
	if err != nil || r == nil || r.IsErr {
		t.Fatalf("future get: %v %+v", err, r)
	}
	if r.Ok.IsErr {
		return abi.Own[*incomingResponse]{}, &r.Ok.Err
	}
	return r.Ok.Ok, nil
}

func TestHandleValidation(t *testing.T) {
	called := false
	h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
		called = true
		return nil, errors.New("unused")
	})
	tests := []struct {
		name  string
		setup func(r *outgoingRequest)
		check func(c httpErrorCode) bool
	}{
		{"no authority", func(r *outgoingRequest) { r.authority = nil }, func(c httpErrorCode) bool { return c.HTTPRequestURIInvalid }},
		{"other scheme", func(r *outgoingRequest) { r.scheme = &scheme{Other: strp("ftp")} }, func(c httpErrorCode) bool { return c.HTTPRequestURIInvalid }},
		{"bad authority", func(r *outgoingRequest) { r.authority = strp("a@b") }, func(c httpErrorCode) bool { return c.HTTPRequestURIInvalid }},
		{"bad method", func(r *outgoingRequest) { r.method = method{Other: strp("A B")} }, func(c httpErrorCode) bool { return c.HTTPRequestMethodInvalid }},
		{"star path with GET", func(r *outgoingRequest) { r.path = strp("*") }, func(c httpErrorCode) bool { return c.HTTPRequestURIInvalid }},
		{"bad content-length", func(r *outgoingRequest) {
			r.headers.entries = append(r.headers.entries, fieldEntry{"content-length", []byte("x")})
		}, func(c httpErrorCode) bool { return c.HTTPProtocolError }},
		{"content-length without body", func(r *outgoingRequest) {
			r.headers.entries = append(r.headers.entries, fieldEntry{"content-length", []byte("3")})
		}, func(c httpErrorCode) bool {
			return c.HTTPRequestBodySize != nil && *c.HTTPRequestBodySize != nil && **c.HTTPRequestBodySize == 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := newRequest(t, h, nil)
			r, _ := borrowed(h, lend(rep))
			tt.setup(r)
			res, err := h.handle(context.Background(), rep, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsErr || !tt.check(res.Err) {
				t.Fatalf("got %+v", res)
			}
		})
	}
	if called {
		t.Fatal("an invalid request reached the sender")
	}
}

func TestHandleBodyTrailersOptions(t *testing.T) {
	rec := &sendRecorder{resp: func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 201, Header: http.Header{"X-Out": {"1"}},
			Body: io.NopCloser(strings.NewReader("answer")), Trailer: http.Header{"X-Sum": {"42"}}}, nil
	}}
	h := newHTTPTestHost(t, rec.send)
	ctx := context.Background()
	fns := httpRequestFuncs()
	rep := newRequest(t, h, []fieldEntry{{"x-in", []byte("v")}})
	r, _ := borrowed(h, lend(rep))
	r.method = method{Post: true}
	bodyRes, _ := fn[reqBodyFn](t, fns, "[method]outgoing-request.body")(ctx, h, lend(rep))
	body := bodyRes.Ok
	sres, _ := fn[bodyWriteFn](t, fns, "[method]outgoing-body.write")(ctx, h, lend(body))
	stream := sres.Ok.Rep
	d := uint64(time.Second)
	opt, _ := push(h, &requestOptions{connect: &d})
	res, err := h.handle(ctx, rep, &opt)
	if err != nil || res.IsErr {
		t.Fatalf("handle: %v %+v", err, res)
	}
	for _, chunk := range []string{"hello ", "world"} {
		cw, _ := h.checkWrite(stream)
		if cw.IsErr || cw.Ok < uint64(len(chunk)) {
			t.Fatalf("check-write %+v", cw)
		}
		if w, err := h.write(ctx, stream, []byte(chunk), false); err != nil || w.IsErr {
			t.Fatalf("write %v %+v", err, w)
		}
	}
	if err := drop[*OutputStream](h, stream); err != nil {
		t.Fatal(err)
	}
	tr, _ := h.fieldsFromList([]fieldEntry{{"x-trailer", []byte("t")}})
	fin, err := fn[bodyFinishFn](t, fns, "[static]outgoing-body.finish")(ctx, h, body, &tr.Ok)
	if err != nil || fin.IsErr {
		t.Fatalf("finish %v %+v", err, fin)
	}
	respRep, code := await(t, h, res.Ok)
	if code != nil {
		t.Fatalf("error-code %+v", code)
	}
	rec.mu.Lock()
	if string(rec.body) != "hello world" || rec.req.Method != "POST" || rec.req.URL.String() != "https://api.example.com/p" ||
		rec.req.Header.Get("X-In") != "v" || rec.trail.Get("X-Trailer") != "t" || rec.opts.ConnectTimeout != time.Second {
		t.Fatalf("sender saw %q %s %s %v trailer %v opts %+v", rec.body, rec.req.Method, rec.req.URL, rec.req.Header, rec.trail, rec.opts)
	}
	rec.mu.Unlock()

	rfns := httpResponseFuncs()
	consume := fn[consumeFn](t, rfns, "[method]incoming-response.consume")
	ib, _ := consume(ctx, h, lend(respRep))
	if again, _ := consume(ctx, h, lend(respRep)); !again.IsErr {
		t.Fatal("consume twice succeeded")
	}
	st, _ := fn[bodyStreamFn](t, rfns, "[method]incoming-body.stream")(ctx, h, lend(ib.Ok))
	var got []byte
	for {
		rr, err := h.read(ctx, st.Ok.Rep, 1024, true)
		if err != nil {
			t.Fatal(err)
		}
		if rr.IsErr {
			if !rr.Err.Closed {
				t.Fatalf("read error %+v", rr.Err)
			}
			break
		}
		got = append(got, rr.Ok...)
	}
	if string(got) != "answer" {
		t.Fatalf("body %q", got)
	}
	finish := fn[func(context.Context, *Host, abi.Own[*incomingBody]) (abi.Own[*futureTrailers], error)](t, rfns, "[static]incoming-body.finish")
	if _, err := finish(ctx, h, ib.Ok); err == nil {
		t.Fatal("finish with the stream alive did not trap")
	}
	ib2, _ := push(h, &incomingBody{body: func() *respBody { ir, _ := borrowed(h, lend(respRep)); return ir.body }()})
	_ = drop[*InputStream](h, st.Ok.Rep)
	ft, err := finish(ctx, h, ib2)
	if err != nil {
		t.Fatal(err)
	}
	tres, err := fn[func(context.Context, *Host, abi.Borrow[*futureTrailers]) (*trailersResult, error)](t, rfns, "[method]future-trailers.get")(ctx, h, lend(ft))
	if err != nil || tres == nil || tres.IsErr || tres.Ok.IsErr || tres.Ok.Ok == nil {
		t.Fatalf("trailers %v %+v", err, tres)
	}
	if vs, _ := h.fieldsGet(lend(*tres.Ok.Ok), "x-sum"); len(vs) != 1 || string(vs[0]) != "42" {
		t.Fatalf("trailer x-sum = %q", vs)
	}
}

func TestOutgoingBodyContentLength(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cl      string
		writes  []string
		wantLen uint64
	}{
		{"short", "5", []string{"abc"}, 3},
		{"long", "2", []string{"abc"}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHTTPTestHost(t, (&sendRecorder{resp: func(*http.Request) (*http.Response, error) {
				return nil, errors.New("unused")
			}}).send)
			ctx := context.Background()
			fns := httpRequestFuncs()
			rep := newRequest(t, h, []fieldEntry{{"content-length", []byte(tt.cl)}})
			b, _ := fn[reqBodyFn](t, fns, "[method]outgoing-request.body")(ctx, h, lend(rep))
			s, _ := fn[bodyWriteFn](t, fns, "[method]outgoing-body.write")(ctx, h, lend(b.Ok))
			var failed bool
			for _, w := range tt.writes {
				h.checkWrite(s.Ok.Rep)
				r, err := h.write(ctx, s.Ok.Rep, []byte(w), false)
				if err != nil {
					t.Fatal(err)
				}
				if r.IsErr {
					failed = true
					e, _ := borrowed(h, lend(*r.Err.LastOperationFailed))
					if c := ErrorCodeOf(e.err); c.Kind != HTTPRequestBodySize || *c.BodySize != tt.wantLen {
						t.Fatalf("write error %v", c)
					}
				}
			}
			_ = drop[*OutputStream](h, s.Ok.Rep)
			fin, _ := fn[bodyFinishFn](t, fns, "[static]outgoing-body.finish")(ctx, h, b.Ok, nil)
			if !fin.IsErr || fin.Err.HTTPRequestBodySize == nil || **fin.Err.HTTPRequestBodySize != tt.wantLen {
				t.Fatalf("finish %+v (write failed %v)", fin, failed)
			}
		})
	}
}

// A guest writing faster than the network reads is held back by check-write: the host never
// buffers more than BodyBuffer of the request body.
func TestOutgoingBodyBackPressure(t *testing.T) {
	release := make(chan struct{})
	h := newHTTPTestHost(t, func(ctx context.Context, req *http.Request, _ egress.SendOptions) (*http.Response, error) {
		<-release
		n, err := io.Copy(io.Discard, req.Body)
		if err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"N": {strings.Repeat("x", int(n%7))}}, Body: http.NoBody}, nil
	})
	ctx := context.Background()
	fns := httpRequestFuncs()
	rep := newRequest(t, h, nil)
	b, _ := fn[reqBodyFn](t, fns, "[method]outgoing-request.body")(ctx, h, lend(rep))
	s, _ := fn[bodyWriteFn](t, fns, "[method]outgoing-body.write")(ctx, h, lend(b.Ok))
	if _, err := h.handle(ctx, rep, nil); err != nil {
		t.Fatal(err)
	}
	total := 0
	for {
		cw, _ := h.checkWrite(s.Ok.Rep)
		if cw.Ok == 0 {
			break
		}
		h.write(ctx, s.Ok.Rep, make([]byte, cw.Ok), false)
		total += int(cw.Ok)
		if total > 2*BodyBuffer {
			t.Fatalf("the host took %d bytes without anyone reading", total)
		}
	}
	if total != BodyBuffer {
		t.Fatalf("buffered %d, want %d", total, BodyBuffer)
	}
	pr, _ := h.subscribeOut(s.Ok.Rep)
	p, _ := get[*Pollable](h, pr)
	if h.ready(p) {
		t.Fatal("pollable ready with a full buffer")
	}
	close(release)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := h.wait(wctx, []*Pollable{p}); err != nil {
		t.Fatal(err)
	}
	if cw, _ := h.checkWrite(s.Ok.Rep); cw.Ok == 0 {
		t.Fatal("no room after the sender read")
	}
}

// A sender that refuses a request closes its body at once (net/http's transport does the same
// when a dial fails), often before the guest has written it. The guest still writes and
// finishes the body normally, its bytes dropped, and learns the refusal from the future:
// a body stream failing first is what made a JavaScript guest abort instead of rejecting
// fetch().
func TestOutgoingBodyAfterRefusal(t *testing.T) {
	for _, tt := range []struct {
		name     string
		size     int // bytes the guest writes, more than BodyBuffer to show nothing waits on a reader
		blocking bool
	}{
		{"small", 4, false},
		{"small blocking", 4, true},
		{"larger than the buffer", 3 * BodyBuffer, false},
		{"larger than the buffer blocking", 3 * BodyBuffer, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHTTPTestHost(t, func(_ context.Context, req *http.Request, _ egress.SendOptions) (*http.Response, error) {
				req.Body.Close()
				return nil, &HTTPError{Code: Code(DestinationIPProhibited)}
			})
			ctx := context.Background()
			fns := httpRequestFuncs()
			rep := newRequest(t, h, nil)
			r, _ := borrowed(h, lend(rep))
			r.method = method{Post: true}
			b, _ := fn[reqBodyFn](t, fns, "[method]outgoing-request.body")(ctx, h, lend(rep))
			s, _ := fn[bodyWriteFn](t, fns, "[method]outgoing-body.write")(ctx, h, lend(b.Ok))
			res, err := h.handle(ctx, rep, nil)
			if err != nil || res.IsErr {
				t.Fatalf("handle: %v %+v", err, res)
			}
			f, _ := borrowed(h, lend(res.Ok))
			<-f.done // the refusal and the body's close happened before the first write
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			for left := tt.size; left > 0; {
				n := min(left, maxBlockingWrite)
				if !tt.blocking {
					cw, _ := h.checkWrite(s.Ok.Rep)
					if cw.IsErr || cw.Ok == 0 {
						t.Fatalf("check-write after the refusal: %+v", cw)
					}
					n = min(left, int(cw.Ok))
				}
				w, err := h.write(wctx, s.Ok.Rep, make([]byte, n), tt.blocking)
				if err != nil || w.IsErr {
					t.Fatalf("write after the refusal: %v %+v", err, w)
				}
				left -= n
			}
			if err := drop[*OutputStream](h, s.Ok.Rep); err != nil {
				t.Fatal(err)
			}
			fin, err := fn[bodyFinishFn](t, fns, "[static]outgoing-body.finish")(ctx, h, b.Ok, nil)
			if err != nil || fin.IsErr {
				t.Fatalf("finish after the refusal: %v %+v", err, fin)
			}
			if _, code := await(t, h, res.Ok); code == nil || !code.DestinationIPProhibited {
				t.Fatalf("future: %+v, want destination-IP-prohibited", code)
			}
		})
	}
}

// countingBody yields n bytes and records the most it was ahead of the reader.
type countingBody struct {
	left     int64
	produced atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), c.left)
	c.left -= n
	c.produced.Add(n)
	return int(n), nil
}

func (c *countingBody) Close() error { return nil }

// A 100 MiB response streams to the guest through a bounded buffer: the host never reads more
// than one chunk ahead of what the guest consumed.
func TestIncomingBodyStreamsBounded(t *testing.T) {
	const size = 100 << 20
	cb := &countingBody{left: size}
	h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: cb}, nil
	})
	ctx := context.Background()
	rep := newRequest(t, h, nil)
	res, _ := h.handle(ctx, rep, nil)
	respRep, code := await(t, h, res.Ok)
	if code != nil {
		t.Fatal(code)
	}
	rfns := httpResponseFuncs()
	ib, _ := fn[consumeFn](t, rfns, "[method]incoming-response.consume")(ctx, h, lend(respRep))
	st, _ := fn[bodyStreamFn](t, rfns, "[method]incoming-body.stream")(ctx, h, lend(ib.Ok))
	var consumed int64
	for {
		r, err := h.read(ctx, st.Ok.Rep, 1<<20, true)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsErr {
			break
		}
		consumed += int64(len(r.Ok))
		if ahead := cb.produced.Load() - consumed; ahead > 2*MaxReadChunk {
			t.Fatalf("the host is %d bytes ahead of the guest", ahead)
		}
	}
	if consumed != size {
		t.Fatalf("read %d bytes, want %d", consumed, size)
	}
}

// A blocking read waits no longer than the call's deadline: the guest traps with it.
func TestIncomingBodyReadHonoursDeadline(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: pr}, nil
	})
	rep := newRequest(t, h, nil)
	res, _ := h.handle(context.Background(), rep, nil)
	respRep, _ := await(t, h, res.Ok)
	rfns := httpResponseFuncs()
	ctx := context.Background()
	ib, _ := fn[consumeFn](t, rfns, "[method]incoming-response.consume")(ctx, h, lend(respRep))
	st, _ := fn[bodyStreamFn](t, rfns, "[method]incoming-body.stream")(ctx, h, lend(ib.Ok))
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := h.read(dctx, st.Ok.Rep, 10, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
}

// A sender's error reaches the guest as its error-code; any other error as internal-error.
func TestHandleErrorCodes(t *testing.T) {
	for _, tt := range []struct {
		err   error
		check func(httpErrorCode) bool
	}{
		{&HTTPError{Code: Code(DestinationIPProhibited)}, func(c httpErrorCode) bool { return c.DestinationIPProhibited }},
		{&HTTPError{Code: ErrorCode{Kind: DNSError, DNSRcode: strp("NXDOMAIN")}}, func(c httpErrorCode) bool {
			return c.DNSError != nil && *c.DNSError.Rcode == "NXDOMAIN"
		}},
		{errors.New("boom"), func(c httpErrorCode) bool { return c.InternalError != nil && **c.InternalError == "boom" }},
	} {
		h := newHTTPTestHost(t, func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) { return nil, tt.err })
		rep := newRequest(t, h, nil)
		res, _ := h.handle(context.Background(), rep, nil)
		_, code := await(t, h, res.Ok)
		if code == nil || !tt.check(*code) {
			t.Fatalf("%v: got %+v", tt.err, code)
		}
		// A second get answers err: the result was taken.
		if r, _ := h.futureGet(lend(res.Ok)); r == nil || !r.IsErr {
			t.Fatalf("second get %+v", r)
		}
	}
}

// Every ErrorKind converts to exactly the variant case of the same name.
func TestErrorCodeToWIT(t *testing.T) {
	for k := ErrorKind(0); k <= numErrorKinds; k++ {
		w := reflect.ValueOf(Code(k).toWIT())
		var set []string
		for i := 0; i < w.NumField(); i++ {
			if !w.Field(i).IsZero() {
				set = append(set, w.Type().Field(i).Tag.Get("wit"))
			}
		}
		want := k.String()
		if k == numErrorKinds {
			want = "internal-error" // an unknown kind
		}
		if len(set) != 1 || set[0] != want {
			t.Errorf("kind %d (%s) sets %v", k, k, set)
		}
	}
}
