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
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	zcrt "github.com/kobako/kobako/zeroclaw/runtime"
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
	pluginRunMu.Lock()
	pluginRun[fs] = f
	pluginRunMu.Unlock()
}

func pluginRunFlagsOf(fs *flag.FlagSet) *pluginRunFlags {
	pluginRunMu.Lock()
	defer pluginRunMu.Unlock()
	f := pluginRun[fs]
	delete(pluginRun, fs)
	return f
}

// logHandler writes plugin log records to w, one line each.
func logHandler(w io.Writer, format string) (slog.Handler, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug - 4, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) > 0 {
			return a
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

// openRuntime opens the host and a runtime with the flags applied over [plugins.limits].
func (e *pluginEnv) openRuntime(f *pluginRunFlags) (*zeroclaw.Host, *zcrt.Runtime, error) {
	h, cfg, _, _, err := e.openHost()
	if err != nil {
		return nil, nil, err
	}
	pc := cfg.Plugins
	if f.fuel > 0 {
		pc.Limits.CallFuel = f.fuel
	}
	if f.timeout != 0 {
		if f.timeout < time.Millisecond {
			return nil, nil, pluginUsageErrorf("--timeout %v: want at least 1ms", f.timeout)
		}
		pc.Limits.CallTimeoutMS = uint64(f.timeout.Milliseconds())
	}
	if f.maxMemory != "" {
		n, err := parseSize(f.maxMemory)
		if err == nil && (n == 0 || n > 1<<32) {
			err = fmt.Errorf("size %q: want 1 byte to 4GiB", f.maxMemory)
		}
		if err != nil {
			return nil, nil, pluginUsageErrorf("--max-memory: %v", err)
		}
		pc.Limits.MaxMemoryMB = (n + 1<<20 - 1) >> 20
	}
	lh, err := logHandler(e.stderr, f.logFormat)
	if err != nil {
		return nil, nil, err
	}
	opts := zcrt.Options{Host: h, Config: &pc, Log: lh, Snapshot: f.snapshot}
	if f.stdio {
		opts.Stdout, opts.Stderr = e.stderr, e.stderr
	}
	rt, err := zcrt.Open(e.ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	return h, rt, nil
}

func closeRuntime(ctx context.Context, rt *zcrt.Runtime) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = rt.Close(cctx)
}

// pluginScope admits the plugin's capability under the --binding flag with every requested
// permission granted.
func pluginScope(h *zeroclaw.Host, name string, c manifest.Capability, binding string) (*zeroclaw.Plugin, instance.Scope, error) {
	p, ok := h.Plugin(name)
	if !ok {
		return nil, instance.Scope{}, fmt.Errorf("%w: %s", zeroclaw.ErrNotFound, name)
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
	if err := pluginWantArgs(args, 2, "NAME ARGS_JSON"); err != nil {
		return err
	}
	h, rt, err := e.openRuntime(f)
	if err != nil {
		return err
	}
	defer closeRuntime(e.ctx, rt)
	p, scope, err := pluginScope(h, args[0], manifest.CapabilityTool, f.binding)
	if err != nil {
		return err
	}
	tool, err := rt.ToolWithScope(e.ctx, p, scope)
	if err != nil {
		return err
	}
	res, err := tool.Execute(e.ctx, []byte(args[1]))
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
	h, rt, err := e.openRuntime(f)
	if err != nil {
		return err
	}
	defer closeRuntime(e.ctx, rt)
	p, ok := h.Plugin(args[0])
	if !ok {
		return fmt.Errorf("%w: %s", zeroclaw.ErrNotFound, args[0])
	}
	out := &lineWriter{w: e.stdout}
	switch {
	case p.Manifest.HasCapability(manifest.CapabilityChannel):
		_, scope, err := pluginScope(h, args[0], manifest.CapabilityChannel, f.binding)
		if err != nil {
			return err
		}
		c, err := rt.ChannelWithScope(e.ctx, p, scope, zcrt.ChannelOptions{})
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
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				out.println(shellCall(e.ctx, m, line))
			}
		}
		return sc.Err()
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
func channelShell(ctx context.Context, c *zcrt.Channel, in io.Reader, out *lineWriter) error {
	msgT, err := c.MessageType(ctx)
	if err != nil {
		return err
	}
	msgCodec, err := abi.NewCodec(reflect.TypeFor[zcrt.InboundMessage](), msgT)
	if err != nil {
		return err
	}
	printMsg := func(m zcrt.InboundMessage) {
		v, err := msgCodec.ToValue(m)
		if err != nil {
			out.println("error: " + err.Error())
			return
		}
		out.println("message " + wave.FormatValue(msgT, v))
	}
	hostT := zcrt.HostInboundMessageType()
	hostCodec, err := abi.NewCodec(reflect.TypeFor[zcrt.HostInboundMessage](), hostT)
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
		backoff := zcrt.PollBackoffMin
		for lctx.Err() == nil {
			m, err := c.Poll(ctx)
			switch {
			case err != nil:
				out.println("error: " + err.Error())
			case m != nil:
				printMsg(*m)
				backoff = zcrt.PollBackoffMin
				continue
			}
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-lctx.Done():
				t.Stop()
			}
			backoff = min(backoff*2, zcrt.PollBackoffMax)
		}
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "inbound "); ok {
			v, err := wave.ParseValue(hostT, rest)
			if err != nil {
				out.println("error: " + err.Error())
				continue
			}
			var m zcrt.HostInboundMessage
			if err := hostCodec.FromValue(v, &m); err != nil {
				out.println("error: " + err.Error())
				continue
			}
			n, err := c.Inbound().Push(m)
			if err != nil {
				out.println("error: " + err.Error())
				continue
			}
			out.println(fmt.Sprintf("queued %d", n))
			continue
		}
		out.println(shellCall(ctx, c, line))
	}
	stop()
	wg.Wait()
	if err := sc.Err(); err != nil {
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
	rt, err := zcrt.Open(ctx, zcrt.Options{Host: h, Config: &cfg})
	if err != nil {
		return nil, err
	}
	defer closeRuntime(ctx, rt)
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
		if c, err := rt.Channel(ctx, p.Name(), p.Name(), zcrt.ChannelOptions{}); err != nil {
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
