// Package sdk writes ABI 1 function packages in plain Go.
//
// An ABI 1 package is a WASI preview 1 command (GOOS=wasip1 GOARCH=wasm) that serves the stateless
// MCP revision 2026-07-28 over stdio: one JSON-RPC 2.0 message per line on stdin, one compact answer
// per line on stdout, exit 0 when stdin ends. This package supplies that loop. A program declares its
// tools as typed Go functions, and the SDK derives each tool's inputSchema and outputSchema from the
// Go types (following github.com/invopop/jsonschema's conventions, with a small reflector of its
// own), decodes arguments into the input type, and turns the output (or the error) into an MCP
// CallToolResult:
//
//	var pkg = &sdk.Package{
//		Name:        "hello",
//		Description: "Says hello.",
//		Tools: []sdk.ToolDef{
//			sdk.Tool("greet", "Greet someone by name.", greet),
//		},
//	}
//
//	func main() { pkg.Main() }
//
// ABI 1 starts a fresh instance for every request, so the SDK does at start only what the request
// needs: schemas are derived when tools/list or server/discover first asks for them, never for a
// tools/call, and the tools/call answer is written without encoding/json's reflection. A tools/call
// of the hello example consumes about 1.08 times the fuel of a bare encoding/json program answering
// the same line (examples/fuel_test.go pins it at 1.3).
//
// The JSON shapes of the protocol and of subako_http are those of package subako/wire, which the
// host (package subako) reads and writes too; the SDK's Request, Response, Body, Output, Content and
// Result are its Go-friendly forms and encode through them.
//
// Tool failures never become JSON-RPC errors (the host counts those as a crash): a Go error returned
// by a tool, a *ToolError, arguments that do not decode, and an unknown tool name all become results
// with isError set and a text block the model reads. JSON-RPC errors are kept for protocol faults:
// a line that is not JSON (-32700), a malformed request (-32600), an unknown method (-32601), bad
// params or a missing _meta field (-32602), and an unsupported protocol version (-32022).
//
// Run with the argument --subako-manifest, the same program (built for wasip1 or for the machine at
// hand) prints the package's subako-package.json instead of serving.
//
// Do sends HTTPS requests through the host's subako_http import. The import exists only when the
// package is built for wasip1; elsewhere Do fails with an *Error of kind "abi", so the rest of a
// package remains testable with the ordinary Go toolchain.
package sdk
