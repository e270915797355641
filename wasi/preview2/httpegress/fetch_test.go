package httpegress_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kobako/kobako/internal/race"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

func fnv1a(b []byte, h uint32) uint32 {
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

const fnvBasis = 2166136261

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// handler is the test server: each path is one behaviour.
func handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Method+" "+r.URL.RequestURI())
		w.Header().Set("X-Echo", r.Header.Get("X-Test"))
		w.Header().Set("X-Connection", r.Header.Get("Connection"))
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "length": len(b), "fnv1a": fnv1a(b, fnvBasis),
			"type": r.Header.Get("Content-Type"), "chunked": r.ContentLength < 0})
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("cl") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.Write(pattern(n))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/slow-head", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
		io.WriteString(w, "late")
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		every, _ := time.ParseDuration(r.URL.Query().Get("every"))
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 200; i++ {
			if _, err := w.Write([]byte{'.'}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(every):
			case <-r.Context().Done():
				return
			}
		}
	})
	return mux
}

type fetchCase struct {
	name  string
	args  map[string]any
	hosts []string
	cfg   httpegress.Config
	check func(t *testing.T, fr fetchResult, codes []string)
}

func wantFailure(code string) func(t *testing.T, fr fetchResult, codes []string) {
	return func(t *testing.T, fr fetchResult, codes []string) {
		t.Helper()
		if fr.Success {
			t.Fatalf("fetch succeeded: %+v", fr)
		}
		if len(codes) == 0 || codes[len(codes)-1] != code {
			t.Fatalf("error-codes %v, want %s last (guest error %v)", codes, code, deref(fr.Error))
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestFetch(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("runs a 12 MB componentize-js component; covered by the run without -race and -short")
	}
	e := newEnv(t, handler(t))
	api := "https://api.example.com"
	cases := []fetchCase{
		{name: "GET", args: map[string]any{"url": api + "/hello?x=1", "headers": map[string]string{"x-test": "abc"}},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || fr.Status != 200 || fr.Body != "hello" || fr.Headers["x-seen"] != "GET /hello?x=1" || fr.Headers["x-echo"] != "abc" {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "POST streamed", args: map[string]any{"url": api + "/echo", "method": "POST", "body": "0123456789abcdef", "repeat": 4096,
			"headers": map[string]string{"content-type": "text/plain"}},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				body := []byte(strings.Repeat("0123456789abcdef", 4096))
				want := fmt.Sprintf(`{"chunked":true,"fnv1a":%d,"length":%d,"method":"POST","type":"text/plain"}`, fnv1a(body, fnvBasis), len(body))
				if !fr.Success || strings.TrimSpace(fr.Body) != want {
					t.Fatalf("got %+v, want body %s", fr, want)
				}
			}},
		{name: "PUT", args: map[string]any{"url": api + "/echo", "method": "PUT", "body": "put body"},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || !strings.Contains(fr.Body, `"length":8`) || !strings.Contains(fr.Body, `"method":"PUT"`) {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "large upload", args: map[string]any{"url": api + "/echo", "method": "POST", "body": strings.Repeat("x", 1024), "repeat": 4096},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || !strings.Contains(fr.Body, `"length":4194304`) {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "large download", args: map[string]any{"url": api + "/big?n=65536", "digest": true},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || fr.Length != 64<<10 || fr.FNV1a != fnv1a(pattern(64<<10), fnvBasis) {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "larger download streamed", args: map[string]any{"url": api + "/big?n=33554432", "digest": "length"},
			cfg: httpegress.Config{MaxResponseBytes: 64 << 20},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || fr.Length != 32<<20 {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "redirect followed by the guest", args: map[string]any{"url": api + "/redirect?to=/hello", "follow": 3},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || fr.Status != 200 || fr.Body != "hello" || fr.Hops != 1 || fr.URL != api+"/hello" {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "redirect to a private address", args: map[string]any{"url": api + "/redirect?to=https://rebind.example.com/hello", "follow": 3},
			hosts: []string{"api.example.com", "rebind.example.com"},
			check: wantFailure("destination-IP-prohibited")},
		{name: "redirect to a host not allowed", args: map[string]any{"url": api + "/redirect?to=https://other.example.com/hello", "follow": 3},
			check: wantFailure("HTTP-request-denied")},
		{name: "redirect not followed", args: map[string]any{"url": api + "/redirect?to=/hello"},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				if !fr.Success || fr.Status != 302 || fr.Headers["location"] != "/hello" {
					t.Fatalf("got %+v", fr)
				}
			}},
		{name: "host not allowed", args: map[string]any{"url": "https://other.example.com/hello"},
			check: wantFailure("HTTP-request-denied")},
		{name: "plain http refused", args: map[string]any{"url": "http://api.example.com/hello"},
			check: wantFailure("HTTP-request-denied")},
		{name: "loopback literal refused", args: map[string]any{"url": "https://127.0.0.1/hello"}, hosts: []string{"*"},
			check: wantFailure("destination-IP-prohibited")},
		{name: "POST with a body to a loopback literal refused", args: map[string]any{"url": "https://127.0.0.1/echo", "method": "POST", "body": "ping"},
			hosts: []string{"*"}, check: wantFailure("destination-IP-prohibited")},
		{name: "POST with a body to a private answer refused", args: map[string]any{"url": "https://rebind.example.com/echo", "method": "POST", "body": "ping"},
			hosts: []string{"*"}, check: wantFailure("destination-IP-prohibited")},
		{name: "POST with a body to a host not allowed", args: map[string]any{"url": "https://other.example.com/echo", "method": "POST", "body": "ping"},
			check: wantFailure("HTTP-request-denied")},
		{name: "rebinding answer refused", args: map[string]any{"url": "https://rebind.example.com/hello"}, hosts: []string{"*"},
			check: wantFailure("destination-IP-prohibited")},
		{name: "mixed answer refused", args: map[string]any{"url": "https://mixed.example.com/hello"}, hosts: []string{"*"},
			check: wantFailure("destination-IP-prohibited")},
		{name: "unknown name", args: map[string]any{"url": "https://nowhere.example.com/hello"}, hosts: []string{"*"},
			check: wantFailure("DNS-error")},
		{name: "response too large", args: map[string]any{"url": api + "/big?n=100000", "digest": true},
			cfg: httpegress.Config{MaxResponseBytes: 1000}, check: wantFailure("HTTP-response-body-size")},
		{name: "response too large declared", args: map[string]any{"url": api + "/big?n=100000&cl=1", "digest": true},
			cfg: httpegress.Config{MaxResponseBytes: 1000}, check: wantFailure("HTTP-response-body-size")},
		{name: "first-byte timeout", args: map[string]any{"url": api + "/slow-head"},
			cfg: httpegress.Config{FirstByteTimeout: 200 * time.Millisecond}, check: wantFailure("connection-read-timeout")},
		{name: "between-bytes timeout", args: map[string]any{"url": api + "/drip?every=1s"},
			cfg: httpegress.Config{BetweenBytesTimeout: 200 * time.Millisecond}, check: wantFailure("connection-read-timeout")},
		{name: "forbidden header", args: map[string]any{"url": api + "/hello", "headers": map[string]string{"connection": "close"}},
			check: func(t *testing.T, fr fetchResult, _ []string) {
				// The JavaScript fetch drops forbidden headers itself, or fails: either way the
				// header never reaches the server.
				if fr.Success && fr.Headers["x-connection"] != "" {
					t.Fatalf("the server saw connection: %q", fr.Headers["x-connection"])
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosts := c.hosts
			if hosts == nil {
				hosts = []string{"api.example.com"}
			}
			send, codes := e.sender(t, c.cfg, hosts...)
			// Generous: the guest is JavaScript interpreted by an interpreter, on a shared machine.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			limits := engine.DefaultLimits()
			limits.Deadline = 2 * time.Minute
			fr, err := runFetch(t, ctx, send, c.args, limits)
			if err != nil {
				t.Fatalf("execute trapped: %v", err)
			}
			c.check(t, fr, *codes)
		})
	}
	if !strings.Contains(e.log.String(), "error-code=destination-IP-prohibited") {
		t.Errorf("refusals were not logged:\n%s", e.log.String())
	}
}

// A response that trickles in past the call's deadline is cut by it: the guest's blocking
// read ends with the deadline and the call traps, instead of waiting for the body.
func TestFetchSlowDripCutByDeadline(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("runs a 12 MB componentize-js component; covered by the run without -race and -short")
	}
	e := newEnv(t, handler(t))
	send, _ := e.sender(t, httpegress.Config{}, "api.example.com")
	limits := engine.DefaultLimits()
	limits.Deadline = 3 * time.Second
	if _, err := compileTool(fetchToolWasm); err != nil { // compile before the clock starts
		t.Fatal(err)
	}
	start := time.Now()
	_, err := runFetch(t, context.Background(), send, map[string]any{"url": "https://api.example.com/drip?every=100ms"}, limits)
	// The deadline ends the call as a deadline trap, or as a host function's refusal carrying
	// the deadline when it passed while the guest waited in poll.
	var trap *engine.Trap
	if !errors.As(err, &trap) || trap.Kind != engine.TrapDeadlineExceeded && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a deadline trap", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("took %v", d)
	}
}

// The fetch tool over a plain transport, without the egress policy: the wasi:http host itself.
func TestFetchToolSmoke(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("compiles a 12 MB component; covered by the run without -race and -short")
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Method+" "+r.URL.Path)
		w.Write([]byte("hello from " + r.Host))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	send := func(ctx context.Context, req *http.Request, _ egress.SendOptions) (*http.Response, error) {
		return srv.Client().Transport.RoundTrip(req)
	}
	fr, err := runFetch(t, context.Background(), send, map[string]any{"url": srv.URL + "/a?b=c"}, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "https://")
	if !fr.Success || fr.Status != 200 || fr.Headers["x-seen"] != "GET /a" || fr.Body != "hello from "+host {
		t.Fatalf("got %+v", fr)
	}
}
