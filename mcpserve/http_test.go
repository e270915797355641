package mcpserve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

const discoverBody = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestHTTPGuards sends raw requests past each guard of the HTTP handler.
func TestHTTPGuards(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}})
	open := httptest.NewServer(s.Handler(HTTPOptions{MaxBodyBytes: 1024}))
	defer open.Close()
	locked := httptest.NewServer(s.Handler(HTTPOptions{Token: "s3cret", AllowedHosts: []string{"mcp.example"}, AllowedOrigins: []string{"https://app.example"}}))
	defer locked.Close()
	tests := []struct {
		name    string
		srv     *httptest.Server
		header  map[string]string
		body    string
		code    int
		inReply string
	}{
		{"initialize", open, nil, initBody, 200, `"protocolVersion":"2025-11-25"`},
		{"discover goes to the stateless handler", open, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}, discoverBody, 200, `"supportedVersions":["2026-07-28"`},
		{"DNS rebinding: foreign Host", open, map[string]string{"Host": "evil.example"}, initBody, 403, "Host"},
		{"localhost Host with port", open, map[string]string{"Host": "localhost:1234"}, initBody, 200, "serverInfo"},
		{"IPv6 loopback Host", open, map[string]string{"Host": "[::1]:1234"}, initBody, 200, "serverInfo"},
		{"foreign Origin", open, map[string]string{"Origin": "https://evil.example"}, initBody, 403, "Origin"},
		{"localhost Origin", open, map[string]string{"Origin": "http://localhost:3000"}, initBody, 200, "serverInfo"},
		{"unparsable Origin", open, map[string]string{"Origin": "null"}, initBody, 403, "Origin"},
		{"body over the cap", open, nil, initBody + strings.Repeat(" ", 1024), 413, "more than 1024"},
		{"unsupported MCP-Protocol-Version", open, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, initBody, 400, "Unsupported protocol version"},
		{"no token", locked, map[string]string{"Host": "mcp.example"}, initBody, 401, "bearer token"},
		{"wrong token", locked, map[string]string{"Host": "mcp.example", "Authorization": "Bearer nope"}, initBody, 401, "bearer token"},
		{"token, allowed host and origin", locked, map[string]string{"Host": "mcp.example", "Authorization": "Bearer s3cret", "Origin": "https://app.example"}, initBody, 200, "serverInfo"},
		{"origin on the allowed host", locked, map[string]string{"Host": "mcp.example", "Authorization": "Bearer s3cret", "Origin": "https://mcp.example"}, initBody, 200, "serverInfo"},
		{"host outside a custom list", locked, map[string]string{"Host": "other.example", "Authorization": "Bearer s3cret"}, initBody, 403, "Host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", tt.srv.URL, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.inReply) {
				t.Fatalf("status %d, body %q; want %d and %q", resp.StatusCode, b, tt.code, tt.inReply)
			}
		})
	}
}

// TestHTTPToken connects the SDK's client with the bearer token in both eras.
func TestHTTPToken(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}})
	hs := httptest.NewServer(s.Handler(HTTPOptions{Token: "s3cret"}))
	defer hs.Close()
	for _, era := range eras {
		client := &http.Client{Transport: bearer{"s3cret"}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: client, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("%s: %v", era, err)
		}
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello__greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil || text(r) != "Hello, Ada!" {
			t.Fatalf("%s: %v %v", era, r, err)
		}
		cs.Close()
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
