package mcpserve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako"
)

const fixture = "testdata/mcptest"

// The two protocol eras: the initialize handshake and the stateless revision.
var eras = []string{"2025-11-25", "2026-07-28"}

// syncBuffer is a log sink tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testLimits let spin reach its deadline (not its fuel) quickly.
func testLimits(deadline time.Duration) engine.Limits {
	l := subako.DefaultCallLimits()
	l.Deadline, l.Fuel = deadline, engine.MaxFuel
	return l
}

func newServer(t *testing.T, opts Options) (*Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s, logs
}

func fixtureServer(t *testing.T, deadline time.Duration) (*Server, *syncBuffer) {
	return newServer(t, Options{Packages: []PackageSpec{
		{Path: fixture, Call: subako.CallOptions{Limits: testLimits(deadline)}},
		{Path: ExamplePackage},
	}})
}

// connect connects the SDK's client to s in era, over memory or HTTP.
func connect(t *testing.T, s *Server, transport, era string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	var ct mcp.Transport
	switch transport {
	case "memory":
		c, st := mcp.NewInMemoryTransports()
		ss, err := s.MCPServer().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	case "http":
		hs := httptest.NewServer(s.Handler(HTTPOptions{}))
		t.Cleanup(hs.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connect over %s in %s: %v", transport, era, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated %s, want %s", got, era)
	}
	return cs
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return r
}

var wantTools = []string{"hello__greet", "mcptest__crash", "mcptest__echo", "mcptest__fail", "mcptest__json_schema_2020_12_tool",
	"mcptest__picture", "mcptest__spin", "mcptest__test_audio_content", "mcptest__test_embedded_resource",
	"mcptest__test_error_handling", "mcptest__test_image_content", "mcptest__test_multiple_content_types", "mcptest__test_simple_text", "mcptest__test_tool_with_progress"}

// TestServe lists and calls every fixture tool with the SDK's client, in both eras, in process and
// over HTTP.
func TestServe(t *testing.T) {
	s, _ := fixtureServer(t, 2*time.Second)
	for _, transport := range []string{"memory", "http"} {
		for _, era := range eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := connect(t, s, transport, era, nil)
				lt, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range lt.Tools {
					names = append(names, tool.Name)
					if tool.Name == "mcptest__json_schema_2020_12_tool" {
						b, _ := json.Marshal(tool.InputSchema)
						if !bytes.Contains(b, []byte(`"$defs"`)) || !bytes.Contains(b, []byte(`"additionalProperties":false`)) {
							t.Errorf("the schema did not pass through: %s", b)
						}
					}
				}
				if !slices.Equal(names, wantTools) {
					t.Fatalf("tools %q, want %q", names, wantTools)
				}
				testCalls(t, cs)
			})
		}
	}
}

func testCalls(t *testing.T, cs *mcp.ClientSession) {
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	tests := []struct {
		tool    string
		args    any
		isError bool
		check   func(r *mcp.CallToolResult) string
	}{
		{"hello__greet", map[string]any{"name": "Ada"}, false, func(r *mcp.CallToolResult) string { return want(text(r) == "Hello, Ada!", text(r)) }},
		{"mcptest__echo", map[string]any{"a": []any{1.0, "x\"y"}}, false, func(r *mcp.CallToolResult) string {
			b, _ := json.Marshal(r.StructuredContent)
			return want(string(b) == `{"a":[1,"x\"y"]}` && text(r) == `{"a":[1,"x\"y"]}`, string(b)+" "+text(r))
		}},
		{"mcptest__fail", nil, true, func(r *mcp.CallToolResult) string {
			return want(text(r) == "the tool failed on purpose", text(r))
		}},
		{"mcptest__crash", nil, true, func(r *mcp.CallToolResult) string {
			return want(strings.Contains(text(r), "trapped") && strings.Contains(text(r), "oops"), text(r))
		}},
		{"mcptest__spin", nil, true, func(r *mcp.CallToolResult) string {
			return want(strings.Contains(text(r), "ran out of time"), text(r))
		}},
		{"mcptest__picture", nil, false, func(r *mcp.CallToolResult) string {
			img, ok := r.Content[1].(*mcp.ImageContent)
			return want(len(r.Content) == 2 && ok && bytes.Equal(img.Data, png) && img.MIMEType == "image/png", fmt.Sprint(r.Content))
		}},
		{"mcptest__test_simple_text", nil, false, func(r *mcp.CallToolResult) string {
			return want(text(r) == "This is a simple text response for testing.", text(r))
		}},
		{"mcptest__test_image_content", nil, false, func(r *mcp.CallToolResult) string {
			img, ok := r.Content[0].(*mcp.ImageContent)
			return want(ok && bytes.Equal(img.Data, png), fmt.Sprint(r.Content))
		}},
		{"mcptest__test_audio_content", nil, false, func(r *mcp.CallToolResult) string {
			a, ok := r.Content[0].(*mcp.AudioContent)
			return want(ok && a.MIMEType == "audio/wav" && len(a.Data) == 52, fmt.Sprint(r.Content))
		}},
		{"mcptest__test_embedded_resource", nil, false, func(r *mcp.CallToolResult) string {
			e, ok := r.Content[0].(*mcp.EmbeddedResource)
			return want(ok && e.Resource.URI == "test://embedded-resource" && e.Resource.Text == "This is an embedded resource content.", fmt.Sprint(r.Content))
		}},
		{"mcptest__test_multiple_content_types", nil, false, func(r *mcp.CallToolResult) string {
			return want(len(r.Content) == 3, fmt.Sprint(r.Content))
		}},
		{"mcptest__test_error_handling", nil, true, func(r *mcp.CallToolResult) string {
			return want(text(r) == "This tool intentionally returns an error for testing", text(r))
		}},
		{"mcptest__json_schema_2020_12_tool", map[string]any{"name": "x"}, false, func(r *mcp.CallToolResult) string {
			return want(text(r) == `{"name":"x"}`, text(r))
		}},
	}
	for _, tt := range tests {
		r := call(t, cs, tt.tool, tt.args)
		if r.IsError != tt.isError {
			t.Errorf("%s: isError %v, want %v (%s)", tt.tool, r.IsError, tt.isError, text(r))
			continue
		}
		if msg := tt.check(r); msg != "" {
			t.Errorf("%s: unexpected result: %s", tt.tool, msg)
		}
	}
}

func want(ok bool, got string) string {
	if ok {
		return ""
	}
	return got
}

// TestConcurrentCalls runs 32 calls at once in each era and transport; each gets its own
// instance, so every answer is its own arguments.
func TestConcurrentCalls(t *testing.T) {
	s, _ := fixtureServer(t, 30*time.Second)
	for _, transport := range []string{"memory", "http"} {
		for _, era := range eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := connect(t, s, transport, era, nil)
				callConcurrently(t, 32, func(i int) error {
					r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcptest__echo", Arguments: map[string]int{"n": i}})
					if err == nil && text(r) != fmt.Sprintf(`{"n":%d}`, i) {
						err = fmt.Errorf("call %d answered %q", i, text(r))
					}
					return err
				})
			})
		}
	}
}

// TestCancel cancels a call of a tool that never ends: the guest must stop at once (well before
// its 60 s deadline), in both eras and transports, and the server must go on serving.
func TestCancel(t *testing.T) {
	s, logs := fixtureServer(t, 60*time.Second)
	for _, transport := range []string{"memory", "http"} {
		for _, era := range eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := connect(t, s, transport, era, nil)
				before := strings.Count(logs.String(), `msg="call canceled" tool=mcptest__spin`)
				ctx, cancel := context.WithCancel(context.Background())
				start := time.Now()
				time.AfterFunc(300*time.Millisecond, cancel)
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcptest__spin"})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
				// The guest's end is logged when its instance stops.
				for strings.Count(logs.String(), `msg="call canceled" tool=mcptest__spin`) == before {
					if time.Since(start) > 20*time.Second {
						t.Fatalf("the guest was not stopped 20 s after the cancellation; log:\n%s", logs)
					}
					time.Sleep(20 * time.Millisecond)
				}
				if r := call(t, cs, "mcptest__test_simple_text", nil); r.IsError {
					t.Fatal(text(r))
				}
			})
		}
	}
}

// TestSkippedSources: a package that does not load or whose discovery fails is left out with a
// warning naming why; the others are served.
func TestSkippedSources(t *testing.T) {
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, subako.ManifestFile), []byte(`{"abi":2,"name":"x"}`), 0o644)
	s, logs := newServer(t, Options{Packages: []PackageSpec{{Path: filepath.Join(t.TempDir(), "missing")}, {Path: broken}, {Path: ExamplePackage}}})
	if got := s.Tools(); len(got) != 1 || got[0].Name != "hello__greet" {
		t.Fatalf("tools %v", got)
	}
	w := s.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "missing") || !strings.Contains(w[1], "ABI 1 only") {
		t.Fatalf("warnings %q", w)
	}
	if !strings.Contains(logs.String(), "skipped package") {
		t.Fatalf("log %s", logs)
	}
}

func TestCollision_Errors(t *testing.T) {
	_, err := New(context.Background(), Options{Packages: []PackageSpec{{Path: ExamplePackage}, {Path: ExamplePackage}}})
	if !errors.Is(err, ErrCollision) || strings.Count(err.Error(), `tool "greet" of package "hello" (example)`) != 2 {
		t.Fatalf("err = %v", err)
	}
	// Renaming one of them resolves it.
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}, {Path: ExamplePackage, Name: "other"}}})
	if got := s.Tools(); len(got) != 2 || got[0].Name != "hello__greet" || got[1].Name != "other__greet" {
		t.Fatalf("tools %v", got)
	}
}

// TestWatch changes a package under a running server: the tools are reloaded and clients of both
// eras told with notifications/tools/list_changed.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{subako.ManifestFile, subako.ModuleFile} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: dir}}, ListChanged: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, 50*time.Millisecond)
	changed := make(chan string, 4)
	sessions := map[string]*mcp.ClientSession{}
	for _, era := range eras {
		sessions[era] = connect(t, s, "memory", era, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- era }})
	}
	time.Sleep(200 * time.Millisecond) // let the 2026-07-28 client's subscription settle
	os.WriteFile(filepath.Join(dir, subako.ManifestFile), []byte(`{"abi":1,"name":"renamed"}`), 0o644)
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case era := <-changed:
			got[era] = true
		case <-time.After(20 * time.Second):
			t.Fatalf("list_changed reached only %v", got)
		}
	}
	for era, cs := range sessions {
		lt, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(lt.Tools) != 13 || lt.Tools[0].Name != "renamed__crash" {
			t.Fatalf("%s: after the reload: %v %v", era, lt, err)
		}
		if r := call(t, cs, "renamed__test_simple_text", nil); r.IsError {
			t.Fatal(text(r))
		}
	}
}

// callConcurrently runs call(0) … call(n-1) at once and reports every error, so that a failure of
// one call does not hide the others.
func callConcurrently(t *testing.T, n int, call func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := call(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
