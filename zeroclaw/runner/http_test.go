package runner

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/internal/testhttp"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// fetchToolWasm is the componentize-js fetch() tool of the wasi:http tests, relative to testdata.
const fetchToolWasm = "../../../wasi/preview2/testdata/http/fetch-tool.wasm"

const fetchManifest = `name = "http-fetch"
version = "0.1.0"
wasm_path = "plugin.wasm"
capabilities = ["tool"]
permissions = ["http_client"]
`

func TestToolWasiHTTPEgress(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a 12 MB component")
	}
	ctx := context.Background()
	// The test names resolve to a public address, so the address rules stay fully in force,
	// and the test dialer routes the checked address to the loopback server.
	srv := testhttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "hello "+r.Host+" "+string(b))
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	loop := "https://127.0.0.1:" + itoa(port) + "/"

	h := newHost(t, fixturePlugin{fetchManifest, fetchToolWasm})
	p, _ := h.Plugin("http-fetch")
	scope, err := p.DefaultScope(manifest.CapabilityTool)
	if err != nil {
		t.Fatal(err)
	}
	key := scope.ID.Key()
	for _, tt := range []struct {
		name           string
		hosts, private []string
		url            string
		want           string // body prefix on success, the logged error-code on refusal
		ok             bool
	}{
		{"allowed wildcard", []string{"*.example.com"}, nil, "https://api.example.com/x", "hello api.example.com", true},
		{"not on the allowlist", []string{"*.example.com"}, nil, "https://example.org/x", "HTTP-request-denied", false},
		{"no egress_hosts", nil, nil, "https://api.example.com/x", "HTTP-request-denied", false},
		{"private refused", []string{"127.0.0.1"}, nil, loop, "destination-IP-prohibited", false},
		{"private allowed", []string{"127.0.0.1"}, []string{"127.0.0.1"}, loop, "hello 127.0.0.1", true},
		{"allow_private is not an allowlist", []string{"api.example.com"}, []string{"127.0.0.1"}, loop, "HTTP-request-denied", false},
		{"plain http refused", []string{"*.example.com"}, nil, "http://api.example.com/x", "HTTP-request-denied", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(nil, zeroclaw.EntryConfig{Name: key, EgressHosts: tt.hosts, EgressAllowPrivate: tt.private})
			var log syncBuffer
			rt := openRuntime(t, h, cfg, func(o *Options) {
				o.Egress = srv.Options()
				o.EgressLog = slog.NewTextHandler(&log, nil)
			})
			tool, err := rt.Tool(ctx, "http-fetch")
			if err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(map[string]any{"url": tt.url})
			res, err := tool.Execute(ctx, args)
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if res.Success != tt.ok {
				t.Fatalf("success = %v, want %v: %+v %v", res.Success, tt.ok, res.Output, deref(res.Error))
			}
			if !tt.ok {
				if res.Error == nil || *res.Error == "" {
					t.Fatalf("refused without an error: %+v", res)
				}
				if l := log.String(); !strings.Contains(l, "error-code="+tt.want) {
					t.Fatalf("log %q, want error-code=%s", l, tt.want)
				}
				return
			}
			var out struct {
				Status int    `json:"status"`
				Body   string `json:"body"`
			}
			if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
				t.Fatal(err)
			}
			if out.Status != 200 || !strings.HasPrefix(out.Body, tt.want) || !strings.HasSuffix(out.Body, " ") {
				t.Fatalf("got %d %q, want 200 %q…", out.Status, out.Body, tt.want)
			}
		})
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
