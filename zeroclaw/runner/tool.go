package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// Tool is a registered tool plugin (world tool-plugin): its metadata, read once at registration,
// and Execute, which runs every call in a fresh instance and store.
type Tool struct {
	rt          *Runner
	plugin      *zeroclaw.Plugin
	scope       instance.Scope
	pre         *component.InstancePre
	x           *bindings.ToolPluginTool
	name        string
	description string
	schema      json.RawMessage
}

// Tool registers tool plugin name with the reference's default admission: binding = the package
// name, every requested permission granted. As the reference does, it resolves the config first
// (fail closed), then instantiates once and calls name, description and parameters-schema, each
// in its own frame (secrets and config are unavailable there), and parses the schema.
func (r *Runner) Tool(ctx context.Context, name string) (*Tool, error) {
	p, err := r.plugin(name, manifest.CapabilityTool)
	if err != nil {
		return nil, err
	}
	scope, err := p.DefaultScope(manifest.CapabilityTool)
	if err != nil {
		return nil, err
	}
	return r.ToolWithScope(ctx, p, scope)
}

// ToolWithScope registers a tool plugin under a host-chosen scope (binding and grants).
func (r *Runner) ToolWithScope(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope) (*Tool, error) {
	if err := scope.RequireCapability(manifest.CapabilityTool); err != nil {
		return nil, err
	}
	if _, err := p.ResolveConfig(scope, r.cfg); err != nil {
		return nil, err
	}
	e, err := r.load(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	x, err := e.tool.get(e, p.Name(), bindings.NewToolPluginPre)
	if err != nil {
		return nil, err
	}
	st := r.newState(p, scope)
	in, err := r.instantiate(ctx, e.pre, st)
	if err != nil {
		return nil, err
	}
	defer in.Close(ctx)
	t := &Tool{rt: r, plugin: p, scope: scope, pre: e.pre, x: &x.Tool}
	var schema string
	for _, m := range []struct {
		fn   string
		call func(context.Context, *component.Instance) (string, error)
		dst  *string
	}{{"name", t.x.Name, &t.name}, {"description", t.x.Description, &t.description}, {"parameters-schema", t.x.ParametersSchema, &schema}} {
		st.begin(m.fn, false, nil)
		v, err := m.call(ctx, in)
		st.end()
		if err != nil {
			return nil, r.callError("tool."+m.fn, st, err)
		}
		*m.dst = v
	}
	if !json.Valid([]byte(schema)) {
		return nil, fmt.Errorf("%w: plugin '%s' parameters-schema is not valid JSON", ErrLoad, p.Name())
	}
	t.schema = json.RawMessage(schema)
	return t, nil
}

func (r *Runner) newState(p *zeroclaw.Plugin, scope instance.Scope) *instanceState {
	return &instanceState{rt: r, plugin: p, scope: scope, src: LogSource{
		Plugin: p.Name(), Capability: capabilityName(scope.ID.Capability), Binding: scope.ID.Binding,
	}}
}

// Name is the tool's name as the guest reported it at registration.
func (t *Tool) Name() string { return t.name }

// Description is the tool's description.
func (t *Tool) Description() string { return t.description }

// ParametersSchema is the tool's JSON Schema for its arguments.
func (t *Tool) ParametersSchema() json.RawMessage { return t.schema }

// Plugin is the plugin the tool came from.
func (t *Tool) Plugin() *zeroclaw.Plugin { return t.plugin }

// Execute runs the tool once in a fresh instance and store: the config is resolved again, any
// caller-supplied __config is removed and the public config injected when non-empty, execute is
// called in an authorised frame (secrets readable, from the same resolved revision), and the
// store is discarded. A guest err(s) is "plugin execute returned error: s" (ErrExecute); a trap
// "tool.execute trapped: …"; a deadline "plugin call exceeded wall-clock deadline of N ms".
func (t *Tool) Execute(ctx context.Context, args []byte) (ToolResult, error) {
	res, err := t.plugin.ResolveConfig(t.scope, t.rt.cfg)
	if err != nil {
		return ToolResult{}, err
	}
	input, err := pluginconfig.InjectConfig(args, res.Public())
	if err != nil {
		return ToolResult{}, err
	}
	st := t.rt.newState(t.plugin, t.scope)
	in, err := t.rt.instantiate(ctx, t.pre, st)
	if err != nil {
		return ToolResult{}, err
	}
	defer in.Close(ctx)
	st.begin("execute", true, res)
	out, err := t.x.Execute(ctx, in, string(input))
	st.end()
	if err != nil {
		return ToolResult{}, t.rt.callError("tool.execute", st, err)
	}
	if out.IsErr {
		return ToolResult{}, fmt.Errorf("%w: %s", ErrExecute, out.Err)
	}
	return toolResultOf(out.Ok), nil
}

// Tools registers every admitted tool plugin, in the host's order. A plugin whose tool name
// collides with one already registered is skipped, as the reference does; it and every plugin
// that failed to register are reported in skipped.
func (r *Runner) Tools(ctx context.Context) (tools []*Tool, skipped []error) {
	seen := map[string]bool{}
	for _, p := range r.host.PluginsWith(manifest.CapabilityTool) {
		t, err := r.Tool(ctx, p.Name())
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		if seen[t.Name()] {
			skipped = append(skipped, fmt.Errorf("plugin '%s': tool name '%s' collides with a registered tool; skipped", p.Name(), t.Name()))
			continue
		}
		seen[t.Name()] = true
		tools = append(tools, t)
	}
	return tools, skipped
}
