// Package subako runs ABI 1 function packages: WASI preview 1 core modules that are stateless
// MCP servers (revision 2026-07-28) over stdio, with the `subako_http` host module for HTTPS.
//
// A package is a directory, or a zip of one, holding subako-package.json
// (`{"abi":1,"name":…,"description":…}`), module.wasm and optionally assets/, which the module
// sees read-only at /package. A Runtime loads packages (Load, LoadFS, LoadZip): it checks the
// manifest and the module (Validate: a core module exporting `_start` and `memory`, importing only
// what the host provides, using only WebAssembly 2.0 features without GC) and compiles it once.
//
// Package.Discover runs the module the way an upload does (only /package mounted, no volume, no
// network, 10 s) and checks its tool table; Package.Call runs one `tools/call` in a fresh instance
// with the volume, skills, network policy and limits of CallOptions, and maps the module's
// CallToolResult to what a model is shown. Calls on one Package may run concurrently.
//
// The JSON of ABI 1 (the JSON-RPC envelope, discovery, tools, content blocks and the subako_http
// request and answer) is declared once in package subako/wire, which the SDK (subako/sdk) shares;
// this package reads and writes those types and adds the rules about their values.
//
// # Network
//
// A call reaches the network only through `subako_http`, under the *egress.Policy of
// CallOptions.Network (package github.com/kobako/kobako/egress): the hosts it may reach and the
// credentials the host injects for them. Config.HTTPClient sets the client every call of a Runtime
// shares; nil means egress.NewClient(egress.Options{}), which never reaches loopback or private
// addresses. See ExampleCallOptions_network. CallOptions.Send replaces that policy sender with
// the embedder's egress.Sender, the type wasi:http's hook takes too, so one function can audit,
// rate-limit or veto the requests of both plugin protocols.
//
// # Crashes
//
// Every way a module can break the protocol ends the run with a *CrashError whose Rule says what
// it did (a JSON-RPC error, a result that is not complete, a stdout line that is not a message,
// an unknown id, a request of its own, exiting early or non-zero, running on after stdin closed,
// a trap, running out of fuel, memory or time, more than 1 MiB of stdout) and which carries the
// last 4 KiB of its stderr.
//
// # Defaults
//
// A call gets DefaultCallLimits (fuel 1,000,000,000, 30 s, 256 MiB of memory), a write budget of
// 1 GiB (DefaultWriteBudget) and no network. Discovery has the same limits with a 10 s deadline.
package subako
