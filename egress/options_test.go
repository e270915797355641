package egress

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// redirectMux serves /ok ("ok" and the request's scheme) and /redirect?to=URL (302 to URL).
func redirectMux(h *hits) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		io.WriteString(w, "ok "+scheme)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	return mux
}

// PolicyConfig.AllowHTTPHosts: plain http reaches only the hosts it matches (exact names,
// wildcards, IP literals, ports), which AllowHosts must admit too; https is unaffected; a
// redirect from https to http is checked against it again.
func TestClient_AllowHTTPHosts(t *testing.T) {
	var h hits
	mux := redirectMux(&h)
	tlsSrv, tlsPort := newServer(t, mux)
	plain := httptest.NewServer(mux)
	t.Cleanup(plain.Close)
	httpPort := plain.Listener.Addr().(*net.TCPAddr).Port
	r := newFakeResolver()
	for _, host := range []string{"api.example.com", "other.example.com", "a.b.example.com", "example.com"} {
		r.set(host, []string{"127.0.0.1"})
	}
	c := loopbackClient(t, tlsSrv, r)
	hp := strconv.Itoa(httpPort)
	plainURL := func(host, path string) string {
		return "http://" + net.JoinHostPort(host, hp) + path
	}
	toPlain := func(host string) string {
		return u("api.example.com", tlsPort, "/redirect?to="+url.QueryEscape(plainURL(host, "/ok")))
	}
	tests := []struct {
		name        string
		allow, http []string
		url         string
		kind        Kind   // 0: allowed
		body        string // on success
		hits        int    // requests the servers saw
	}{
		{"https only by default", []string{"*"}, nil, plainURL("api.example.com", "/ok"), KindForbiddenDestination, "", 0},
		{"exact name", []string{"*"}, []string{"api.example.com"}, plainURL("api.example.com", "/ok"), 0, "ok http", 1},
		{"exact name is case-insensitive", []string{"*"}, []string{"API.example.com"}, plainURL("api.example.com", "/ok"), 0, "ok http", 1},
		{"exact name admits no other", []string{"*"}, []string{"api.example.com"}, plainURL("other.example.com", "/ok"), KindForbiddenDestination, "", 0},
		{"wildcard", []string{"*"}, []string{"*.example.com"}, plainURL("a.b.example.com", "/ok"), 0, "ok http", 1},
		{"wildcard admits no apex", []string{"*"}, []string{"*.example.com"}, plainURL("example.com", "/ok"), KindForbiddenDestination, "", 0},
		{"with the right port", []string{"*"}, []string{"api.example.com:" + hp}, plainURL("api.example.com", "/ok"), 0, "ok http", 1},
		{"with another port", []string{"*"}, []string{"api.example.com:1"}, plainURL("api.example.com", "/ok"), KindForbiddenDestination, "", 0},
		{"IP literal", []string{"*"}, []string{"127.0.0.1"}, plainURL("127.0.0.1", "/ok"), 0, "ok http", 1},
		{"star", []string{"*"}, []string{"*"}, plainURL("other.example.com", "/ok"), 0, "ok http", 1},
		{"AllowHosts must admit the host too", []string{"other.example.com"}, []string{"api.example.com"}, plainURL("api.example.com", "/ok"), KindHostNotAllowed, "", 0},
		{"https unaffected", []string{"*"}, []string{"api.example.com"}, u("other.example.com", tlsPort, "/ok"), 0, "ok https", 1},
		{"redirect to http refused", []string{"*"}, nil, toPlain("api.example.com"), KindForbiddenDestination, "", 1},
		{"redirect to http of another host refused", []string{"*"}, []string{"api.example.com"}, toPlain("other.example.com"), KindForbiddenDestination, "", 1},
		{"redirect to http allowed", []string{"*"}, []string{"other.example.com"}, toPlain("other.example.com"), 0, "ok http", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := h.total()
			p := mustPolicy(t, PolicyConfig{AllowHosts: tt.allow, AllowHTTPHosts: tt.http})
			resp, err := c.Do(testContext(t), p, &Request{URL: tt.url})
			if tt.kind != 0 {
				wantKind(t, err, tt.kind)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if got := readBody(t, resp); got != tt.body {
					t.Errorf("body %q, want %q", got, tt.body)
				}
			}
			if n := h.total() - before; n != tt.hits {
				t.Errorf("servers saw %d requests, want %d (%v)", n, tt.hits, &h)
			}
		})
	}
}

// dialRecorder is an Options.UnsafeDialIP that records each address it is given (after the
// address rules passed it) and connects to srv instead.
type dialRecorder struct {
	mu     sync.Mutex
	dialed []string
	addr   string
}

func (d *dialRecorder) dial(ctx context.Context, _, ipPort string) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, ipPort)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, "tcp", d.addr)
}

func (d *dialRecorder) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.dialed
	d.dialed = nil
	return out
}

// Options.AllowPrivate: without it, a name whose answer is loopback, private, link-local (or in
// any other refused range) is refused on the address the dialler would use, before any
// connection; with it, the dialler connects to that address. It never widens the allowlist, and
// every redirect hop is judged again.
func TestClient_AllowPrivate(t *testing.T) {
	var h hits
	srv, port := newServer(t, redirectMux(&h))
	ps := strconv.Itoa(port)
	r := newFakeResolver()
	answers := map[string]string{
		"public.example.com":      "93.184.216.34",
		"loopback.example.com":    "127.0.0.1",
		"private.example.com":     "10.1.2.3",
		"private172.example.com":  "172.16.0.9",
		"private192.example.com":  "192.168.1.1",
		"cgnat.example.com":       "100.64.0.1",
		"linklocal.example.com":   "169.254.169.254",
		"ula.example.com":         "fd00::1",
		"v6linklocal.example.com": "fe80::1",
		"v6loopback.example.com":  "::1",
		"mapped.example.com":      "::ffff:10.0.0.1",
	}
	for host, ip := range answers {
		r.set(host, []string{ip})
	}
	r.set("mixed.example.com", []string{"93.184.216.34", "10.0.0.1"})
	dr := &dialRecorder{addr: srv.Listener.Addr().String()}
	clients := map[bool]*Client{}
	for _, private := range []bool{false, true} {
		c := NewClient(Options{RootCAs: certPool(srv), Resolver: r, AllowPrivate: private, UnsafeDialIP: dr.dial})
		t.Cleanup(c.CloseIdleConnections)
		clients[private] = c
	}
	ipPort := func(host string) string {
		if host == "mapped.example.com" {
			return net.JoinHostPort("10.0.0.1", ps) // the dialler unmaps IPv4-mapped answers
		}
		return net.JoinHostPort(answers[host], ps)
	}
	redirect := func(from, to string) string {
		return u(from, port, "/redirect?to="+url.QueryEscape(u(to, port, "/ok")))
	}
	type privateCase struct {
		name    string
		allow   []string // nil: "*"
		url     string
		private bool     // Options.AllowPrivate
		kind    Kind     // 0: allowed
		dialed  []string // the addresses dialled, in order
	}
	tests := []privateCase{
		{"public", nil, u("public.example.com", port, "/ok"), false, 0, []string{ipPort("public.example.com")}},
		{"public with AllowPrivate", nil, u("public.example.com", port, "/ok"), true, 0, []string{ipPort("public.example.com")}},
		{"mixed answer refused whole", nil, u("mixed.example.com", port, "/ok"), false, KindForbiddenDestination, nil},
		{"loopback literal", nil, u("127.0.0.1", port, "/ok"), false, KindForbiddenDestination, nil},
		{"loopback literal with AllowPrivate", nil, u("127.0.0.1", port, "/ok"), true, 0, []string{net.JoinHostPort("127.0.0.1", ps)}},
		{"IPv6 loopback literal with AllowPrivate", nil, u("::1", port, "/ok"), true, 0, []string{net.JoinHostPort("::1", ps)}},
		{"AllowPrivate is not an allowlist", []string{"public.example.com"}, u("private.example.com", port, "/ok"), true, KindHostNotAllowed, nil},
		{"redirect to a private answer", nil, redirect("public.example.com", "private.example.com"), false, KindForbiddenDestination,
			[]string{ipPort("public.example.com")}},
		{"redirect to a private answer with AllowPrivate", nil, redirect("public.example.com", "private.example.com"), true, 0,
			[]string{ipPort("public.example.com"), ipPort("private.example.com")}},
		{"redirect to a loopback literal", nil, redirect("public.example.com", "127.0.0.1"), false, KindForbiddenDestination,
			[]string{ipPort("public.example.com")}},
		{"redirect to a host not allowed with AllowPrivate", []string{"public.example.com"}, redirect("public.example.com", "private.example.com"), true,
			KindHostNotAllowed, []string{ipPort("public.example.com")}},
	}
	for _, host := range slices.Sorted(maps.Keys(answers)) {
		if host == "public.example.com" {
			continue
		}
		tests = append(tests,
			privateCase{host + " refused", nil, u(host, port, "/ok"), false, KindForbiddenDestination, nil},
			privateCase{host + " with AllowPrivate", nil, u(host, port, "/ok"), true, 0, []string{ipPort(host)}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allow := tt.allow
			if allow == nil {
				allow = []string{"*"}
			}
			c := clients[tt.private]
			// Fresh connections: every case dials.
			c.CloseIdleConnections()
			dr.take()
			resp, err := c.Do(testContext(t), mustPolicy(t, PolicyConfig{AllowHosts: allow}), &Request{URL: tt.url})
			if tt.kind != 0 {
				wantKind(t, err, tt.kind)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if got := readBody(t, resp); got != "ok https" {
					t.Errorf("body %q", got)
				}
			}
			if got := dr.take(); strings.Join(got, " ") != strings.Join(tt.dialed, " ") {
				t.Errorf("dialled %q, want %q", got, tt.dialed)
			}
		})
	}
}
