package httpegress_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/testhttp"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

// goResult is what the Go wasi:http client (../testdata/http/goclient.wasm) reports.
type goResult struct {
	Status   int          `json:"status"`
	Headers  [][2]string  `json:"headers"`
	Trailers *[][2]string `json:"trailers"`
	Body     string       `json:"body"`
	Length   int          `json:"length"`
	FNV1a    uint32       `json:"fnv1a"`
	Hops     int          `json:"hops"`
	URL      string       `json:"url"`
}

// header returns the values of name in h, in order.
func (r goResult) header(name string) []string {
	var vs []string
	for _, kv := range r.Headers {
		if kv[0] == name {
			vs = append(vs, kv[1])
		}
	}
	return vs
}

// goHandler adds to handler the paths only the Go client can exercise: request headers and
// trailers echoed back, and response trailers.
func goHandler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", handler(t))
	mux.HandleFunc("/fields", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Trailer", "X-Body-Fnv1a, X-Request-Trailer")
		w.Header().Set("X-Reply", "one")
		w.Header().Add("X-Reply", "two")
		w.WriteHeader(201)
		fmt.Fprintf(w, "%s %s x-test=%q x-multi=%q body=%d", r.Method, r.URL.RequestURI(), r.Header.Get("X-Test"),
			r.Header.Values("X-Multi"), len(b))
		w.Header().Set("X-Body-Fnv1a", fmt.Sprint(fnv1a(b, fnvBasis)))
		w.Header().Set("X-Request-Trailer", r.Trailer.Get("X-Checksum"))
	})
	return mux
}

type goCase struct {
	name   string
	args   map[string]any
	hosts  []string
	cfg    httpegress.Config
	http1  bool                // the server speaks HTTP/1.1 only
	want   goResult            // on success; Headers lists only the fields checked
	failed string              // the guest's error on refusal: "<step>: <reason>"
	codes  []string            // error-codes the sender returned, in order
	dialed int                 // connections the test dialer made, when not 0
	check  func(goResult) bool // extra exact checks of a success
}

// TestGoClient drives the Go wasi:http client (standard Go, bindings written by hand) through the
// egress sender to the loopback TLS server: every case asserts the guest's whole answer.
func TestGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3 MB Go component")
	}
	api := "https://api.example.com"
	upload := strings.Repeat("0123456789abcdef", 64) // 1 KiB, sent 4096 times: 4 MiB
	upBody := []byte(strings.Repeat(upload, 4096))
	echo := func(method string, body []byte, typ string) string {
		b, _ := json.Marshal(map[string]any{"method": method, "length": len(body), "fnv1a": fnv1a(body, fnvBasis),
			"type": typ, "chunked": true})
		return string(b) + "\n"
	}
	noTrailers := &[][2]string{}
	cases := []goCase{
		{name: "GET", args: map[string]any{"url": api + "/hello?x=1", "headers": [][2]string{{"x-test", "abc"}}},
			want: goResult{Status: 200, Body: "hello", Length: 5, FNV1a: fnv1a([]byte("hello"), fnvBasis), URL: api + "/hello?x=1",
				Headers: [][2]string{{"x-seen", "GET /hello?x=1"}, {"x-echo", "abc"}, {"content-length", "5"}}}},
		{name: "POST streamed in small writes", args: map[string]any{"url": api + "/echo", "method": "POST", "body": "0123456789abcdef",
			"repeat": 4096, "chunk": 7, "headers": [][2]string{{"content-type", "text/plain"}}},
			want: goResult{Status: 200, Body: echo("POST", []byte(strings.Repeat("0123456789abcdef", 4096)), "text/plain"), URL: api + "/echo"}},
		{name: "PUT", args: map[string]any{"url": api + "/echo", "method": "PUT", "body": "put body"},
			want: goResult{Status: 200, Body: echo("PUT", []byte("put body"), ""), URL: api + "/echo"}},
		{name: "DELETE without a body", args: map[string]any{"url": api + "/echo", "method": "DELETE"},
			check: func(r goResult) bool { return strings.Contains(r.Body, `"length":0,"method":"DELETE"`) },
			want:  goResult{Status: 200, URL: api + "/echo"}},
		{name: "large upload", args: map[string]any{"url": api + "/echo", "method": "POST", "body": upload, "repeat": 4096},
			want: goResult{Status: 200, Body: echo("POST", upBody, ""), URL: api + "/echo"}},
		{name: "large download", args: map[string]any{"url": api + "/big?n=4194304", "digest": true},
			want: goResult{Status: 200, Length: 4 << 20, FNV1a: fnv1a(pattern(4<<20), fnvBasis), URL: api + "/big?n=4194304"}},
		// Over HTTP/2 the guest's request trailers go out undeclared (the host learns them only at
		// finish, after the request's header section has gone, and a guest cannot send a
		// "trailer" field), and Go's HTTP/2 server drops undeclared trailers.
		{name: "request headers and trailers, response headers and trailers, HTTP/2",
			args: map[string]any{"url": api + "/fields?q=1", "method": "POST", "body": "abc",
				"headers":  [][2]string{{"x-test", "t1"}, {"x-multi", "a"}, {"x-multi", "b"}},
				"trailers": [][2]string{{"x-checksum", "c0ffee"}}},
			want: goResult{Status: 201, Body: `POST /fields?q=1 x-test="t1" x-multi=["a" "b"] body=3`, URL: api + "/fields?q=1",
				Headers:  [][2]string{{"x-reply", "one"}, {"x-reply", "two"}},
				Trailers: &[][2]string{{"x-body-fnv1a", fmt.Sprint(fnv1a([]byte("abc"), fnvBasis))}, {"x-request-trailer", ""}}}},
		{name: "request headers and trailers, response headers and trailers, HTTP/1.1", http1: true,
			args: map[string]any{"url": api + "/fields?q=1", "method": "POST", "body": "abc",
				"headers":  [][2]string{{"x-test", "t1"}, {"x-multi", "a"}, {"x-multi", "b"}},
				"trailers": [][2]string{{"x-checksum", "c0ffee"}}},
			want: goResult{Status: 201, Body: `POST /fields?q=1 x-test="t1" x-multi=["a" "b"] body=3`, URL: api + "/fields?q=1",
				Headers:  [][2]string{{"x-reply", "one"}, {"x-reply", "two"}},
				Trailers: &[][2]string{{"x-body-fnv1a", fmt.Sprint(fnv1a([]byte("abc"), fnvBasis))}, {"x-request-trailer", "c0ffee"}}}},
		{name: "large upload over HTTP/1.1", http1: true,
			args: map[string]any{"url": api + "/echo", "method": "POST", "body": upload, "repeat": 4096},
			want: goResult{Status: 200, Body: echo("POST", upBody, ""), URL: api + "/echo"}},
		{name: "redirect followed, each hop checked", args: map[string]any{"url": api + "/redirect?to=/hello", "follow": 3},
			want: goResult{Status: 200, Body: "hello", Hops: 1, URL: api + "/hello"}, dialed: 1},
		{name: "redirect across hosts followed", args: map[string]any{"url": api + "/redirect?to=https://other.example.com/hello", "follow": 3},
			hosts: []string{"api.example.com", "other.example.com"},
			want:  goResult{Status: 200, Body: "hello", Hops: 1, URL: "https://other.example.com/hello"}, dialed: 2},
		{name: "redirect not followed", args: map[string]any{"url": api + "/redirect?to=/hello"},
			want:  goResult{Status: 302, URL: api + "/redirect?to=/hello", Headers: [][2]string{{"location", "/hello"}}},
			check: func(r goResult) bool { return strings.Contains(r.Body, "Found") }},
		{name: "redirect to a host not allowed", args: map[string]any{"url": api + "/redirect?to=https://other.example.com/hello", "follow": 3},
			failed: "response: HTTP-request-denied", codes: []string{"HTTP-request-denied"}},
		{name: "redirect to a private address", args: map[string]any{"url": api + "/redirect?to=https://rebind.example.com/hello", "follow": 3},
			hosts: []string{"api.example.com", "rebind.example.com"}, failed: "response: destination-IP-prohibited", codes: []string{"destination-IP-prohibited"}},
		{name: "loopback literal refused", args: map[string]any{"url": "https://127.0.0.1/hello"}, hosts: []string{"*"},
			failed: "response: destination-IP-prohibited", codes: []string{"destination-IP-prohibited"}},
		{name: "private answer refused", args: map[string]any{"url": "https://rebind.example.com/echo", "method": "POST", "body": "ping"},
			hosts: []string{"*"}, failed: "response: destination-IP-prohibited", codes: []string{"destination-IP-prohibited"}},
		{name: "host not allowed", args: map[string]any{"url": "https://other.example.com/hello"},
			failed: "response: HTTP-request-denied", codes: []string{"HTTP-request-denied"}},
		{name: "plain http refused", args: map[string]any{"url": "http://api.example.com/hello"},
			failed: "response: HTTP-request-denied", codes: []string{"HTTP-request-denied"}},
		{name: "forbidden header", args: map[string]any{"url": api + "/hello", "headers": [][2]string{{"connection", "close"}}},
			failed: "header: forbidden"},
		{name: "invalid header name", args: map[string]any{"url": api + "/hello", "headers": [][2]string{{"bad name", "x"}}},
			failed: "header: invalid-syntax"},
		{name: "invalid method", args: map[string]any{"url": api + "/hello", "method": "BAD METHOD"},
			failed: "set-method: rejected"},
		{name: "method the policy refuses", args: map[string]any{"url": api + "/hello", "method": "TRACE"},
			failed: "response: HTTP-request-method-invalid", codes: []string{"HTTP-request-method-invalid"}},
		{name: "invalid scheme", args: map[string]any{"url": api + "/hello", "scheme": "ht tp"},
			failed: "set-scheme: rejected"},
		{name: "other scheme", args: map[string]any{"url": "ftp://api.example.com/hello"},
			failed: "handle: HTTP-request-URI-invalid"},
		{name: "invalid authority", args: map[string]any{"url": api + "/hello", "authority": "api.example.com:99999"},
			failed: "set-authority: rejected"},
		{name: "invalid path", args: map[string]any{"url": api + "/hello", "path": "/a b"},
			failed: "set-path-with-query: rejected"},
		{name: "first-byte timeout from request-options", args: map[string]any{"url": api + "/slow-head", "first_byte_timeout_ms": 200},
			failed: "response: connection-read-timeout", codes: []string{"connection-read-timeout"}},
		{name: "between-bytes timeout from request-options", args: map[string]any{"url": api + "/drip?every=1s", "between_bytes_timeout_ms": 200},
			failed: "body-read: connection-read-timeout", codes: []string{"connection-read-timeout"}},
		{name: "response too large", args: map[string]any{"url": api + "/big?n=100000", "digest": true},
			cfg: httpegress.Config{MaxResponseBytes: 1000}, failed: "body-read: HTTP-response-body-size", codes: []string{"HTTP-response-body-size"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := testhttp.NewServer
			if c.http1 {
				srv = testhttp.NewHTTP1Server
			}
			e := envOf(srv(t, goHandler(t)))
			hosts := c.hosts
			if hosts == nil {
				hosts = []string{"api.example.com"}
			}
			send, codes := e.sender(t, c.cfg, hosts...)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			limits := engine.DefaultLimits()
			limits.Deadline = time.Minute
			tr, err := runTool(t, ctx, goClientWasm, send, c.args, limits)
			if err != nil {
				t.Fatalf("execute trapped: %v", err)
			}
			if !equalCodes(*codes, c.codes) {
				t.Errorf("error-codes %q, want %q", *codes, c.codes)
			}
			if c.failed != "" {
				if tr.Success || tr.Error == nil || *tr.Error != c.failed {
					t.Fatalf("got success=%v output=%q error=%q, want error %q", tr.Success, tr.Output, deref(tr.Error), c.failed)
				}
				return
			}
			if !tr.Success {
				t.Fatalf("failed: %s", deref(tr.Error))
			}
			var got goResult
			if err := json.Unmarshal([]byte(tr.Output), &got); err != nil {
				t.Fatalf("output %q: %v", tr.Output, err)
			}
			if c.dialed != 0 && len(e.srv.Dialed()) != c.dialed {
				t.Errorf("dialled %q, want %d connections", e.srv.Dialed(), c.dialed)
			}
			for _, kv := range c.want.Headers {
				if vs := got.header(kv[0]); !contains(vs, kv[1]) {
					t.Errorf("response header %s = %q, want %q among them", kv[0], vs, kv[1])
				}
			}
			if c.check != nil {
				if !c.check(got) {
					t.Errorf("check failed: %+v", got)
				}
				got.Body = c.want.Body
			}
			want := c.want
			if want.Length == 0 && want.Body != "" {
				want.Length, want.FNV1a = len(want.Body), fnv1a([]byte(want.Body), fnvBasis)
			}
			if want.Length == 0 && c.check != nil {
				want.Length, want.FNV1a = got.Length, got.FNV1a // checked by c.check
			}
			if want.FNV1a == 0 {
				want.FNV1a = fnvBasis
			}
			if want.Trailers == nil {
				want.Trailers = noTrailers
			}
			got.Headers, want.Headers = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v trailers %q\nwant %+v trailers %q", got, *got.Trailers, want, *want.Trailers)
			}
		})
	}
}

func equalCodes(got, want []string) bool {
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	return reflect.DeepEqual(got, want)
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
