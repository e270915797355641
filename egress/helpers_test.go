package egress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"
)

var loopback4 = netip.MustParsePrefix("127.0.0.1/32")

// fakeResolver answers from a table; the n-th lookup of a name gets the n-th answer (the last
// one repeating), which is how DNS rebinding is simulated.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	errs    map[string]error
	calls   map[string]int
}

func newFakeResolver() *fakeResolver {
	return &fakeResolver{answers: map[string][][]netip.Addr{}, errs: map[string]error{}, calls: map[string]int{}}
}

// set gives host a sequence of answers, each a comma-free list of addresses.
func (r *fakeResolver) set(host string, answers ...[]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var as [][]netip.Addr
	for _, ans := range answers {
		var list []netip.Addr
		for _, s := range ans {
			list = append(list, netip.MustParseAddr(s))
		}
		as = append(as, list)
	}
	r.answers[host] = as
}

func (r *fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.calls[host]
	r.calls[host] = n + 1
	if err := r.errs[host]; err != nil {
		return nil, err
	}
	as, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if len(as) == 0 {
		return nil, nil
	}
	if n >= len(as) {
		n = len(as) - 1
	}
	return append([]netip.Addr(nil), as[n]...), nil
}

// testCert is a self-signed certificate for the names the tests use (httptest's own covers
// only example.com and one level of *.example.com).
var testCert = sync.OnceValue(func() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "egress test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames: []string{"example.com", "*.example.com", "*.b.example.com", "example.org", "*.example.org",
			"badexample.com"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
})

// newServer starts a TLS (HTTP/1.1 and HTTP/2) test server on 127.0.0.1 and returns it with
// its port.
func newServer(t *testing.T, h http.Handler) (*httptest.Server, int) {
	t.Helper()
	return newServerProto(t, h, true)
}

// newServerProto starts a server that speaks HTTP/2 only when h2 is set.
func newServerProto(t *testing.T, h http.Handler, h2 bool) (*httptest.Server, int) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{testCert()}}
	// Handshake failures are what some tests provoke; keep them out of the test log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	return srv, port
}

func certPool(*httptest.Server) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(testCert().Leaf)
	return p
}

// loopbackClient reaches srv on 127.0.0.1 through the test-only exemption. Names resolve
// through r (127.0.0.1 for the names the test sets).
func loopbackClient(t *testing.T, srv *httptest.Server, r Resolver) *Client {
	t.Helper()
	c := NewClient(Options{RootCAs: certPool(srv), Resolver: r, UnsafeAllowAddrs: []netip.Prefix{loopback4}})
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func mustPolicy(t *testing.T, cfg PolicyConfig) *Policy {
	t.Helper()
	p, err := NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantKind(t *testing.T, err error, k Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error of kind %v", err, err, k)
	}
	if e.Kind != k {
		t.Fatalf("kind = %v (%v), want %v", e.Kind, err, k)
	}
	return e
}

func u(host string, port int, path string) string {
	return "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + path
}

func readBody(t *testing.T, r *Response) string {
	t.Helper()
	b, err := r.ReadAll()
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return string(b)
}

// hits counts requests per path, safely.
type hits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *hits) add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[path]++
}

func (h *hits) total() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := 0
	for _, v := range h.n {
		s += v
	}
	return s
}

func (h *hits) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprint(h.n)
}
