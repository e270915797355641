//go:build !(js || wasip1)

package main

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"github.com/kobako/kobako/web/host"
)

// BenchmarkCall runs the same tool calls natively (package web/host, as the worker runs it) and
// in headless Chromium (window.kobako, one worker per handle), side by side:
//
//	go test -run '^$' -bench BenchmarkCall -benchtime 20x ./web/serve
//
// ns/op is one call as its caller sees it (in the browser: p.call's round trip through the
// worker, timed in the page). Memory: natively go-sys-MB is the Go runtime's memory from the OS
// (MemStats.Sys, a high-water mark, of the whole test process); in the browser wasm-MB is the
// worker's linear memory (the Go runtime's heap inside the worker, which never shrinks: a
// high-water mark) and page-js-MB the page's JavaScript heap in use (CDP Performance.getMetrics
// JSHeapUsedSize). Each handle gets a fresh worker, so wasm-MB is that call's worker alone.
func BenchmarkCall(b *testing.B) {
	fx := fixtures(b)
	cases := []struct {
		name, tool, args string
		open             func(*host.Host) (*host.Handle, error)
		openJS           string
	}{
		{"abi1-wat-greet", "greet", `{"name":"Ada"}`,
			func(h *host.Host) (*host.Handle, error) {
				return h.OpenPackage(context.Background(), fx["example.zip"])
			},
			`kobako.openPackage("/fixtures/example.zip")`},
		{"zeroclaw-wat-echo", "misbehave", `{"mode":"echo"}`,
			func(h *host.Host) (*host.Handle, error) {
				return h.OpenPlugin(context.Background(), string(fx["misbehave.toml"]), fx["misbehave.wasm"])
			},
			fmt.Sprintf(`kobako.openPlugin({manifest: %s, wasm: "/fixtures/misbehave.wasm"})`, jsString(string(fx["misbehave.toml"])))},
		{"zeroclaw-go-echo", "go-echo", `{"text":"hi"}`,
			func(h *host.Host) (*host.Handle, error) {
				return h.OpenPlugin(context.Background(), string(fx["go-tool.toml"]), fx["go-tool.wasm"])
			},
			fmt.Sprintf(`kobako.openPlugin({manifest: %s, wasm: "/fixtures/go-tool.wasm"})`, jsString(string(fx["go-tool.toml"])))},
	}
	p := newPage(b)
	if _, err := chromedp.Call(p.ctx, performance.Enable, performance.EnableParams{}); err != nil {
		b.Fatal(err)
	}
	for _, c := range cases {
		b.Run(c.name+"/where=native", func(b *testing.B) {
			ctx := context.Background()
			h, err := host.New(ctx, host.Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(ctx)
			hd, err := c.open(h)
			if err != nil {
				b.Fatal(err)
			}
			var fuel uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := hd.Call(ctx, c.tool, json.RawMessage(c.args), host.CallOptions{})
				if err != nil {
					b.Fatal(err)
				}
				fuel = res.FuelConsumed
			}
			b.StopTimer()
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			b.ReportMetric(float64(fuel), "fuel/op")
			b.ReportMetric(float64(ms.Sys)/(1<<20), "go-sys-MB")
		})
		b.Run(c.name+"/where=chromium", func(b *testing.B) {
			p.mustEval(b, c.openJS+`.then((h) => { window.bench = h; return h.call(`+jsString(c.tool)+`, `+c.args+`); }).then(() => true)`, nil)
			var r struct {
				Ms   float64 `json:"ms"`
				Fuel uint64  `json:"fuel"`
				Wasm float64 `json:"wasm"`
			}
			b.ResetTimer()
			p.mustEval(b, fmt.Sprintf(`(async () => {
				let fuel = 0;
				const t0 = performance.now();
				for (let i = 0; i < %d; i++) fuel = (await window.bench.call(%s, %s)).fuelConsumed;
				const ms = performance.now() - t0;
				const mem = await window.bench.memory();
				return {ms, fuel, wasm: mem.wasmMemoryBytes};
			})()`, b.N, jsString(c.tool), c.args), &r)
			b.StopTimer()
			// The page's own timing: the CDP round trip is not the call's.
			b.ReportMetric(r.Ms*1e6/float64(b.N), "page-ns/op")
			b.ReportMetric(float64(r.Fuel), "fuel/op")
			b.ReportMetric(r.Wasm/(1<<20), "wasm-MB")
			m, err := chromedp.Call(p.ctx, performance.GetMetrics, struct{}{})
			if err == nil {
				for _, x := range m.Metrics {
					if x.Name == "JSHeapUsedSize" {
						b.ReportMetric(x.Value/(1<<20), "page-js-MB")
					}
				}
			}
			p.mustEval(b, `window.bench.close().then(() => true)`, nil)
		})
	}
}
