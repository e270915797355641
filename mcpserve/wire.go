package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// kobako checks every inbound JSON-RPC message itself before the SDK sees it, on both transports.
// The SDK's stdio connection ends on the first line it cannot decode, answers a method it does
// not know (or one of a capability kobako does not declare) with code 0 or serves it anyway, and
// keys its handshake state on the first of initialize and server/discover. Shipping clients send
// all of these: the checks here give each the JSON-RPC error the specification names and keep
// the connection.

// JSON-RPC and MCP error codes kobako answers with.
const (
	codeParseError         = jsonrpc.CodeParseError
	codeInvalidRequest     = jsonrpc.CodeInvalidRequest
	codeMethodNotFound     = jsonrpc.CodeMethodNotFound
	codeInvalidParams      = jsonrpc.CodeInvalidParams
	codeInternalError      = jsonrpc.CodeInternalError
	codeHeaderMismatch     = mcp.CodeHeaderMismatch
	codeUnsupportedVersion = mcp.CodeUnsupportedProtocolVersion
)

// metaVersionKey is the _meta member that carries a 2026-07-28 request's protocol version.
const metaVersionKey = "io.modelcontextprotocol/protocolVersion"

// servedCalls are the requests kobako mcp answers; every other request gets -32601.
var servedCalls = map[string]bool{
	"initialize": true, "ping": true, "tools/list": true, "tools/call": true,
	"server/discover": true, "subscriptions/listen": true,
}

// servedNotifications are passed to the SDK; other notifications are dropped, as JSON-RPC lets a
// server do with a notification it does not handle.
var servedNotifications = map[string]bool{
	"notifications/initialized": true, "notifications/cancelled": true, "notifications/roots/list_changed": true,
}

// removedMethods are the handshake era's requests that 2026-07-28 removed.
var removedMethods = map[string]bool{"initialize": true, "ping": true}

// undeclared names the capability of a method kobako does not offer, for the -32601 message.
func undeclared(method string) string {
	switch {
	case strings.HasPrefix(method, "prompts/"):
		return "prompts"
	case strings.HasPrefix(method, "resources/"):
		return "resources"
	case strings.HasPrefix(method, "completion/"):
		return "completions"
	case strings.HasPrefix(method, "logging/"):
		return "logging"
	case strings.HasPrefix(method, "tasks/"):
		return "tasks"
	}
	return ""
}

// inbound is one checked message.
type inbound struct {
	raw         []byte          // the message to forward (rewritten when _meta was added)
	id          json.RawMessage // the request's id as sent; nil for a notification or response
	method      string
	response    bool   // a result or error from the client
	metaVersion string // params._meta's protocol version; "" when absent
	params      map[string]json.RawMessage
}

func (m *inbound) call() bool { return m.method != "" && m.id != nil }

// modern reports whether the message is a request of the stateless revision (2026-07-28 or later).
func (m *inbound) modern() bool { return m.metaVersion >= statelessVersion }

// rpcError is an error kobako answers itself. notify marks one about a notification, which
// JSON-RPC gives no answer.
type rpcError struct {
	id      json.RawMessage
	code    int64
	message string
	data    any
	notify  bool
}

func (e *rpcError) encode() []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	type body struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   body            `json:"error"`
	}{"2.0", id, body{e.code, e.message, e.data}})
	return b
}

// inspect checks one message as received: JSON, one JSON-RPC 2.0 object (no batch), a method kobako
// serves, params of the right shape. What passes is forwarded to the SDK.
func inspect(b []byte) (*inbound, *rpcError) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, &rpcError{code: codeInvalidRequest, message: "Invalid Request: the message is empty"}
	}
	if !json.Valid(b) {
		var v json.RawMessage
		err := json.Unmarshal(b, &v)
		return nil, &rpcError{code: codeParseError, message: fmt.Sprintf("Parse error: the message is not JSON (%v)", err)}
	}
	switch b[0] {
	case '{':
	case '[':
		return nil, &rpcError{code: codeInvalidRequest, message: "Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send each message on its own"}
	default:
		return nil, &rpcError{code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: a JSON-RPC message is a JSON object, not %s", jsonKind(b))}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, &rpcError{code: codeParseError, message: fmt.Sprintf("Parse error: %v", err)}
	}
	m := &inbound{raw: b}
	idRaw, hasID := fields["id"]
	if hasID {
		switch {
		case isJSONString(idRaw):
			m.id = idRaw
		case isJSONInteger(idRaw):
			m.id = idRaw
		default:
			return nil, &rpcError{code: codeInvalidRequest, message: fmt.Sprintf(`Invalid Request: "id" must be a string or an integer, not %s`, jsonKind(idRaw))}
		}
	}
	if v, ok := fields["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, &rpcError{id: m.id, code: codeInvalidRequest, message: `Invalid Request: "jsonrpc" must be "2.0"`}
	}
	methodRaw, hasMethod := fields["method"]
	if !hasMethod {
		_, hasResult := fields["result"]
		_, hasError := fields["error"]
		if (hasResult || hasError) && hasID {
			m.response = true
			return m, nil
		}
		return nil, &rpcError{id: m.id, code: codeInvalidRequest, message: `Invalid Request: a message needs a "method" (a request or notification), or an "id" with a "result" or "error" (a response)`}
	}
	if err := json.Unmarshal(methodRaw, &m.method); err != nil || m.method == "" {
		return nil, &rpcError{id: m.id, code: codeInvalidRequest, message: `Invalid Request: "method" must be a non-empty string`}
	}
	if !hasID {
		if !servedNotifications[m.method] {
			return nil, &rpcError{notify: true, code: codeMethodNotFound, message: fmt.Sprintf("notification %q not handled", m.method)}
		}
	} else if !servedCalls[m.method] {
		msg := fmt.Sprintf("Method not found: %q (kobako mcp serves tools: initialize, ping, server/discover, tools/list, tools/call)", m.method)
		if c := undeclared(m.method); c != "" {
			msg = fmt.Sprintf("Method not found: %q (kobako mcp declares no %s capability; it serves tools)", m.method, c)
		}
		return nil, &rpcError{id: m.id, code: codeMethodNotFound, message: msg}
	}
	if p, ok := fields["params"]; ok && string(p) != "null" {
		if len(p) == 0 || p[0] != '{' {
			return nil, &rpcError{id: m.id, code: codeInvalidParams, notify: !hasID, message: fmt.Sprintf(`Invalid params: "params" of %s must be a JSON object, not %s`, m.method, jsonKind(p))}
		}
		json.Unmarshal(p, &m.params)
	}
	if meta, ok := m.params["_meta"]; ok && m.call() {
		var mm map[string]json.RawMessage
		if json.Unmarshal(meta, &mm) != nil {
			return nil, &rpcError{id: m.id, code: codeInvalidParams, message: fmt.Sprintf(`Invalid params: "_meta" of %s must be a JSON object, not %s`, m.method, jsonKind(meta))}
		}
		if v, ok := mm[metaVersionKey]; ok {
			if json.Unmarshal(v, &m.metaVersion) != nil || m.metaVersion == "" {
				return nil, &rpcError{id: m.id, code: codeInvalidParams, message: fmt.Sprintf("Invalid params: _meta %q must be a protocol version string such as %q", metaVersionKey, statelessVersion)}
			}
		}
	}
	if m.modern() && removedMethods[m.method] {
		return nil, &rpcError{id: m.id, code: codeMethodNotFound, message: fmt.Sprintf("Method not found: %s was removed in %s, which the request's _meta names; use server/discover", m.method, statelessVersion)}
	}
	if m.method == "server/discover" && !m.modern() {
		return nil, &rpcError{id: m.id, code: codeInvalidParams, message: fmt.Sprintf("Invalid params: server/discover needs params._meta naming %q (such as %q) and %q",
			metaVersionKey, statelessVersion, "io.modelcontextprotocol/clientCapabilities")}
	}
	if e := m.checkParams(); e != nil {
		e.id, e.notify = m.id, !hasID
		return nil, e
	}
	return m, nil
}

// checkParams checks the members the SDK would otherwise refuse with a Go decoding error.
func (m *inbound) checkParams() *rpcError {
	want := func(member, kind string, required bool) *rpcError {
		v, ok := m.params[member]
		if !ok || string(v) == "null" {
			if required {
				return &rpcError{code: codeInvalidParams, message: fmt.Sprintf("Invalid params: %s needs params.%s (%s)", m.method, member, kind)}
			}
			return nil
		}
		good := false
		switch kind {
		case "a string":
			good = isJSONString(v)
		case "an object":
			good = v[0] == '{'
		}
		if !good {
			return &rpcError{code: codeInvalidParams, message: fmt.Sprintf("Invalid params: params.%s of %s must be %s, not %s", member, m.method, kind, jsonKind(v))}
		}
		return nil
	}
	var checks []*rpcError
	switch m.method {
	case "initialize":
		checks = []*rpcError{want("protocolVersion", "a string", true), want("capabilities", "an object", false), want("clientInfo", "an object", false)}
	case "tools/call":
		checks = []*rpcError{want("name", "a string", true), want("arguments", "an object", false)}
	case "tools/list":
		checks = []*rpcError{want("cursor", "a string", false)}
	case "notifications/cancelled":
		if v, ok := m.params["requestId"]; !ok || !(isJSONString(v) || isJSONInteger(v)) {
			return &rpcError{code: codeInvalidParams, message: "Invalid params: notifications/cancelled needs params.requestId (a string or an integer)"}
		}
	}
	for _, c := range checks {
		if c != nil {
			return c
		}
	}
	return nil
}

// withMeta rewrites the message with params._meta naming version and, when absent, empty client
// capabilities. An empty version removes the member instead: a handshake-era request means nothing
// by it, and the SDK refuses one that carries it.
func (m *inbound) withMeta(version string) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(m.raw, &doc); err != nil {
		return err
	}
	params := m.params
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok {
		json.Unmarshal(raw, &meta)
	}
	if version == "" {
		delete(meta, metaVersionKey)
	} else {
		v, _ := json.Marshal(version)
		meta[metaVersionKey] = v
		if _, ok := meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
			meta["io.modelcontextprotocol/clientCapabilities"] = json.RawMessage("{}")
		}
	}
	params["_meta"], _ = json.Marshal(meta)
	doc["params"], _ = json.Marshal(params)
	raw, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	m.raw, m.params, m.metaVersion = raw, params, version
	return nil
}

// supportedVersions are the protocol revisions kobako mcp serves, newest first.
var supportedVersions = mcp.SupportedProtocolVersions()

func versionSupported(v string) bool { return slices.Contains(supportedVersions, v) }

// unsupportedVersion is the error for a protocol version kobako does not serve: its message and
// its data list the same versions.
func unsupportedVersion(id json.RawMessage, v, where string) *rpcError {
	return &rpcError{id: id, code: codeUnsupportedVersion,
		message: fmt.Sprintf("Unsupported protocol version %q (%s); this server supports %s", v, where, strings.Join(supportedVersions, ", ")),
		data:    map[string]any{"supported": supportedVersions, "requested": v}}
}

func isJSONString(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }

func isJSONInteger(v json.RawMessage) bool {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return false
	}
	return !bytes.ContainsAny(v, ".eE")
}

// jsonKind names the JSON type of a valid value, for messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// sdkError turns an error response the SDK wrote with code 0 (an error its handler returned
// without a JSON-RPC code) into one with a code: a decoding failure is invalid params, anything
// else an internal error. It reports whether it changed anything.
func sdkError(e *jsonrpc.Error) bool {
	if e == nil || e.Code != 0 {
		return false
	}
	msg := e.Message
	if i := strings.Index(msg, ": json: "); i >= 0 {
		e.Code = codeInvalidParams
		e.Message = "Invalid params: " + msg[i+len(": json: "):]
		return true
	}
	e.Code = codeInternalError
	return true
}
