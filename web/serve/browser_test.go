//go:build !(js || wasip1)

package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/kobako/kobako/web/host"
)

// browserPath finds Chromium; without one the browser tests skip, unless KOBAKO_REQUIRE_BROWSER
// is set (CI sets it, so that they never skip there).
func browserPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KOBAKO_REQUIRE_BROWSER") != "" {
		t.Fatal("KOBAKO_REQUIRE_BROWSER is set but no Chromium was found on PATH (apt-get install chromium)")
	}
	t.Skip("no Chromium on PATH (apt-get install chromium); set KOBAKO_REQUIRE_BROWSER=1 to make this a failure")
	return ""
}

// built is the browser build, made once for every test of the package.
var built = sync.OnceValues(func() (Built, error) {
	dir, err := os.MkdirTemp("", "kobako-web-test-")
	if err != nil {
		return Built{}, err
	}
	return Build(context.Background(), "go", dir)
})

// packageZip zips an ABI 1 package.
func packageZip(t testing.TB, manifest, module string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct {
		name string
		b    []byte
	}{{"subako-package.json", []byte(manifest)}, {"module.wasm", readFile(t, module)}} {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// page is one Chromium tab on the served page, with the requests it made.
type page struct {
	ctx  context.Context
	base string

	mu       sync.Mutex
	requests []string // every URL the page and its workers asked the network for
}

// fixtures are the files the tests open, served at /fixtures/NAME.
func fixtures(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"example.zip":    packageZip(t, `{"abi":1,"name":"hello","description":"Says hello."}`, "../../subako/example/module.wasm"),
		"everything.zip": packageZip(t, `{"abi":1,"name":"everything","description":"Everything."}`, "../../subako/testdata/everything.wasm"),
		"misbehave.toml": readFile(t, "../testdata/misbehave.toml"),
		"misbehave.wasm": readFile(t, "../../zeroclaw/runner/testdata/misbehave.wasm"),
		"go-tool.toml":   readFile(t, "../testdata/go-tool.toml"),
		"go-tool.wasm":   readFile(t, "../../zeroclaw/runner/testdata/gotool.wasm"),
		// The componentize-js fetch() tool of the wasi:http tests: it fetches args.url and
		// answers {status, body}.
		"fetch-tool.toml": []byte("name = \"http-fetch\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\npermissions = [\"http_client\"]\n"),
		"fetch-tool.wasm": readFile(t, "../../wasi/preview2/testdata/http/fetch-tool.wasm"),
	}
}

// newPage serves the page (and fixtures) and opens it in a new headless Chromium. Extra flags
// are added to Chromium's.
func newPage(t testing.TB, extra ...chromedp.ExecAllocatorOption) *page {
	exe := browserPath(t)
	t0 := time.Now()
	b, err := built()
	t.Logf("built in %v", time.Since(t0))
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(b)
	if err != nil {
		t.Fatal(err)
	}
	fx := fixtures(t)
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("/fixtures/", func(w http.ResponseWriter, r *http.Request) {
		data, ok := fx[strings.TrimPrefix(r.URL.Path, "/fixtures/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	opts = append(opts, extra...)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	p := &page{ctx: ctx, base: srv.URL}
	err = chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.mu.Lock()
			p.requests = append(p.requests, e.Request.URL)
			p.mu.Unlock()
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value))
			}
			t.Logf("console.%s: %s", e.Type, strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			t.Logf("exception: %s", e.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	t.Logf("navigated at %v", time.Since(t0))
	p.mustEval(t, `kobako.ready.then(() => true)`, nil)
	t.Logf("ready at %v", time.Since(t0))
	return p
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes its value into out.
func (p *page) eval(t testing.TB, expr string, out any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Minute)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", expr, err, raw)
		}
	}
	return nil
}

// mustEval is eval that fails the test on an exception.
func (p *page) mustEval(t testing.TB, expr string, out any) {
	t.Helper()
	if err := p.eval(t, expr, out); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}

// workers lists the page's worker targets.
func (p *page) workers(t testing.TB) map[target.ID]bool {
	t.Helper()
	ts, err := chromedp.Targets(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[target.ID]bool{}
	for _, ti := range ts {
		if ti.Type == "worker" {
			out[ti.TargetID] = true
		}
	}
	return out
}

// watchWorkers records the network requests of every worker the page has now (each handle has
// one), as newPage records the page's own.
func (p *page) watchWorkers(t testing.TB) {
	t.Helper()
	n := 0
	for id := range p.workers(t) {
		n++
		wctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id), chromedp.WithListener(func(ev any) {
			if e, ok := ev.(*network.EventRequestWillBeSent); ok {
				p.mu.Lock()
				p.requests = append(p.requests, e.Request.URL)
				p.mu.Unlock()
			}
		}))
		t.Cleanup(cancel)
		if _, err := chromedp.Call(wctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatalf("network events of worker %s: %v", id, err)
		}
	}
	if n == 0 {
		t.Fatal("no worker to watch")
	}
}

func (p *page) requested(substr string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, u := range p.requests {
		if strings.Contains(u, substr) {
			out = append(out, u)
		}
	}
	return out
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// callOut is what p.call answers, or (Kind and Message set) how it rejected.
type callOut struct {
	Result       json.RawMessage `json:"result"`
	FuelConsumed uint64          `json:"fuelConsumed"`
	Ms           float64         `json:"ms"`
	Logs         []struct {
		Level   string         `json:"level"`
		Message string         `json:"message"`
		Attrs   map[string]any `json:"attrs"`
	} `json:"logs"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// callJS is a JavaScript function call(h, tool, args, opts) that answers p.call's value or its
// error's fields, never throwing.
const callJS = `async (h, tool, args, opts) => {
	try { return await h.call(tool, args, opts); }
	catch (e) { return {kind: e.kind || "exception", message: String(e.message), fuelConsumed: e.fuelConsumed, ms: e.ms, logs: e.logs}; }
}`

// nativeFuel runs the same call natively, on the same host code, and answers its fuel.
func nativeFuel(t *testing.T, open func(*host.Host) (*host.Handle, error), tool, args string) uint64 {
	t.Helper()
	ctx := context.Background()
	h, err := host.New(ctx, host.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	p, err := open(h)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Call(ctx, tool, json.RawMessage(args), host.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.FuelConsumed
}

// TestBrowser drives kobako in headless Chromium through window.kobako and the page's controls.
func TestBrowser(t *testing.T) {
	// The destination of the network cases: an HTTPS server the browser reaches as allowed.test
	// and refused.test (both names mapped to it), recording what arrives.
	var hitsMu sync.Mutex
	hits := map[string]int{}
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hitsMu.Lock()
		hits[strings.Split(r.Host, ":")[0]+r.URL.Path]++
		hitsMu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok-body")
	}))
	defer tlsSrv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(tlsSrv.URL, "https://"))
	hit := func(key string) int {
		hitsMu.Lock()
		defer hitsMu.Unlock()
		return hits[key]
	}

	p := newPage(t, chromedp.Flag("host-resolver-rules", "MAP allowed.test 127.0.0.1, MAP refused.test 127.0.0.1"), chromedp.IgnoreCertErrors)
	fx := fixtures(t)
	call := func(t *testing.T, handle, tool, args, opts string) callOut {
		t.Helper()
		var out callOut
		p.mustEval(t, fmt.Sprintf(`(%s)(window.%s, %s, %s, %s)`, callJS, handle, jsString(tool), args, opts), &out)
		return out
	}

	t.Run("package", func(t *testing.T) {
		var tools []host.Tool
		p.mustEval(t, `kobako.openPackage("/fixtures/example.zip").then(async (h) => { window.pkg = h; return h.tools(); })`, &tools)
		if len(tools) != 1 || tools[0].Name != "greet" || !strings.Contains(string(tools[0].InputSchema), `"required":["name"]`) {
			t.Fatalf("tools: %+v", tools)
		}
		out := call(t, "pkg", "greet", `{name: "Ada"}`, `{}`)
		native := nativeFuel(t, func(h *host.Host) (*host.Handle, error) {
			return h.OpenPackage(context.Background(), fx["example.zip"])
		}, "greet", `{"name":"Ada"}`)
		if out.Kind != "" || !strings.Contains(string(out.Result), `Hello, Ada!`) || out.FuelConsumed != native || out.Ms <= 0 {
			t.Errorf("greet: %+v (native fuel %d)", out, native)
		}
		if out := call(t, "pkg", "greet", `{}`, `{}`); out.Kind != "" || !strings.Contains(string(out.Result), `"isError":true`) {
			t.Errorf("greet without name: %+v", out)
		}
		if out := call(t, "pkg", "nope", `{}`, `{}`); out.Kind != "usage" || !strings.Contains(out.Message, "unknown tool") {
			t.Errorf("unknown tool: %+v", out)
		}
		if out := call(t, "pkg", "greet", `{name: "Ada"}`, `{fuel: 1000}`); out.Kind != "fuel" || out.FuelConsumed == 0 {
			t.Errorf("out of fuel: %+v", out)
		}
	})

	t.Run("wat-plugin", func(t *testing.T) {
		var tools []host.Tool
		p.mustEval(t, fmt.Sprintf(`kobako.openPlugin({manifest: %s, wasm: "/fixtures/misbehave.wasm"}).then(async (h) => { window.wat = h; return h.tools(); })`,
			jsString(string(fx["misbehave.toml"]))), &tools)
		if len(tools) != 1 || tools[0].Name != "misbehave" || tools[0].Description != "A tool that misbehaves on request." {
			t.Fatalf("tools: %+v", tools)
		}
		native := nativeFuel(t, func(h *host.Host) (*host.Handle, error) {
			return h.OpenPlugin(context.Background(), string(fx["misbehave.toml"]), fx["misbehave.wasm"])
		}, "misbehave", `{"mode":"echo"}`)
		out := call(t, "wat", "misbehave", `{mode: "echo"}`, `{}`)
		if out.Kind != "" || !strings.Contains(string(out.Result), `"output":"{\"mode\":\"echo\"}"`) || out.FuelConsumed != native {
			t.Errorf("echo: %+v (native fuel %d)", out, native)
		}
		out = call(t, "wat", "misbehave", `{mode: "log"}`, `{}`)
		if out.Kind != "" || len(out.Logs) != 1 || out.Logs[0].Message != "hello from wat" || out.Logs[0].Level != "warn" {
			t.Errorf("log: %+v", out)
		}
	})

	t.Run("deadline", func(t *testing.T) {
		// The guest spins in the worker; the page's own timer keeps firing meanwhile, and the
		// worker's refuel hook stops the guest at its deadline (not the page's watchdog, which
		// would say "no answer").
		var r struct {
			Out   callOut `json:"out"`
			Ticks int     `json:"ticks"`
			Ms    float64 `json:"ms"`
		}
		p.mustEval(t, fmt.Sprintf(`(async () => {
			let ticks = 0;
			const iv = setInterval(() => ticks++, 50);
			const t0 = performance.now();
			const out = await (%s)(window.wat, "misbehave", {mode: "spin"}, {timeoutMs: 1000, fuel: 1e15});
			clearInterval(iv);
			return {out, ticks, ms: performance.now() - t0};
		})()`, callJS), &r)
		if r.Out.Kind != "deadline" || !strings.Contains(r.Out.Message, "deadline of 1000 ms") || r.Out.FuelConsumed == 0 {
			t.Errorf("spin: %+v", r.Out)
		}
		if r.Ms > 4000 || r.Ticks < 5 {
			t.Errorf("spin took %.0f ms with %d page timer ticks; want the deadline near 1 s and a responsive page", r.Ms, r.Ticks)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		var r struct {
			Out      callOut   `json:"out"`
			Progress []float64 `json:"progress"`
			After    callOut   `json:"after"`
		}
		p.mustEval(t, fmt.Sprintf(`(async () => {
			const ac = new AbortController(), progress = [];
			const out = await (%[1]s)(window.wat, "misbehave", {mode: "spin"}, {timeoutMs: 600000, fuel: 1e15, signal: ac.signal,
				onProgress: (p) => { progress.push(p.fraction); if (progress.length === 3) ac.abort("enough"); }});
			const after = await (%[1]s)(window.wat, "misbehave", {mode: "echo"}, {});
			return {out, progress, after};
		})()`, callJS), &r)
		if r.Out.Kind != "canceled" || !strings.Contains(r.Out.Message, "enough") {
			t.Errorf("canceled call: %+v", r.Out)
		}
		if len(r.Progress) < 3 || r.Progress[0] <= 0 || r.Progress[2] < r.Progress[0] || r.Progress[2] >= 1 {
			t.Errorf("progress fractions: %v", r.Progress)
		}
		if r.After.Kind != "" || !strings.Contains(string(r.After.Result), `"success":true`) {
			t.Errorf("call after cancel (new worker): %+v", r.After)
		}
	})

	t.Run("go-plugin", func(t *testing.T) {
		var tools []host.Tool
		p.mustEval(t, fmt.Sprintf(`kobako.openPlugin({manifest: %s, wasm: "/fixtures/go-tool.wasm"}).then(async (h) => { window.gotool = h; return h.tools(); })`,
			jsString(string(fx["go-tool.toml"]))), &tools)
		if len(tools) != 1 || tools[0].Name != "go-echo" {
			t.Fatalf("tools: %+v", tools)
		}
		out := call(t, "gotool", "go-echo", `{text: "hi", log: "hello"}`, `{}`)
		if out.Kind != "" || !strings.Contains(string(out.Result), `go-echo:hi`) || len(out.Logs) != 1 || out.Logs[0].Message != "hello" {
			t.Errorf("echo: %+v", out)
		}
		// Go's runtime reads the clock and random numbers as it starts, so a Go guest's count moves
		// by a few thousand from run to run, natively too: the same order is all that can match.
		native := nativeFuel(t, func(h *host.Host) (*host.Handle, error) {
			return h.OpenPlugin(context.Background(), string(fx["go-tool.toml"]), fx["go-tool.wasm"])
		}, "go-echo", `{"text":"hi","log":"hello"}`)
		if d := float64(out.FuelConsumed) - float64(native); d > 0.02*float64(native) || -d > 0.02*float64(native) {
			t.Errorf("fuel %d in the browser, %d natively: more than 2%% apart", out.FuelConsumed, native)
		}
		if out := call(t, "gotool", "go-echo", `{fail: "no way"}`, `{}`); out.Kind != "guest" || !strings.Contains(out.Message, "plugin execute returned error: no way") {
			t.Errorf("guest error: %+v", out)
		}
	})

	t.Run("egress", func(t *testing.T) {
		p.mustEval(t, `kobako.openPackage("/fixtures/everything.zip").then((h) => { window.everything = h; return true; })`, nil)
		p.watchWorkers(t)
		allowed := fmt.Sprintf(`{request: {url: "https://allowed.test:%s/ok"}}`, port)
		refused := fmt.Sprintf(`{request: {url: "https://refused.test:%s/secret"}}`, port)
		hosts := `{allowHosts: ["allowed.test"]}`
		out := call(t, "everything", "http", allowed, hosts)
		if out.Kind != "" || !strings.Contains(string(out.Result), "ok-body") || hit("allowed.test/ok") != 1 || len(p.requested("allowed.test")) == 0 {
			t.Fatalf("allowed request: %+v; server hits %v; browser requests %v", out, hits, p.requested("allowed.test"))
		}
		out = call(t, "everything", "http", refused, hosts)
		if out.Kind != "" || !strings.Contains(string(out.Result), "host_not_allowed") {
			t.Errorf("refused request: %+v", out)
		}
		out = call(t, "everything", "http", allowed, `{}`) // no allowHosts: no network at all
		if out.Kind != "" || !strings.Contains(string(out.Result), "host_not_allowed") || hit("allowed.test/ok") != 1 {
			t.Errorf("request without an allowlist: %+v", out)
		}
		// The allowed request shows that both the server and the browser's network log see a
		// request that leaves the page; the refused one reached neither.
		if n := hit("refused.test/secret"); n != 0 || len(p.requested("refused.test")) != 0 {
			t.Errorf("a refused request left the page: %d server hits, browser requests %v", n, p.requested("refused.test"))
		}
	})

	t.Run("wasi-http", func(t *testing.T) {
		// A plugin's wasi:http leaves the page through fetch, to the hosts the call allows (a
		// native host's egress_hosts), and nowhere without them.
		var tools []host.Tool
		p.mustEval(t, fmt.Sprintf(`kobako.openPlugin({manifest: %s, wasm: "/fixtures/fetch-tool.wasm"}).then(async (h) => { window.fetchtool = h; return h.tools(); })`,
			jsString(string(fx["fetch-tool.toml"]))), &tools)
		if len(tools) != 1 {
			t.Fatalf("tools: %+v", tools)
		}
		tool := tools[0].Name
		allowed := fmt.Sprintf(`{url: "https://allowed.test:%s/wasi"}`, port)
		refused := fmt.Sprintf(`{url: "https://refused.test:%s/wasi-secret"}`, port)
		hosts := `{allowHosts: ["allowed.test"]}`
		out := call(t, "fetchtool", tool, allowed, hosts)
		if out.Kind != "" || !strings.Contains(string(out.Result), `"success":true`) || !strings.Contains(string(out.Result), "ok-body") || hit("allowed.test/wasi") != 1 {
			t.Fatalf("allowed request: %+v; server hits %v", out, hits)
		}
		for _, c := range []struct{ name, args, opts string }{
			{"not on the allowlist", refused, hosts},
			{"no allowlist", allowed, `{}`},
		} {
			out := call(t, "fetchtool", tool, c.args, c.opts)
			logs, _ := json.Marshal(out.Logs)
			if out.Kind != "" || !strings.Contains(string(out.Result), `"success":false`) || !strings.Contains(string(logs), "HTTP-request-denied") {
				t.Errorf("%s: %+v", c.name, out)
			}
		}
		if n, m := hit("allowed.test/wasi"), hit("refused.test/wasi-secret"); n != 1 || m != 0 || len(p.requested("refused.test")) != 0 {
			t.Errorf("refused requests left the page: server hits %v, browser requests %v", hits, p.requested("refused.test"))
		}
	})

	t.Run("page", func(t *testing.T) {
		// What a person does: pick the package by URL, open it, fill the arguments, call.
		native := nativeFuel(t, func(h *host.Host) (*host.Handle, error) {
			return h.OpenPackage(context.Background(), fx["example.zip"])
		}, "greet", `{"name":"Page"}`)
		ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
		defer cancel()
		err := chromedp.Do(ctx,
			chromedp.Navigate(p.base+"/"),
			chromedp.WaitEnabled(chromedp.ID("open")),
			chromedp.SetValue(chromedp.ID("package-url"), "/fixtures/example.zip"),
			chromedp.Click(chromedp.ID("open")),
			chromedp.WaitVisible(chromedp.ID("call-box")),
			chromedp.SetValue(chromedp.ID("args"), `{"name":"Page"}`),
			chromedp.Click(chromedp.ID("call")),
			chromedp.WaitVisible(chromedp.ID("result-box")),
		)
		if err != nil {
			t.Fatal(err)
		}
		result, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("result")))
		if err != nil {
			t.Fatal(err)
		}
		fuel, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("fuel-used")))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(result, "Hello, Page!") || strings.ReplaceAll(fuel, ",", "") != fmt.Sprint(native) {
			t.Errorf("the page shows result %q and fuel %q; want Hello, Page! and %d", result, fuel, native)
		}
	})
}
