package mcpserve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
		{"Host names are case-insensitive", open, map[string]string{"Host": "LOCALHOST:1234"}, initBody, 200, "serverInfo"},
		{"body not JSON", open, nil, `{this is not json`, 400, `"code":-32700`},
		{"batch", open, nil, `[` + initBody + `,{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 400, `batches are not supported`},
		{"not an object", open, nil, `"x"`, 400, `"code":-32600`},
		{"unknown method, handshake era", open, nil, `{"jsonrpc":"2.0","id":7,"method":"frobnicate"}`, 200, `"code":-32601`},
		{"unknown method, stateless era", open, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, `{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{` + metaParams + `}}`, 404, `no prompts capability`},
		{"unsupported _meta version", open, nil, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, 400, `"code":-32022`},
		{"discover without _meta", open, nil, `{"jsonrpc":"2.0","id":9,"method":"server/discover"}`, 400, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602`},
		{"initialize in the stateless era", open, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{` + metaParams + `}}`, 404, `"code":-32601`},
		{"unsupported header: the error carries the id", open, map[string]string{"MCP-Protocol-Version": "v999"}, `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999"}}}`, 400, `"id":11,"error":{"code":-32022`},
		{"header and an unsupported _meta disagree", open, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, `{"jsonrpc":"2.0","id":12,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999"}}}`, 400, `"id":12,"error":{"code":-32020`},
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

// post sends one raw request and returns the status and the JSON-RPC message of the answer (the
// first data line of an event stream).
func post(t *testing.T, url string, header map[string]string, body string) (int, map[string]any, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, l := range strings.Split(text, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && strings.Contains(d, `"id"`) {
				text = d
				break
			}
		}
	}
	var m map[string]any
	json.Unmarshal([]byte(text), &m)
	if m != nil {
		m["session"] = resp.Header.Get("Mcp-Session-Id")
	}
	return resp.StatusCode, m, text
}

// TestHTTPVersionMismatch: the MCP-Protocol-Version header and _meta disagreeing, in both
// directions, served under _meta's version by default and refused with -32020 when strict.
func TestHTTPVersionMismatch(t *testing.T) {
	s, logs := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}})
	tolerant := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer tolerant.Close()
	strict := httptest.NewServer(s.Handler(HTTPOptions{StrictProtocolHeader: true}))
	defer strict.Close()

	// claude.ai: the handshake era's header with a 2026-07-28 _meta.
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + metaParams + `}}`
	code, m, raw := post(t, tolerant.URL, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, list)
	if code != 200 || !strings.Contains(raw, `"hello__greet"`) {
		t.Fatalf("header 2025-11-25, _meta 2026-07-28: %d %s", code, raw)
	}
	if !strings.Contains(logs.String(), "not its header's") {
		t.Fatalf("the mismatch was not logged at debug level:\n%s", logs)
	}
	code, m, raw = post(t, strict.URL, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, list)
	if code != 400 || errCode(m) != -32020 || !strings.Contains(raw, `names \"2025-11-25\"`) {
		t.Fatalf("strict: %d %s", code, raw)
	}
	// No header at all, with a 2026-07-28 _meta.
	if code, _, raw = post(t, tolerant.URL, nil, list); code != 200 || !strings.Contains(raw, `"hello__greet"`) {
		t.Fatalf("no header, _meta 2026-07-28: %d %s", code, raw)
	}
	if code, m, raw = post(t, strict.URL, nil, list); code != 400 || errCode(m) != -32020 {
		t.Fatalf("strict, no header: %d %s", code, raw)
	}

	// The other direction: a 2026-07-28 header on a request of a handshake session whose _meta
	// names that session's version.
	code, m, raw = post(t, tolerant.URL, nil, initBody)
	sid, _ := m["session"].(string)
	if code != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", code, raw)
	}
	post(t, tolerant.URL, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	legacy := `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`
	hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2026-07-28"}
	if code, _, raw = post(t, tolerant.URL, hdr, legacy); code != 200 || !strings.Contains(raw, `"hello__greet"`) {
		t.Fatalf("header 2026-07-28, _meta 2025-11-25: %d %s", code, raw)
	}
	if code, m, raw = post(t, strict.URL, hdr, legacy); code != 400 || errCode(m) != -32020 {
		t.Fatalf("strict, header 2026-07-28, _meta 2025-11-25: %d %s", code, raw)
	}

	// An unsupported version: the message and the data list the same versions.
	code, m, raw = post(t, tolerant.URL, map[string]string{"MCP-Protocol-Version": "2099-01-01"}, initBody)
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	supported, _ := data["supported"].([]any)
	if code != 400 || errCode(m) != -32022 || len(supported) == 0 {
		t.Fatalf("unsupported header: %d %s", code, raw)
	}
	for _, v := range supported {
		if !strings.Contains(errMessage(m), v.(string)) {
			t.Fatalf("the message %q leaves out the supported %s", errMessage(m), v)
		}
	}
	if strings.Contains(errMessage(m), "2025-11-25") != contains(supported, "2025-11-25") {
		t.Fatal("message and data disagree")
	}
}

func contains(vs []any, s string) bool {
	for _, v := range vs {
		if v == s {
			return true
		}
	}
	return false
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

// TestHTTPSessionTimeout: a 2025-11-25 session left idle is closed, and its id is then unknown.
func TestHTTPSessionTimeout(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}})
	hs := httptest.NewServer(s.Handler(HTTPOptions{SessionTimeout: 200 * time.Millisecond}))
	defer hs.Close()
	code, m, raw := post(t, hs.URL, nil, initBody)
	sid, _ := m["session"].(string)
	if code != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", code, raw)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	post(t, hs.URL, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if code, _, raw = post(t, hs.URL, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != 200 {
		t.Fatalf("tools/list in the session: %d %s", code, raw)
	}
	time.Sleep(600 * time.Millisecond)
	if code, _, raw = post(t, hs.URL, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); code != http.StatusNotFound {
		t.Fatalf("tools/list in an expired session: %d %s, want 404", code, raw)
	}
}
