package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/subako/example"
)

// ExamplePackage is the path that names the package embedded in kobako (tool greet) when no file
// of that name exists, as in `kobako function call example greet`.
const ExamplePackage = "example"

// loadPackage loads and discovers one ABI 1 package and returns its tools.
func (s *Server) loadPackage(ctx context.Context, spec PackageSpec) ([]*entry, func(), error) {
	p, err := s.openPackage(ctx, spec.Path)
	if err != nil {
		return nil, nil, err
	}
	tools, err := p.Discover(ctx)
	if err != nil {
		p.Close()
		var crash *subako.CrashError
		if errors.As(err, &crash) && crash.Stderr != "" {
			return nil, nil, fmt.Errorf("%w; its stderr ends: %q", err, crash.Stderr)
		}
		return nil, nil, err
	}
	source := spec.Name
	if source == "" {
		source = p.Manifest.Name
	}
	var entries []*entry
	for _, t := range tools {
		def := &mcp.Tool{}
		// Everything the package lists (title, annotations, icons, _meta) passes through; only the
		// name changes, and the schemas stay the exact bytes the package wrote.
		if err := json.Unmarshal(t.Raw, def); err != nil {
			p.Close()
			return nil, nil, fmt.Errorf("tool %q: %v", t.Name, err)
		}
		def.Name = ToolName(source, t.Name)
		if spec.NoPrefix {
			def.Name = BareToolName(source, t.Name)
		}
		def.InputSchema = t.InputSchema
		def.OutputSchema = nil
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			def.OutputSchema = t.OutputSchema
		}
		tool, opts := t.Name, spec.Call
		entries = append(entries, &entry{
			def:    def,
			origin: origin{kind: "package", source: source, where: spec.Path, tool: t.Name},
			call: func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
				return callPackage(ctx, p, tool, args, opts)
			},
		})
	}
	return entries, func() { p.Close() }, nil
}

// openPackage loads path, or the embedded example package for ExamplePackage when nothing of that
// name exists (a directory without a manifest does not hide it either).
func (s *Server) openPackage(ctx context.Context, path string) (*subako.Package, error) {
	if path == ExamplePackage {
		fi, err := os.Stat(path)
		_, merr := os.Stat(filepath.Join(path, subako.ManifestFile))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.IsDir() && merr != nil) {
			return s.rt.LoadFS(ctx, example.FS())
		}
	}
	return s.rt.Load(ctx, path)
}

// callPackage runs one call as `kobako function call` does and maps the outcome: the result
// passes through, a crash is an isError result with the crash report, and invalid arguments are
// an isError result saying so. Only the client's cancellation is returned as an error.
func callPackage(ctx context.Context, p *subako.Package, tool string, args json.RawMessage, opts subako.CallOptions) (*mcp.CallToolResult, error) {
	res, err := p.Call(ctx, tool, args, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		var crash *subako.CrashError
		if errors.As(err, &crash) {
			return errorResult(crash.Report()), nil
		}
		if errors.Is(err, subako.ErrOptions) {
			return errorResult(fmt.Sprintf("The call was refused: %v", err)), nil
		}
		return errorResult(fmt.Sprintf("The call failed: %v", err)), nil
	}
	return passThrough(res), nil
}

// passThrough is the module's CallToolResult as an MCP client should see it: its content blocks
// as the module wrote them, except that a resource_link into the volume becomes the image it
// names (read after the module exited) or a note saying why it could not, and a block of a type
// MCP does not define becomes subako's note. structuredContent and isError pass unchanged.
func passThrough(res *subako.Result) *mcp.CallToolResult {
	var raw struct {
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(res.Raw, &raw) == nil && len(raw.Content) == len(res.Content) {
		blocks := make([]json.RawMessage, len(raw.Content))
		for i, b := range raw.Content {
			var head struct {
				Type string `json:"type"`
				URI  string `json:"uri"`
			}
			json.Unmarshal(b, &head)
			switch {
			case head.Type == "resource_link" && strings.HasPrefix(head.URI, "volume:"),
				!knownBlock[head.Type]:
				blocks[i] = mappedBlock(res.Content[i])
			default:
				blocks[i] = b
			}
		}
		var out mcp.CallToolResult
		doc := map[string]any{"content": blocks, "isError": res.IsError}
		if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
			doc["structuredContent"] = res.StructuredContent
		}
		if b, err := json.Marshal(doc); err == nil && json.Unmarshal(b, &out) == nil {
			return &out
		}
	}
	// A block the SDK cannot read (say, an image without data): what subako mapped for a model.
	out := &mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{}}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		out.StructuredContent = res.StructuredContent
	}
	for _, c := range res.Content {
		out.Content = append(out.Content, mappedContent(c))
	}
	return out
}

// knownBlock are the content block types of MCP.
var knownBlock = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

func mappedContent(c subako.Content) mcp.Content {
	if c.Type == "image" {
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}
	}
	return &mcp.TextContent{Text: c.Text}
}

func mappedBlock(c subako.Content) json.RawMessage {
	b, _ := json.Marshal(mappedContent(c))
	return b
}
