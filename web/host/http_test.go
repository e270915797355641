package host

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kobako/kobako/internal/race"
	"github.com/kobako/kobako/internal/testhttp"
)

// fetchTool is the componentize-js fetch() tool of the wasi:http tests: it fetches args.url and
// answers {status, body}.
const fetchTool = "../../wasi/preview2/testdata/http/fetch-tool.wasm"

const fetchManifest = `name = "http-fetch"
version = "0.1.0"
wasm_path = "plugin.wasm"
capabilities = ["tool"]
permissions = ["http_client"]
`

// TestPluginWasiHTTP: a plugin's wasi:http reaches the hosts the call allows, as a native host's
// [[plugins.entries]] egress_hosts, and nothing without them; the browser build sends the same
// requests through fetch (web/serve's TestBrowser).
func TestPluginWasiHTTP(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("compiles a 12 MB component (minutes under the race detector; zeroclaw/runner's wasi:http tests cover the same code there)")
	}
	ctx := context.Background()
	// The test names resolve to a public address, so the address rules stay in force, and the
	// test dialer routes the checked address to the loopback server.
	srv := testhttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "hello "+r.Host+" "+string(b))
	}))
	h, err := New(ctx, Config{Dir: t.TempDir(), Egress: srv.Options()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	p, err := h.OpenPlugin(ctx, fetchManifest, readFile(t, fetchTool))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		hosts []string
		url   string
		want  string // the body's prefix on success, a log record's text on refusal
		ok    bool
	}{
		{"allowed", []string{"*.example.com"}, "https://api.example.com/x", "hello api.example.com", true},
		{"not on the allowlist", []string{"*.example.com"}, "https://example.org/x", "HTTP-request-denied", false},
		{"no allowlist", nil, "https://api.example.com/x", "HTTP-request-denied", false},
		{"allowed again, from the runtime kept for these hosts", []string{"*.example.com"}, "https://api.example.com/y", "hello api.example.com", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"url": tt.url})
			res, err := p.Call(ctx, p.Tools()[0].Name, args, CallOptions{AllowHosts: tt.hosts})
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Success bool   `json:"success"`
				Output  string `json:"output"`
			}
			if err := json.Unmarshal(res.Result, &out); err != nil {
				t.Fatal(err)
			}
			if out.Success != tt.ok {
				t.Fatalf("success = %v, want %v: %s", out.Success, tt.ok, res.Result)
			}
			if tt.ok {
				var body struct {
					Status int    `json:"status"`
					Body   string `json:"body"`
				}
				if err := json.Unmarshal([]byte(out.Output), &body); err != nil || body.Status != 200 || !strings.HasPrefix(body.Body, tt.want) {
					t.Fatalf("output %s, want 200 %q…", out.Output, tt.want)
				}
				return
			}
			logs, _ := json.Marshal(res.Logs)
			if !strings.Contains(string(logs), tt.want) {
				t.Fatalf("logs %s, want one naming %s", logs, tt.want)
			}
		})
	}
}
