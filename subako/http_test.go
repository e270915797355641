package subako

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/egress"
)

func TestParseHTTPRequest(t *testing.T) {
	r, err := parseHTTPRequest([]byte(`{"url":"https://a.example/"}`))
	if err != nil || r.Method != "GET" || r.Output.Type != "inline" || !r.FollowRedirects || r.Body != nil || r.Timeout != 0 {
		t.Fatalf("defaults: %+v %v", r, err)
	}
	r, err = parseHTTPRequest([]byte(`{"method":"POST","url":"https://a.example/upload","headers":{"x-a":"1"},
		"body":{"type":"json","json":{ "order" : 1042 }},"output":{"type":"file","path":"/volume/tmp/out"},
		"follow_redirects":false,"timeout_ms":5000}`))
	if err != nil || r.Method != "POST" || string(r.Body.JSON) != `{"order":1042}` || r.Output.Path != "/volume/tmp/out" ||
		r.FollowRedirects || r.Timeout != 5*time.Second || r.Headers["x-a"] != "1" {
		t.Fatalf("full request: %+v %v", r, err)
	}
}

func TestParseHTTPRequest_Errors(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `"x"`, `{}`, `{"url":""}`, `{"url":5}`,
		`{"url":"https://a.example/","extra":1}`,
		`{"url":"https://a.example/","method":"get"}`,
		`{"url":"https://a.example/","method":"CONNECT"}`,
		`{"url":"https://a.example/","headers":{"X-Upper":"1"}}`,
		`{"url":"https://a.example/","headers":{"a":1}}`,
		`{"url":"https://a.example/","body":{"type":"text"}}`,
		`{"url":"https://a.example/","body":{"type":"text","text":"a","path":"/x"}}`,
		`{"url":"https://a.example/","body":{"type":"base64","data":""}}`,
		`{"url":"https://a.example/","body":{"type":"file"}}`,
		`{"url":"https://a.example/","output":{"type":"file"}}`,
		`{"url":"https://a.example/","output":{"type":"inline","path":"/x"}}`,
		`{"url":"https://a.example/","timeout_ms":0}`,
		`{"url":"https://a.example/","timeout_ms":1.5}`,
		`{"url":"https://a.example/","timeout_ms":-3}`,
		`{"url":"https://a.example/","follow_redirects":"yes"}`,
		`{"url":"https://a.example/"} {}`,
		`{"url":"https://a.example/"}` + strings.Repeat(" ", MaxHTTPRequestBytes),
	} {
		_, err := parseHTTPRequest([]byte(in))
		if k, ok := egress.KindOf(err); !ok || k != egress.KindInvalidRequest {
			t.Errorf("%.80q: err = %v, want invalid_request", in, err)
		}
	}
}

type httpAnswer struct {
	OK *struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Path  string `json:"path"`
			Bytes int64  `json:"bytes"`
		} `json:"body"`
	} `json:"ok"`
	Error *struct{ Kind, Message string } `json:"error"`
}

// httpFixture serves the HTTP tests on loopback TLS and returns a package whose runtime reaches
// it through the test-only UnsafeAllowAddrs.
func httpFixture(t *testing.T) (*Package, string) {
	p, base, _ := httpFixtureClient(t)
	return p, base
}

// httpFixtureClient is httpFixture that also returns the runtime's client.
func httpFixtureClient(t *testing.T) (*Package, string, *egress.Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hdr := map[string]string{}
		for k := range r.Header {
			hdr[strings.ToLower(k)] = r.Header.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Reply", "yes")
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "headers": hdr, "body": string(body), "host": r.Host})
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("a", InlineMaxBytes+1)))
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte{0xff, 0xfe, 0x00, 0x80}) })
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect/"))
		if n == 0 {
			http.Redirect(w, r, "/echo", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	client := egress.NewClient(egress.Options{RootCAs: roots, UnsafeAllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	t.Cleanup(client.CloseIdleConnections)
	rt, err := New(context.Background(), Config{Engine: testRuntime(t).eng, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), writePackage(t, "everything", nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, srv.URL, client
}

func callHTTP(t *testing.T, p *Package, req any, opts CallOptions) httpAnswer {
	t.Helper()
	args := map[string]any{"request": req}
	if s, ok := req.(string); ok {
		args = map[string]any{"raw": s}
	}
	b, _ := json.Marshal(args)
	res, err := p.Call(context.Background(), "http", b, opts)
	if err != nil {
		t.Fatal(err)
	}
	var a httpAnswer
	if err := json.Unmarshal([]byte(res.Content[0].Text), &a); err != nil {
		t.Fatalf("answer %q: %v", res.Content[0].Text, err)
	}
	return a
}

func TestSubakoHTTP(t *testing.T) {
	p, base := httpFixture(t)
	origin := strings.TrimPrefix(base, "https://")
	host, _, _ := strings.Cut(origin, ":")
	allow := func(cfg egress.PolicyConfig) *egress.Policy {
		if cfg.AllowHosts == nil {
			cfg.AllowHosts = []string{host}
		}
		pol, err := egress.NewPolicy(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return pol
	}
	open := CallOptions{Network: allow(egress.PolicyConfig{})}

	t.Run("inline GET with headers", func(t *testing.T) {
		a := callHTTP(t, p, map[string]any{"url": base + "/echo", "headers": map[string]string{
			"accept": "application/json", "connection": "close", "host": "evil.example", "content-length": "99", "proxy-authorization": "x"}}, open)
		if a.OK == nil || a.OK.Status != 200 || a.OK.Headers["x-reply"] != "yes" || a.OK.Body.Type != "inline" {
			t.Fatalf("answer = %+v %+v", a.OK, a.Error)
		}
		var echo struct {
			Method  string
			Host    string
			Headers map[string]string
		}
		must(t, json.Unmarshal([]byte(a.OK.Body.Text), &echo))
		if echo.Method != "GET" || echo.Headers["accept"] != "application/json" || echo.Host != origin || echo.Headers["proxy-authorization"] != "" || echo.Headers["content-length"] == "99" {
			t.Errorf("server saw %+v", echo)
		}
	})
	t.Run("json body", func(t *testing.T) {
		a := callHTTP(t, p, map[string]any{"method": "POST", "url": base + "/echo", "body": map[string]any{"type": "json", "json": map[string]int{"order": 1042}}}, open)
		if a.OK == nil || !strings.Contains(a.OK.Body.Text, `"body":"{\"order\":1042}"`) || !strings.Contains(a.OK.Body.Text, `"content-type":"application/json"`) {
			t.Fatalf("answer = %+v %+v", a.OK, a.Error)
		}
	})
	t.Run("file body and file output", func(t *testing.T) {
		vol := t.TempDir()
		must(t, os.WriteFile(filepath.Join(vol, "in.bin"), []byte("file body"), 0o644))
		opts := open
		opts.Volume = vol
		a := callHTTP(t, p, map[string]any{"method": "PUT", "url": base + "/echo", "body": map[string]any{"type": "file", "path": "/volume/tmp/in.bin"},
			"output": map[string]any{"type": "file", "path": "/volume/tmp/out.json"}}, opts)
		if a.OK == nil || a.OK.Body.Type != "file" || a.OK.Body.Path != "/volume/tmp/out.json" {
			t.Fatalf("answer = %+v %+v", a.OK, a.Error)
		}
		out, _ := os.ReadFile(filepath.Join(vol, "out.json"))
		if int64(len(out)) != a.OK.Body.Bytes || !strings.Contains(string(out), `"body":"file body"`) || !strings.Contains(string(out), `"method":"PUT"`) {
			t.Errorf("out.json (%d bytes, answer says %d) = %s", len(out), a.OK.Body.Bytes, out)
		}
	})
	t.Run("redirects", func(t *testing.T) {
		if a := callHTTP(t, p, map[string]any{"url": base + "/redirect/9"}, open); a.OK == nil || a.OK.Status != 200 {
			t.Errorf("10 hops: %+v %+v", a.OK, a.Error)
		}
		if a := callHTTP(t, p, map[string]any{"url": base + "/redirect/3", "follow_redirects": false}, open); a.OK == nil || a.OK.Status != 302 {
			t.Errorf("not followed: %+v %+v", a.OK, a.Error)
		}
	})

	budgetOpts := open
	budgetOpts.WriteBudget = 1000
	dataOpts := open
	dataOpts.Data = t.TempDir()
	grant := func(n int) CallOptions {
		var cands []egress.Credential
		for i := 0; i < n; i++ {
			cands = append(cands, egress.Credential{Label: fmt.Sprint("c", i), Header: []egress.Field{{Name: "authorization", Value: "Bearer s3cret"}}})
		}
		return CallOptions{Network: allow(egress.PolicyConfig{Grants: []egress.Grant{{Origin: base, Headers: []string{"authorization"}, Candidates: cands}}})}
	}
	errorCases := []struct {
		name string
		req  any
		opts CallOptions
		kind string
	}{
		{"unknown field", `{"url":"` + base + `/echo","verbose":true}`, open, "invalid_request"},
		{"not json", `{"url":`, open, "invalid_request"},
		{"no policy", map[string]any{"url": base + "/echo"}, CallOptions{}, "host_not_allowed"},
		{"plain http", map[string]any{"url": "http://" + origin + "/echo"}, open, "forbidden_destination"},
		{"private literal", map[string]any{"url": "https://10.0.0.1/"}, CallOptions{Network: allow(egress.PolicyConfig{AllowHosts: []string{"*"}})}, "forbidden_destination"},
		{"guest sets credential header", map[string]any{"url": base + "/echo", "headers": map[string]string{"authorization": "mine"}}, grant(1), "credential_header"},
		{"no usable credential", map[string]any{"url": base + "/echo"}, grant(2), "credential_unavailable"},
		{"too many redirects", map[string]any{"url": base + "/redirect/10"}, open, "too_many_redirects"},
		{"timeout", map[string]any{"url": base + "/slow", "timeout_ms": 100}, open, "timeout"},
		{"too large inline", map[string]any{"url": base + "/big"}, open, "too_large"},
		{"not text", map[string]any{"url": base + "/binary"}, open, "not_text"},
		{"write budget", map[string]any{"url": base + "/big", "output": map[string]any{"type": "file", "path": "/volume/tmp/big"}}, budgetOpts, "write_budget"},
		{"output outside the volume", map[string]any{"url": base + "/echo", "output": map[string]any{"type": "file", "path": "/package/x"}}, open, "bad_path"},
		{"output with dot-dot", map[string]any{"url": base + "/echo", "output": map[string]any{"type": "file", "path": "/volume/tmp/../data/x"}}, dataOpts, "bad_path"},
		{"data not mounted", map[string]any{"url": base + "/echo", "output": map[string]any{"type": "file", "path": "/volume/data/x"}}, open, "bad_path"},
		{"missing body file", map[string]any{"url": base + "/echo", "method": "POST", "body": map[string]any{"type": "file", "path": "/volume/tmp/none"}}, open, "bad_path"},
	}
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			a := callHTTP(t, p, tt.req, tt.opts)
			if a.Error == nil || a.Error.Kind != tt.kind || a.Error.Message == "" {
				t.Fatalf("answer = ok %+v, error %+v; want %s", a.OK, a.Error, tt.kind)
			}
			if strings.Contains(a.Error.Message, "s3cret") {
				t.Errorf("message leaks the credential: %q", a.Error.Message)
			}
		})
	}

	t.Run("timeout_ms never extends the call's deadline", func(t *testing.T) {
		opts := open
		opts.Limits = DefaultCallLimits()
		opts.Limits.Deadline = time.Second
		start := time.Now()
		b, _ := json.Marshal(map[string]any{"request": map[string]any{"url": base + "/slow", "timeout_ms": 60000}})
		_, err := p.Call(context.Background(), "http", b, opts)
		var c *CrashError
		if !errors.As(err, &c) || c.Rule != RuleOutOfTime {
			t.Errorf("Call = %v, want out of time", err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("the request outlived the call's 1 s deadline: %s (the server holds it 5 s)", d)
		}
	})
	t.Run("default client refuses loopback", func(t *testing.T) {
		rt, err := New(context.Background(), Config{Engine: testRuntime(t).eng})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := rt.Load(context.Background(), writePackage(t, "everything", nil))
		if err != nil {
			t.Fatal(err)
		}
		defer p2.Close()
		if a := callHTTP(t, p2, map[string]any{"url": base + "/echo"}, open); a.Error == nil || a.Error.Kind != "forbidden_destination" {
			t.Errorf("answer = %+v %+v", a.OK, a.Error)
		}
	})
}

// TestSubakoHTTP_ABI checks the negative results: -1 range outside memory, -2 nothing held,
// -3 length mismatch; a failed read keeps the answer, a successful one drops it.
func TestSubakoHTTP_ABI(t *testing.T) {
	p := loadFixture(t, "everything", nil)
	res, err := p.Call(context.Background(), "abi", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Codes  map[string]int32
		Answer string
	}
	must(t, json.Unmarshal([]byte(res.Content[0].Text), &got))
	want := map[string]int32{"nothing_held": ABINothingHeld, "out_of_range": ABIOutOfBounds, "mismatch": ABILengthMismatch,
		"read_out_of_range": ABIOutOfBounds, "read": 0, "read_again": ABINothingHeld}
	for k, v := range want {
		if got.Codes[k] != v {
			t.Errorf("%s = %d, want %d", k, got.Codes[k], v)
		}
	}
	var a httpAnswer
	if err := json.Unmarshal([]byte(got.Answer), &a); err != nil || a.Error == nil || a.Error.Kind != "host_not_allowed" {
		t.Errorf("answer %q: %v", got.Answer, err)
	}
}

// CallOptions.Send sees every subako_http request of a real ABI 1 package, passes what it
// allows to the policy sender, and its veto (egress.Deny) reaches the guest as the ABI 1 error
// of its kind.
func TestSubakoHTTP_Send(t *testing.T) {
	p, base, client := httpFixtureClient(t)
	host, _, _ := strings.Cut(strings.TrimPrefix(base, "https://"), ":")
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{host}})
	must(t, err)
	next := egress.NewSender(egress.SenderConfig{Client: client, Policy: pol})
	var seen []string
	var seenOpts egress.SendOptions
	audit := func(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
		seen = append(seen, req.Method+" "+req.URL.String())
		seenOpts = opts
		if req.URL.Query().Has("veto") {
			return nil, egress.Deny("refused by the audit")
		}
		return next(ctx, req, opts)
	}
	opts := CallOptions{Send: audit}
	tests := []struct {
		name     string
		req      map[string]any
		kind     string
		message  string
		wantOpts egress.SendOptions
	}{
		{name: "allowed", req: map[string]any{"url": base + "/echo?a=1", "timeout_ms": 5000},
			wantOpts: egress.SendOptions{FollowRedirects: true, Timeout: 5 * time.Second, MaxResponseBytes: InlineMaxBytes}},
		{name: "vetoed", req: map[string]any{"url": base + "/echo?veto=1", "follow_redirects": false},
			kind: "host_not_allowed", message: "refused by the audit", wantOpts: egress.SendOptions{MaxResponseBytes: InlineMaxBytes}},
		{name: "refused by the policy behind it", req: map[string]any{"url": "https://10.0.0.1/"},
			kind: "host_not_allowed", wantOpts: egress.SendOptions{FollowRedirects: true, MaxResponseBytes: InlineMaxBytes}},
		{name: "file output asks for no cap", req: map[string]any{"url": base + "/echo", "output": map[string]any{"type": "file", "path": "/volume/tmp/o"}},
			wantOpts: egress.SendOptions{FollowRedirects: true, MaxResponseBytes: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			a := callHTTP(t, p, tt.req, opts)
			if want := "GET " + tt.req["url"].(string); len(seen) != 1 || seen[0] != want {
				t.Errorf("the sender saw %q, want %q", seen, want)
			}
			if seenOpts != tt.wantOpts {
				t.Errorf("options %+v, want %+v", seenOpts, tt.wantOpts)
			}
			if tt.kind == "" {
				if a.OK == nil || a.OK.Status != 200 {
					t.Fatalf("answer = %+v %+v", a.OK, a.Error)
				}
				return
			}
			if a.Error == nil || a.Error.Kind != tt.kind || !strings.Contains(a.Error.Message, tt.message) {
				t.Fatalf("answer = %+v %+v, want %s %q", a.OK, a.Error, tt.kind, tt.message)
			}
		})
	}
}
