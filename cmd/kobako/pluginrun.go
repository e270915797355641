package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/runner"
)

// pluginRunFlags are the flags of call and shell.
type pluginRunFlags struct {
	binding   string
	fuel      uint64
	timeout   time.Duration
	maxMemory string
	logFormat string
	stdio     bool
	snapshot  bool
	// fuelProfile is --fuel-profile (plugin call only); cache the cache flags.
	fuelProfile string
	cache       *cacheFlags
	// fuelSet and timeoutSet say the flag was given, so an explicit 0 is refused.
	fuelSet, timeoutSet bool
}

var pluginRun = map[*flag.FlagSet]*pluginRunFlags{}
var pluginRunMu sync.Mutex

func pluginRunFlagSet(fs *flag.FlagSet) {
	f := &pluginRunFlags{}
	fs.StringVar(&f.binding, "binding", "", "instance binding `B` (default: the package name)")
	fs.Uint64Var(&f.fuel, "fuel", 0, "fuel `N` per call (default [plugins.limits] call_fuel)")
	fs.DurationVar(&f.timeout, "timeout", 0, "wall-clock deadline `D` per call (default [plugins.limits] call_timeout_ms)")
	fs.StringVar(&f.maxMemory, "max-memory", "", "memory cap `SIZE`, e.g. 64MiB (default [plugins.limits] max_memory_mb)")
	fs.StringVar(&f.logFormat, "log-format", "text", "plugin log lines on stderr: `FORMAT` text or json")
	fs.BoolVar(&f.stdio, "stdio", false, "forward the guest's WASI stdout and stderr to stderr")
	fs.BoolVar(&f.snapshot, "snapshot", false, "start instances from a snapshot taken after the plugin's initialization (same results and fuel; initialization, random numbers it read included, is shared)")
	f.cache = addCacheFlags(fs)
	pluginRunMu.Lock()
	pluginRun[fs] = f
	pluginRunMu.Unlock()
}

// pluginCallFlagSet is pluginRunFlagSet and --fuel-profile.
func pluginCallFlagSet(fs *flag.FlagSet) {
	pluginRunFlagSet(fs)
	pluginRunMu.Lock()
	f := pluginRun[fs]
	pluginRunMu.Unlock()
	fs.StringVar(&f.fuelProfile, "fuel-profile", "", "write where the execute's fuel went, by wasm function of the component's core modules and call stack, to `FILE` (pprof format: go tool pprof -http :8080 FILE)")
}

func pluginRunFlagsOf(fs *flag.FlagSet) *pluginRunFlags {
	pluginRunMu.Lock()
	defer pluginRunMu.Unlock()
	f := pluginRun[fs]
	delete(pluginRun, fs)
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "fuel":
			f.fuelSet = true
		case "timeout":
			f.timeoutSet = true
		}
	})
	return f
}

// check refuses limits given as zero: ZeroClaw's limits are never zero (a zero budget would trap
// every call, as [plugins.limits] says), and a zero flag must not fall back to the default
// unnoticed.
func (f *pluginRunFlags) check() error {
	if f.fuelSet && f.fuel == 0 {
		return pluginUsageErrorf("--fuel 0: want at least 1 (ZeroClaw limits are never zero; leave the flag out for [plugins.limits] call_fuel)")
	}
	if f.timeoutSet && f.timeout <= 0 {
		return pluginUsageErrorf("--timeout %v: want at least 1ms (leave the flag out for [plugins.limits] call_timeout_ms)", f.timeout)
	}
	return nil
}

// logHandler writes plugin log records to w, one line each.
func logHandler(w io.Writer, format string) (slog.Handler, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug - 4, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) > 0 {
			return a
		}
		// A plugin event's unset optional fields (outcome, duration_ms, raw) would print as
		// "<nil>" in text; JSON keeps them as null, a fixed set of keys for consumers.
		if format == "text" && a.Value.Kind() == slog.KindAny && a.Value.Any() == nil {
			return slog.Attr{}
		}
		switch a.Key {
		case slog.MessageKey:
			a.Key = "message"
		case slog.LevelKey:
			l, _ := a.Value.Any().(slog.Level)
			name := map[slog.Level]string{slog.LevelDebug - 4: "trace", slog.LevelDebug: "debug", slog.LevelInfo: "info", slog.LevelWarn: "warn", slog.LevelError: "error"}[l]
			if name == "" {
				name = strings.ToLower(l.String())
			}
			a.Value = slog.StringValue(name)
		}
		return a
	}}
	switch format {
	case "text":
		return slog.NewTextHandler(w, opts), nil
	case "json":
		return slog.NewJSONHandler(w, opts), nil
	}
	return nil, pluginUsageErrorf("--log-format %q: want text or json", format)
}

// openRuntime opens the host and a runtime with the flags applied over [plugins.limits], on an
// engine of its own (closeRuntime closes both).
func (e *pluginEnv) openRuntime(f *pluginRunFlags) (*zeroclaw.Host, *runner.Runner, *engine.Engine, error) {
	h, cfg, _, _, err := e.openHost()
	if err != nil {
		return nil, nil, nil, err
	}
	eng, err := engine.New(e.ctx, engineConfig(f.cache.context(e.ctx), f.fuelProfile != ""))
	if err != nil {
		return nil, nil, nil, err
	}
	rt, err := e.openRuntimeOn(f, h, cfg, eng)
	if err != nil {
		eng.Close(e.ctx)
		return nil, nil, nil, err
	}
	return h, rt, eng, nil
}

func (e *pluginEnv) openRuntimeOn(f *pluginRunFlags, h *zeroclaw.Host, cfg *zeroclaw.Config, eng *engine.Engine) (*runner.Runner, error) {
	pc := cfg.Plugins
	if f.fuel > 0 {
		pc.Limits.CallFuel = f.fuel
	}
	if f.timeout != 0 {
		if f.timeout < time.Millisecond {
			return nil, pluginUsageErrorf("--timeout %v: want at least 1ms", f.timeout)
		}
		pc.Limits.CallTimeoutMS = uint64(f.timeout.Milliseconds())
	}
	if f.maxMemory != "" {
		n, err := parseSize(f.maxMemory)
		if err == nil && (n == 0 || n > 1<<32) {
			err = fmt.Errorf("size %q: want 1 byte to 4GiB", f.maxMemory)
		}
		if err != nil {
			return nil, pluginUsageErrorf("--max-memory: %v", err)
		}
		pc.Limits.MaxMemoryMB = (n + 1<<20 - 1) >> 20
	}
	lh, err := logHandler(e.stderr, f.logFormat)
	if err != nil {
		return nil, err
	}
	// Refused wasi:http requests are logged as kobako run and kobako mcp log them (slog's
	// time=… level=WARN), not through slog.Default's standard-log format.
	eh := slog.Handler(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if f.logFormat == "json" {
		eh = slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})
	}
	opts := runner.Options{Host: h, Config: &pc, Log: lh, EgressLog: eh, Snapshot: f.snapshot, Engine: eng}
	if f.stdio {
		opts.Stdout, opts.Stderr = e.stderr, e.stderr
	}
	return runner.Open(e.ctx, opts)
}

func closeRuntime(ctx context.Context, rt *runner.Runner, eng *engine.Engine) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = rt.Close(cctx)
	if eng != nil { // nil: the runtime made its own
		_ = eng.Close(cctx)
	}
}

// pluginScope admits the plugin's capability under the --binding flag with every requested
// permission granted.
func pluginScope(h *zeroclaw.Host, name string, c manifest.Capability, binding string) (*zeroclaw.Plugin, instance.Scope, error) {
	p, err := h.Lookup(name)
	if err != nil {
		return nil, instance.Scope{}, err
	}
	if !p.Manifest.HasCapability(c) {
		return nil, instance.Scope{}, fmt.Errorf("plugin '%s' has no %s capability", name, c)
	}
	if binding == "" {
		binding = p.Name()
	}
	scope, err := p.Scope(c, binding, instance.RequestedGrants(p.Manifest))
	return p, scope, err
}

// pluginCall runs one tool execute: stdout is exactly one JSON line, the tool result.
func pluginCall(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	f := pluginRunFlagsOf(fs)
	if err := pluginWantArgs(args, 2, "NAME ARGS"); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	var prof *engine.FuelProfile
	if f.fuelProfile != "" {
		if err := checkProfilePath(f.fuelProfile); err != nil {
			return pluginUsageErrorf("%v", err)
		}
		prof = engine.NewFuelProfile()
	}
	// ARGS first: a typo must not wait for the plugin to load, nor read as the plugin's fault.
	callArgs, err := readArgs(e.ctx, args[1], e.stdin)
	switch {
	case e.ctx.Err() != nil:
		return e.ctx.Err()
	case err != nil:
		return pluginUsageErrorf("%v", err)
	}
	h, rt, eng, err := e.openRuntime(f)
	if err != nil {
		return err
	}
	defer closeRuntime(e.ctx, rt, eng)
	p, scope, err := pluginScope(h, args[0], manifest.CapabilityTool, f.binding)
	if err != nil {
		return err
	}
	tool, err := rt.ToolWithScope(e.ctx, p, scope)
	if err != nil {
		return err
	}
	callCtx := e.ctx
	if prof != nil {
		callCtx = engine.WithFuelListener(callCtx, prof) // the execute only: loading's fuel is not the tool's
	}
	res, err := tool.Execute(callCtx, callArgs)
	if prof != nil {
		// Written whatever the end: an execute that trapped or ran out of fuel is what one profiles.
		if perr := writeFuelProfile(prof, f.fuelProfile); perr != nil {
			fmt.Fprintf(e.stderr, "error: %v\n", perr)
		}
	}
	if err != nil {
		return err
	}
	line, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", line)
	return err
}

// invoker is what the shell drives: a channel or a memory.
type invoker interface {
	FuncType(ctx context.Context, name string) (*abi.FuncType, error)
	Invoke(ctx context.Context, name string, args []abi.Value) ([]abi.Value, error)
}

// pluginShell loads a channel or memory plugin once and answers WAVE calls read from stdin.
func pluginShell(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	f := pluginRunFlagsOf(fs)
	if err := pluginWantArgs(args, 1, "NAME"); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	h, rt, eng, err := e.openRuntime(f)
	if err != nil {
		return err
	}
	defer closeRuntime(e.ctx, rt, eng)
	p, err := h.Lookup(args[0])
	if err != nil {
		return err
	}
	out := &lineWriter{w: e.stdout}
	switch {
	case p.Manifest.HasCapability(manifest.CapabilityChannel):
		_, scope, err := pluginScope(h, args[0], manifest.CapabilityChannel, f.binding)
		if err != nil {
			return err
		}
		c, err := rt.ChannelWithScope(e.ctx, p, scope, runner.ChannelOptions{})
		if err != nil {
			return err
		}
		defer c.Close(e.ctx)
		return channelShell(e.ctx, c, e.stdin, out)
	case p.Manifest.HasCapability(manifest.CapabilityMemory):
		_, scope, err := pluginScope(h, args[0], manifest.CapabilityMemory, f.binding)
		if err != nil {
			return err
		}
		m, err := rt.MemoryWithScope(e.ctx, p, scope)
		if err != nil {
			return err
		}
		defer m.Close(e.ctx)
		return shellLines(e.ctx, e.stdin, out, func(line string) string { return shellCall(e.ctx, m, line) })
	}
	return fmt.Errorf("plugin '%s' is neither a channel nor a memory plugin (use `kobako plugin call` for tools)", args[0])
}

// shellCall answers one WAVE call line.
func shellCall(ctx context.Context, inv invoker, line string) string {
	call, err := wave.ParseCall(line)
	if err != nil {
		return "error: " + err.Error()
	}
	if call.Interface() != "" {
		return "error: call functions by their WIT name, without an interface: " + call.Name()
	}
	ft, err := inv.FuncType(ctx, call.Name())
	if err != nil {
		return "error: " + err.Error()
	}
	ps := ft.Params()
	types := make([]abi.Type, len(ps))
	for i, p := range ps {
		types[i] = p.Type
	}
	vals, err := wave.ParseArgs(types, call)
	if err != nil {
		return "error: " + err.Error()
	}
	res, err := inv.Invoke(ctx, call.Name(), vals)
	if err != nil {
		return "error: " + err.Error()
	}
	return wave.FormatResults(ft.Results(), res)
}

// channelShell runs the listen loop while answering stdin, then drains at end of input.
func channelShell(ctx context.Context, c *runner.Channel, in io.Reader, out *lineWriter) error {
	msgT, err := c.MessageType(ctx)
	if err != nil {
		return err
	}
	msgCodec, err := abi.NewCodec(reflect.TypeFor[runner.InboundMessage](), msgT)
	if err != nil {
		return err
	}
	printMsg := func(m runner.InboundMessage) {
		v, err := msgCodec.ToValue(m)
		if err != nil {
			out.println("error: " + err.Error())
			return
		}
		out.println("message " + wave.FormatValue(msgT, v))
	}
	hostT := runner.HostInboundMessageType()
	hostCodec, err := abi.NewCodec(reflect.TypeFor[runner.HostInboundMessage](), hostT)
	if err != nil {
		return err
	}
	// The listen loop: poll with the reference's backoff until end of input. A poll is never
	// cut short by the end of input (it runs under ctx, not lctx), so no dequeued message is lost.
	lctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		backoff := runner.PollBackoffMin
		for lctx.Err() == nil {
			m, err := c.Poll(ctx)
			switch {
			case err != nil:
				if ctx.Err() == nil {
					out.println("error: " + err.Error())
				}
			case m != nil:
				printMsg(*m)
				backoff = runner.PollBackoffMin
				continue
			}
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-lctx.Done():
				t.Stop()
			}
			backoff = min(backoff*2, runner.PollBackoffMax)
		}
	}()
	err = shellLines(ctx, in, out, func(line string) string {
		rest, ok := strings.CutPrefix(line, "inbound ")
		if !ok {
			return shellCall(ctx, c, line)
		}
		v, err := wave.ParseValue(hostT, rest)
		if err != nil {
			return "error: " + err.Error()
		}
		var m runner.HostInboundMessage
		if err := hostCodec.FromValue(v, &m); err != nil {
			return "error: " + err.Error()
		}
		n, err := c.Inbound().Push(m)
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("queued %d", n)
	})
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	// Drain: poll until the host queue is empty and poll-message answered none once.
	for ctx.Err() == nil {
		m, err := c.Poll(ctx)
		if err != nil {
			out.println("error: " + err.Error())
			continue
		}
		if m != nil {
			printMsg(*m)
			continue
		}
		if c.Inbound().Len() == 0 {
			return nil
		}
	}
	return ctx.Err()
}

// shellMaxLine bounds one stdin line of the shell; a longer line is answered with an error and
// skipped, and the session goes on.
const shellMaxLine = 16 << 20

// shellLine is one line of the shell's input, or why there is none.
type shellLine struct {
	text    string
	tooLong bool
	err     error
}

// shellLines answers each non-blank line of in with answer's result, in order, until end of
// input (nil) or until ctx is cancelled (ctx.Err(), at once, even while stdin blocks or a call
// runs: Ctrl-C ends the shell, it does not leave it reading with a dead context). The answer
// of a call that the cancellation cut short is not printed.
func shellLines(ctx context.Context, in io.Reader, out *lineWriter, answer func(line string) string) error {
	lines := make(chan shellLine)
	done := make(chan struct{})
	defer close(done)
	// The reader cannot be interrupted (a terminal read blocks until a line or EOF), so it runs
	// apart and is abandoned on cancellation; the process ends right after.
	go readShellLines(in, lines, done)
	for n := 1; ; n++ {
		var l shellLine
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok = <-lines:
		}
		switch {
		case !ok:
			return nil
		case l.err != nil:
			return fmt.Errorf("reading stdin: %w", l.err)
		case l.tooLong:
			out.println(fmt.Sprintf("error: line %d is longer than the limit of %d bytes (16 MiB); skipped", n, shellMaxLine))
			continue
		}
		line := strings.TrimSpace(l.text)
		if line == "" {
			continue
		}
		reply := answer(line)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		out.println(reply)
	}
}

// readShellLines sends in's lines on lines, each without its line ending, a line over
// shellMaxLine as tooLong (read to its end and dropped, never buffered whole), then a read error
// if any, and closes lines. It stops once done is closed.
func readShellLines(in io.Reader, lines chan<- shellLine, done <-chan struct{}) {
	defer close(lines)
	send := func(l shellLine) bool {
		select {
		case lines <- l:
			return true
		case <-done:
			return false
		}
	}
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		var buf []byte
		tooLong, read := false, false
		for {
			frag, err := br.ReadSlice('\n')
			read = read || len(frag) > 0
			if !tooLong {
				if len(buf)+len(frag) > shellMaxLine+1 { // +1: the newline
					tooLong, buf = true, nil
				} else {
					buf = append(buf, frag...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				if read && !send(shellLine{text: strings.TrimRight(string(buf), "\r\n"), tooLong: tooLong}) {
					return
				}
				if !errors.Is(err, io.EOF) {
					send(shellLine{err: err})
				}
				return
			}
			break
		}
		if !send(shellLine{text: strings.TrimRight(string(buf), "\r\n"), tooLong: tooLong}) {
			return
		}
	}
}

// lineWriter serialises whole lines from the shell's goroutines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) println(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, s)
}

// pluginWorldInfo loads an installed plugin's components and describes their world metadata
// for `plugin info`: a tool's name, description and schema; a channel's and a memory's name and
// capability flags.
func pluginWorldInfo(ctx context.Context, h *zeroclaw.Host, p *zeroclaw.Plugin) (map[string]any, error) {
	cfg := zeroclaw.DefaultConfig().Plugins
	rt, err := runner.Open(ctx, runner.Options{Host: h, Config: &cfg})
	if err != nil {
		return nil, err
	}
	defer closeRuntime(ctx, rt, nil)
	info := map[string]any{}
	var errs []error
	if p.Manifest.HasCapability(manifest.CapabilityTool) {
		if t, err := rt.Tool(ctx, p.Name()); err != nil {
			errs = append(errs, err)
		} else {
			info["tool"] = map[string]any{"name": t.Name(), "description": t.Description(), "parameters_schema": t.ParametersSchema()}
		}
	}
	if p.Manifest.HasCapability(manifest.CapabilityChannel) {
		if c, err := rt.Channel(ctx, p.Name(), p.Name(), runner.ChannelOptions{}); err != nil {
			errs = append(errs, err)
		} else {
			info["channel"] = map[string]any{"name": c.Name(), "capabilities": c.Capabilities().Labels(), "configure": map[bool]string{true: "configure() (seed)", false: "configure(config: string) (v0)"}[c.Seed()]}
			_ = c.Close(ctx)
		}
	}
	if p.Manifest.HasCapability(manifest.CapabilityMemory) {
		if m, err := rt.Memory(ctx, p.Name()); err != nil {
			errs = append(errs, err)
		} else {
			info["memory"] = map[string]any{"name": m.Name(), "capabilities": m.Capabilities().Labels()}
			_ = m.Close(ctx)
		}
	}
	return info, errors.Join(errs...)
}
