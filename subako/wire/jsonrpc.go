package wire

import "encoding/json"

// Version is the value of every message's "jsonrpc" member (ABI 1 「呼び出しの流れ」: one
// JSON-RPC 2.0 message a line).
const Version = "2.0"

// JSON-RPC 2.0 and MCP error codes a module may answer a protocol fault with (ABI 1 「プロトコル」;
// the host counts any of them as a crash, 「呼び出しが失敗する場合」).
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeUnsupportedProtocolVersion = -32022
)

// Request is a request or notification as a module reads it from stdin (ABI 1 「呼び出しの流れ」
// and 「プロトコル」). Every member is kept raw so that the reader can tell an absent member (nil)
// from a null one ("null") and give its own error for a member of the wrong type. A reader that
// only serves requests decodes this rather than Message: encoding/json's work on a type grows with
// its fields, and a module pays it on every call.
type Request struct {
	// JSONRPC must be the string "2.0".
	JSONRPC json.RawMessage `json:"jsonrpc"`
	// ID is a string or a number; absent or null in a notification.
	ID json.RawMessage `json:"id"`
	// Method is a string.
	Method json.RawMessage `json:"method"`
	// Params is an object: a DiscoverParams, ListToolsParams or CallToolParams.
	Params json.RawMessage `json:"params"`
}

// Message is any one line of the protocol as the host reads a module's stdout, before it is known
// to be a request, a notification or a response: a Request's members and a response's.
type Message struct {
	Request
	// Result is a successful response's result; exactly one of Result and Error is present.
	Result json.RawMessage `json:"result"`
	// Error is a failed response's error, an ErrorObject.
	Error json.RawMessage `json:"error"`
}

// Response is a response a module writes (ABI 1 「プロトコル」: the request's id returned as it
// came). Exactly one of Result and Error is set.
type Response struct {
	// JSONRPC is Version.
	JSONRPC string `json:"jsonrpc"`
	// ID is the request's id exactly as it was written, or null when the request's id could not
	// be read.
	ID json.RawMessage `json:"id"`
	// Result is the method's result (DiscoverResult, ListToolsResult or CallToolResult).
	Result any `json:"result,omitempty"`
	// Error is a protocol fault.
	Error *ErrorObject `json:"error,omitempty"`
}

// ErrorObject is the "error" member of a JSON-RPC 2.0 error response.
type ErrorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	// Data is optional detail, such as UnsupportedVersionData.
	Data json.RawMessage `json:"data,omitempty"`
}

// UnsupportedVersionData is the data of a CodeUnsupportedProtocolVersion error, as MCP's
// stateless revision gives it: the revisions the server speaks and the one the request named.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}
