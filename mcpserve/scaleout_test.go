package mcpserve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// roundRobin is a load balancer without session affinity: each request goes to the next backend.
func roundRobin(t *testing.T, backends ...*httptest.Server) (*httptest.Server, *[2]atomic.Int64) {
	var next atomic.Int64
	var counts [2]atomic.Int64
	proxies := make([]*httputil.ReverseProxy, len(backends))
	for i, b := range backends {
		u, _ := url.Parse(b.URL)
		proxies[i] = httputil.NewSingleHostReverseProxy(u)
		proxies[i].FlushInterval = -1 // event streams pass as they are written
	}
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(next.Add(1)) % len(proxies)
		counts[i].Add(1)
		// The backend checks the Host header against its allowlist, as it would behind a real
		// balancer that keeps the client's Host.
		r.Host = "localhost"
		proxies[i].ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	return lb, &counts
}

// TestScaleOut: two servers behind a round-robin balancer serve a 2026-07-28 client with no
// session affinity (every request stands alone); a 2025-11-25 client needs affinity, since its
// session lives on the server that answered initialize.
func TestScaleOut(t *testing.T) {
	var backends []*httptest.Server
	for range 2 {
		s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}})
		b := httptest.NewServer(s.Handler(HTTPOptions{}))
		t.Cleanup(b.Close)
		backends = append(backends, b)
	}
	lb, counts := roundRobin(t, backends...)
	ctx := context.Background()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: lb.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: statelessVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 10 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello__greet", Arguments: map[string]string{"name": fmt.Sprint(i)}})
		if err != nil || r.IsError || text(r) != fmt.Sprintf("Hello, %d!", i) {
			t.Fatalf("call %d: %v %v", i, r, err)
		}
	}
	if counts[0].Load() < 5 || counts[1].Load() < 5 {
		t.Fatalf("the balancer sent %d and %d requests: not spread over both", counts[0].Load(), counts[1].Load())
	}

	// The handshake era without affinity: the session one server opened is unknown to the other.
	legacy, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: lb.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		defer legacy.Close()
		failed := false
		for range 4 {
			if _, err := legacy.ListTools(ctx, nil); err != nil {
				failed = true
				break
			}
		}
		if !failed {
			t.Fatal("a 2025-11-25 session worked across two servers without affinity; the README says it needs affinity")
		}
	}
}
