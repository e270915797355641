package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PluginSource lists the installed ZeroClaw tool plugins. Load is called at start and at each
// Reload; the set it returns is closed once it is replaced and its calls have returned.
type PluginSource interface {
	// Load opens the plugins as `kobako plugin call` would (plugins dir, signature policy, config),
	// returning the admitted tool plugins and a warning for each plugin left out.
	Load(ctx context.Context) (*PluginSet, error)
	// Dir is the plugins directory, which Watch polls.
	Dir() string
}

// PluginSet is the tool plugins one Load found.
type PluginSet struct {
	Tools []PluginTool
	// Warnings say which plugins were left out and why.
	Warnings []string
	// Close releases the set; nil means nothing to release.
	Close func()
}

// PluginTool is one ZeroClaw tool plugin's tool.
type PluginTool struct {
	// Plugin is the plugin's name, the source its tool is listed under; Dir is where it is installed.
	Plugin, Dir string
	// Name, Description and Schema are what the tool's name, description and parameters-schema
	// returned.
	Name, Description string
	Schema            json.RawMessage
	// Execute runs the tool's execute with the arguments JSON in a fresh instance, with the
	// plugin's limits, config, secrets and network policy. An error is anything that kept the
	// tool from returning a tool-result: execute's own error string, a trap, a timeout.
	Execute func(ctx context.Context, args string) (PluginResult, error)
}

// PluginResult is a ZeroClaw tool-result.
type PluginResult struct {
	Success bool
	Output  string
	Error   *string
}

// loadPlugins turns the tool plugins into entries; a plugin whose parameters-schema is not an
// object schema is left out with a warning, since MCP requires "type": "object".
func (s *Server) loadPlugins(ctx context.Context) ([]*entry, []string, func(), error) {
	set, err := s.opts.Plugins.Load(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	warnings := append([]string(nil), set.Warnings...)
	var entries []*entry
	for _, t := range set.Tools {
		if err := objectSchema(t.Schema); err != nil {
			warnings = append(warnings, fmt.Sprintf("skipped plugin %s (%s): parameters-schema %v", t.Plugin, t.Dir, err))
			continue
		}
		def := &mcp.Tool{Name: ToolName(t.Plugin, t.Name), Description: t.Description, InputSchema: t.Schema}
		exec := t.Execute
		entries = append(entries, &entry{
			def:    def,
			origin: origin{kind: "plugin", source: t.Plugin, where: t.Dir, tool: t.Name},
			call: func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
				return callPlugin(ctx, exec, args)
			},
		})
	}
	return entries, warnings, set.Close, nil
}

// objectSchema checks that b is a JSON object whose "type" is "object".
func objectSchema(b json.RawMessage) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return fmt.Errorf("is not a JSON object")
	}
	if string(top["type"]) != `"object"` {
		return fmt.Errorf(`is not an object schema (its "type" is %s, not "object")`, orNone(top["type"]))
	}
	return nil
}

func orNone(b json.RawMessage) string {
	if b == nil {
		return "missing"
	}
	return string(b)
}

// callPlugin runs execute and maps its tool-result: the output as a text block, isError when
// success is false (with the error appended); any failure to produce a tool-result is an isError
// result naming it.
func callPlugin(ctx context.Context, exec func(context.Context, string) (PluginResult, error), args json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := exec(ctx, string(args))
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return errorResult(fmt.Sprintf("The tool failed: %v", err)), nil
	}
	text := r.Output
	if !r.Success && r.Error != nil && *r.Error != "" {
		if text != "" {
			text += "\n"
		}
		text += "error: " + *r.Error
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !r.Success}, nil
}
