package bench

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

// The wasi:http benchmarks move 1 MiB each way between a loopback TLS server and either a
// componentize-js guest calling fetch() through wasi:http and the egress policy
// (client=wasi-http), or Go's net/http client in the host (client=net-http), side by side in
// one run; and time a small GET to first byte through the default sender (egress policy, its
// dialler and checks) against a plain net/http transport, without a guest.
const fetchTool = "../wasi/preview2/testdata/http/fetch-tool.wasm"

const httpBenchSize = 1 << 20

// benchResolver sends every name to one public address, which the dialler routes to the
// loopback server: the address rules run in full.
type benchResolver struct{}

func (benchResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

func httpBenchServer(b *testing.B) (*httptest.Server, egress.Options) {
	b.Helper()
	body := bytes.Repeat([]byte("0123456789abcdef"), httpBenchSize/16)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		case "/up":
			n, _ := io.Copy(io.Discard, r.Body)
			io.WriteString(w, strconv.FormatInt(n, 10))
		default:
			io.WriteString(w, "ok")
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	b.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	addr := srv.Listener.Addr().String()
	return srv, egress.Options{Resolver: benchResolver{}, RootCAs: pool,
		UnsafeDialIP: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}}
}

func BenchmarkHTTP(b *testing.B) {
	srv, opts := httpBenchServer(b)
	ctx := context.Background()
	e := benchEngine(b)
	cc := compileComponent(b, e, fetchTool)
	l, err := preview2.Linker()
	if err != nil {
		b.Fatal(err)
	}
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil { // zeroclaw logging and secrets, never called
		b.Fatal(err)
	}
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	if err != nil {
		b.Fatal(err)
	}
	client := egress.NewClient(opts)
	sender := httpegress.New(httpegress.Config{Policy: pol, Client: client})
	s, err := e.NewStore(ctx, benchLimits())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(ctx) })
	if _, err := preview2.Bind(s, preview2.Config{}, preview2.WithHTTP(preview2.HTTPConfig{Send: sender.Send})); err != nil {
		b.Fatal(err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		b.Fatal(err)
	}
	execute, err := in.Func("zeroclaw:plugin/tool@0.1.0#execute")
	if err != nil {
		b.Fatal(err)
	}
	guest := func(b *testing.B, args map[string]any, check func(map[string]any) bool) {
		a, _ := json.Marshal(args)
		for b.Loop() {
			res, err := execute.Call(ctx, abi.StringValue(string(a)))
			if err != nil {
				b.Fatal(err)
			}
			rec := res[0].Payload().Elems()
			var out map[string]any
			if !rec[0].Bool() || json.Unmarshal([]byte(rec[1].Str()), &out) != nil || !check(out) {
				b.Fatalf("execute: %v", res[0])
			}
		}
	}
	hc := srv.Client()
	b.Run("op=download-1MiB/client=wasi-http", func(b *testing.B) {
		guest(b, map[string]any{"url": "https://api.example.com/down", "digest": "length"},
			func(o map[string]any) bool { return o["length"] == float64(httpBenchSize) })
	})
	b.Run("op=download-1MiB/client=net-http", func(b *testing.B) {
		for b.Loop() {
			resp, err := hc.Get(srv.URL + "/down")
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n != httpBenchSize {
				b.Fatalf("read %d", n)
			}
		}
	})
	chunk := string(bytes.Repeat([]byte("x"), 1024))
	b.Run("op=upload-1MiB/client=wasi-http", func(b *testing.B) {
		guest(b, map[string]any{"url": "https://api.example.com/up", "method": "POST", "body": chunk, "repeat": httpBenchSize / 1024},
			func(o map[string]any) bool { return o["body"] == strconv.Itoa(httpBenchSize) })
	})
	b.Run("op=upload-1MiB/client=net-http", func(b *testing.B) {
		for b.Loop() {
			resp, err := hc.Post(srv.URL+"/up", "text/plain", io.LimitReader(repeatReader{}, httpBenchSize))
			if err != nil {
				b.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != strconv.Itoa(httpBenchSize) {
				b.Fatalf("server read %s", got)
			}
		}
	})
}

type repeatReader struct{}

func (repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// BenchmarkHTTPTTFB times a small GET on a warm connection until the response header, through
// the default wasi:http sender (policy checks, credentials, the egress client) and through a
// plain net/http transport: the policy's time-to-first-byte overhead, without a guest.
func BenchmarkHTTPTTFB(b *testing.B) {
	srv, opts := httpBenchServer(b)
	ctx := context.Background()
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	if err != nil {
		b.Fatal(err)
	}
	sender := httpegress.New(httpegress.Config{Policy: pol, Client: egress.NewClient(opts)})
	req := func(raw string) *http.Request {
		u, _ := url.Parse(raw)
		return &http.Request{Method: "GET", URL: u, Host: u.Host, Header: http.Header{}, Body: http.NoBody}
	}
	b.Run("sender=egress", func(b *testing.B) {
		for b.Loop() {
			resp, err := sender.Send(ctx, req("https://api.example.com/small"), egress.SendOptions{})
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	tr := srv.Client().Transport
	b.Run("sender=net-http", func(b *testing.B) {
		for b.Loop() {
			resp, err := tr.RoundTrip(req(srv.URL + "/small").WithContext(ctx))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

var _ = component.Compile
