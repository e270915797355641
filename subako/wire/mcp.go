package wire

import "encoding/json"

// ProtocolVersion is the stateless MCP revision ABI 1 speaks (ABI 1, introduction and
// 「プロトコル」).
const ProtocolVersion = "2026-07-28"

// The methods the host sends (ABI 1 「Package をアップロードしたとき」 and 「Agent が Tool を呼び出
// したとき」).
const (
	MethodDiscover  = "server/discover"
	MethodToolsList = "tools/list"
	MethodToolsCall = "tools/call"
)

// The _meta keys of ABI 1 requests (「プロトコル」) and of the answers an SDK package gives.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Values of the cache and completion members of a result.
const (
	// ResultComplete is the only resultType an ABI 1 module may answer with (「呼び出しが失敗する
	// 場合」: any other is a crash). A missing resultType reads as complete.
	ResultComplete = "complete"
	// CacheScopePublic is the cacheScope of discovery and tool lists: a module's tools are the
	// same for every caller.
	CacheScopePublic = "public"
	// CapabilityTools is the capability a module must declare in server/discover.
	CapabilityTools = "tools"
)

// Rules of the tool table (ABI 1 「Package をアップロードしたとき」).
const (
	// MaxTools is the most tools a package may list; it must list at least one.
	MaxTools = 64
	// MaxToolNameLen is the longest tool name, in characters of a-z, 0-9, '_' and '-'.
	MaxToolNameLen = 64
	// MaxToolDescChars is the longest description, in characters.
	MaxToolDescChars = 1024
	// MaxSchemaBytes bounds inputSchema and outputSchema, each as compact JSON.
	MaxSchemaBytes = 64 << 10
	// MaxToolsTotalBytes bounds all tools together, as compact JSON.
	MaxToolsTotalBytes = 256 << 10
	// MaxToolsPages is the most tools/list pages the host asks for.
	MaxToolsPages = 16
)

// Limits of a call's stdout (ABI 1 「Agent が Tool を呼び出したとき」: an inline image counts
// inside the 1 MiB).
const MaxStdoutBytes = 1 << 20

// Implementation names a client or a server: clientInfo in RequestMeta, serverInfo in
// ServerInfoMeta.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// RequestMeta is params._meta of every request the host sends (ABI 1 「プロトコル」): the protocol
// revision and the client's capabilities, which stateless MCP requires instead of an initialize
// handshake. The members are in the order the host writes them.
type RequestMeta struct {
	// ClientCapabilities is an object; the host declares none ({}).
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         Implementation  `json:"io.modelcontextprotocol/clientInfo"`
	// ProtocolVersion is ProtocolVersion.
	ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
}

// ServerInfoMeta is the _meta an SDK package puts on its results, naming itself.
type ServerInfoMeta struct {
	ServerInfo Implementation `json:"io.modelcontextprotocol/serverInfo"`
}

// DiscoverParams is the params of server/discover (ABI 1 「Package をアップロードしたとき」, step 1):
// only the request _meta.
type DiscoverParams struct {
	// Meta is the encoded RequestMeta.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// DiscoverResult is the result of server/discover (ABI 1 「Package をアップロードしたとき」, step 1):
// the revisions the module speaks, which must include ProtocolVersion, and its capabilities, which
// must include tools.
type DiscoverResult struct {
	ResultType        string       `json:"resultType"`
	SupportedVersions []string     `json:"supportedVersions"`
	Capabilities      Capabilities `json:"capabilities"`
	Instructions      string       `json:"instructions,omitempty"`
	TTLMs             int64        `json:"ttlMs"`
	CacheScope        string       `json:"cacheScope"`
	// Meta is the encoded ServerInfoMeta.
	Meta json.RawMessage `json:"_meta"`
}

// Capabilities is the capabilities member of DiscoverResult. Tools must be an object ({}) for the
// host to accept the module; other capabilities are ignored.
type Capabilities struct {
	Tools json.RawMessage `json:"tools,omitempty"`
}

// ListToolsParams is the params of tools/list (ABI 1 「Package をアップロードしたとき」, step 2).
type ListToolsParams struct {
	// Meta is the encoded RequestMeta.
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Cursor is the previous page's nextCursor; empty for the first page.
	Cursor string `json:"cursor,omitempty"`
}

// ListToolsResult is one page of tools/list (ABI 1 「Package をアップロードしたとき」, step 2). A
// nextCursor asks the host for another page, at most MaxToolsPages in all.
type ListToolsResult struct {
	ResultType string `json:"resultType"`
	// Tools are the page's tools, each a Tool. They are kept raw because the host checks and keeps
	// each as the module wrote it, members it does not know included.
	Tools      []json.RawMessage `json:"tools"`
	NextCursor *string           `json:"nextCursor,omitempty"`
	TTLMs      int64             `json:"ttlMs"`
	CacheScope string            `json:"cacheScope"`
	// Meta is the encoded ServerInfoMeta.
	Meta json.RawMessage `json:"_meta"`
}

// Tool is a tool as tools/list describes it (ABI 1 「Package をアップロードしたとき」, the table of
// rules): a name, a description the model reads, an inputSchema whose top level is "type":
// "object", and an optional outputSchema.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// CallToolParams is the params of tools/call (ABI 1 「Agent が Tool を呼び出したとき」). The
// members are in the order the host writes them: _meta first and the tool's name last, where a
// module that scans the line finds them.
type CallToolParams struct {
	// Meta is the encoded RequestMeta.
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Arguments is an object (the host does not check it against the schema); absent or null
	// reads as {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Name      string          `json:"name"`
}

// CallToolResult is MCP's CallToolResult, the answer to tools/call (ABI 1 「Agent が Tool を呼び
// 出したとき」): content blocks for the model, optional structuredContent beside them, and isError
// for a failure the model should read rather than a crash.
type CallToolResult struct {
	// ResultType is ResultComplete; absent reads as complete.
	ResultType string `json:"resultType,omitempty"`
	// Content are the blocks, each a Content. They are kept raw because the host shows a block
	// it cannot read as a note instead of failing the whole result.
	Content []json.RawMessage `json:"content"`
	// StructuredContent is a JSON object matching the tool's outputSchema.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// Meta is the encoded ServerInfoMeta.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Content block types the host reads (ABI 1 「Agent が Tool を呼び出したとき」, the table of
// blocks).
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentResourceLink = "resource_link"
)

// VolumeScheme prefixes the URI of a file beneath /volume in a resource_link block; each segment
// after it is percent-encoded (ABI 1 「Agent が Tool を呼び出したとき」).
const VolumeScheme = "volume:///"

// Content is one MCP content block (ABI 1 「Agent が Tool を呼び出したとき」): a text block (Text),
// an image carried inline (Data in base64, MimeType), or a resource_link (URI, Name, optional
// MimeType), which the host shows as an image when it names a PNG, JPEG, GIF or WebP file beneath
// /volume. Members a block's Type does not use are absent, which the pointers tell apart from
// empty.
type Content struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	Data     *string `json:"data,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
	URI      string  `json:"uri,omitempty"`
	Name     *string `json:"name,omitempty"`
}

// ABI is the ABI version this package describes, the manifest's "abi".
const ABI = 1

// ManifestFile is the name of a package's manifest beside its module.wasm.
const ManifestFile = "subako-package.json"

// Manifest is subako-package.json, which the ABI 1 document's 「チェックリスト」 asks for with "abi"
// set to 1 beside module.wasm. Other members are ignored: tools come from tools/list.
type Manifest struct {
	ABI         int    `json:"abi"`
	Name        string `json:"name"`
	Description string `json:"description"`
}
