package sdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kobako/kobako/subako/wire"
)

// Protocol constants of ABI 1: the MCP revision it speaks and the wire names it uses.
const (
	ABI             = wire.ABI
	ProtocolVersion = wire.ProtocolVersion
	// ManifestFlag is the argument that makes Run print the manifest instead of serving.
	ManifestFlag = "--subako-manifest"

	MethodDiscover  = wire.MethodDiscover
	MethodToolsList = wire.MethodToolsList
	MethodToolsCall = wire.MethodToolsCall

	MetaProtocolVersion    = wire.MetaProtocolVersion
	MetaClientCapabilities = wire.MetaClientCapabilities
	MetaClientInfo         = wire.MetaClientInfo
	MetaServerInfo         = wire.MetaServerInfo

	// ResultComplete is the resultType of every answer an ABI 1 module gives.
	ResultComplete = wire.ResultComplete
	// ListTTLMillis is how long discovery and tool lists may be cached: a module's tools never
	// change, so a day.
	ListTTLMillis = 86_400_000
)

// JSON-RPC and MCP error codes the loop answers with.
const (
	CodeParseError                 = wire.CodeParseError
	CodeInvalidRequest             = wire.CodeInvalidRequest
	CodeMethodNotFound             = wire.CodeMethodNotFound
	CodeInvalidParams              = wire.CodeInvalidParams
	CodeInternalError              = wire.CodeInternalError
	CodeUnsupportedProtocolVersion = wire.CodeUnsupportedProtocolVersion
)

// Defaults for a Package's knobs.
const (
	// DefaultPageSize is how many tools one tools/list page holds.
	DefaultPageSize = 32
	// DefaultMaxRequestBytes caps one request line; a longer line is answered with a parse error.
	DefaultMaxRequestBytes = 32 << 20
	// MaxResponseBytes is what the host reads from stdout in one call, newline included; a tool
	// result that would be larger is replaced by an isError result saying so.
	MaxResponseBytes = wire.MaxStdoutBytes
)

// Package is an ABI 1 function package: its manifest fields, its tools, and the knobs of its stdio
// loop. A program builds one and calls Main.
type Package struct {
	// Name and Description are the manifest's fields; Name also goes into serverInfo.
	Name, Description string
	// Version goes into serverInfo; empty reads as "0.0.0".
	Version string
	// Instructions, when set, are returned by server/discover.
	Instructions string
	// Tools are the package's tools, listed in this order. ABI 1 allows 1 to 64.
	Tools []ToolDef
	// PageSize is how many tools one tools/list page holds; 0 means DefaultPageSize.
	PageSize int
	// MaxRequestBytes caps one request line; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int
}

// Manifest is the content of subako-package.json (wire.Manifest).
type Manifest = wire.Manifest

// ParseManifest reads subako-package.json, refusing unknown fields, an abi other than 1 and an
// empty name.
func ParseManifest(b []byte) (Manifest, error) {
	var m struct {
		ABI         *int    `json:"abi"`
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := strictUnmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("sdk: manifest: %w: %v", ErrInvalidPackage, err)
	}
	switch {
	case m.ABI == nil:
		return Manifest{}, fmt.Errorf("sdk: manifest: %w: abi is missing", ErrInvalidPackage)
	case *m.ABI != ABI:
		return Manifest{}, fmt.Errorf("sdk: manifest: %w: abi is %d, want %d", ErrInvalidPackage, *m.ABI, ABI)
	case m.Name == nil || *m.Name == "":
		return Manifest{}, fmt.Errorf("sdk: manifest: %w: name is missing or empty", ErrInvalidPackage)
	case m.Description == nil:
		return Manifest{}, fmt.Errorf("sdk: manifest: %w: description is missing", ErrInvalidPackage)
	}
	return Manifest{ABI: *m.ABI, Name: *m.Name, Description: *m.Description}, nil
}

// Manifest returns the package's subako-package.json content.
func (p *Package) Manifest() Manifest {
	return Manifest{ABI: ABI, Name: p.Name, Description: p.Description}
}

// Validate checks the package against ABI 1's rules: a name, 1 to 64 tools with unique valid
// names, descriptions of at most 1,024 characters, schemas of at most 64 KiB each and 256 KiB in
// all. The error names the tool and the rule.
func (p *Package) Validate() error {
	if err := p.validateShape(); err != nil {
		return err
	}
	total := 0
	for _, t := range p.Tools {
		if err := t.validateSchemas(); err != nil {
			return fmt.Errorf("sdk: package %q: %w", p.Name, err)
		}
		b, err := json.Marshal(t.info())
		if err != nil {
			return fmt.Errorf("sdk: package %q: tool %q: %w: %v", p.Name, t.name, ErrInvalidTool, err)
		}
		total += len(b)
	}
	if total > MaxAllToolsBytes {
		return fmt.Errorf("sdk: package %q: %w: the tools take %d bytes, over %d", p.Name, ErrInvalidPackage, total, MaxAllToolsBytes)
	}
	return nil
}

// validateShape is Validate without the schemas: what a package must satisfy before it answers
// anything, cheap enough to check at every start.
func (p *Package) validateShape() error {
	if p.Name == "" {
		return fmt.Errorf("sdk: package: %w: name is empty", ErrInvalidPackage)
	}
	if n := len(p.Tools); n < 1 || n > MaxTools {
		return fmt.Errorf("sdk: package %q: %w: has %d tools, want 1 to %d", p.Name, ErrInvalidPackage, n, MaxTools)
	}
	if p.PageSize < 0 || p.MaxRequestBytes < 0 {
		return fmt.Errorf("sdk: package %q: %w: negative PageSize or MaxRequestBytes", p.Name, ErrInvalidPackage)
	}
	if pages := (len(p.Tools) + p.pageSize() - 1) / p.pageSize(); pages > MaxToolsListPages {
		return fmt.Errorf("sdk: package %q: %w: %d tools at %d a page need %d tools/list pages, over %d", p.Name, ErrInvalidPackage, len(p.Tools), p.pageSize(), pages, MaxToolsListPages)
	}
	seen := make(map[string]bool, len(p.Tools))
	for _, t := range p.Tools {
		if err := t.validate(); err != nil {
			return fmt.Errorf("sdk: package %q: %w", p.Name, err)
		}
		if seen[t.name] {
			return fmt.Errorf("sdk: package %q: tool %q: %w: name used twice", p.Name, t.name, ErrInvalidTool)
		}
		seen[t.name] = true
	}
	return nil
}

func (p *Package) pageSize() int {
	if p.PageSize > 0 {
		return p.PageSize
	}
	return DefaultPageSize
}

// Main runs the package as the host starts it, with the process's arguments and stdio, and exits:
// 0 after printing the manifest or when stdin ends, 1 on an invalid package or an I/O failure, 2 on
// an unknown argument.
func (p *Package) Main() {
	os.Exit(p.Run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// Run is Main without the exit: it returns the exit code. With args[1] == ManifestFlag it prints
// the manifest as one JSON line; with no argument besides the program name it serves stdin until
// end of file. Errors go to stderr.
//
// Serving checks the package's names and counts at start and its schemas when a request first
// needs them (server/discover, tools/list), so that a tools/call pays for none; a package whose
// schemas are invalid fails there with exit code 1, before answering.
func (p *Package) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := p.validateShape(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	switch {
	case len(args) == 2 && args[1] == ManifestFlag:
		if err := p.Validate(); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		b, err := json.Marshal(p.Manifest())
		if err == nil {
			_, err = stdout.Write(append(b, '\n'))
		}
		if err != nil {
			fmt.Fprintf(stderr, "sdk: manifest: %v\n", err)
			return 1
		}
		return 0
	case len(args) > 1:
		fmt.Fprintf(stderr, "sdk: unknown arguments %q; the host runs a package with none, and %s prints its manifest\n", args[1:], ManifestFlag)
		return 2
	}
	if err := p.serve(ctx, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// Serve answers requests read from r, one JSON-RPC message per line, writing one line per answer to
// w and flushing it at once, until r reaches end of file; then it returns nil. It returns an error
// for an invalid package (its schemas checked when first needed, as Run does) or when reading or
// writing fails. Panics in tools are logged to os.Stderr.
func (p *Package) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if err := p.validateShape(); err != nil {
		return err
	}
	return p.serve(ctx, r, w, os.Stderr)
}

func (p *Package) serve(ctx context.Context, r io.Reader, w io.Writer, log io.Writer) error {
	s := newServer(p, log)
	max := p.MaxRequestBytes
	if max == 0 {
		max = DefaultMaxRequestBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, tooLong, rerr := readLine(br, max)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("sdk: serve: read: %w", rerr)
		}
		var out []byte
		if tooLong {
			out = encodeError(nil, CodeParseError, fmt.Sprintf("request line is over %d bytes", max), nil)
		} else if len(bytes.TrimSpace(line)) > 0 {
			var err error
			if out, err = s.handle(ctx, line); err != nil {
				return err
			}
		}
		if out != nil {
			bw.Write(out)
			bw.WriteByte('\n')
			if err := bw.Flush(); err != nil {
				return fmt.Errorf("sdk: serve: write: %w", err)
			}
		}
		if rerr != nil {
			return nil // end of file: the host has nothing more to ask
		}
	}
}

// readLine reads up to and without the next '\n' (and a '\r' before it). A line over max bytes is
// consumed and reported with tooLong, so that memory stays bounded whatever the input.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !tooLong {
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) > max {
				tooLong, line = true, nil
			}
		}
		return line, tooLong, err
	}
}

type server struct {
	p         *Package
	validated bool // Validate passed, schemas included
	log       io.Writer
	byName    map[string]*ToolDef
	info      json.RawMessage
}

func newServer(p *Package, log io.Writer) *server {
	s := &server{p: p, log: log, byName: make(map[string]*ToolDef, len(p.Tools))}
	for i := range p.Tools {
		s.byName[p.Tools[i].name] = &p.Tools[i]
	}
	version := p.Version
	if version == "" {
		version = "0.0.0"
	}
	s.info = wire.AppendServerInfoMeta(nil, p.Name, version)
	return s
}

func encodeError(id json.RawMessage, code int64, msg string, data json.RawMessage) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(wire.Response{JSONRPC: wire.Version, ID: id, Error: &wire.ErrorObject{Code: code, Message: msg, Data: data}})
	if err != nil {
		// Only data could fail to encode, and the loop passes valid JSON; keep the answer anyway.
		b, _ = json.Marshal(wire.Response{JSONRPC: wire.Version, ID: id, Error: &wire.ErrorObject{Code: code, Message: msg}})
	}
	return b
}

// member decodes one member of a message kept raw by wire.Message; an absent member leaves v as it
// is, as encoding/json would.
func member(raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// plainString returns the string a raw JSON string holds when it needs no unescaping, which is
// every jsonrpc and method member a host writes, so that reading them costs no decoder.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 || bytes.IndexByte(in, '"') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

// handle answers one line, or returns nil for a notification.
func (s *server) handle(ctx context.Context, line []byte) ([]byte, error) {
	if !json.Valid(line) {
		return encodeError(nil, CodeParseError, "line is not valid JSON", nil), nil
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		return encodeError(nil, CodeInvalidRequest, "message is not a JSON object (batches are not supported)", nil), nil
	}
	var m wire.Request
	var version string
	var method *string
	err := json.Unmarshal(trimmed, &m)
	if err == nil {
		var ok bool
		if version, ok = plainString(m.JSONRPC); !ok {
			if err = member(m.JSONRPC, &version); err != nil {
				err = fmt.Errorf("jsonrpc: %w", err)
			}
		}
		if name, ok := plainString(m.Method); ok {
			method = &name
		} else if err == nil {
			if err = member(m.Method, &method); err != nil {
				err = fmt.Errorf("method: %w", err)
			}
		}
	}
	if err != nil {
		return encodeError(nil, CodeInvalidRequest, "malformed message: "+err.Error(), nil), nil
	}
	if m.ID == nil {
		return nil, nil // a notification: never answered
	}
	if !validID(m.ID) {
		return encodeError(nil, CodeInvalidRequest, "id must be a string or a number", nil), nil
	}
	if version != wire.Version {
		return encodeError(m.ID, CodeInvalidRequest, `jsonrpc must be "2.0"`, nil), nil
	}
	if method == nil {
		return encodeError(m.ID, CodeInvalidRequest, "message has an id but no method; this server sends no requests to answer", nil), nil
	}
	switch *method {
	case MethodDiscover, MethodToolsList, MethodToolsCall:
	default:
		return encodeError(m.ID, CodeMethodNotFound, fmt.Sprintf("method %q not found", *method), nil), nil
	}
	params, rerr := checkParams(m.Params)
	if rerr != nil {
		return encodeError(m.ID, rerr.Code, rerr.Message, rerr.Data), nil
	}
	if *method != MethodToolsCall && !s.validated {
		// The schemas are checked the first time a request shows them, not at start.
		if err := s.p.Validate(); err != nil {
			return nil, err
		}
		s.validated = true
	}
	var result any
	switch *method {
	case MethodDiscover:
		result = s.discover()
	case MethodToolsList:
		result, rerr = s.list(params)
	case MethodToolsCall:
		return s.call(ctx, m.ID, params), nil
	}
	if rerr != nil {
		return encodeError(m.ID, rerr.Code, rerr.Message, rerr.Data), nil
	}
	b, err := json.Marshal(wire.Response{JSONRPC: wire.Version, ID: m.ID, Result: result})
	if err != nil {
		return encodeError(m.ID, CodeInternalError, "cannot encode the answer: "+err.Error(), nil), nil
	}
	return b, nil
}

func validID(id json.RawMessage) bool {
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-' || c >= '0' && c <= '9':
		return true
	}
	return false
}

// The members of params the loop reads (wire.CallToolParams, wire.ListToolsParams). The loop reads
// params as a map of raw members rather than into those types, so that it can tell an absent member
// from a badly typed one and answer each with its own error.
const (
	paramMeta      = "_meta"
	paramName      = "name"
	paramArguments = "arguments"
	paramCursor    = "cursor"
)

// checkParams requires params to be an object whose _meta names the protocol revision this SDK
// speaks and carries client capabilities, as stateless MCP requires of every request.
func checkParams(raw json.RawMessage) (map[string]json.RawMessage, *wire.ErrorObject) {
	var params map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &params) != nil {
		return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: "params must be an object carrying _meta"}
	}
	var meta map[string]json.RawMessage
	if m, ok := params[paramMeta]; !ok || len(m) == 0 || m[0] != '{' || json.Unmarshal(m, &meta) != nil {
		return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: "params._meta must be an object"}
	}
	var version string
	if v, ok := meta[MetaProtocolVersion]; !ok || json.Unmarshal(v, &version) != nil {
		return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: "params._meta is missing the string " + MetaProtocolVersion}
	}
	if version != ProtocolVersion {
		data, _ := json.Marshal(wire.UnsupportedVersionData{Supported: []string{ProtocolVersion}, Requested: version})
		return nil, &wire.ErrorObject{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
	}
	if c, ok := meta[MetaClientCapabilities]; !ok || len(c) == 0 || c[0] != '{' {
		return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: "params._meta is missing the object " + MetaClientCapabilities}
	}
	return params, nil
}

func (s *server) discover() wire.DiscoverResult {
	return wire.DiscoverResult{
		ResultType:        ResultComplete,
		SupportedVersions: []string{ProtocolVersion},
		Capabilities:      wire.Capabilities{Tools: json.RawMessage(`{}`)},
		Instructions:      s.p.Instructions,
		TTLMs:             ListTTLMillis,
		CacheScope:        wire.CacheScopePublic,
		Meta:              s.info,
	}
}

// ToolInfo is a tool as tools/list describes it.
type ToolInfo = wire.Tool

func (t ToolDef) info() ToolInfo {
	return ToolInfo{Name: t.name, Description: t.description, InputSchema: t.InputSchema(), OutputSchema: t.OutputSchema()}
}

// list answers one page. The cursor is the decimal index of the page's first tool: opaque to the
// client, and checked here because it comes back from outside.
func (s *server) list(params map[string]json.RawMessage) (*wire.ListToolsResult, *wire.ErrorObject) {
	start := 0
	if raw, ok := params[paramCursor]; ok && string(raw) != "null" {
		var c string
		if json.Unmarshal(raw, &c) != nil {
			return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: "cursor must be a string"}
		}
		n, err := strconv.Atoi(c)
		if err != nil || n <= 0 || n >= len(s.p.Tools) || strconv.Itoa(n) != c {
			return nil, &wire.ErrorObject{Code: CodeInvalidParams, Message: fmt.Sprintf("cursor %q was not given by this server", clip(c, 64))}
		}
		start = n
	}
	end := min(start+s.p.pageSize(), len(s.p.Tools))
	r := &wire.ListToolsResult{ResultType: ResultComplete, Tools: make([]json.RawMessage, 0, end-start), TTLMs: ListTTLMillis, CacheScope: wire.CacheScopePublic, Meta: s.info}
	for _, t := range s.p.Tools[start:end] {
		b, err := json.Marshal(t.info())
		if err != nil {
			return nil, &wire.ErrorObject{Code: CodeInternalError, Message: fmt.Sprintf("tool %q cannot be listed: %v", t.name, err)}
		}
		r.Tools = append(r.Tools, b)
	}
	if end < len(s.p.Tools) {
		r.NextCursor = new(strconv.Itoa(end))
	}
	return r, nil
}

func (s *server) call(ctx context.Context, id json.RawMessage, params map[string]json.RawMessage) []byte {
	var name string
	if raw, ok := params[paramName]; !ok || json.Unmarshal(raw, &name) != nil {
		return encodeError(id, CodeInvalidParams, "params.name must be a string", nil)
	}
	args := params[paramArguments]
	if a := bytes.TrimSpace(args); len(a) > 0 && a[0] != '{' && string(a) != "null" {
		return encodeError(id, CodeInvalidParams, "params.arguments must be an object", nil)
	}
	var res *Result
	if t, ok := s.byName[name]; ok {
		res = s.run(ctx, t, args)
	} else {
		names := make([]string, len(s.p.Tools))
		for i, t := range s.p.Tools {
			names[i] = t.name
		}
		res = ErrorResult("unknown tool %q; this package has: %s", clip(name, 80), strings.Join(names, ", "))
	}
	b, err := s.encodeCall(id, res)
	if err != nil {
		b, err = s.encodeCall(id, ErrorResult("tool %s returned a result that cannot be sent: %v", name, err))
	}
	if err == nil && len(b)+1 > MaxResponseBytes {
		b, err = s.encodeCall(id, ErrorResult("tool %s returned a result of %d bytes, over the %d bytes a call may write; save large output under /volume and link it", name, len(b)+1, MaxResponseBytes))
	}
	if err != nil {
		return encodeError(id, CodeInternalError, "cannot encode the result: "+err.Error(), nil)
	}
	return b
}

func (s *server) encodeCall(id json.RawMessage, r *Result) ([]byte, error) {
	b := append(make([]byte, 0, 256), `{"jsonrpc":"`+wire.Version+`","id":`...)
	b, err := wire.AppendRaw(b, id)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"result":`...)
	if b, err = r.appendJSON(b, s.info); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// run calls the tool, turning a panic into an isError result so the model sees what went wrong
// rather than a crashed module; the stack goes to the log for the package's author.
func (s *server) run(ctx context.Context, t *ToolDef, args json.RawMessage) (res *Result) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.log, "sdk: tool %s panicked: %v\n%s", t.name, r, debug.Stack())
			res = ErrorResult("tool %s failed unexpectedly: %v", t.name, r)
		}
	}()
	return t.call(ctx, args)
}
