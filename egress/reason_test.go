package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestReason produces every reason the package itself produces with a real request through
// NewSender (or Client.Do where the Sender has no say), and reads it back through ReasonOf, the
// Error's fields and the sentinel of its Kind.
func TestReason(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("a", 100)) })
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte{0xff, 0xfe}) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/longloc", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/"+strings.Repeat("x", MaxURLBytes), http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a")
		w.(http.Flusher).Flush()
		// Not cut short by the client's going away: the end of the body must come from the
		// client's own timer.
		time.Sleep(time.Second)
	})
	mux.HandleFunc("/bighead", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", strings.Repeat("h", 8<<10))
	})
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, "short")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	mux.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	srv, port := newServerProto(t, mux, false)

	res := newFakeResolver()
	for _, h := range []string{"api.example.com", "other.example.com"} {
		res.set(h, []string{"127.0.0.1"})
	}
	res.set("private.example.com", []string{"10.0.0.1"})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()

	client := loopbackClient(t, srv, res)
	pol := mustPolicy(t, PolicyConfig{AllowHosts: []string{"api.example.com", "private.example.com", "missing.example.com", "localhost"}})
	granted := func(n int) *Policy {
		var cands []Credential
		for i := range n {
			cands = append(cands, Credential{Label: fmt.Sprint(i), Header: []Field{{Name: "authorization", Value: "Bearer s3cret"}}})
		}
		return mustPolicy(t, PolicyConfig{AllowHosts: []string{"api.example.com"},
			Grants: []Grant{{Origin: u("api.example.com", port, ""), Headers: []string{"authorization"}, Candidates: cands}}})
	}
	api := func(path string) string { return u("api.example.com", port, path) }

	manyHeaders := http.Header{}
	for i := range MaxHeaderFields + 1 {
		manyHeaders.Set(fmt.Sprintf("X-H%d", i), "v")
	}
	tests := []struct {
		name   string
		cfg    SenderConfig
		method string
		url    string
		header http.Header
		body   io.Reader
		length int64
		opts   SendOptions
		read   bool // the failure comes from reading the body
		want   Reason
		limit  int64
	}{
		{name: "method", method: "TRACE", url: api("/ok"), want: ReasonMethod},
		{name: "url scheme", url: "ftp://api.example.com/", want: ReasonURL},
		{name: "url too long", url: api("/" + strings.Repeat("a", MaxURLBytes)), want: ReasonURLTooLong},
		{name: "header", url: api("/ok"), header: http.Header{"X Bad": {"v"}}, want: ReasonHeader},
		{name: "header too large", url: api("/ok"), header: manyHeaders, want: ReasonHeaderTooLarge},
		{name: "body shorter than declared", method: "POST", url: api("/ok"), body: strings.NewReader("abc"), length: 10, want: ReasonBody},
		{name: "host not allowed", url: u("other.example.com", port, "/ok"), want: ReasonHostNotAllowed},
		{name: "plain http", url: "http://api.example.com/ok", want: ReasonPlainHTTP},
		{name: "localhost", url: "https://localhost/ok", want: ReasonLocalhost},
		{name: "private address", url: u("private.example.com", port, "/ok"), want: ReasonAddress},
		{name: "credential header", url: api("/ok"), header: http.Header{"Authorization": {"mine"}}, cfg: SenderConfig{Policy: granted(1)}, want: ReasonCredentialHeader},
		{name: "credential unavailable", url: api("/ok"), cfg: SenderConfig{Policy: granted(2)}, want: ReasonCredentialUnavailable},
		{name: "too many redirects", url: api("/loop"), opts: SendOptions{FollowRedirects: true}, want: ReasonTooManyRedirects, limit: MaxRedirects},
		{name: "redirect location too long", url: api("/longloc"), opts: SendOptions{FollowRedirects: true}, want: ReasonProtocol},
		{name: "timeout", url: api("/slow"), opts: SendOptions{Timeout: 100 * time.Millisecond}, want: ReasonTimeout},
		{name: "connect timeout", url: api("/ok"), cfg: SenderConfig{Client: NewClient(Options{Resolver: res, UnsafeAllowAddrs: []netip.Prefix{loopback4}, UnsafeDialIP: func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})}, opts: SendOptions{ConnectTimeout: 100 * time.Millisecond}, want: ReasonConnectTimeout},
		{name: "first byte timeout", url: api("/slow"), opts: SendOptions{FirstByteTimeout: 100 * time.Millisecond}, want: ReasonFirstByteTimeout},
		{name: "between bytes timeout", url: api("/drip"), opts: SendOptions{BetweenBytesTimeout: 100 * time.Millisecond}, read: true, want: ReasonBetweenBytesTimeout},
		{name: "body timeout", url: api("/drip"), opts: SendOptions{Timeout: 300 * time.Millisecond}, read: true, want: ReasonBodyTimeout},
		{name: "body too large, declared", url: api("/big"), opts: SendOptions{MaxResponseBytes: 10}, want: ReasonBodyTooLarge, limit: 10},
		{name: "dns", url: u("missing.example.com", port, "/ok"), want: ReasonDNS},
		{name: "connect refused", url: u("api.example.com", closedPort, "/ok"), want: ReasonConnect},
		{name: "tls", url: api("/ok"), cfg: SenderConfig{Client: NewClient(Options{Resolver: res, UnsafeAllowAddrs: []netip.Prefix{loopback4}})}, want: ReasonTLS},
		{name: "response header too large", url: api("/bighead"), cfg: SenderConfig{Client: NewClient(Options{RootCAs: certPool(srv), Resolver: res, UnsafeAllowAddrs: []netip.Prefix{loopback4}, MaxResponseHeaderBytes: 1 << 10})}, want: ReasonResponseHeaderTooLarge},
		{name: "incomplete body", url: api("/cut"), read: true, want: ReasonIncomplete},
		{name: "connection", method: "POST", url: api("/abort"), want: ReasonConnection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg.Client == nil {
				cfg.Client = client
			} else {
				t.Cleanup(cfg.Client.CloseIdleConnections)
			}
			if cfg.Policy == nil {
				cfg.Policy = pol
			}
			send := NewSender(cfg)
			req, err := http.NewRequest(cmpOr(tt.method, "GET"), tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != nil {
				req.Header = tt.header
			}
			if tt.body != nil {
				req.Body, req.ContentLength = io.NopCloser(tt.body), tt.length
			}
			resp, err := send(testContext(t), req, tt.opts)
			if err == nil {
				if !tt.read {
					resp.Body.Close()
					t.Fatalf("status %d, want a failure", resp.StatusCode)
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			} else if tt.read {
				t.Fatalf("send failed (%v), want the body read to fail", err)
			}
			got, ok := ReasonOf(fmt.Errorf("caller: %w", err))
			if !ok || got != tt.want {
				t.Fatalf("ReasonOf(%v) = %v, %v; want %v", err, got, ok, tt.want)
			}
			e := wantKind(t, err, tt.want.Kind())
			if e.Reason != tt.want || e.Limit != tt.limit || !errors.Is(err, kindSentinels[tt.want.Kind()]) {
				t.Errorf("error %+v, want reason %v, limit %d and the sentinel of %v", e, tt.want, tt.limit, tt.want.Kind())
			}
		})
	}

	t.Run("not text", func(t *testing.T) {
		resp, err := client.Do(testContext(t), pol, &Request{URL: api("/binary")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := resp.Text(); !isReason(err, ReasonNotText) {
			t.Fatalf("Text: %v", err)
		}
	})
	t.Run("request", func(t *testing.T) {
		if _, err := client.Do(testContext(t), pol, &Request{URL: api("/ok"), Timeout: -1}); !isReason(err, ReasonRequest) {
			t.Fatalf("Do: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		resp, err := client.Do(testContext(t), pol, &Request{URL: api("/ok")})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if _, err := resp.Body.Read(make([]byte, 1)); !isReason(err, ReasonCancelled) {
			t.Fatalf("Read after Close: %v", err)
		}
	})
	t.Run("denied", func(t *testing.T) {
		next := NewSender(SenderConfig{Client: client, Policy: pol})
		veto := func(ctx context.Context, req *http.Request, opts SendOptions) (*http.Response, error) {
			if req.URL.Path == "/ok" {
				return nil, Deny("refused by the audit")
			}
			return next(ctx, req, opts)
		}
		req, _ := http.NewRequest("GET", api("/ok"), nil)
		_, err := Sender(veto)(testContext(t), req, SendOptions{})
		if !isReason(err, ReasonDenied) || !errors.Is(err, ErrHostNotAllowed) {
			t.Fatalf("veto: %v", err)
		}
	})
}

func isReason(err error, r Reason) bool {
	got, ok := ReasonOf(err)
	return ok && got == r
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestReason_Names(t *testing.T) {
	seen := map[string]bool{}
	for r := ReasonRequest; int(r) <= numReasons; r++ {
		if !r.Valid() || !r.Kind().Valid() || seen[r.String()] || strings.HasPrefix(r.String(), "reason(") {
			t.Errorf("reason %d: valid %v, kind %v, name %q", uint8(r), r.Valid(), r.Kind(), r.String())
		}
		seen[r.String()] = true
	}
	for k := KindInvalidRequest; int(k) <= numKinds; k++ {
		if e := NewError(k, "m"); e.Reason.Kind() != k {
			t.Errorf("NewError(%v).Reason = %v of kind %v", k, e.Reason, e.Reason.Kind())
		}
	}
}

func TestReason_Errors(t *testing.T) {
	for _, r := range []Reason{0, Reason(numReasons + 1), 255} {
		if r.Valid() || r.Kind() != 0 || r.String() != fmt.Sprintf("reason(%d)", uint8(r)) {
			t.Errorf("Reason(%d): valid %v, kind %v, name %q", uint8(r), r.Valid(), r.Kind(), r.String())
		}
	}
	if _, ok := ReasonOf(errors.New("plain")); ok {
		t.Error("ReasonOf(plain error) reported a reason")
	}
	if _, ok := ReasonOf(nil); ok {
		t.Error("ReasonOf(nil) reported a reason")
	}
	if e := NewError(0, "m"); e.Reason != 0 {
		t.Errorf("NewError(0).Reason = %v", e.Reason)
	}
}
