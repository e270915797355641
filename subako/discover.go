package subako

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

// Rules of the tool table, from the ABI 1 document (declared in subako/wire, which the SDK shares).
const (
	MaxTools           = wire.MaxTools
	MaxToolNameLen     = wire.MaxToolNameLen
	MaxToolDescChars   = wire.MaxToolDescChars
	MaxSchemaBytes     = wire.MaxSchemaBytes
	MaxToolsTotalBytes = wire.MaxToolsTotalBytes
	MaxToolsPages      = wire.MaxToolsPages
	// DiscoveryDeadline is how long a module has to answer discovery at upload.
	DiscoveryDeadline = 10 * time.Second
)

// Tool is one entry of a package's tool table, as tools/list gave it (the shape is wire.Tool; the
// tags let a stored table be read back with encoding/json).
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Raw is the tool object exactly as listed, other members included.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON writes the tool as it was listed, or as a wire.Tool when it was built by hand.
func (t Tool) MarshalJSON() ([]byte, error) {
	if t.Raw != nil {
		return t.Raw, nil
	}
	return json.Marshal(wire.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema})
}

// ToolError reports a tool-table rule that discovery found broken.
type ToolError struct {
	// Tool is the tool's name, or its position ("tool 3") when the name itself is the problem.
	Tool string
	Rule string
}

// Error reads like `subako: discover: discovery failed: tool "greet": inputSchema …`.
func (e *ToolError) Error() string {
	if e.Tool == "" {
		return "subako: discover: " + ErrDiscovery.Error() + ": " + e.Rule
	}
	return "subako: discover: " + ErrDiscovery.Error() + ": tool " + e.Tool + ": " + e.Rule
}

// Is matches ErrDiscovery.
func (e *ToolError) Is(target error) bool { return target == ErrDiscovery }

// discoverDriver sends server/discover, then tools/list for each page.
type discoverDriver struct {
	discovered bool
	pages      int
	tools      []json.RawMessage
}

func (d *discoverDriver) first() outgoing {
	return outgoing{method: wire.MethodDiscover, params: wire.DiscoverParams{}}
}

// decodeRead decodes a result into v, ignoring a badly typed member the host does not read: ABI 1
// asks a module for only some members of a result (read), so a wrong ttlMs, say, must not fail
// discovery. encoding/json decodes the rest of the value anyway but reports only the first such
// member, so after ignoring one the read members are decoded again on their own, where an error
// of theirs cannot hide behind it.
func decodeRead(result json.RawMessage, v any, read ...string) error {
	err := json.Unmarshal(result, v)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) {
		return err
	}
	top, _, _ := strings.Cut(te.Field, ".")
	if slices.Contains(read, top) {
		return err
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil {
		return err
	}
	only := make(map[string]json.RawMessage, len(read))
	for _, r := range read {
		if m, ok := members[r]; ok {
			only[r] = m
		}
	}
	b, merr := json.Marshal(only)
	if merr != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (d *discoverDriver) answer(result json.RawMessage) (*outgoing, error) {
	if !d.discovered {
		d.discovered = true
		var r wire.DiscoverResult
		if err := decodeRead(result, &r, "supportedVersions", "capabilities"); err != nil {
			return nil, &ToolError{Rule: fmt.Sprintf("the server/discover result is malformed: %v", err)}
		}
		if !slices.Contains(r.SupportedVersions, ProtocolVersion) {
			return nil, &ToolError{Rule: fmt.Sprintf("server/discover lists supportedVersions %q, without %s", r.SupportedVersions, ProtocolVersion)}
		}
		if c := r.Capabilities.Tools; len(c) == 0 || c[0] != '{' {
			return nil, &ToolError{Rule: "server/discover does not declare the tools capability (capabilities.tools must be an object)"}
		}
		return &outgoing{method: wire.MethodToolsList, params: wire.ListToolsParams{}}, nil
	}
	d.pages++
	var r wire.ListToolsResult
	if err := decodeRead(result, &r, "tools", "nextCursor"); err != nil || r.Tools == nil {
		if err == nil {
			err = fmt.Errorf("no tools array")
		}
		return nil, &ToolError{Rule: fmt.Sprintf("tools/list page %d is malformed: %v", d.pages, err)}
	}
	d.tools = append(d.tools, r.Tools...)
	if len(d.tools) > MaxTools {
		return nil, &ToolError{Rule: fmt.Sprintf("more than %d tools", MaxTools)}
	}
	if r.NextCursor == nil || *r.NextCursor == "" {
		return nil, nil
	}
	if d.pages >= MaxToolsPages {
		return nil, &ToolError{Rule: fmt.Sprintf("tools/list still has a nextCursor after %d pages", MaxToolsPages)}
	}
	return &outgoing{method: wire.MethodToolsList, params: wire.ListToolsParams{Cursor: *r.NextCursor}}, nil
}

// Discover runs the module as an upload does: with only /package mounted (when the package has
// assets), no volume, no network and the Runtime's discovery limits (DiscoveryDeadline by default), it sends server/discover (which must list
// 2026-07-28 in supportedVersions and declare the tools capability) and then tools/list, following
// nextCursor for at most MaxToolsPages pages. It checks the tool table (CheckTools) and keeps it
// for Call. A crash is a *CrashError; a broken rule a *ToolError.
func (p *Package) Discover(ctx context.Context) ([]Tool, error) {
	limits := p.rt.discovery
	var cfg wasi.Config
	if p.assets != nil {
		cfg.Preopens = []wasi.Preopen{{GuestPath: "/package", FS: p.assets, ReadOnly: true}}
	}
	d := &discoverDriver{}
	if err := p.run(ctx, runSpec{limits: limits, wasi: cfg}, d); err != nil {
		return nil, err
	}
	tools, err := CheckTools(d.tools)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.tools = tools
	p.mu.Unlock()
	return tools, nil
}

// DefaultCallLimits are the engine limits of a call when CallOptions.Limits is zero: the
// engine's defaults (fuel 1,000,000,000, 30 s, 256 MiB per memory).
func DefaultCallLimits() engine.Limits { return engine.DefaultLimits() }

// Tools returns the tool table Discover found, or nil before Discover.
func (p *Package) Tools() []Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tools
}

// SetTools installs a tool table found by an earlier Discover (for example one stored at upload)
// after checking it, so that a host need not rediscover a package it reloads.
func (p *Package) SetTools(tools []Tool) error {
	raws := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("subako: set tools: %w", err)
		}
		raws[i] = b
	}
	checked, err := CheckTools(raws)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.tools = checked
	p.mu.Unlock()
	return nil
}

func isToolNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validName reports whether s is 1 to MaxToolNameLen characters of a-z, 0-9, '_' and '-'.
func validName(s string) bool {
	if len(s) == 0 || len(s) > MaxToolNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isToolNameByte(s[i]) {
			return false
		}
	}
	return true
}

// CheckTools checks a tool table against ABI 1: 1 to MaxTools tools with unique names of 1 to
// MaxToolNameLen characters of a-z, 0-9, '_' and '-'; descriptions of at most MaxToolDescChars
// characters; an inputSchema that is a valid JSON Schema with "type":"object" at the top, at most
// MaxSchemaBytes; an optional outputSchema, a valid JSON Schema of at most MaxSchemaBytes; and all
// tools together at most MaxToolsTotalBytes. Sizes are of the compact JSON. The first broken rule
// is a *ToolError naming the tool and the rule.
func CheckTools(raws []json.RawMessage) ([]Tool, error) {
	if len(raws) == 0 {
		return nil, &ToolError{Rule: "the package lists no tools (it must list 1 to 64)"}
	}
	if len(raws) > MaxTools {
		return nil, &ToolError{Rule: fmt.Sprintf("the package lists %d tools, more than %d", len(raws), MaxTools)}
	}
	total := 0
	seen := map[string]bool{}
	tools := make([]Tool, 0, len(raws))
	for i, raw := range raws {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return nil, &ToolError{Tool: fmt.Sprint(i + 1), Rule: fmt.Sprintf("not JSON: %v", err)}
		}
		total += c.Len()
		var w wire.Tool
		if err := json.Unmarshal(c.Bytes(), &w); err != nil || c.Bytes()[0] != '{' {
			return nil, &ToolError{Tool: fmt.Sprint(i + 1), Rule: "not an object with a string name, description and schemas"}
		}
		t := Tool{Name: w.Name, Description: w.Description, InputSchema: w.InputSchema, OutputSchema: w.OutputSchema, Raw: bytes.Clone(c.Bytes())}
		if !validName(t.Name) {
			return nil, &ToolError{Tool: fmt.Sprintf("%d (%q)", i+1, clip([]byte(t.Name))), Rule: "name must be 1 to 64 characters of a-z, 0-9, _ and -"}
		}
		q := fmt.Sprintf("%q", t.Name)
		if seen[t.Name] {
			return nil, &ToolError{Tool: q, Rule: "name is listed twice"}
		}
		seen[t.Name] = true
		if n := utf8.RuneCountInString(t.Description); n > MaxToolDescChars {
			return nil, &ToolError{Tool: q, Rule: fmt.Sprintf("description is %d characters, more than %d", n, MaxToolDescChars)}
		}
		if t.InputSchema == nil {
			return nil, &ToolError{Tool: q, Rule: "inputSchema is missing"}
		}
		if n := len(t.InputSchema); n > MaxSchemaBytes {
			return nil, &ToolError{Tool: q, Rule: fmt.Sprintf("inputSchema is %d bytes, more than %d", n, MaxSchemaBytes)}
		}
		var top struct {
			Type json.RawMessage `json:"type"`
		}
		if t.InputSchema[0] != '{' || json.Unmarshal(t.InputSchema, &top) != nil || string(top.Type) != `"object"` {
			return nil, &ToolError{Tool: q, Rule: `inputSchema must be a JSON Schema whose top level is "type": "object"`}
		}
		if err := checkSchema(t.InputSchema); err != nil {
			return nil, &ToolError{Tool: q, Rule: fmt.Sprintf("inputSchema is not a valid JSON Schema: %v", err)}
		}
		if t.OutputSchema != nil && string(t.OutputSchema) != "null" {
			if n := len(t.OutputSchema); n > MaxSchemaBytes {
				return nil, &ToolError{Tool: q, Rule: fmt.Sprintf("outputSchema is %d bytes, more than %d", n, MaxSchemaBytes)}
			}
			if err := checkSchema(t.OutputSchema); err != nil {
				return nil, &ToolError{Tool: q, Rule: fmt.Sprintf("outputSchema is not a valid JSON Schema: %v", err)}
			}
		}
		tools = append(tools, t)
	}
	if total > MaxToolsTotalBytes {
		return nil, &ToolError{Rule: fmt.Sprintf("the tools together are %d bytes, more than %d", total, MaxToolsTotalBytes)}
	}
	return tools, nil
}

// checkSchema compiles a schema with no loader, so a $ref to anything outside the document fails
// instead of reaching the network or the file system.
func checkSchema(b []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	const loc = "urn:kobako:tool-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return err
	}
	_, err = c.Compile(loc)
	return err
}
