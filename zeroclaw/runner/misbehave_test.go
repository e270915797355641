package runner

import (
	"context"
	"errors"
	"github.com/kobako/kobako/internal/race"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

func toolKey(t *testing.T, pkg, binding string) string {
	t.Helper()
	id, err := instance.NewID(pkg, manifest.CapabilityTool, binding)
	if err != nil {
		t.Fatal(err)
	}
	return id.Key()
}

func execOut(t *testing.T, tool *Tool, args string) string {
	t.Helper()
	res, err := tool.Execute(context.Background(), []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return res.Output
}

// TestDeadlines: a spinning execute and an execute blocked in a host call (wasi:io/poll on an
// hour-long timer) are both interrupted within 100 ms of the deadline.
func TestDeadlines(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("misbehave", "tool"), "misbehave.wasm"},
		fixturePlugin{plainManifest("blocker", "tool"), "blocker.wasm"})
	const deadline = 300 * time.Millisecond
	rt := openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.CallTimeoutMS = uint64(deadline.Milliseconds()) }))
	echo, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ plugin, args string }{
		{"misbehave", `{"mode":"spin"}`},
		{"blocker", `{}`},
	} {
		tool, err := rt.Tool(ctx, tc.plugin)
		if err != nil {
			t.Fatal(err)
		}
		// Execute instantiates before the deadline's clock starts: allow for the time an
		// execute that returns at once takes (both fixtures are a few KB and instantiate alike).
		start := time.Now()
		_, _ = echo.Execute(ctx, []byte(`{"mode":"echo"}`))
		setup := time.Since(start)
		start = time.Now()
		_, err = tool.Execute(ctx, []byte(tc.args))
		took := time.Since(start)
		if !errors.Is(err, ErrDeadline) || err.Error() != "plugin call exceeded wall-clock deadline of 300 ms" {
			t.Fatalf("%s: %v", tc.plugin, err)
		}
		if took < deadline || took > deadline+setup+slack() {
			t.Errorf("%s: interrupted after %v, want within %v of %v (+%v instantiation)", tc.plugin, took, slack(), deadline, setup)
		}
	}
}

// slack is how late an interruption may come: 100 ms, as the issue asks; three times that under
// the race detector, which slows the interpreter's dispatch loop.
func slack() time.Duration {
	if race.Enabled {
		return 300 * time.Millisecond
	}
	return 100 * time.Millisecond
}

func TestToolTrapsAndLimits(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("misbehave", "tool"), "misbehave.wasm"})
	rt := openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.MaxMemoryMB = 2; l.CallFuel = 5_000_000 }))
	tool, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		t.Fatal(err)
	}
	// Memory grows page by page until the 2 MiB cap refuses: 32 pages.
	if got := execOut(t, tool, `{"mode":"grow"}`); got != "32" {
		t.Errorf("grow: %q pages", got)
	}
	// A spin runs out of fuel long before the default deadline: a trap naming the cause.
	_, err = tool.Execute(ctx, []byte(`{"mode":"spin"}`))
	if !errors.Is(err, ErrTrapped) || !strings.HasPrefix(err.Error(), "tool.execute trapped: ") || !strings.Contains(err.Error(), "fuel") {
		t.Errorf("spin with little fuel: %v", err)
	}
	// The next execute has a fresh store.
	if got := execOut(t, tool, `{"mode":"echo"}`); got != `{"mode":"echo"}` {
		t.Errorf("echo after a trap: %q", got)
	}
	// Args must be a JSON object.
	if _, err := tool.Execute(ctx, []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Errorf("array args: %v", err)
	}
}

func TestHostCallBudgetAndLogFlood(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	ctx := context.Background()
	h := newHost(t, fixturePlugin{secretManifest("misbehave", "tool"), "misbehave.wasm"})
	capture := &captureHandler{}
	cfg := config(nil, zeroclaw.EntryConfig{Name: toolKey(t, "misbehave", "misbehave"), Config: map[string]string{"api_token": "tok"}})
	rt := openRuntime(t, h, cfg, func(o *Options) { o.Log = capture; o.LogIdleReport = 10 * time.Millisecond })
	tool, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		t.Fatal(err)
	}
	// 1,001 secrets.get calls: the 1,000th is served, the 1,001st is over budget (unavailable).
	if got := execOut(t, tool, `{"mode":"budget"}`); got != "oc" {
		t.Errorf("budget: %q, want \"oc\"", got)
	}
	// The budget is per frame: the next execute starts with a full one.
	if got := execOut(t, tool, `{"mode":"budget"}`); got != "oc" {
		t.Errorf("budget in the next frame: %q", got)
	}
	// One log record carries the host attrs.
	if got := execOut(t, tool, `{"mode":"log"}`); got != "logged" {
		t.Fatal(got)
	}
	waitFor(t, "the log record", func() bool {
		for _, r := range capture.snapshot() {
			if r.Message == "hello from wat" {
				a := attrs(r)
				return a["plugin"] == "misbehave" && a["plugin_capability"] == "tool" && a["plugin_binding"] == "misbehave" &&
					a["plugin_fn"] == "execute" && a["action"] == "note" && a["raw"] == `{"mode":"log"}` && r.Level == slog.LevelWarn
			}
		}
		return false
	})
	// 100,000 records of 60 KiB: the first 1,000 reach the queue, whose 8 MiB budget drops most
	// of them; the rest are over the host-call budget and vanish silently; the guest is never
	// blocked or failed.
	before := rt.LogDropped()
	if got := execOut(t, tool, `{"mode":"flood"}`); got != "flooded" {
		t.Fatal(got)
	}
	// Exactly the 1,000 budgeted records reached the queue: each was written or dropped.
	waitFor(t, "the flood's 1,000 budgeted records", func() bool {
		written := 0
		for _, r := range capture.snapshot() {
			if len(r.Message) == 61440 {
				written++
			}
		}
		return uint64(written)+rt.LogDropped()-before == 1000
	})
	waitFor(t, "the drop report", func() bool {
		d := dropReports(capture.snapshot())
		return rt.LogDropped() == before || (len(d) > 0 && d[len(d)-1] == rt.LogDropped())
	})
}

// TestGoToolSecrets follows the reference's tool-secret fixture: no secrets during metadata,
// only public properties in __config, not-found for a public property, and concurrent bindings
// each seeing their own token.
func TestGoToolSecrets(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{secretManifest("go-tool", "tool"), "gotool.wasm"})
	cfg := config(nil,
		zeroclaw.EntryConfig{Name: toolKey(t, "go-tool", "main"), Config: map[string]string{"binding_label": "main", "api_token": "tok-main"}},
		zeroclaw.EntryConfig{Name: toolKey(t, "go-tool", "backup"), Config: map[string]string{"binding_label": "backup", "api_token": "tok-backup"}})
	rt := openRuntime(t, h, cfg)
	p, _ := h.Plugin("go-tool")
	tools := map[string]*Tool{}
	for _, b := range []string{"main", "backup"} {
		scope, err := p.Scope(manifest.CapabilityTool, b, instance.RequestedGrants(p.Manifest))
		if err != nil {
			t.Fatal(err)
		}
		if tools[b], err = rt.ToolWithScope(ctx, p, scope); err != nil {
			t.Fatal(err)
		}
	}
	if d := tools["main"].Description(); !strings.Contains(d, "secrets during metadata: unavailable") {
		t.Errorf("description %q", d)
	}
	if got := execOut(t, tools["main"], `{"text":"x","secret":"binding_label","__config":{"api_token":"forged"}}`); got != `go-echo:x|config={"binding_label":"main"}|secret_error=not-found` {
		t.Errorf("public property: %s", got)
	}
	var wg sync.WaitGroup
	for _, b := range []string{"main", "backup"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := tools[b].Execute(ctx, []byte(`{"secret":"api_token"}`))
			if err != nil {
				t.Error(err)
				return
			}
			if want := "|secret=tok-" + b; !strings.HasSuffix(res.Output, want) {
				t.Errorf("%s: %s", b, res.Output)
			}
		}()
	}
	wg.Wait()
	// Guest err and a failed tool result.
	if _, err := tools["main"].Execute(ctx, []byte(`{"fail":"boom"}`)); !errors.Is(err, ErrExecute) || err.Error() != "plugin execute returned error: boom" {
		t.Errorf("guest err: %v", err)
	}
	res, err := tools["main"].Execute(ctx, []byte(`{"tool_error":"bad"}`))
	if err != nil || res.Success || res.Error == nil || *res.Error != "bad" {
		t.Errorf("failed tool result: %+v %v", res, err)
	}
}

func TestWasiHTTPNeedsTheGrant(t *testing.T) {
	ctx := context.Background()
	granted := strings.Replace(plainManifest("http-granted", "tool"), "capabilities", "permissions = [\"http_client\"]\ncapabilities", 1)
	h := newHost(t, fixturePlugin{plainManifest("http-tool", "tool"), "httptool.wasm"},
		fixturePlugin{granted, "httptool.wasm"})
	rt := openRuntime(t, h, config(nil))
	_, err := rt.Tool(ctx, "http-tool")
	if !errors.Is(err, ErrPermission) || err.Error() != "plugin permission missing: plugin 'http-tool' imports wasi:http/types@0.2.0, which needs the http_client permission, and it is not granted" {
		t.Fatalf("ungranted wasi:http: %v", err)
	}
	// Granted, the import passes the grant check and links against the runtime's wasi:http.
	if _, err = rt.Tool(ctx, "http-granted"); err != nil {
		t.Fatalf("granted wasi:http: %v", err)
	}
}

func TestToolNameCollisionsAreSkipped(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("misbehave", "tool"), "misbehave.wasm"},
		fixturePlugin{plainManifest("misbehave-2", "tool"), "misbehave.wasm"})
	rt := openRuntime(t, h, config(nil))
	tools, skipped := rt.Tools(ctx)
	if len(tools) != 1 || len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "collides") {
		t.Fatalf("tools %d, skipped %v", len(tools), skipped)
	}
}

// TestConcurrentExecutes runs 64 executes at once (run with -race).
func TestConcurrentExecutes(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("misbehave", "tool"), "misbehave.wasm"})
	rt := openRuntime(t, h, config(nil))
	tool, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := `{"mode":"echo","n":` + string(rune('0'+i%10)) + `}`
			res, err := tool.Execute(ctx, []byte(args))
			if err != nil || res.Output != args {
				t.Errorf("%s: %+v %v", args, res, err)
			}
		}()
	}
	wg.Wait()
}

// TestExecuteCyclesDoNotLeak: 10,000 fresh-instance executes leave the heap and the goroutine
// count where they were.
func TestExecuteCyclesDoNotLeak(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	if testing.Short() {
		t.Skip("10,000 instantiations")
	}
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("misbehave", "tool"), "misbehave.wasm"})
	rt := openRuntime(t, h, config(nil))
	tool, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int) {
		for range n {
			if _, err := tool.Execute(ctx, []byte(`{"mode":"echo"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	measure := func() (uint64, int) {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return ms.HeapAlloc, goruntime.NumGoroutine()
	}
	run(500)
	heap0, g0 := measure()
	run(leakCycles)
	heap1, g1 := measure()
	if heap1 > heap0+4<<20 || g1 > g0 {
		t.Fatalf("after 10,000 executes: heap %d -> %d bytes, goroutines %d -> %d", heap0, heap1, g0, g1)
	}
}

var leakCycles = 10_000
