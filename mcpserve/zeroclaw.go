package mcpserve

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/runner"
)

// ZeroClawOptions say where the installed ZeroClaw plugins are and how they run: what `kobako
// plugin call` reads from the host config file and its flags.
type ZeroClawOptions struct {
	// Host is the plugins directory and the signature policy.
	Host zeroclaw.Options
	// Config is [plugins] of the host config: [[plugins.entries]] (config and secrets) and
	// [plugins.limits]. Nil means zeroclaw.DefaultConfig().
	Config *zeroclaw.PluginsConfig
	// Log receives the plugins' log records; nil discards them.
	Log slog.Handler
	// Engine, when set, compiles and runs the plugins (each load's runtime closes what it
	// compiled in it, and never the engine); nil gives each load an engine of its own.
	Engine *engine.Engine
}

// ZeroClawPlugins is the PluginSource of the tool plugins installed in a plugins directory. Each
// Load opens the directory afresh (plugins added or removed since are seen) and runs the tools on a
// new zeroclaw/runner.Runner, closed with the set.
func ZeroClawPlugins(opts ZeroClawOptions) PluginSource { return &zeroClawSource{opts: opts} }

type zeroClawSource struct{ opts ZeroClawOptions }

func (z *zeroClawSource) Dir() string { return z.opts.Host.PluginsDir }

func (z *zeroClawSource) Load(ctx context.Context) (*PluginSet, error) {
	h, err := zeroclaw.Open(z.opts.Host)
	if err != nil {
		return nil, err
	}
	set := &PluginSet{}
	for _, r := range h.Rejected() {
		set.Warnings = append(set.Warnings, fmt.Sprintf("skipped plugin directory %s: %v", r.Dir, r.Err))
	}
	for _, w := range h.Warnings() {
		set.Warnings = append(set.Warnings, fmt.Sprintf("plugin %s: %s", w.Plugin, w.Message))
	}
	if len(h.PluginsWith(manifest.CapabilityTool)) == 0 {
		return set, nil
	}
	rt, err := runner.Open(ctx, runner.Options{Host: h, Config: z.opts.Config, Log: z.opts.Log, Engine: z.opts.Engine})
	if err != nil {
		return nil, err
	}
	tools, skipped := rt.Tools(ctx)
	for _, err := range skipped {
		set.Warnings = append(set.Warnings, fmt.Sprintf("skipped tool plugin: %v", err))
	}
	for _, t := range tools {
		t := t
		set.Tools = append(set.Tools, PluginTool{
			Plugin: t.Plugin().Name(), Dir: t.Plugin().Dir,
			Name: t.Name(), Description: t.Description(), Schema: t.ParametersSchema(),
			Execute: func(ctx context.Context, args string) (PluginResult, error) {
				r, err := t.Execute(ctx, []byte(args))
				return PluginResult{Success: r.Success, Output: r.Output, Error: r.Error}, err
			},
		})
	}
	set.Close = func() { rt.Close(context.Background()) }
	return set, nil
}
