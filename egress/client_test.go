package egress

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestClient_DefaultRefusesLoopback(t *testing.T) {
	var h hits
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.add(r.URL.Path) }))
	r := newFakeResolver()
	r.set("example.com", []string{"127.0.0.1"})
	r.set("v6.example.com", []string{"::1"})
	r.set("mapped.example.com", []string{"::ffff:127.0.0.1"})
	// The production configuration apart from the test CA and the fake resolver: no exemption.
	c := NewClient(Options{RootCAs: certPool(srv), Resolver: r})
	defer c.CloseIdleConnections()
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"*"}})
	tests := []struct{ url, msg string }{
		{u("127.0.0.1", port, "/"), "loopback"},
		{u("::1", port, "/"), "loopback"},
		{u("::ffff:127.0.0.1", port, "/"), "IPv4-mapped loopback"},
		{u("example.com", port, "/"), "example.com resolves to 127.0.0.1, an address that is loopback"},
		{u("v6.example.com", port, "/"), "v6.example.com resolves to ::1, an address that is loopback"},
		// Go's resolver gives A records in this form: it is IPv4 to the user (P35).
		{u("mapped.example.com", port, "/"), "mapped.example.com resolves to 127.0.0.1, an address that is loopback ("},
		{u("localhost", port, "/"), "loopback name"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := c.Do(testContext(t), p, &Request{URL: tt.url})
			e := wantKind(t, err, KindForbiddenDestination)
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
		})
	}
	if h.total() != 0 {
		t.Fatalf("server was reached: %v", &h)
	}
}

// The Control hook refuses the connect itself, whatever produced the address.
func TestDialer_ControlHook(t *testing.T) {
	srv, _ := newServer(t, http.NotFoundHandler())
	d := newDialer(Options{})
	nd := &net.Dialer{ControlContext: d.control}
	_, err := nd.DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
	wantKind(t, err, KindForbiddenDestination)

	for _, a := range []string{"127.0.0.1:443", "[::1]:443", "[::ffff:10.0.0.1]:443", "169.254.169.254:80", "[fe80::1%eth0]:443", "not-an-address"} {
		if err := d.control(context.Background(), "tcp", a, nil); !errors.Is(err, ErrForbiddenDestination) {
			t.Errorf("control(%s) = %v", a, err)
		}
	}
	for _, a := range []string{"8.8.8.8:443", "[2606:4700:4700::1111]:443"} {
		if err := d.control(context.Background(), "tcp", a, nil); err != nil {
			t.Errorf("control(%s) = %v", a, err)
		}
	}
	// The exemption is exact: 127.0.0.1/32 does not open ::1 or 127.0.0.2.
	ex := newDialer(Options{UnsafeAllowAddrs: []netip.Prefix{loopback4}})
	if err := ex.control(context.Background(), "tcp", "127.0.0.1:1", nil); err != nil {
		t.Errorf("exempt 127.0.0.1: %v", err)
	}
	for _, a := range []string{"[::1]:1", "127.0.0.2:1", "10.0.0.1:1"} {
		if err := ex.control(context.Background(), "tcp", a, nil); err == nil {
			t.Errorf("exemption of 127.0.0.1/32 admitted %s", a)
		}
	}
	c, err := (&net.Dialer{ControlContext: ex.control}).DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("exempt dial: %v", err)
	}
	c.Close()
}

func TestClient_Get(t *testing.T) {
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "1")
		w.Header().Add("X-Multi", "2")
		io.WriteString(w, `{"status":"shipped"}`)
	}))
	c := loopbackClient(t, srv, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	resp, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/orders?id=1#frag")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.Redirects != 0 || resp.URL != u("127.0.0.1", port, "/orders?id=1") {
		t.Fatalf("resp = %+v", resp)
	}
	m := HeaderMap(resp.Header)
	if m["content-type"] != "application/json" || m["x-multi"] != "1, 2" {
		t.Fatalf("headers = %v", resp.Header)
	}
	for _, f := range resp.Header {
		if f.Name != strings.ToLower(f.Name) {
			t.Fatalf("header %q not lower-case", f.Name)
		}
	}
	text, err := resp.Text()
	if err != nil || text != `{"status":"shipped"}` {
		t.Fatalf("text = %q, %v", text, err)
	}
}

func TestClient_Methods(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method)
		mu.Unlock()
	}))
	c := loopbackClient(t, srv, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	for _, m := range []string{"", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		resp, err := c.Do(testContext(t), p, &Request{Method: m, URL: u("127.0.0.1", port, "/")})
		if err != nil {
			t.Fatalf("%q: %v", m, err)
		}
		resp.Body.Close()
	}
	want := []string{"GET", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Fatalf("server saw %v, want %v", seen, want)
	}
	for _, m := range []string{"get", "TRACE", "CONNECT", "PROPFIND", "GET ", "G\nET", strings.Repeat("X", 1000)} {
		_, err := c.Do(testContext(t), p, &Request{Method: m, URL: u("127.0.0.1", port, "/")})
		e := wantKind(t, err, KindInvalidRequest)
		if len(e.Message) > 200 {
			t.Errorf("message for a long method is %d bytes", len(e.Message))
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("refused methods reached the server: %v", seen)
	}
	if _, err := c.Do(testContext(t), p, nil); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("nil request: %v", err)
	}
}

func TestClient_RequestHeaders(t *testing.T) {
	type seen struct {
		host   string
		header http.Header
		length int64
		te     []string
		body   string
	}
	got := make(chan seen, 1)
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Host, r.Header.Clone(), r.ContentLength, r.TransferEncoding, string(b)}
	}))
	c := loopbackClient(t, srv, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	body := "hello"
	resp, err := c.Do(testContext(t), p, &Request{
		Method: "POST",
		URL:    u("127.0.0.1", port, "/"),
		Header: []Field{
			{"accept", "application/json"},
			{"user-agent", "plugin/1"},
			{"x-a", "1"}, {"x-a", "2"},
			{"host", "evil.example"},
			{"content-length", "999"},
			{"connection", "x-a"},
			{"transfer-encoding", "chunked"},
			{"upgrade", "h2c"},
			{"keep-alive", "timeout=1"},
			{"te", "trailers"},
			{"trailer", "x-t"},
			{"proxy-authorization", "Basic eA=="},
			{"proxy-x", "1"},
		},
		Body:          strings.NewReader(body),
		ContentLength: int64(len(body)),
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := <-got
	if s.host != net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) {
		t.Errorf("host = %q", s.host)
	}
	if s.length != 5 || len(s.te) != 0 || s.body != body {
		t.Errorf("length %d, transfer-encoding %v, body %q", s.length, s.te, s.body)
	}
	if got := s.header["User-Agent"]; len(got) != 1 || got[0] != "plugin/1" {
		t.Errorf("user-agent = %v", got)
	}
	if got := s.header["X-A"]; strings.Join(got, ",") != "1,2" {
		t.Errorf("x-a = %v", got)
	}
	if s.header.Get("Accept") != "application/json" {
		t.Errorf("accept = %q", s.header.Get("Accept"))
	}
	for _, n := range []string{"Connection", "Upgrade", "Keep-Alive", "Te", "Trailer", "Proxy-Authorization", "Proxy-X", "Transfer-Encoding"} {
		if v, ok := s.header[n]; ok {
			t.Errorf("connection header %s reached the server: %v", n, v)
		}
	}
}

func TestClient_Allowlist(t *testing.T) {
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := newFakeResolver()
	for _, h := range []string{"example.com", "api.example.com", "a.b.example.com", "example.org", "badexample.com"} {
		r.set(h, []string{"127.0.0.1"})
	}
	c := loopbackClient(t, srv, r)
	ps := strconv.Itoa(port)
	tests := []struct {
		allow []string
		host  string
		kind  Kind // 0: allowed
	}{
		{[]string{"api.example.com"}, "api.example.com", 0},
		{[]string{"API.EXAMPLE.COM"}, "api.example.com", 0},
		{[]string{"api.example.com"}, "API.Example.Com.", 0},
		{[]string{"api.example.com"}, "example.com", KindHostNotAllowed},
		{[]string{"api.example.com"}, "a.b.example.com", KindHostNotAllowed},
		{[]string{"*.example.com"}, "api.example.com", 0},
		{[]string{"*.example.com"}, "a.b.example.com", 0},
		{[]string{"*.example.com"}, "example.com", KindHostNotAllowed},
		{[]string{"*.example.com"}, "badexample.com", KindHostNotAllowed},
		{[]string{"*.example.com:" + ps}, "api.example.com", 0},
		{[]string{"*.example.com:1"}, "api.example.com", KindHostNotAllowed},
		{[]string{"example.com"}, "example.org", KindHostNotAllowed},
		{[]string{"127.0.0.1"}, "example.com", KindHostNotAllowed}, // an IP entry never admits a name
		{[]string{"*"}, "example.org", 0},
		{nil, "example.com", KindHostNotAllowed},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.allow, ",")+"→"+tt.host, func(t *testing.T) {
			p := mustPolicy(t, PolicyConfig{AllowHosts: tt.allow})
			resp, err := c.Do(testContext(t), p, &Request{URL: u(tt.host, port, "/")})
			if tt.kind == 0 {
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return
			}
			wantKind(t, err, tt.kind)
		})
	}
	// A nil policy admits nothing.
	_, err := c.Do(testContext(t), nil, &Request{URL: u("example.com", port, "/")})
	wantKind(t, err, KindHostNotAllowed)
}

func TestClient_Scheme(t *testing.T) {
	var h hits
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.add(r.URL.Path) }))
	c := loopbackClient(t, srv, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"*"}})
	hp := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for _, tt := range []struct {
		url  string
		kind Kind
	}{
		{"http://" + hp + "/", KindForbiddenDestination},
		{"ftp://" + hp + "/", KindInvalidRequest},
		{"//" + hp + "/", KindInvalidRequest},
		{"https://user:pw@" + hp + "/", KindInvalidRequest},
	} {
		_, err := c.Do(testContext(t), p, &Request{URL: tt.url})
		wantKind(t, err, tt.kind)
	}
	if h.total() != 0 {
		t.Fatalf("server reached: %v", &h)
	}
}

// A resolver that answers a public address first and loopback second must not get a
// connection to loopback: the address is checked on every dial.
func TestClient_DNSRebinding(t *testing.T) {
	const public = "93.184.215.14"
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		// Connection: close makes the next hop dial again, so it resolves again.
		w.Header().Set("Connection", "close")
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	srv, port := newServer(t, mux)
	setup := func(t *testing.T, answers ...[]string) (*Client, *[]string, *fakeResolver) {
		r := newFakeResolver()
		r.set("rebind.example.com", answers...)
		var mu sync.Mutex
		dialled := &[]string{}
		c := NewClient(Options{
			RootCAs:  certPool(srv),
			Resolver: r,
			// No exemption: the public address is routed to the test server by the dial hook,
			// after the rules have passed it.
			UnsafeDialIP: func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				*dialled = append(*dialled, addr)
				mu.Unlock()
				if addr != net.JoinHostPort(public, strconv.Itoa(port)) {
					t.Errorf("dialled %s", addr)
					return nil, errors.New("unexpected address")
				}
				var d net.Dialer
				return d.DialContext(ctx, network, srv.Listener.Addr().String())
			},
		})
		t.Cleanup(c.CloseIdleConnections)
		return c, dialled, r
	}
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"rebind.example.com"}})

	t.Run("second request", func(t *testing.T) {
		c, dialled, _ := setup(t, []string{public}, []string{"127.0.0.1"})
		resp, err := c.Do(testContext(t), p, &Request{URL: u("rebind.example.com", port, "/ok")})
		if err != nil {
			t.Fatal(err)
		}
		if readBody(t, resp) != "ok" {
			t.Fatal("first request did not reach the server")
		}
		c.CloseIdleConnections()
		_, err = c.Do(testContext(t), p, &Request{URL: u("rebind.example.com", port, "/ok")})
		e := wantKind(t, err, KindForbiddenDestination)
		if !strings.Contains(e.Message, "rebind.example.com resolves to 127.0.0.1, an address that is loopback") || e.Addr != netip.MustParseAddr("127.0.0.1") {
			t.Fatalf("error = %v (addr %v)", e, e.Addr)
		}
		if len(*dialled) != 1 {
			t.Fatalf("dialled %v", *dialled)
		}
	})
	t.Run("redirect hop", func(t *testing.T) {
		c, dialled, r := setup(t, []string{public}, []string{"127.0.0.1"})
		_, err := c.Do(testContext(t), p, &Request{URL: u("rebind.example.com", port, "/start")})
		wantKind(t, err, KindForbiddenDestination)
		if len(*dialled) != 1 || r.calls["rebind.example.com"] != 2 {
			t.Fatalf("dialled %v after %d lookups", *dialled, r.calls["rebind.example.com"])
		}
	})
	t.Run("mixed answer", func(t *testing.T) {
		c, dialled, _ := setup(t, []string{public, "127.0.0.1"})
		_, err := c.Do(testContext(t), p, &Request{URL: u("rebind.example.com", port, "/ok")})
		wantKind(t, err, KindForbiddenDestination)
		if len(*dialled) != 0 {
			t.Fatalf("dialled %v", *dialled)
		}
	})
	t.Run("private IPv6 and metadata", func(t *testing.T) {
		for _, a := range []string{"fd00::1", "169.254.169.254", "::ffff:192.168.0.1", "64:ff9b::10.0.0.1", "100.64.0.1", "0.0.0.0"} {
			c, dialled, _ := setup(t, []string{a})
			_, err := c.Do(testContext(t), p, &Request{URL: u("rebind.example.com", port, "/ok")})
			wantKind(t, err, KindForbiddenDestination)
			if len(*dialled) != 0 {
				t.Fatalf("%s: dialled %v", a, *dialled)
			}
		}
	})
}

func TestClient_ConnectionErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, "only ten b")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err == nil {
			buf.WriteString("this is not HTTP\r\n\r\n")
			buf.Flush()
			conn.Close()
		}
	})
	srv, port := newServer(t, mux)
	r := newFakeResolver()
	r.set("empty.example.com")
	r.set("ok.example.com", []string{"127.0.0.1"})
	r.errs["broken.example.com"] = &net.DNSError{Err: "server misbehaving", Name: "broken.example.com"}
	c := loopbackClient(t, srv, r)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"*"}})

	t.Run("cut body", func(t *testing.T) {
		resp, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/cut")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = resp.ReadAll()
		wantKind(t, err, KindConnection)
	})
	t.Run("not HTTP", func(t *testing.T) {
		_, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/garbage")})
		wantKind(t, err, KindConnection)
	})
	t.Run("unknown name", func(t *testing.T) {
		_, err := c.Do(testContext(t), p, &Request{URL: u("missing.example.com", port, "/")})
		e := wantKind(t, err, KindConnection)
		if !strings.Contains(e.Message, "cannot resolve missing.example.com") {
			t.Fatalf("message %q", e.Message)
		}
	})
	t.Run("resolver failure", func(t *testing.T) {
		_, err := c.Do(testContext(t), p, &Request{URL: u("broken.example.com", port, "/")})
		wantKind(t, err, KindConnection)
	})
	t.Run("no addresses", func(t *testing.T) {
		_, err := c.Do(testContext(t), p, &Request{URL: u("empty.example.com", port, "/")})
		wantKind(t, err, KindConnection)
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		c := NewClient(Options{Resolver: r, UnsafeAllowAddrs: []netip.Prefix{loopback4}})
		_, err := c.Do(testContext(t), p, &Request{URL: u("ok.example.com", port, "/")})
		e := wantKind(t, err, KindConnection)
		if !strings.Contains(e.Message, "certificate") {
			t.Fatalf("message %q", e.Message)
		}
	})
	t.Run("certificate for another name", func(t *testing.T) {
		r.set("other.test", []string{"127.0.0.1"})
		_, err := c.Do(testContext(t), p, &Request{URL: u("other.test", port, "/")})
		wantKind(t, err, KindConnection)
	})
	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closedPort := l.Addr().(*net.TCPAddr).Port
		l.Close()
		_, err = c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", closedPort, "/")})
		wantKind(t, err, KindConnection)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Do(ctx, p, &Request{URL: u("127.0.0.1", port, "/")})
		wantKind(t, err, KindConnection)
	})
}

func TestClient_RequestBody(t *testing.T) {
	type seen struct {
		body string
		te   []string
		n    int64
	}
	got := make(chan seen, 1)
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		select {
		case got <- seen{string(b), r.TransferEncoding, r.ContentLength}:
		default:
		}
	}))
	c := loopbackClient(t, srv, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	url := u("127.0.0.1", port, "/")

	resp, err := c.Do(testContext(t), p, &Request{Method: "PUT", URL: url, Body: strings.NewReader("exact"), ContentLength: 5})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := <-got; s.body != "exact" || s.n != 5 {
		t.Fatalf("exact: %+v", s)
	}
	resp, err = c.Do(testContext(t), p, &Request{Method: "POST", URL: url, Body: io.MultiReader(strings.NewReader("chun"), strings.NewReader("ked")), ContentLength: -1})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Unknown length: chunked on HTTP/1.1, plain DATA frames without content-length on HTTP/2.
	if s := <-got; s.body != "chunked" || s.n != -1 {
		t.Fatalf("chunked: %+v", s)
	}
	resp, err = c.Do(testContext(t), p, &Request{Method: "POST", URL: url, Body: strings.NewReader(""), ContentLength: 0})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s := <-got; s.body != "" || s.n != 0 {
		t.Fatalf("declared empty: %+v", s)
	}

	for _, tt := range []struct {
		name string
		req  Request
		kind Kind
	}{
		{"short", Request{Method: "POST", URL: url, Body: strings.NewReader("12345"), ContentLength: 10}, KindInvalidRequest},
		{"long", Request{Method: "POST", URL: url, Body: strings.NewReader("1234567890"), ContentLength: 5}, KindInvalidRequest},
		{"declared empty, not empty", Request{Method: "POST", URL: url, Body: strings.NewReader("1"), ContentLength: 0}, KindInvalidRequest},
		{"negative length", Request{Method: "POST", URL: url, Body: strings.NewReader("x"), ContentLength: -2}, KindInvalidRequest},
		{"caller's reader fails with its own kind", Request{Method: "POST", URL: url, Body: errReader{NewError(KindBadPath, "/volume/tmp/in is gone")}, ContentLength: 4}, KindBadPath},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Do(testContext(t), p, &tt.req)
			wantKind(t, err, tt.kind)
		})
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// After Do's exchange ends, the caller's body is never read again.
func TestBodySource_Detach(t *testing.T) {
	r := &countingReader{r: strings.NewReader("abcdef")}
	src := newBodySource(r, 6)
	a, err := src.next()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if n, err := a.Read(buf); n != 3 || err != nil {
		t.Fatalf("read %d %v", n, err)
	}
	// Replay rewinds the seeker and cuts off the previous attempt.
	b, err := src.next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(buf); !errors.Is(err, errBodyDetached) {
		t.Fatalf("old attempt read: %v", err)
	}
	all, err := io.ReadAll(b)
	if err != nil || string(all) != "abcdef" {
		t.Fatalf("replay = %q %v", all, err)
	}
	src.detach()
	before := r.reads
	if _, err := b.Read(buf); !errors.Is(err, errBodyDetached) {
		t.Fatalf("after detach: %v", err)
	}
	if r.reads != before {
		t.Fatal("detached body read the caller's reader")
	}
	// A body that cannot seek cannot be replayed.
	ns := newBodySource(io.MultiReader(strings.NewReader("x")), 1)
	if ns.canReplay() {
		t.Fatal("non-seeker reported replayable")
	}
	if _, err := ns.next(); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.next(); err == nil {
		t.Fatal("second next on a non-seeker succeeded")
	}
}

type countingReader struct {
	r     *strings.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }
func (c *countingReader) Seek(off int64, whence int) (int64, error) {
	return c.r.Seek(off, whence)
}

// Many concurrent requests under different policies each get exactly their own credential.
func TestClient_Concurrent(t *testing.T) {
	srv, port := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	r := newFakeResolver()
	r.set("a.example.com", []string{"127.0.0.1"})
	c := loopbackClient(t, srv, r)
	origin := u("a.example.com", port, "")
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			tok := "Bearer t" + strconv.Itoa(i)
			p, err := NewPolicy(PolicyConfig{AllowHosts: []string{"a.example.com"}, Grants: []Grant{{Origin: origin, Candidates: []Credential{{Label: "l", Header: []Field{{"authorization", tok}}}}}}})
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := c.Do(context.Background(), p, &Request{URL: origin + "/", Body: bytes.NewReader([]byte("x")), ContentLength: 1, Method: "POST"})
			if err != nil {
				t.Error(err)
				return
			}
			b, err := resp.ReadAll()
			if err != nil || string(b) != tok {
				t.Errorf("request %d got %q %v", i, b, err)
			}
		})
	}
	wg.Wait()
}
