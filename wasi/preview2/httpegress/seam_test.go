package httpegress_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/testhttp"
)

// An embedder's egress.Sender, the type subako.CallOptions.Send takes too, is wasi:http's
// sender as it is: it sees every request, passes what it allows to the policy sender, and its
// veto (egress.Deny) reaches the guest as HTTP-request-denied.
func TestSharedSender(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3 MB Go component")
	}
	e := envOf(testhttp.NewServer(t, goHandler(t)))
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	client := egress.NewClient(e.opts)
	t.Cleanup(client.CloseIdleConnections)
	next := egress.NewSender(egress.SenderConfig{Client: client, Policy: pol})
	var mu sync.Mutex
	var seen []string
	audit := func(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
		mu.Lock()
		seen = append(seen, req.Method+" "+req.URL.String())
		mu.Unlock()
		if strings.Contains(req.URL.RawQuery, "veto") {
			return nil, egress.Deny("refused by the audit")
		}
		return next(ctx, req, opts)
	}
	tests := []struct {
		name, url, failed string
	}{
		{"allowed", "https://api.example.com/hello?x=1", ""},
		{"vetoed", "https://api.example.com/hello?veto=1", "response: HTTP-request-denied"},
		{"refused by the policy behind the audit", "https://10.0.0.1/hello", "response: HTTP-request-denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			limits := engine.DefaultLimits()
			limits.Deadline = time.Minute
			tr, err := runTool(t, ctx, goClientWasm, audit, map[string]any{"url": tt.url}, limits)
			if err != nil {
				t.Fatalf("execute trapped: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 1 || seen[0] != "GET "+tt.url {
				t.Errorf("the sender saw %q, want one GET %s", seen, tt.url)
			}
			if tt.failed == "" {
				var got goResult
				if !tr.Success || json.Unmarshal([]byte(tr.Output), &got) != nil || got.Status != 200 || got.Body != "hello" {
					t.Fatalf("got success=%v output=%q error=%q", tr.Success, tr.Output, deref(tr.Error))
				}
				return
			}
			if tr.Success || deref(tr.Error) != tt.failed {
				t.Fatalf("got success=%v error=%q, want error %q", tr.Success, deref(tr.Error), tt.failed)
			}
		})
	}
}
