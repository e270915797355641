package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako"
)

// PackageSpec is one ABI 1 package to serve and how its calls run.
type PackageSpec struct {
	// Name is the source name its tools are listed under; empty means the manifest's name.
	Name string
	// Path is a package directory or a zip of one.
	Path string
	// NoPrefix lists the tools under their own names instead of NAME__TOOL, for a server of one
	// package (or packages whose tool names do not clash).
	NoPrefix bool
	// Call is what each call of the package's tools gets, as with `kobako function call`:
	// limits, the volume and data directories, skills, the write budget and the network policy.
	Call subako.CallOptions
}

// Options configure a Server.
type Options struct {
	// Packages are the ABI 1 packages to serve.
	Packages []PackageSpec
	// Plugins lists the installed ZeroClaw tool plugins; nil serves none.
	Plugins PluginSource
	// Runtime loads and runs the packages; nil means a new subako.Runtime owned by the Server.
	Runtime *subako.Runtime
	// Name and Version identify the server to clients (serverInfo); empty means "kobako" and
	// "dev".
	Name, Version string
	// Instructions, when set, are sent to clients in the initialize and server/discover results.
	Instructions string
	// ListChanged advertises tools.listChanged, for servers that Reload (see Watch).
	ListChanged bool
	// Logger receives warnings (a skipped package or plugin) and one line per call; nil discards.
	Logger *slog.Logger
	// MaxConcurrentCalls caps the guests running at once, over every client and transport; later
	// calls wait their turn in arrival order, and a call's deadline starts when it starts running.
	// 0 means DefaultMaxConcurrentCalls; negative means no cap.
	MaxConcurrentCalls int
	// MaxMessageBytes caps one stdio message (a line); a longer one is refused and the connection
	// goes on. 0 means DefaultMaxBodyBytes, the HTTP body cap.
	MaxMessageBytes int64
	// ProgressInterval is how often a call whose request carries a progressToken reports its fuel
	// (notifications/progress) while it runs; 0 means DefaultProgressInterval.
	ProgressInterval time.Duration
}

// DefaultMaxConcurrentCalls is the cap on guests running at once when Options.MaxConcurrentCalls
// is 0: four per processor the Go runtime uses. The interpreter keeps a processor busy while a
// guest computes, so more only adds memory (each running call holds its instance's linear memory)
// without finishing any call sooner.
func DefaultMaxConcurrentCalls() int { return 4 * runtime.GOMAXPROCS(0) }

// DefaultProgressInterval is how often a long call reports progress: within the once a second a
// person watching expects, and rarely enough that the notifications cost nothing next to the call.
const DefaultProgressInterval = 500 * time.Millisecond

// Server serves the tools of its sources over MCP. It is safe for concurrent use; one Server can
// serve stdio and any number of HTTP clients at once.
type Server struct {
	opts  Options
	rt    *subako.Runtime
	ownRT bool
	log   *slog.Logger
	mcp   *mcp.Server

	reloadMu sync.Mutex // one load at a time
	mu       sync.Mutex
	cur      *toolSet

	slots   chan struct{} // one token per running guest; nil when uncapped
	running atomic.Int64  // guests running now
	peak    atomic.Int64  // the most that ran at once
}

// New loads every source, discovers its tools and builds the server. A package that fails to
// load or discover, and a plugin whose schema is not an object schema, are left out with a warning
// (see Warnings); two tools that would share a name are an error wrapping ErrCollision.
func New(ctx context.Context, opts Options) (*Server, error) {
	s := &Server{opts: opts, rt: opts.Runtime, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.opts.Name == "" {
		s.opts.Name = "kobako"
	}
	if s.opts.Version == "" {
		s.opts.Version = "dev"
	}
	switch n := s.opts.MaxConcurrentCalls; {
	case n == 0:
		s.slots = make(chan struct{}, DefaultMaxConcurrentCalls())
	case n > 0:
		s.slots = make(chan struct{}, n)
	}
	if s.opts.ProgressInterval <= 0 {
		s.opts.ProgressInterval = DefaultProgressInterval
	}
	for i, p := range opts.Packages {
		if p.Path == "" {
			return nil, fmt.Errorf("mcpserve: new: %w: package %d has no path", ErrConfig, i+1)
		}
	}
	if s.rt == nil {
		rt, err := subako.New(ctx, subako.Config{ClientVersion: s.opts.Version})
		if err != nil {
			return nil, fmt.Errorf("mcpserve: new: %w", err)
		}
		s.rt, s.ownRT = rt, true
	}
	set, err := s.load(ctx)
	if err != nil {
		s.closeRuntime(ctx)
		return nil, err
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Title: "kobako", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: s.opts.Instructions,
		Logger:       s.sdkLog(),
		// Only tools: no logging capability (deprecated in 2026-07-28), prompts or resources.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: s.opts.ListChanged}},
	})
	s.install(nil, set)
	s.cur = set
	return s, nil
}

// sdkLog is the SDK's logger: its info records (every session opened and closed) only show when
// the logger is at debug level.
func (s *Server) sdkLog() *slog.Logger { return slog.New(quietHandler{s.log.Handler()}) }

type quietHandler struct{ slog.Handler }

func (q quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return q.Handler.Enabled(ctx, l) && (l >= slog.LevelWarn || q.Handler.Enabled(ctx, slog.LevelDebug))
}

func (q quietHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return quietHandler{q.Handler.WithAttrs(a)}
}
func (q quietHandler) WithGroup(n string) slog.Handler { return quietHandler{q.Handler.WithGroup(n)} }

// MCPServer is the SDK server, for transports this package does not wrap.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Tool is a listed tool and where it comes from.
type Tool struct {
	// Name is the name clients call it by (see ToolName).
	Name string
	// Kind is "package" or "plugin"; Source the package's or plugin's name; SourceTool the
	// tool's own name there.
	Kind, Source, SourceTool string
}

// Tools lists the tools served now, sorted by name.
func (s *Server) Tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Tool, len(s.cur.entries))
	for i, e := range s.cur.entries {
		out[i] = Tool{Name: e.def.Name, Kind: e.origin.kind, Source: e.origin.source, SourceTool: e.origin.tool}
	}
	return out
}

// Warnings are the reasons sources or tools were left out at the last (re)load.
func (s *Server) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cur.warnings...)
}

// Close releases the sources once their calls are done, and the runtime if the Server created it.
// Serving stops when the transports' contexts end, not here.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	set := s.cur
	s.cur = &toolSet{}
	s.mu.Unlock()
	set.retire()
	set.wait()
	return s.closeRuntime(ctx)
}

func (s *Server) closeRuntime(ctx context.Context) error {
	if s.ownRT {
		return s.rt.Close(ctx)
	}
	return nil
}

// Reload loads every source again and, if the tools changed, serves the new list and tells
// clients (notifications/tools/list_changed). On an error (a name collision) the old tools stay.
// Calls already running finish on the sources they started on.
func (s *Server) Reload(ctx context.Context) (changed bool, err error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	set, err := s.load(ctx)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	old := s.cur
	s.cur = set
	s.mu.Unlock()
	// Handlers find their tool in the current set at each call, so the SDK's list changes (and
	// clients are notified) only when the definitions did.
	changed = !sameDefs(old, set)
	if changed {
		s.install(old, set)
	}
	old.retire()
	return changed, nil
}

// install points the SDK's tool list at set, removing the tools of old it no longer has.
func (s *Server) install(old, set *toolSet) {
	if old != nil {
		keep := map[string]bool{}
		for _, e := range set.entries {
			keep[e.def.Name] = true
		}
		var gone []string
		for _, e := range old.entries {
			if !keep[e.def.Name] {
				gone = append(gone, e.def.Name)
			}
		}
		if len(gone) > 0 {
			s.mcp.RemoveTools(gone...)
		}
	}
	for _, e := range set.entries {
		s.mcp.AddTool(e.def, s.handler(e.def.Name))
	}
}

func sameDefs(a, b *toolSet) bool {
	if len(a.entries) != len(b.entries) {
		return false
	}
	for i := range a.entries {
		x, _ := json.Marshal(a.entries[i].def)
		y, _ := json.Marshal(b.entries[i].def)
		if !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// entry is one listed tool.
type entry struct {
	def    *mcp.Tool
	origin origin
	call   func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error)
}

// toolSet is what one load produced: the tools and the sources they run on, released when the
// set is retired and its last call has returned.
type toolSet struct {
	entries  []*entry
	warnings []string
	closers  []func()

	mu      sync.Mutex
	refs    int
	retired bool
	closed  bool
	done    chan struct{}
}

func (t *toolSet) acquire() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.refs++
	return true
}

func (t *toolSet) release() {
	t.mu.Lock()
	t.refs--
	last := t.refs == 0 && t.retired
	t.mu.Unlock()
	if last {
		t.close()
	}
}

// retire marks the set replaced; it is closed now or when its last call returns.
func (t *toolSet) retire() {
	t.mu.Lock()
	t.retired = true
	idle := t.refs == 0
	t.mu.Unlock()
	if idle {
		t.close()
	}
}

func (t *toolSet) close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	if t.done == nil {
		t.done = make(chan struct{})
	}
	done := t.done
	t.mu.Unlock()
	for _, c := range t.closers {
		c()
	}
	close(done)
}

// wait returns once a retired set is closed.
func (t *toolSet) wait() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	if t.done == nil {
		t.done = make(chan struct{})
	}
	done := t.done
	t.mu.Unlock()
	<-done
}

// current returns the current set, acquired, and the entry listed as name in it.
func (s *Server) current(name string) (*toolSet, *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.cur
	i := sort.Search(len(set.entries), func(i int) bool { return set.entries[i].def.Name >= name })
	if i == len(set.entries) || set.entries[i].def.Name != name || !set.acquire() {
		return nil, nil
	}
	return set, set.entries[i]
}

// handler is the SDK tool handler of the tool listed as name. A tool error never becomes a
// JSON-RPC error: the model is told in an isError result.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		set, e := s.current(name)
		if e == nil {
			return errorResult(fmt.Sprintf("The tool %s is no longer served (its source changed); list the tools again.", name)), nil
		}
		defer set.release()
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = json.RawMessage("{}")
		}
		release, err := s.admit(ctx)
		if err != nil {
			s.log.Info("call canceled while waiting to run", "tool", e.def.Name, "cause", context.Cause(ctx))
			return nil, err
		}
		defer release()
		if req.Params != nil && req.Session != nil {
			if tok := req.Params.GetProgressToken(); tok != nil {
				var p engine.FuelProgress
				ctx = engine.WithFuelProgress(ctx, &p)
				stop := s.reportProgress(ctx, req.Session, tok, &p)
				defer stop()
			}
		}
		res, err := e.call(ctx, args)
		if err != nil {
			if ctx.Err() != nil {
				s.log.Info("call canceled", "tool", e.def.Name, "cause", context.Cause(ctx))
				return nil, ctx.Err()
			}
			s.log.Warn("call failed", "tool", e.def.Name, "error", err)
			return errorResult(err.Error()), nil
		}
		s.log.Debug("call", "tool", e.def.Name, "isError", res.IsError)
		return res, nil
	}
}

// admit waits for a free slot under the cap, in arrival order (a channel's blocked senders are
// served first in, first out), or until ctx ends. release gives the slot back.
func (s *Server) admit(ctx context.Context) (release func(), err error) {
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
		default:
			s.log.Debug("call waiting for a free slot", "cap", cap(s.slots))
			select {
			case s.slots <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	n := s.running.Add(1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	return func() {
		s.running.Add(-1)
		if s.slots != nil {
			<-s.slots
		}
	}, nil
}

// reportProgress sends notifications/progress for a running call every ProgressInterval until stop
// is called: progress is the fuel used so far, total the call's fuel budget, and the message the
// time elapsed. A notification is sent only when the fuel moved, since MCP asks progress to grow
// with each one; a guest waiting on the network does not move it. stop returns once no
// notification can follow, so none arrives after the call's answer.
func (s *Server) reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, p *engine.FuelProgress) (stop func()) {
	start := time.Now()
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.opts.ProgressInterval)
		defer t.Stop()
		var last uint64
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c := p.Consumed()
			if c <= last {
				continue
			}
			last = c
			n := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(c),
				Message: fmt.Sprintf("%.1f s elapsed, %d fuel used", time.Since(start).Seconds(), c)}
			if b := p.Budget(); b >= c {
				n.Total = float64(b)
			}
			if err := ss.NotifyProgress(ctx, n); err != nil {
				s.log.Debug("progress notification not sent", "error", err)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// maxMessage is the cap on one stdio message.
func (s *Server) maxMessage() int64 {
	if s.opts.MaxMessageBytes > 0 {
		return s.opts.MaxMessageBytes
	}
	return DefaultMaxBodyBytes
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// load builds a tool set from every source.
func (s *Server) load(ctx context.Context) (*toolSet, error) {
	set := &toolSet{}
	names := map[string][]origin{}
	add := func(e *entry) {
		names[e.def.Name] = append(names[e.def.Name], e.origin)
		set.entries = append(set.entries, e)
	}
	warn := func(msg string) {
		set.warnings = append(set.warnings, msg)
		s.log.Warn(msg)
	}
	for _, spec := range s.opts.Packages {
		entries, closer, err := s.loadPackage(ctx, spec)
		if err != nil {
			warn(fmt.Sprintf("skipped package %s: %v", spec.Path, err))
			continue
		}
		set.closers = append(set.closers, closer)
		for _, e := range entries {
			add(e)
		}
	}
	if s.opts.Plugins != nil {
		entries, warnings, closer, err := s.loadPlugins(ctx)
		for _, w := range warnings {
			warn(w)
		}
		if err != nil {
			warn(fmt.Sprintf("skipped the ZeroClaw plugins: %v", err))
		} else {
			if closer != nil {
				set.closers = append(set.closers, closer)
			}
			for _, e := range entries {
				add(e)
			}
		}
	}
	if err := checkCollisions(names); err != nil {
		set.retire()
		return nil, err
	}
	sort.Slice(set.entries, func(i, j int) bool { return set.entries[i].def.Name < set.entries[j].def.Name })
	if len(set.entries) == 0 {
		s.log.Warn("no tools to serve")
	}
	return set, nil
}
