package httpegress_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

func newReq(t *testing.T, method, rawURL string, body io.Reader) *http.Request {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	req := &http.Request{Method: method, URL: u, Host: u.Host, Header: http.Header{}, Body: http.NoBody}
	if body != nil {
		req.Body = io.NopCloser(body)
		req.ContentLength = -1
	}
	return req
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return preview2.ErrorCodeOf(err).Kind.String()
}

// Send without a guest: the cases JavaScript's fetch cannot express.
func TestSend(t *testing.T) {
	var sawTrailer, sawAuth string
	e := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sawTrailer, sawAuth = r.Trailer.Get("X-Check"), r.Header.Get("Authorization")
		w.Header().Set("Trailer", "X-Sum")
		io.WriteString(w, "ok")
		w.Header().Set("X-Sum", "7")
	}))
	ctx := context.Background()

	t.Run("request and response trailers", func(t *testing.T) {
		send, _ := e.sender(t, httpegress.Config{}, "api.example.com")
		req := newReq(t, "POST", "https://api.example.com/t", strings.NewReader("body"))
		req.Trailer = http.Header{"X-Check": {"abc"}}
		resp, err := send(ctx, req, egress.SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" || resp.Trailer.Get("X-Sum") != "7" || sawTrailer != "abc" {
			t.Fatalf("body %q trailer %v, server saw trailer %q", b, resp.Trailer, sawTrailer)
		}
	})

	t.Run("credentials for a granted origin", func(t *testing.T) {
		pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"},
			Grants: []egress.Grant{{Origin: "https://api.example.com", Candidates: []egress.Credential{
				{Label: "k", Header: []egress.Field{{Name: "authorization", Value: "Bearer s3cret"}}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		send, _ := e.sender(t, httpegress.Config{Policy: pol})
		resp, err := send(ctx, newReq(t, "GET", "https://api.example.com/c", nil), egress.SendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sawAuth != "Bearer s3cret" {
			t.Fatalf("server saw authorization %q", sawAuth)
		}
		req := newReq(t, "GET", "https://api.example.com/c", nil)
		req.Header.Set("Authorization", "Bearer guess")
		if _, err := send(ctx, req, egress.SendOptions{}); codeOf(err) != "HTTP-request-denied" {
			t.Fatalf("guest credential header: %v", err)
		}
	})

	t.Run("connect timeout shortened by the guest", func(t *testing.T) {
		opts := e.opts
		opts.UnsafeDialIP = func(ctx context.Context, _, _ string) (net.Conn, error) {
			<-ctx.Done() // a black hole
			return nil, ctx.Err()
		}
		c := egress.NewClient(opts)
		send, _ := e.sender(t, httpegress.Config{Client: c}, "api.example.com")
		start := time.Now()
		_, err := send(ctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{ConnectTimeout: 100 * time.Millisecond})
		if codeOf(err) != "connection-timeout" || time.Since(start) > 5*time.Second {
			t.Fatalf("got %v after %v", err, time.Since(start))
		}
	})

	t.Run("guest timeouts never extend the sender's", func(t *testing.T) {
		srv := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		}))
		c := egress.NewClient(srv.opts)
		send, _ := srv.sender(t, httpegress.Config{Client: c, FirstByteTimeout: 100 * time.Millisecond}, "api.example.com")
		start := time.Now()
		_, err := send(ctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{FirstByteTimeout: time.Hour})
		if codeOf(err) != "connection-read-timeout" || time.Since(start) > 2*time.Second {
			t.Fatalf("got %v after %v", err, time.Since(start))
		}
	})

	t.Run("the call's deadline bounds the exchange", func(t *testing.T) {
		srv := newEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}))
		send, _ := srv.sender(t, httpegress.Config{}, "api.example.com")
		dctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
		defer cancel()
		if _, err := send(dctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{}); codeOf(err) != "HTTP-response-timeout" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("untrusted certificate", func(t *testing.T) {
		opts := e.opts
		opts.RootCAs = nil // the system roots do not know the test server
		send, _ := e.sender(t, httpegress.Config{Client: egress.NewClient(opts)}, "api.example.com")
		if _, err := send(ctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{}); codeOf(err) != "TLS-certificate-error" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		opts := e.opts
		opts.UnsafeDialIP = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}
		send, _ := e.sender(t, httpegress.Config{Client: egress.NewClient(opts)}, "api.example.com")
		if _, err := send(ctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{}); codeOf(err) != "connection-refused" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("nil policy denies", func(t *testing.T) {
		s := httpegress.New(httpegress.Config{Client: egress.NewClient(e.opts)})
		if _, err := s.Send(ctx, newReq(t, "GET", "https://api.example.com/", nil), egress.SendOptions{}); codeOf(err) != "HTTP-request-denied" {
			t.Fatalf("got %v", err)
		}
	})
}

// Plain http reaches only the hosts AllowHTTPHosts names, and loopback only with AllowPrivate.
func TestSendPlainHTTPAndPrivate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		cfg     egress.PolicyConfig
		private bool
		want    string
	}{
		{"http not allowed", egress.PolicyConfig{AllowHosts: []string{"*"}}, true, "HTTP-request-denied"},
		{"loopback refused", egress.PolicyConfig{AllowHosts: []string{"*"}, AllowHTTPHosts: []string{"127.0.0.1"}}, false, "destination-IP-prohibited"},
		{"http and private allowed", egress.PolicyConfig{AllowHosts: []string{"127.0.0.1"}, AllowHTTPHosts: []string{"127.0.0.1"}}, true, ""},
		{"allowlist still applies", egress.PolicyConfig{AllowHosts: []string{"example.com"}, AllowHTTPHosts: []string{"127.0.0.1"}}, true, "HTTP-request-denied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := egress.NewPolicy(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := egress.NewClient(egress.Options{AllowPrivate: tt.private})
			defer c.CloseIdleConnections()
			s := httpegress.New(httpegress.Config{Policy: pol, Client: c})
			resp, err := s.Send(ctx, newReq(t, "GET", "http://"+u.Host+"/", nil), egress.SendOptions{})
			if got := codeOf(err); got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, err, tt.want)
			}
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "plain" {
					t.Fatalf("body %q", b)
				}
			}
		})
	}
}
