package httpegress_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

const fetchToolWasm = "../testdata/http/fetch-tool.wasm"

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
	Hops    int               `json:"hops"`
	URL     string            `json:"url"`
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

func newTLSServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// publicIP is where the fake resolver sends the test names: a public address, so the address
// rules are fully in force, which the test dialer then routes to the loopback server.
var publicIP = netip.MustParseAddr("93.184.216.34")

// fakeResolver answers from a table; the n-th lookup of a name gets the n-th answer (the last
// repeating), which is how DNS rebinding is simulated.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	as, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := min(r.calls[host], len(as)-1)
	r.calls[host]++
	return as[n], nil
}

// env is a loopback TLS server reachable as api.example.com (and whatever else resolves to
// publicIP) through a test-only dialer, with a sender over it.
type env struct {
	srv      *httptest.Server
	resolver *fakeResolver
	opts     egress.Options
	log      *logBuffer
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
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	r := &fakeResolver{answers: map[string][][]netip.Addr{
		"api.example.com":    {{publicIP}},
		"other.example.com":  {{publicIP}},
		"rebind.example.com": {{netip.MustParseAddr("10.1.2.3")}},
		"mixed.example.com":  {{publicIP, netip.MustParseAddr("127.0.0.1")}},
	}, calls: map[string]int{}}
	addr := srv.Listener.Addr().String()
	e := &env{srv: srv, resolver: r, log: &logBuffer{}}
	e.opts = egress.Options{Resolver: r, RootCAs: pool,
		UnsafeDialIP: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}}
	return e
}

// sender returns a sender allowing hosts, recording the error-code of every failed request.
func (e *env) sender(t *testing.T, cfg httpegress.Config, hosts ...string) (preview2.HTTPSender, *[]string) {
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
	return func(ctx context.Context, req *http.Request, opts preview2.RequestOptions) (*http.Response, error) {
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

var _ = json.Marshal
var _ abi.Value

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
