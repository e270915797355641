package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/mcpserve"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/runner"
)

// mcpTransports are the ways BenchmarkMCPCall reaches a tool through kobako mcp: the SDK's client
// over a pair of in-process pipes carrying the stdio framing (what `kobako mcp` does on its stdin
// and stdout, without the process) and over Streamable HTTP on loopback TCP, in each protocol era.
var mcpTransports = []struct{ name, era string }{
	{"stdio-2025-11-25", "2025-11-25"},
	{"stdio-2026-07-28", "2026-07-28"},
	{"http-2025-11-25", "2025-11-25"},
	{"http-2026-07-28", "2026-07-28"},
}

// mcpSession connects the SDK's client to srv over transport.
func mcpSession(b *testing.B, srv *mcpserve.Server, transport, era string) *mcp.ClientSession {
	ctx := context.Background()
	var ct mcp.Transport
	if transport[:4] == "http" {
		hs := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{}))
		b.Cleanup(hs.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}
	} else {
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		sctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { srv.ServeStdio(sctx, sr, sw); close(done) }()
		b.Cleanup(func() { cancel(); cw.Close(); sw.Close(); <-done })
		ct = &mcp.IOTransport{Reader: cr, Writer: cw}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkMCPCall measures a tools/call round trip through kobako mcp (the SDK's client, the
// transport, the SDK's server, mcpserve, then the tool's own call) against path=library, the same
// call made directly (subako.Package.Call for the tiny ABI 1 package).
func BenchmarkMCPCall(b *testing.B) {
	ctx := context.Background()
	tiny := subakoGuests[0]
	b.Run("guest="+tiny.name, func(b *testing.B) {
		p := subakoPackage(b, tiny.name, tiny.paths)
		opts := subako.CallOptions{Volume: b.TempDir(), Limits: benchLimits()}
		b.Run("path=library", func(b *testing.B) {
			b.ReportAllocs()
			cpu := newCPUMeter()
			defer cpu.report(b)
			for b.Loop() {
				cpu.begin()
				res, err := p.Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`), opts)
				cpu.end()
				if err != nil || len(res.Content) == 0 || res.Content[0].Text != tiny.want {
					b.Fatalf("library call: %v, %+v", err, res)
				}
			}
		})
		wasmDir := b.TempDir()
		wasm, _ := subakoWasm(b, tiny.paths)
		writeFile(b, wasmDir, subako.ManifestFile, []byte(`{"abi":1,"name":"bench"}`))
		writeFile(b, wasmDir, subako.ModuleFile, wasm)
		srv, err := mcpserve.New(ctx, mcpserve.Options{Runtime: subakoRuntime(b), Packages: []mcpserve.PackageSpec{{Path: wasmDir, Call: opts}}})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close(ctx)
		for _, tr := range mcpTransports {
			b.Run("path="+tr.name, func(b *testing.B) {
				cs := mcpSession(b, srv, tr.name, tr.era)
				params := &mcp.CallToolParams{Name: "bench__greet", Arguments: map[string]string{"name": "Ada"}}
				b.ReportAllocs()
				// CPU time of this thread alone would miss the server's goroutines: wall time is
				// the measure here (see bench/README.md).
				for b.Loop() {
					r, err := cs.CallTool(ctx, params)
					if err != nil || r.IsError || len(r.Content) == 0 || r.Content[0].(*mcp.TextContent).Text != tiny.want {
						b.Fatalf("%s call: %v, %+v", tr.name, err, r)
					}
				}
			})
		}
	})
}

// subakoRuntime is the Runtime subakoPackage loaded the ABI 1 guests with, so that kobako mcp
// runs the very module the library path calls (compiled once, from the engine's cache).
func subakoRuntime(b *testing.B) *subako.Runtime {
	subakoMu.Lock()
	defer subakoMu.Unlock()
	if subakoRT == nil {
		b.Fatal("subakoPackage has not run")
	}
	return subakoRT
}

func writeFile(tb testing.TB, dir, name string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkMCPCallZeroClaw is BenchmarkMCPCall for a ZeroClaw tool plugin: misbehave (a WAT
// component of zeroclaw/runner's fixtures) echoing its arguments; path=library calls
// runner.Tool.Execute directly.
func BenchmarkMCPCallZeroClaw(b *testing.B) {
	ctx := context.Background()
	plugins := filepath.Join(b.TempDir(), "plugins")
	hopts := zeroclaw.Options{PluginsDir: plugins}
	h, err := zeroclaw.Open(hopts)
	if err != nil {
		b.Fatal(err)
	}
	src := b.TempDir()
	wasm, err := os.ReadFile("../zeroclaw/runner/testdata/misbehave.wasm")
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, src, "plugin.wasm", wasm)
	writeFile(b, src, "manifest.toml", []byte("name = \"misbehave\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n"))
	if _, err := h.Install(src); err != nil {
		b.Fatal(err)
	}
	const want = `{"text":"Ada"}`
	b.Run("guest=zeroclaw-misbehave", func(b *testing.B) {
		b.Run("path=library", func(b *testing.B) {
			h, err := zeroclaw.Open(hopts)
			if err != nil {
				b.Fatal(err)
			}
			rt, err := runner.Open(ctx, runner.Options{Host: h})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(ctx)
			tool, err := rt.Tool(ctx, "misbehave")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				r, err := tool.Execute(ctx, []byte(want))
				if err != nil || r.Output != want {
					b.Fatalf("execute: %v %+v", err, r)
				}
			}
		})
		srv, err := mcpserve.New(ctx, mcpserve.Options{Plugins: mcpserve.ZeroClawPlugins(mcpserve.ZeroClawOptions{Host: hopts})})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close(ctx)
		for _, tr := range mcpTransports {
			b.Run("path="+tr.name, func(b *testing.B) {
				cs := mcpSession(b, srv, tr.name, tr.era)
				params := &mcp.CallToolParams{Name: "misbehave__misbehave", Arguments: map[string]string{"text": "Ada"}}
				b.ReportAllocs()
				for b.Loop() {
					r, err := cs.CallTool(ctx, params)
					if err != nil || r.IsError || len(r.Content) == 0 || r.Content[0].(*mcp.TextContent).Text != want {
						b.Fatalf("%s call: %v, %+v", tr.name, err, r)
					}
				}
			})
		}
	})
}
