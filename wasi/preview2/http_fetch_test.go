package preview2_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
)

const fetchToolWasm = "testdata/http/fetch-tool.wasm"

// The fetch tool is compiled once per test binary: compiling 12 MB of component takes a while.
var fetchTool = sync.OnceValues(func() (compiledTool, error) {
	wasm, err := os.ReadFile(fetchToolWasm)
	if err != nil {
		return compiledTool{}, err
	}
	e, err := engine.New(context.Background(), engine.Config{})
	if err != nil {
		return compiledTool{}, err
	}
	cc, err := component.Compile(context.Background(), e, wasm)
	return compiledTool{e, cc}, err
})

type compiledTool struct {
	e  *engine.Engine
	cc *component.Compiled
}

// fetchResult is what the fetch tool's execute reports.
type fetchResult struct {
	Success bool
	Output  string
	Error   *string
	// decoded Output
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Length  int64             `json:"length"`
	FNV1a   uint32            `json:"fnv1a"`
}

// runFetch instantiates the fetch tool with wasi:http sending through send and calls execute
// with args.
func runFetch(t *testing.T, ctx context.Context, send preview2.HTTPSender, args any, limits engine.Limits) (fetchResult, error) {
	t.Helper()
	tool, err := fetchTool()
	if err != nil {
		t.Fatal(err)
	}
	cc := tool.cc
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	// zeroclaw:plugin/logging and secrets: the tool never calls them.
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
		t.Fatal(err)
	}
	s, err := tool.e.NewStore(ctx, limits)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if _, err := preview2.Bind(s, preview2.Config{HTTP: preview2.HTTPConfig{Send: send}}); err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	a, _ := json.Marshal(args)
	res, err := in.Call(ctx, "zeroclaw:plugin/tool@0.1.0#execute", abi.StringValue(string(a)))
	if err != nil {
		return fetchResult{}, err
	}
	var fr fetchResult
	r := res[0]
	if r.IsErr() {
		t.Fatalf("execute failed: %v", r)
	}
	rec := r.Payload()
	fields := rec.Elems()
	fr.Success = fields[0].Bool()
	fr.Output = fields[1].Str()
	if fields[2].IsSome() {
		s := fields[2].Payload().Str()
		fr.Error = &s
	}
	if fr.Success {
		if err := json.Unmarshal([]byte(fr.Output), &fr); err != nil {
			t.Fatalf("output %q: %v", fr.Output, err)
		}
	}
	return fr, nil
}

func TestFetchToolSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a 12 MB component")
	}
	srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Method+" "+r.URL.Path)
		w.Write([]byte("hello from " + r.Host))
	}))
	send := func(ctx context.Context, req *http.Request, _ preview2.RequestOptions) (*http.Response, error) {
		return srv.Client().Transport.RoundTrip(req)
	}
	fr, err := runFetch(t, context.Background(), send, map[string]any{"url": srv.URL + "/a?b=c"}, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", fr)
	if !fr.Success || fr.Status != 200 || fr.Headers["x-seen"] != "GET /a" {
		t.Fatalf("got %+v", fr)
	}
}

func newTLSServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}
