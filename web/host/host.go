// Package host opens ABI 1 function packages and ZeroClaw tool plugins from bytes and calls their
// tools with per-call fuel, deadline, progress and log records: the host that kobako's browser
// build (package web, GOOS=js) runs inside its Web Worker, and that a native program runs to get
// the same answers and the same fuel counts. It is a thin layer over subako and
// zeroclaw/runner; it adds no policy of its own.
//
// Both kinds need a file system: an ABI 1 call gets a scratch volume (a temporary directory), and
// zeroclaw's host reads plugins from a plugins directory, which OpenPlugin writes under
// Config.Dir. In the browser both live in the worker's in-memory file system.
package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/runner"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// Sentinel errors.
var (
	// ErrOpen is a package or plugin that cannot be opened (a bad zip or manifest, a module or
	// component that fails its checks, a discovery or registration that fails).
	ErrOpen = errors.New("cannot open")
	// ErrUsage is a call the caller got wrong: an unknown tool, arguments that are not a JSON
	// object, limits out of range, allowed hosts on a plugin.
	ErrUsage = errors.New("invalid call")
	// ErrClosed is a call on a closed Host or Handle.
	ErrClosed = errors.New("closed")
)

// Kind names the plugin protocol of a Handle.
type Kind string

// The kinds.
const (
	KindPackage Kind = "package" // an ABI 1 function package
	KindPlugin  Kind = "plugin"  // a ZeroClaw tool plugin
)

// Config configures a Host.
type Config struct {
	// Dir receives the plugin directories OpenPlugin writes (one per plugin, removed by
	// Handle.Close); "" means a new temporary directory, removed by Close.
	Dir string
	// Egress configures the HTTP client of both protocols' outbound requests (subako_http and
	// wasi:http). The browser build sets Fetch; the zero value dials, as the CLI does.
	Egress egress.Options
}

// Host opens packages and plugins. Its engine, and so its cache of compiled modules, is shared by
// everything it opens. A Host is safe for concurrent use.
type Host struct {
	cfg    Config
	ownDir bool
	eng    *engine.Engine
	sub    *subako.Runtime
	seq    atomic.Uint64
	closed atomic.Bool
}

// New returns a Host.
func New(ctx context.Context, cfg Config) (*Host, error) {
	h := &Host{cfg: cfg}
	if h.cfg.Dir == "" {
		d, err := os.MkdirTemp("", "kobako-web-")
		if err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
		h.cfg.Dir, h.ownDir = d, true
	}
	var err error
	if h.eng, err = engine.New(ctx, engine.Config{}); err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	h.sub, err = subako.New(ctx, subako.Config{Engine: h.eng, HTTPClient: egress.NewClient(h.cfg.Egress), ClientVersion: "kobako-web"})
	if err != nil {
		_ = h.eng.Close(ctx)
		return nil, fmt.Errorf("host: %w", err)
	}
	return h, nil
}

// Close closes the engine (every Handle stops working) and removes a directory New made.
func (h *Host) Close(ctx context.Context) error {
	if h.closed.Swap(true) {
		return nil
	}
	err := h.sub.Close(ctx)
	err = errors.Join(err, h.eng.Close(ctx))
	if h.ownDir {
		err = errors.Join(err, os.RemoveAll(h.cfg.Dir))
	}
	return err
}

// Tool is one tool: what tools/list answers for a package, and name, description and
// parameters-schema for a plugin.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Handle is an opened package or plugin. Its methods are safe for concurrent use; a plugin's calls
// run one at a time (each gets the log records its own call made).
type Handle struct {
	h     *Host
	kind  Kind
	name  string
	tools []Tool

	pkg *subako.Package

	// A plugin: its zeroclaw host over dir, and one runtime per distinct call limits (zeroclaw's
	// limits are the runtime's), each with the tool registered in it.
	dir    string
	zhost  *zeroclaw.Host
	mu     sync.Mutex
	rts    []*pluginRuntime
	closed bool
}

type pluginRuntime struct {
	limits zeroclaw.Limits
	hosts  string // the egress_hosts, joined by "\n"
	rt     *runner.Runner
	tool   *runner.Tool
	logs   *logCollector
}

// maxRuntimes bounds the runtimes a plugin keeps, one per distinct limits and allowed hosts; the
// least recently used is closed beyond it.
const maxRuntimes = 4

// Kind is the handle's plugin protocol.
func (p *Handle) Kind() Kind { return p.kind }

// Name is the package's or plugin's name (the manifest's).
func (p *Handle) Name() string { return p.name }

// Tools are the tools found when the handle was opened.
func (p *Handle) Tools() []Tool { return p.tools }

// OpenPackage loads an ABI 1 package zip and discovers its tools, under subako's upload checks and
// discovery limits.
func (h *Host) OpenPackage(ctx context.Context, zip []byte) (*Handle, error) {
	if h.closed.Load() {
		return nil, ErrClosed
	}
	pkg, err := h.sub.LoadZip(ctx, bytes.NewReader(zip), int64(len(zip)))
	if err != nil {
		return nil, fmt.Errorf("host: %w: package: %w", ErrOpen, err)
	}
	tools, err := pkg.Discover(ctx)
	if err != nil {
		pkg.Close()
		return nil, fmt.Errorf("host: %w: package %s: %w", ErrOpen, pkg.Manifest.Name, err)
	}
	p := &Handle{h: h, kind: KindPackage, name: pkg.Manifest.Name, pkg: pkg}
	for _, t := range tools {
		p.tools = append(p.tools, Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return p, nil
}

// OpenPlugin writes a ZeroClaw plugin (its manifest.toml text and its component, which goes where
// the manifest's wasm_path says) to a new directory under Config.Dir, admits it as zeroclaw's host
// does (shape, config schema, the component's world), and registers its tool with the default
// [plugins.limits]. Signatures are not checked (zeroclaw's default mode, disabled).
func (h *Host) OpenPlugin(ctx context.Context, manifestText string, wasm []byte) (*Handle, error) {
	if h.closed.Load() {
		return nil, ErrClosed
	}
	m, err := manifest.Parse([]byte(manifestText))
	if err != nil {
		return nil, fmt.Errorf("host: %w: manifest.toml: %w", ErrOpen, err)
	}
	if err := manifest.ValidatePackageName(m.Name); err != nil {
		return nil, fmt.Errorf("host: %w: manifest.toml: %w", ErrOpen, err)
	}
	if !m.HasCapability(manifest.CapabilityTool) {
		return nil, fmt.Errorf("host: %w: plugin '%s' has no tool capability (only tool plugins can be called here)", ErrOpen, m.Name)
	}
	if err := manifest.ValidateSubpath("wasm_path", m.Name, m.WasmPath); err != nil {
		return nil, fmt.Errorf("host: %w: manifest.toml: %w", ErrOpen, err)
	}
	root := filepath.Join(h.cfg.Dir, "plugins-"+strconv.FormatUint(h.seq.Add(1), 10))
	pd := filepath.Join(root, m.Name)
	wasmFile := filepath.Join(pd, filepath.FromSlash(m.WasmPath))
	if err := os.MkdirAll(filepath.Dir(wasmFile), 0o755); err != nil {
		return nil, fmt.Errorf("host: %w: %w", ErrOpen, err)
	}
	p := &Handle{h: h, kind: KindPlugin, name: m.Name, dir: root}
	fail := func(err error) (*Handle, error) {
		_ = p.Close(ctx)
		return nil, fmt.Errorf("host: %w: %w", ErrOpen, err)
	}
	if err := os.WriteFile(filepath.Join(pd, manifest.FileName), []byte(manifestText), 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(wasmFile, wasm, 0o644); err != nil {
		return fail(err)
	}
	zh, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: root, SignatureMode: signature.ModeDisabled})
	if err != nil {
		return fail(err)
	}
	p.zhost = zh
	if _, err := zh.Lookup(m.Name); err != nil {
		return fail(err)
	}
	r, err := p.runtime(ctx, zeroclaw.DefaultLimits(), nil)
	if err != nil {
		return fail(err)
	}
	p.tools = []Tool{{Name: r.tool.Name(), Description: r.tool.Description(), InputSchema: r.tool.ParametersSchema()}}
	return p, nil
}

// runtime returns the plugin's runtime for limits and the allowed hosts of its wasi:http, opening
// one (and registering the tool in it) on first use. p.mu is held or p is not yet shared.
func (p *Handle) runtime(ctx context.Context, limits zeroclaw.Limits, hosts []string) (*pluginRuntime, error) {
	key := strings.Join(hosts, "\n")
	for i, r := range p.rts {
		if r.limits == limits && r.hosts == key {
			copy(p.rts[1:i+1], p.rts[:i])
			p.rts[0] = r
			return r, nil
		}
	}
	cfg := zeroclaw.DefaultConfig().Plugins
	cfg.Limits = limits
	if len(hosts) > 0 {
		// The allowlist of the tool's instance, as a native host's [[plugins.entries]] gives it.
		pl, err := p.zhost.Lookup(p.name)
		if err != nil {
			return nil, err
		}
		scope, err := pl.DefaultScope(manifest.CapabilityTool)
		if err != nil {
			return nil, err
		}
		cfg.Entries = []zeroclaw.EntryConfig{{Name: scope.ID.Key(), EgressHosts: slices.Clone(hosts)}}
	}
	logs := &logCollector{}
	rt, err := runner.Open(ctx, runner.Options{Host: p.zhost, Config: &cfg, Engine: p.h.eng, Log: logs, Egress: p.h.cfg.Egress,
		EgressLog: logs})
	if err != nil {
		return nil, err
	}
	t, err := rt.Tool(ctx, p.name)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	r := &pluginRuntime{limits: limits, hosts: key, rt: rt, tool: t, logs: logs}
	p.rts = append([]*pluginRuntime{r}, p.rts...)
	if len(p.rts) > maxRuntimes {
		_ = p.rts[maxRuntimes].rt.Close(ctx)
		p.rts = p.rts[:maxRuntimes]
	}
	return r, nil
}

// Close releases the package or plugin (and removes the plugin's directory).
func (p *Handle) Close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var err error
	if p.pkg != nil {
		err = p.pkg.Close()
	}
	for _, r := range p.rts {
		err = errors.Join(err, r.rt.Close(ctx))
	}
	p.rts = nil
	if p.dir != "" {
		err = errors.Join(err, os.RemoveAll(p.dir))
	}
	return err
}

// CallOptions are one call's limits and observers. Zero values mean the protocol's defaults: for
// a package subako.DefaultCallLimits, for a plugin zeroclaw's [plugins.limits] defaults.
type CallOptions struct {
	// Fuel is the call's fuel (wasm instructions).
	Fuel uint64
	// Timeout is the call's wall-clock deadline (a plugin's is whole milliseconds, at least 1).
	Timeout time.Duration
	// AllowHosts are the host patterns a package's subako_http, or a plugin's wasi:http, may
	// reach (egress.PolicyConfig AllowHosts: api.example.com, *.example.com, *); none means no
	// network. For a plugin they are what a native host's [[plugins.entries]] egress_hosts are,
	// and they reach it only if its manifest asks for the http_client permission.
	AllowHosts []string
	// Progress, when set, is called from another goroutine while the call runs, at most every
	// ProgressInterval and only when the fuel moved: the fuel used so far and the call's budget.
	Progress func(consumed, budget uint64)
	// ProgressInterval defaults to 100 ms.
	ProgressInterval time.Duration
}

// CallResult is one call's answer: the result, the fuel the call's instance used, the time the
// call took and the log records it made.
type CallResult struct {
	// Result is a package's MCP CallToolResult (an isError result included) or a plugin's
	// tool-result {success, output, error}.
	Result json.RawMessage `json:"result"`
	// FuelConsumed is the fuel the call used: every wasm instruction its instance ran, its
	// instantiation included, counted exactly as natively.
	FuelConsumed uint64 `json:"fuelConsumed"`
	// Ms is the call's wall-clock time in milliseconds.
	Ms float64 `json:"ms"`
	// Logs are the plugin's log records (zeroclaw:plugin/logging) and refused or failed
	// wasi:http requests; ABI 1 has no log channel, so a package's are empty.
	Logs []LogRecord `json:"logs"`
}

// LogRecord is one log record.
type LogRecord struct {
	Time    time.Time      `json:"time"`
	Level   string         `json:"level"`
	Message string         `json:"message"`
	Attrs   map[string]any `json:"attrs,omitempty"`
}

// CallError is a call that failed (a guest error, a trap, fuel or deadline, cancellation): the
// error with what the call used before it failed.
type CallError struct {
	Err          error
	FuelConsumed uint64
	Ms           float64
	Logs         []LogRecord
}

func (e *CallError) Error() string { return e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// ErrorKind names the cause of a call's error for a program to switch on: "fuel", "deadline",
// "canceled", "guest" (a plugin's err result), "trap", "crash" (a package broke ABI 1), "usage",
// "open", "closed" or "error".
func ErrorKind(err error) string {
	switch {
	case errors.Is(err, ErrUsage), errors.Is(err, subako.ErrUnknownTool), errors.Is(err, subako.ErrOptions):
		return "usage"
	case errors.Is(err, ErrOpen):
		return "open"
	case errors.Is(err, ErrClosed):
		return "closed"
	case errors.Is(err, engine.ErrFuelExhausted):
		return "fuel"
	case errors.Is(err, engine.ErrDeadlineExceeded), errors.Is(err, runner.ErrDeadline), errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, engine.ErrCanceled), errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, runner.ErrExecute):
		return "guest"
	case errors.Is(err, runner.ErrTrapped):
		return "trap"
	case errors.Is(err, subako.ErrCrash):
		return "crash"
	}
	return "error"
}

// Call calls tool with args (a JSON object; nil means {}) in a fresh instance. A failed call is a
// *CallError.
func (p *Handle) Call(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (*CallResult, error) {
	if p.h.closed.Load() {
		return nil, ErrClosed
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("host: %w: negative timeout", ErrUsage)
	}
	if p.kind == KindPackage {
		return p.callPackage(ctx, tool, args, opts)
	}
	return p.callPlugin(ctx, tool, args, opts)
}

// observe returns ctx reporting the fuel of its calls to a new FuelProgress, and starts the
// progress reports opts asks for; stop ends them.
func observe(ctx context.Context, opts CallOptions) (_ context.Context, _ *engine.FuelProgress, stop func()) {
	p := new(engine.FuelProgress)
	stop = func() {}
	if opts.Progress != nil {
		stop = reportProgress(p, opts.Progress, opts.ProgressInterval)
	}
	return engine.WithFuelProgress(ctx, p), p, stop
}

func (p *Handle) callPackage(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (*CallResult, error) {
	limits := subako.DefaultCallLimits()
	if opts.Fuel > 0 {
		limits.Fuel = opts.Fuel
	}
	if opts.Timeout > 0 {
		limits.Deadline = opts.Timeout
	}
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("host: %w: %v", ErrUsage, err)
	}
	co := subako.CallOptions{Limits: limits}
	if len(opts.AllowHosts) > 0 {
		pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: opts.AllowHosts})
		if err != nil {
			return nil, fmt.Errorf("host: %w: allowed hosts: %v", ErrUsage, err)
		}
		co.Network = pol
	}
	ctx, progress, stop := observe(ctx, opts)
	start := time.Now()
	res, err := p.pkg.Call(ctx, tool, args, co)
	ms := msSince(start)
	stop()
	if err != nil {
		return nil, &CallError{Err: err, FuelConsumed: progress.Consumed(), Ms: ms, Logs: []LogRecord{}}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &CallResult{Result: b, FuelConsumed: progress.Consumed(), Ms: ms, Logs: []LogRecord{}}, nil
}

func (p *Handle) callPlugin(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (*CallResult, error) {
	if len(opts.AllowHosts) > 0 {
		if _, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: opts.AllowHosts}); err != nil {
			return nil, fmt.Errorf("host: %w: allowed hosts: %v", ErrUsage, err)
		}
	}
	if tool != p.tools[0].Name {
		return nil, fmt.Errorf("host: %w: %q; the plugin's tool is %q", subako.ErrUnknownTool, tool, p.tools[0].Name)
	}
	if args == nil {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("host: %w: arguments must be a JSON object", ErrUsage)
	}
	limits := zeroclaw.DefaultLimits()
	if opts.Fuel > 0 {
		limits.CallFuel = opts.Fuel
	}
	if opts.Timeout > 0 {
		limits.CallTimeoutMS = uint64(max(opts.Timeout.Milliseconds(), 1))
	}
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("host: %w: %v", ErrUsage, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	// Registration (on new limits) is not the call: the progress is attached after it.
	r, err := p.runtime(ctx, limits, opts.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	r.logs.reset()
	ctx, progress, stop := observe(ctx, opts)
	start := time.Now()
	res, err := r.tool.Execute(ctx, args)
	ms := msSince(start)
	stop()
	// The records come through the runtime's queue: wait for the ones this call made.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	_ = r.rt.FlushLogs(fctx)
	cancel()
	logs := r.logs.take()
	if err != nil {
		return nil, &CallError{Err: err, FuelConsumed: progress.Consumed(), Ms: ms, Logs: logs}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &CallResult{Result: b, FuelConsumed: progress.Consumed(), Ms: ms, Logs: logs}, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// reportProgress calls f every interval while the fuel moves, until stop, which returns once no
// call can follow.
func reportProgress(p *engine.FuelProgress, f func(consumed, budget uint64), interval time.Duration) (stop func()) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		var last uint64
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if c := p.Consumed(); c > last {
				last = c
				f(c, p.Budget())
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// logCollector is the slog.Handler of a plugin's runtime: it keeps the records of the running
// call.
type logCollector struct {
	mu      sync.Mutex
	records []LogRecord
}

func (c *logCollector) Enabled(context.Context, slog.Level) bool { return true }

func (c *logCollector) Handle(_ context.Context, r slog.Record) error {
	rec := LogRecord{Time: r.Time, Level: levelName(r.Level), Message: r.Message}
	add := func(a slog.Attr) bool {
		if v := a.Value.Resolve().Any(); v != nil {
			if rec.Attrs == nil {
				rec.Attrs = map[string]any{}
			}
			if e, ok := v.(error); ok {
				v = e.Error()
			}
			rec.Attrs[a.Key] = v
		}
		return true
	}
	r.Attrs(add)
	c.mu.Lock()
	c.records = append(c.records, rec)
	c.mu.Unlock()
	return nil
}

func (c *logCollector) WithAttrs(as []slog.Attr) slog.Handler {
	// The runtime's egress logger is built once; its attrs are few.
	return &attrHandler{c: c, attrs: as}
}

func (c *logCollector) WithGroup(string) slog.Handler { return c }

func (c *logCollector) reset() {
	c.mu.Lock()
	c.records = nil
	c.mu.Unlock()
}

func (c *logCollector) take() []LogRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.records
	c.records = nil
	if out == nil {
		out = []LogRecord{}
	}
	return out
}

// attrHandler is a logCollector with attrs added to every record.
type attrHandler struct {
	c     *logCollector
	attrs []slog.Attr
}

func (h *attrHandler) Enabled(ctx context.Context, l slog.Level) bool { return true }
func (h *attrHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(h.attrs...)
	return h.c.Handle(ctx, r)
}
func (h *attrHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &attrHandler{c: h.c, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}
func (h *attrHandler) WithGroup(string) slog.Handler { return h }

// levelName names a level as zeroclaw's logging interface does.
func levelName(l slog.Level) string {
	switch {
	case l < slog.LevelDebug:
		return "trace"
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warn"
	}
	return "error"
}
