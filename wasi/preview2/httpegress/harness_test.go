package httpegress_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/testhttp"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

const (
	fetchToolWasm = "../testdata/http/fetch-tool.wasm"
	goClientWasm  = "../testdata/http/goclient.wasm"
)

// compiled holds each tool component compiled once per test binary: compiling the 12 MB
// componentize-js one takes a while.
var compiled sync.Map // path -> func() (compiledTool, error)

func compileTool(path string) (compiledTool, error) {
	f, _ := compiled.LoadOrStore(path, sync.OnceValues(func() (compiledTool, error) {
		wasm, err := os.ReadFile(path)
		if err != nil {
			return compiledTool{}, err
		}
		e, err := engine.New(context.Background(), engine.Config{})
		if err != nil {
			return compiledTool{}, err
		}
		cc, err := component.Compile(context.Background(), e, wasm)
		return compiledTool{e, cc}, err
	}))
	return f.(func() (compiledTool, error))()
}

type compiledTool struct {
	e  *engine.Engine
	cc *component.Component
}

// toolResult is a ZeroClaw tool-result.
type toolResult struct {
	Success bool
	Output  string
	Error   *string
}

// runTool instantiates the tool component at path with wasi:http sending through send and calls
// its execute with args marshalled to JSON. An err result of execute fails the test; a trap is
// returned.
func runTool(t *testing.T, ctx context.Context, path string, send egress.Sender, args any, limits engine.Limits) (toolResult, error) {
	t.Helper()
	tool, err := compileTool(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	// zeroclaw:plugin/logging and secrets: the tools never call them.
	if err := l.DefineUnknownImportsAsTraps(tool.cc); err != nil {
		t.Fatal(err)
	}
	s, err := tool.e.NewStore(ctx, limits)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	var stderr logBuffer
	if _, err := preview2.Bind(s, preview2.Config{Stderr: &stderr}, preview2.WithHTTP(preview2.HTTPConfig{Send: send})); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if s := stderr.String(); s != "" {
			t.Logf("guest stderr:\n%s", s)
		}
	}()
	in, err := l.Instantiate(ctx, s, tool.cc)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Call(ctx, "zeroclaw:plugin/tool@0.1.0#execute", abi.StringValue(string(a)))
	if err != nil {
		return toolResult{}, err
	}
	r := res[0]
	if r.IsErr() {
		t.Fatalf("execute failed: %v", r)
	}
	fields := r.Payload().Elems()
	tr := toolResult{Success: fields[0].Bool(), Output: fields[1].Str()}
	if fields[2].IsSome() {
		s := fields[2].Payload().Str()
		tr.Error = &s
	}
	return tr, nil
}

// fetchResult is what the fetch tool's execute reports.
type fetchResult struct {
	toolResult
	// decoded Output
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Hops    int               `json:"hops"`
	URL     string            `json:"url"`
	Length  int64             `json:"length"`
	FNV1a   uint32            `json:"fnv1a"`
}

// runFetch runs the componentize-js fetch tool (../testdata/http/fetch-tool.wasm).
func runFetch(t *testing.T, ctx context.Context, send egress.Sender, args any, limits engine.Limits) (fetchResult, error) {
	t.Helper()
	tr, err := runTool(t, ctx, fetchToolWasm, send, args, limits)
	if err != nil {
		return fetchResult{}, err
	}
	fr := fetchResult{toolResult: tr}
	if fr.Success {
		if err := json.Unmarshal([]byte(fr.Output), &fr); err != nil {
			t.Fatalf("output %q: %v", fr.Output, err)
		}
	}
	return fr, nil
}

// env is the loopback TLS server of package testhttp, reachable as api.example.com (and the
// other names of testhttp.Names) through its test-only dialer, with a sender over it.
type env struct {
	srv  *testhttp.Server
	opts egress.Options
	log  *logBuffer
}

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newEnv(t *testing.T, h http.Handler) *env {
	t.Helper()
	return envOf(testhttp.NewServer(t, h))
}

func envOf(srv *testhttp.Server) *env {
	return &env{srv: srv, opts: srv.Options(), log: &logBuffer{}}
}

// sender returns a sender allowing hosts, recording the error-code of every failed request.
func (e *env) sender(t *testing.T, cfg httpegress.Config, hosts ...string) (egress.Sender, *[]string) {
	t.Helper()
	if cfg.Policy == nil {
		p, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: hosts})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Policy = p
	}
	if cfg.Client == nil {
		cfg.Client = egress.NewClient(e.opts)
		t.Cleanup(cfg.Client.CloseIdleConnections)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(e.log, nil))
	s := httpegress.New(cfg)
	var mu sync.Mutex
	codes := &[]string{}
	return func(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
		resp, err := s.Send(ctx, req, opts)
		if err != nil {
			mu.Lock()
			*codes = append(*codes, preview2.ErrorCodeOf(err).Kind.String())
			mu.Unlock()
			return nil, err
		}
		resp.Body = &recordBody{ReadCloser: resp.Body, codes: codes, mu: &mu}
		return resp, nil
	}, codes
}

type recordBody struct {
	io.ReadCloser
	codes *[]string
	mu    *sync.Mutex
}

func (b *recordBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.mu.Lock()
		*b.codes = append(*b.codes, preview2.ErrorCodeOf(err).Kind.String())
		b.mu.Unlock()
	}
	return n, err
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
