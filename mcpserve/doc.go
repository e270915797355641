// Package mcpserve serves kobako's tools to MCP clients: the tools of ABI 1 function packages and of
// installed ZeroClaw tool plugins, as one tool list, through the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A Server speaks both protocol eras clients use: the `initialize` handshake (2025-11-25 and older)
// and the stateless revision 2026-07-28 (`server/discover`, per-request `_meta`). It serves them over
// stdio (ServeStdio) and over Streamable HTTP (Handler), where the HTTP handler checks the Host
// header against an allowlist (DNS rebinding), refuses foreign Origins with 403, can require a
// bearer token, caps request bodies and honours MCP-Protocol-Version.
//
// # Tool names
//
// A tool is listed as SOURCE__TOOL: SOURCE is the package's name (or the name given with
// NAME=PATH) or the ZeroClaw plugin's name, TOOL the tool's own name. Every character outside
// A-Z, a-z, 0-9, '_' and '-' becomes '_', so names are valid everywhere clients put them (Claude's
// API accepts ^[a-zA-Z0-9_-]{1,64}$). A name longer than 64 characters is cut to 55 and given '_'
// and 8 hexadecimal digits of the SHA-256 of SOURCE, NUL and TOOL, so it stays the same from run to
// run. Two tools that end up with one name stop the server at start with an error naming both.
//
// # Calls
//
// A call runs the tool exactly as `kobako function call` or `kobako plugin call` would: in a fresh
// instance with the source's limits, volumes, network policy and configuration. Calls run
// concurrently. What the tool returns passes through; a crash, trap, timeout or running out of fuel
// or memory is an isError result naming the cause, so that the model learns the tool failed. When
// the client cancels a call, or an HTTP client goes away, the guest is stopped at once through the
// engine's deadline path.
package mcpserve
