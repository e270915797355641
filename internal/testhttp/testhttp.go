// Package testhttp is the loopback TLS harness of kobako's outbound HTTP tests: an HTTPS test
// server on 127.0.0.1 with httptest's test CA, a table resolver that answers test names with a
// public address (or, to simulate rebinding, with private ones), and egress options that trust
// the server and dial every checked address to it. The address rules therefore stay fully in
// force while every request ends at the loopback server.
//
// Only _test.go files import it (wasi/preview2/httpegress, zeroclaw/runner).
package testhttp

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"github.com/kobako/kobako/egress"
)

// PublicIP is where the test names resolve: a public address, so that the refused-range table
// admits it, which the test dialer then routes to the loopback server.
var PublicIP = netip.MustParseAddr("93.184.216.34")

// Names is the resolver table of NewServer:
//
//	api.example.com, other.example.com   PublicIP
//	rebind.example.com                   10.1.2.3 (a private answer)
//	mixed.example.com                    PublicIP and 127.0.0.1 (one refused address)
//
// Any other name is not found.
func Names() map[string][][]netip.Addr {
	return map[string][][]netip.Addr{
		"api.example.com":    {{PublicIP}},
		"other.example.com":  {{PublicIP}},
		"rebind.example.com": {{netip.MustParseAddr("10.1.2.3")}},
		"mixed.example.com":  {{PublicIP, netip.MustParseAddr("127.0.0.1")}},
	}
}

// Resolver answers from a table: the n-th lookup of a name gets the n-th answer (the last one
// repeating), which is how DNS rebinding is simulated. It implements egress.Resolver.
type Resolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

// NewResolver returns a resolver answering from answers (copied).
func NewResolver(answers map[string][][]netip.Addr) *Resolver {
	r := &Resolver{answers: map[string][][]netip.Addr{}, calls: map[string]int{}}
	for k, v := range answers {
		r.answers[k] = v
	}
	return r
}

// LookupNetIP answers host's next table entry, or a not-found DNS error.
func (r *Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	as, ok := r.answers[host]
	if !ok || len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := min(r.calls[host], len(as)-1)
	r.calls[host]++
	return append([]netip.Addr(nil), as[n]...), nil
}

// Calls reports how many times host was looked up.
func (r *Resolver) Calls(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// Server is a loopback HTTPS server (HTTP/1.1 and HTTP/2) with its resolver.
type Server struct {
	*httptest.Server
	Resolver *Resolver

	mu     sync.Mutex
	dialed []string
}

// NewServer starts h on 127.0.0.1 over TLS with httptest's test certificate (valid for
// example.com, *.example.com, 127.0.0.1 and ::1), resolving names through Names; the server is
// closed when t ends.
func NewServer(t testing.TB, h http.Handler) *Server {
	t.Helper()
	return newServer(t, h, true)
}

// NewHTTP1Server is NewServer speaking HTTP/1.1 only.
func NewHTTP1Server(t testing.TB, h http.Handler) *Server {
	t.Helper()
	return newServer(t, h, false)
}

func newServer(t testing.TB, h http.Handler, h2 bool) *Server {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &Server{Server: srv, Resolver: NewResolver(Names())}
}

// Options returns egress options that resolve through s.Resolver, trust the server's
// certificate, and dial every address that passed the address rules to the server.
func (s *Server) Options() egress.Options {
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	addr := s.Listener.Addr().String()
	return egress.Options{Resolver: s.Resolver, RootCAs: pool,
		UnsafeDialIP: func(ctx context.Context, _, ipPort string) (net.Conn, error) {
			s.mu.Lock()
			s.dialed = append(s.dialed, ipPort)
			s.mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}}
}

// Dialed lists the "ip:port" addresses the options' dialer was given, in order.
func (s *Server) Dialed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dialed...)
}
