package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// MaxHostCallsPerFrame is the reference's fixed budget of ZeroClaw-owned import calls (logging,
// secrets, config, inbound) per host-dispatched export call. WASI calls are not charged.
const MaxHostCallsPerFrame = 1000

// The exported interfaces the runtime calls, by their WIT names (without the version), for the
// dynamic calls of Channel.Invoke and Memory.Invoke.
const (
	ifaceChannel = "zeroclaw:plugin/channel"
	ifaceMemory  = "zeroclaw:plugin/memory"
)

// Options configure a Runner.
type Options struct {
	// Host is the opened plugin host whose admitted plugins the runtime runs.
	Host *zeroclaw.Host
	// Config is the host configuration: [[plugins.entries]] for config and secrets,
	// [plugins.limits] for the limits. Nil means zeroclaw.DefaultConfig().
	Config *zeroclaw.PluginsConfig
	// Log receives the plugins' log records (through the bounded queue). Nil discards them.
	Log slog.Handler
	// Stdout and Stderr receive guest WASI output; nil discards it, as the reference does.
	Stdout, Stderr io.Writer
	// LogIdleReport overrides how often an idle log writer reports drops (tests).
	LogIdleReport time.Duration
	// Engine, when set, is used instead of a new one and is not closed by Close; runtimes that
	// share an engine share its cache of compiled core modules.
	Engine *engine.Engine
	// Egress is the base of the egress clients that send the wasi:http requests of instances
	// granted http_client; its AllowPrivate is ignored (egress_allow_private decides it per
	// request). The zero value is the production configuration: the system resolver and roots.
	// Tests set Resolver, RootCAs and the Unsafe fields to reach a loopback server.
	Egress egress.Options
	// EgressLog receives one record per refused or failed wasi:http request, naming its
	// error-code; nil means slog.Default().
	EgressLog slog.Handler
	// Snapshot makes every instance start from a snapshot of the plugin's component taken after
	// its instantiation (component.Snapshot), taken on first use and kept: a Go tool's runtime
	// initialization runs once instead of per execute. Fuel counts are unchanged. The one
	// semantic difference, as with a Wizer-initialized build: what initialization computed,
	// including numbers it read from wasi:random and the clocks, is the same in every instance.
	// A plugin whose initialization calls a ZeroClaw or wasi:http import, or leaves resource
	// handles other than its stdio streams, is refused with ErrLoad.
	Snapshot bool
}

// Runner runs the plugins of one zeroclaw.Host: one engine, one linker with the WASI 0.2 surface
// and the ZeroClaw host interfaces defined once, one logging queue, and the compiled components
// (each compiled once, instantiated per instance). A Runner is safe for concurrent use.
type Runner struct {
	host   *zeroclaw.Host
	cfg    *zeroclaw.PluginsConfig
	limits zeroclaw.Limits
	eng    *engine.Engine
	// ownEngine is set when Open made eng, so Close closes it.
	ownEngine bool
	linker    *component.Linker
	logs      *LogQueue
	// public and private send the wasi:http requests of granted instances; private may reach
	// the refused address ranges and serves hosts on the instance's egress_allow_private.
	public, private *egress.Client
	egressLog       *slog.Logger
	stdout          io.Writer
	stderr          io.Writer

	// snapshot is Options.Snapshot; snapshots holds one snapshot per prepared component.
	snapshot bool

	mu        sync.Mutex
	compiled  map[string]*compileEntry
	snapshots map[*component.InstancePre]*snapshotEntry
	closed    bool
}

type snapshotEntry struct {
	once sync.Once
	sn   *component.Snapshot
	err  error
}

type compileEntry struct {
	decodeOnce, compileOnce sync.Once
	comp                    *binary.Component
	pre                     *component.InstancePre
	err                     error

	// The generated bindings of the worlds the plugin is used as, prepared on pre once: every
	// instance of the plugin is called through them.
	tool    prepared[*bindings.ToolPluginPre]
	channel prepared[*channelExports]
	memory  prepared[*bindings.MemoryPluginPre]
}

// prepared is one world's bindings of a compiled plugin, made on first use.
type prepared[T any] struct {
	once sync.Once
	x    T
	err  error
}

// get returns the bindings, preparing them with prepare on the first call. A component that does
// not fit the world (an export missing, or of another type) fails with ErrWorld.
func (p *prepared[T]) get(e *compileEntry, name string, prepare func(*component.InstancePre) (T, error)) (T, error) {
	p.once.Do(func() {
		if p.x, p.err = prepare(e.pre); p.err != nil {
			p.err = fmt.Errorf("%w: plugin '%s': %v", ErrWorld, name, p.err)
		}
	})
	return p.x, p.err
}

// Open validates the limits and builds a Runner over an opened host.
func Open(ctx context.Context, opts Options) (*Runner, error) {
	if opts.Host == nil {
		return nil, fmt.Errorf("zeroclaw runtime: open: %w: no host", ErrLoad)
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = &zeroclaw.DefaultConfig().Plugins
	}
	if err := cfg.Limits.Validate(); err != nil {
		return nil, err
	}
	eng, ownEngine := opts.Engine, false
	if eng == nil {
		var err error
		if eng, err = engine.New(ctx, engine.Config{}); err != nil {
			return nil, fmt.Errorf("zeroclaw runtime: open: %w", err)
		}
		ownEngine = true
	}
	l := component.NewLinker()
	if err := preview2.Define(l); err != nil {
		return nil, fmt.Errorf("zeroclaw runtime: open: %w", err)
	}
	// wasi:http is on the shared linker, but checkImports refuses it before linking to every
	// instance without an effective http_client grant and to every memory plugin, and only
	// granted instances get a sender (without one every request is HTTP-request-denied).
	if err := preview2.DefineHTTP(l); err != nil {
		return nil, fmt.Errorf("zeroclaw runtime: open: %w", err)
	}
	if err := defineHost(l); err != nil {
		return nil, fmt.Errorf("zeroclaw runtime: open: %w", err)
	}
	pub, priv := opts.Egress, opts.Egress
	pub.AllowPrivate, priv.AllowPrivate = false, true
	var elog *slog.Logger
	if opts.EgressLog != nil {
		elog = slog.New(opts.EgressLog)
	}
	h := opts.Log
	if h == nil {
		h = discardHandler{}
	}
	return &Runner{
		host: opts.Host, cfg: cfg, limits: cfg.Limits, eng: eng, ownEngine: ownEngine, linker: l,
		logs:   NewLogQueue(h, LogQueueOptions{IdleReport: opts.LogIdleReport}),
		stdout: opts.Stdout, stderr: opts.Stderr,
		public: egress.NewClient(pub), private: egress.NewClient(priv), egressLog: elog,
		compiled: map[string]*compileEntry{}, snapshot: opts.Snapshot,
		snapshots: map[*component.InstancePre]*snapshotEntry{},
	}, nil
}

// FlushLogs returns once every plugin log record logged before it was called has reached
// Options.Log: the queue writes records on its own goroutine, so without it a record a call made
// may still be on its way when the call returns.
func (r *Runner) FlushLogs(ctx context.Context) error { return r.logs.Flush(ctx) }

// Close flushes the logging queue, closes the compiled components and snapshots of the plugins
// it loaded (which would otherwise stay in an engine passed in Options.Engine until that engine
// is closed) and closes the engine if Open made it. Plugins obtained from the runtime must not
// be used afterwards: they can no longer make instances.
func (r *Runner) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	compiled, snapshots := r.compiled, r.snapshots
	r.compiled, r.snapshots = nil, nil
	r.mu.Unlock()
	err := r.logs.Close(ctx)
	// Snapshots first: they instantiate their component's modules. Each Once waits for a
	// compile or capture under way; one not started yet is left undone.
	for _, e := range snapshots {
		e.once.Do(func() { e.err = ErrClosed })
		if e.sn != nil {
			err = errors.Join(err, e.sn.Close(ctx))
		}
	}
	for _, e := range compiled {
		e.compileOnce.Do(func() {})
		if e.pre != nil {
			err = errors.Join(err, e.pre.Component().Close(ctx))
		}
	}
	r.public.CloseIdleConnections()
	r.private.CloseIdleConnections()
	if r.ownEngine {
		err = errors.Join(err, r.eng.Close(ctx))
	}
	return err
}

// LogDropped is the number of plugin log records dropped so far.
func (r *Runner) LogDropped() uint64 { return r.logs.Dropped() }

// engineLimits maps [plugins.limits] onto the engine's per-store limits.
func (r *Runner) engineLimits() engine.Limits {
	l := r.limits
	mem := l.MaxMemoryBytes()
	if mem > 1<<32 {
		mem = 1 << 32
	}
	tables := l.MaxTableElements
	if tables > 1<<32-1 {
		tables = 1<<32 - 1
	}
	fuel := l.CallFuel
	if fuel > engine.MaxFuel {
		fuel = engine.MaxFuel
	}
	return engine.Limits{
		Fuel: fuel, Deadline: l.CallTimeout(), MemoryBytes: mem,
		TableElements: uint32(tables), Instances: int(min(l.MaxInstances, 1<<30)),
	}
}

// plugin finds an admitted plugin declaring capability c.
func (r *Runner) plugin(name string, c manifest.Capability) (*zeroclaw.Plugin, error) {
	p, ok := r.host.Plugin(name)
	if !ok {
		return nil, fmt.Errorf("%w: plugin '%s' is not installed or was not admitted", ErrLoad, name)
	}
	if !p.Manifest.HasCapability(c) {
		return nil, fmt.Errorf("%w: plugin '%s' does not declare the %s capability", ErrLoad, name, c)
	}
	return p, nil
}

// load decodes a plugin's component (once per runtime), refuses imports the scope's grants do
// not allow before any code is compiled or run, then compiles it and links it against the
// runtime's linker (once per runtime): every instance starts from the same InstancePre.
func (r *Runner) load(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope) (*compileEntry, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := r.compiled[p.Dir]
	if !ok {
		e = &compileEntry{}
		r.compiled[p.Dir] = e
	}
	r.mu.Unlock()
	e.decodeOnce.Do(func() {
		wasm, err := p.ReadWasm()
		if err != nil {
			e.err = fmt.Errorf("%w: plugin '%s': %v", ErrLoad, p.Name(), err)
			return
		}
		if !binary.IsComponent(wasm) {
			e.err = fmt.Errorf("%w: plugin '%s': %s is not a WebAssembly component", ErrLoad, p.Name(), p.Manifest.WasmPath)
			return
		}
		if e.comp, err = binary.Decode(wasm); err != nil {
			e.err = fmt.Errorf("%w: plugin '%s': %w", ErrLoad, p.Name(), err)
		}
	})
	if e.err != nil {
		return nil, e.err
	}
	if err := checkImports(e.comp, p, scope); err != nil {
		return nil, err
	}
	e.compileOnce.Do(func() {
		cc, err := component.CompileDecoded(ctx, r.eng, e.comp)
		if err != nil {
			e.err = fmt.Errorf("%w: plugin '%s': %w", ErrLoad, p.Name(), err)
			return
		}
		if e.pre, err = r.linker.Prepare(cc); err != nil {
			_ = cc.Close(ctx)
			e.err = fmt.Errorf("%w: plugin '%s': %w", ErrLoad, p.Name(), err)
		}
	})
	if e.err != nil {
		return nil, e.err
	}
	if e.pre == nil {
		return nil, ErrClosed // Close ran before this plugin's compile
	}
	return e, nil
}

// checkImports refuses, before any code runs, a component whose imports its grants do not
// allow: wasi:http needs an effective http_client grant, and memory plugins never get it.
func checkImports(comp *binary.Component, p *zeroclaw.Plugin, scope instance.Scope) error {
	for _, imp := range comp.Imports {
		n := imp.Name
		if n.Kind != binary.NameInterface || n.Namespace != "wasi" || n.Package != "http" {
			continue
		}
		if scope.ID.Capability == manifest.CapabilityMemory {
			return fmt.Errorf("%w: plugin '%s' imports %s, but memory plugins are never given wasi:http", ErrPermission, p.Name(), n.Raw)
		}
		if !scope.Grants.Allows(manifest.PermissionHTTPClient) {
			return fmt.Errorf("%w: plugin '%s' imports %s, which needs the http_client permission, and it is not granted", ErrPermission, p.Name(), n.Raw)
		}
	}
	return nil
}

// instantiate creates a store with the runtime's limits, binds the empty WASI context and the
// instance state to it, and instantiates pre in it.
func (r *Runner) instantiate(ctx context.Context, pre *component.InstancePre, st *instanceState) (*component.Instance, error) {
	send, err := r.httpSender(st.plugin, st.scope)
	if err != nil {
		return nil, err
	}
	s, err := r.eng.NewStore(ctx, r.engineLimits())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	// Guest stderr goes where the embedder asked (nowhere by default) and, its end, into the
	// instance state, for the error of a trap.
	var stderr io.Writer = &st.stderr
	if r.stderr != nil {
		stderr = io.MultiWriter(r.stderr, &st.stderr)
	}
	cfg := wasi.Config{Stdout: r.stdout, Stderr: stderr}
	if _, err := preview2.Bind(s, cfg, preview2.WithHTTP(preview2.HTTPConfig{Send: send})); err != nil {
		_ = s.Close(ctx)
		return nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	stateKey.Set(s, st)
	var in *component.Instance
	if r.snapshot {
		var sn *component.Snapshot
		if sn, err = r.snapshotOf(ctx, pre, st); err == nil {
			in, err = sn.Instantiate(ctx, s)
		}
	} else {
		in, err = pre.Instantiate(ctx, s)
	}
	if err != nil {
		_ = s.Close(ctx)
		return nil, r.callError("instantiate", st, err)
	}
	return in, nil
}

// snapshotOf returns the snapshot instances of pre start from, taking it on first use in a store
// set up as instantiate sets one up, for a fresh instance state of st's plugin and scope.
func (r *Runner) snapshotOf(ctx context.Context, pre *component.InstancePre, st *instanceState) (*component.Snapshot, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := r.snapshots[pre]
	if !ok {
		e = &snapshotEntry{}
		r.snapshots[pre] = e
	}
	r.mu.Unlock()
	e.once.Do(func() {
		fail := func(err error) { e.err = fmt.Errorf("%w: plugin '%s': %w", ErrLoad, st.plugin.Name(), err) }
		send, err := r.httpSender(st.plugin, st.scope)
		if err != nil {
			e.err = err
			return
		}
		s, err := r.eng.NewStore(ctx, r.engineLimits())
		if err != nil {
			fail(err)
			return
		}
		// Snapshot closes s; nothing here refers to it afterwards, so that the capture instance
		// (and the compiled code it ran) is not kept alive while the restored modules compile.
		cfg := wasi.Config{Stdout: r.stdout, Stderr: r.stderr}
		if _, err := preview2.Bind(s, cfg, preview2.WithHTTP(preview2.HTTPConfig{Send: send})); err != nil {
			_ = s.Close(ctx)
			fail(err)
			return
		}
		stateKey.Set(s, r.newState(st.plugin, st.scope))
		// Every instance of the runtime starts from the snapshot: the component's own compiled
		// modules are given back once it is taken, so that the plugin keeps one compiled copy.
		e.sn, err = pre.Snapshot(ctx, s, component.SnapshotOptions{Replay: stdioConstructor, Stateful: statefulImport, Release: true})
		if err != nil {
			fail(err)
		}
	})
	return e.sn, e.err
}

// stdioConstructor: the stdio streams a WASI preview 1 adapter takes when it starts are fresh
// host resources, recreated for each snapshot instance by calling their constructor again.
func stdioConstructor(iface, name string) bool {
	for _, std := range []string{"stdin", "stdout", "stderr"} {
		if strings.HasPrefix(iface, "wasi:cli/"+std+"@") && name == "get-"+std {
			return true
		}
	}
	return false
}

// statefulImport: ZeroClaw's host interfaces (secrets, config, logging, inbound) and wasi:http
// answer per instance and scope, or have effects, so an initialization that calls them cannot
// be captured once for every instance.
func statefulImport(iface, _ string) bool {
	return strings.HasPrefix(iface, "zeroclaw:") || strings.HasPrefix(iface, "wasi:http/")
}

// httpSender is the wasi:http sender of one instance: nil (every request denied) unless the
// scope's effective grants include http_client and the plugin is not a memory plugin; otherwise
// an egress sender whose allowlist is the instance's [[plugins.entries]] egress_hosts. A request
// to a host that egress_allow_private also matches goes through the client that may reach
// private and loopback addresses; the allowlist still applies to it.
func (r *Runner) httpSender(p *zeroclaw.Plugin, scope instance.Scope) (preview2.HTTPSender, error) {
	if scope.ID.Capability == manifest.CapabilityMemory || !scope.Grants.Allows(manifest.PermissionHTTPClient) {
		return nil, nil
	}
	var hosts, private []string
	found := false
	for _, e := range r.cfg.Entries {
		if e.Name != scope.ID.Key() {
			continue
		}
		if found {
			return nil, fmt.Errorf("%w: plugin '%s': duplicate plugin config entries for one instance key", ErrLoad, p.Name())
		}
		found = true
		hosts, private = e.EgressHosts, e.EgressAllowPrivate
	}
	policy, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: hosts})
	if err != nil {
		return nil, fmt.Errorf("%w: plugin '%s': egress_hosts: %w", ErrLoad, p.Name(), err)
	}
	pub := httpegress.New(httpegress.Config{Policy: policy, Client: r.public, Logger: r.egressLog}).Send
	if len(private) == 0 {
		return pub, nil
	}
	privPolicy, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: private})
	if err != nil {
		return nil, fmt.Errorf("%w: plugin '%s': egress_allow_private: %w", ErrLoad, p.Name(), err)
	}
	priv := httpegress.New(httpegress.Config{Policy: policy, Client: r.private, Logger: r.egressLog}).Send
	return func(ctx context.Context, req *http.Request, opts preview2.RequestOptions) (*http.Response, error) {
		if req.URL != nil {
			// The origin's scheme is always https; a plain-http URL is refused by the policy
			// whichever client sends it.
			if o, err := egress.ParseOrigin("https://" + req.URL.Host); err == nil && privPolicy.AllowsOrigin(o) {
				return priv(ctx, req, opts)
			}
		}
		return pub(ctx, req, opts)
	}, nil
}

// callError turns a failed guest call into the reference's messages: a deadline names the limit,
// anything else is "<what> trapped: <cause>".
//
// A trap carries the end of the guest's stderr output in st, when there is any (*TrapError).
func (r *Runner) callError(what string, st *instanceState, err error) error {
	switch {
	case errors.Is(err, engine.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		// A host call blocked past the deadline (wasi:io/poll) fails with the frame context's
		// error; either way the call ran out of time.
		return fmt.Errorf("%w of %d ms", ErrDeadline, r.limits.CallTimeoutMS)
	case errors.Is(err, engine.ErrInstanceUnavailable):
		return ErrUnavailable
	case what == "instantiate":
		err = fmt.Errorf("%w: instantiation failed: %w", ErrLoad, err)
		if tail := st.stderr.String(); tail != "" {
			return &TrapError{Err: err, Stderr: tail}
		}
		return err
	}
	err = fmt.Errorf("%s %w: %w", what, ErrTrapped, err)
	if tail := st.stderr.String(); tail != "" {
		return &TrapError{Err: err, Stderr: tail}
	}
	return err
}

// interrupted reports whether err left the store discarded.
func interrupted(err error) bool {
	return errors.Is(err, ErrDeadline) || errors.Is(err, ErrTrapped) || errors.Is(err, ErrUnavailable) ||
		errors.Is(err, engine.ErrCanceled) || errors.Is(err, context.Canceled)
}

// instanceState is the host state of one store: whose instance it is, and the frame it is in.
// A store runs one call at a time, so no lock is needed.
type instanceState struct {
	rt     *Runner
	plugin *zeroclaw.Plugin
	scope  instance.Scope
	src    LogSource

	// inFrame is true during a host-dispatched export call; authorised during the ones that
	// may read config and secrets (tool execute; channel configure and operational calls).
	inFrame    bool
	authorised bool
	budget     int
	// resolved is the frame's config revision, resolved on first use (or preset by the
	// adapter) and discarded at frame exit.
	resolved   *pluginconfig.Resolved
	resolveErr error
	preset     *pluginconfig.Resolved

	inbound *InboundQueue
	// stderr is the end of the guest's stderr output, for the error of a trap.
	stderr stderrTail
}

var stateKey = engine.NewKey[*instanceState]()

var errNoState = errors.New("zeroclaw runtime: store has no plugin state")

func stateOf(c *component.Caller) (*instanceState, error) {
	st, ok := stateKey.Get(c.Store())
	if !ok {
		return nil, errNoState
	}
	return st, nil
}

// begin starts a frame for export fn.
func (st *instanceState) begin(fn string, authorised bool, preset *pluginconfig.Resolved) {
	st.inFrame, st.authorised, st.budget = true, authorised, MaxHostCallsPerFrame
	st.src.Fn = fn
	st.preset = preset
}

// end closes the frame on every exit path: the budget is gone and the plaintext view dropped.
func (st *instanceState) end() {
	st.inFrame, st.authorised, st.budget = false, false, 0
	st.resolved, st.resolveErr, st.preset = nil, nil, nil
	st.src.Fn = ""
}

// charge takes one host call from the frame's budget.
func (st *instanceState) charge() bool {
	if st.budget <= 0 {
		return false
	}
	st.budget--
	return true
}

// config resolves the frame's revision once.
func (st *instanceState) config() (*pluginconfig.Resolved, error) {
	if st.resolved == nil && st.resolveErr == nil {
		if st.preset != nil {
			st.resolved = st.preset
		} else {
			st.resolved, st.resolveErr = st.plugin.ResolveConfig(st.scope, st.rt.cfg)
		}
	}
	return st.resolved, st.resolveErr
}

// readsConfig reports whether the scope may read config and secrets at all.
func (st *instanceState) readsConfig() bool {
	c := st.scope.ID.Capability
	return (c == manifest.CapabilityTool || c == manifest.CapabilityChannel) &&
		st.scope.Grants.Allows(manifest.PermissionConfigRead)
}

// The ZeroClaw host interfaces, served through the generated bindings on the runtime's one
// linker. They hold nothing: each call finds its instance's state in the calling store (stateOf),
// so one definition serves every instance. Config and secrets are two types because both
// interfaces name their function get.
type (
	hostLogging struct{}
	hostSecrets struct{}
	hostConfig  struct{}
	hostInbound struct{}
)

// defineHost defines the ZeroClaw host interfaces on l, once.
func defineHost(l *component.Linker) error {
	return errors.Join(bindings.DefineLogging(l, hostLogging{}), bindings.DefineSecrets(l, hostSecrets{}),
		bindings.DefineConfig(l, hostConfig{}), bindings.DefineInbound(l, hostInbound{}))
}

// LogRecord queues the record unless the frame's budget is spent; like the reference, it never
// fails the guest.
func (hostLogging) LogRecord(_ context.Context, c *component.Caller, level bindings.LogLevel, ev bindings.PluginEvent) error {
	st, err := stateOf(c)
	if err != nil {
		return err
	}
	if st.charge() {
		st.rt.logs.Log(st.src, level, eventOf(ev))
	}
	return nil
}

// Get answers secrets.get.
func (hostSecrets) Get(_ context.Context, c *component.Caller, name string) (abi.Result[string, SecretError], error) {
	st, err := stateOf(c)
	if err != nil {
		return abi.Result[string, SecretError]{}, err
	}
	return st.secret(name), nil
}

// Get answers config.get.
func (hostConfig) Get(_ context.Context, c *component.Caller) (abi.Result[string, ConfigError], error) {
	st, err := stateOf(c)
	if err != nil {
		return abi.Result[string, ConfigError]{}, err
	}
	return st.publicConfig(), nil
}

// InboundPoll pops the channel's next host message; none outside an authorised frame or once
// the budget is spent.
func (hostInbound) InboundPoll(_ context.Context, c *component.Caller) (*bindings.HostInboundMessage, error) {
	st, err := stateOf(c)
	if err != nil {
		return nil, err
	}
	if !st.charge() || !st.authorised || st.inbound == nil {
		return nil, nil
	}
	m, ok := st.inbound.pop()
	if !ok {
		return nil, nil
	}
	return m.wit(), nil
}

// InboundPending counts the channel's waiting host messages, under the same rules.
func (hostInbound) InboundPending(_ context.Context, c *component.Caller) (uint32, error) {
	st, err := stateOf(c)
	if err != nil {
		return 0, err
	}
	if !st.charge() || !st.authorised || st.inbound == nil {
		return 0, nil
	}
	return uint32(min(uint64(st.inbound.Len()), math.MaxUint32)), nil
}

// secret answers secrets.get in the reference's order: budget, frame, grant, resolution, name.
func (st *instanceState) secret(name string) abi.Result[string, SecretError] {
	if !st.charge() || !st.authorised {
		return abi.Err[string](SecretUnavailable)
	}
	if !st.readsConfig() {
		return abi.Err[string](SecretAccessDenied)
	}
	res, err := st.config()
	if err != nil {
		return abi.Err[string](SecretUnavailable)
	}
	v, ok := res.Secret(name)
	if !ok {
		return abi.Err[string](SecretNotFound)
	}
	return abi.Ok[string, SecretError](v)
}

// publicConfig answers config.get.
func (st *instanceState) publicConfig() abi.Result[string, ConfigError] {
	if !st.charge() || !st.authorised {
		return abi.Err[string](ConfigUnavailable)
	}
	if !st.readsConfig() {
		return abi.Err[string](ConfigAccessDenied)
	}
	res, err := st.config()
	if err != nil {
		return abi.Err[string](ConfigUnavailable)
	}
	return abi.Ok[string, ConfigError](res.PublicJSON())
}

// discardHandler drops every record.
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }

func capabilityName(c manifest.Capability) string { return strings.ToLower(string(c)) }

// HostInboundMessageType is the WIT type of inbound.host-inbound-message, for embedders that
// read messages in a text form (the CLI shell parses them as WAVE). It is written out here, as
// no component is at hand to take it from; TestHostInboundMessageType checks it against the WIT.
func HostInboundMessageType() abi.Type { return hostInboundT }

var hostInboundT = func() abi.Type {
	optString := abi.Must(abi.OptionOf(abi.String))
	return abi.Must(abi.RecordOf(
		abi.Field{Name: "id", Type: abi.String}, abi.Field{Name: "sender", Type: abi.String},
		abi.Field{Name: "reply-target", Type: abi.String}, abi.Field{Name: "content", Type: abi.String},
		abi.Field{Name: "channel", Type: abi.String}, abi.Field{Name: "channel-alias", Type: optString},
		abi.Field{Name: "timestamp", Type: abi.U64}, abi.Field{Name: "thread-ts", Type: optString},
		abi.Field{Name: "interruption-scope-id", Type: optString}, abi.Field{Name: "subject", Type: optString}))
}()
