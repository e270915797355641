// Package wire declares the JSON shapes of ABI 1 once, for both ends: the host that runs function
// packages (package subako) and the SDK that writes them (package subako/sdk). The authority is the
// ABI 1 document (「その他の言語 (ABI)」); each type names the section it follows:
//
//   - 「プロトコル」: the JSON-RPC 2.0 envelope (Request, Message, Response, ErrorObject) and the
//     _meta every request carries (RequestMeta).
//   - 「Package をアップロードしたとき」: server/discover (DiscoverResult) and tools/list
//     (ListToolsParams, ListToolsResult, Tool) with the tool-table limits.
//   - 「Agent が Tool を呼び出したとき」: tools/call (CallToolParams, CallToolResult, Content).
//   - 「HTTP: subako_http」: the request a module passes to the import (HTTPRequest, HTTPBody,
//     HTTPOutput) and the answer it reads back (HTTPAnswer, HTTPResponse, HTTPResponseBody,
//     HTTPError).
//   - 「チェックリスト」: the manifest beside module.wasm (Manifest).
//
// The types carry only shape (field names, order, omission); rules about values, such as which
// fields a body of a given type needs, are checked by the side that reads them, because host and
// SDK answer a broken value differently.
//
// A package that starts afresh for every call pays for whatever runs at start, so this package does
// no work at init: no package-level maps, no regular expressions, no reflection. AppendString and
// AppendRaw write JSON without encoding/json's reflection, byte for byte as json.Marshal would.
//
// Field order is part of the shape: the host's tools/call request puts params._meta first and the
// tool's name last, where a module that scans the line rather than parsing it finds them.
package wire
