//go:build wasip1

// Command everything is the well-behaved ABI 1 package of subako's tests, written in plain Go
// without the SDK so that the host is tested against the wire protocol alone. Its tools exercise
// every content block, the volume, the preopens, subako_http and the write budget. Discovery reads
// optional overrides from its assets, so that one module can break each tool-table rule:
// /package/discover.json replaces the server/discover result, and /package/pages.json (an array of
// pages, each an array of tools) replaces the tools/list answer, one page per request with
// nextCursor "p<N>" while pages remain.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

//go:wasmimport subako_http request
func httpRequest(ptr unsafe.Pointer, n int32) int32

//go:wasmimport subako_http read_response
func httpReadResponse(ptr unsafe.Pointer, n int32) int32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
func fdPrestatGet(fd int32, buf unsafe.Pointer) int32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_dir_name
func fdPrestatDirName(fd int32, buf unsafe.Pointer, n int32) int32

//go:wasmimport wasi_snapshot_preview1 fd_allocate
func fdAllocate(fd int32, off, n int64) int32

//go:wasmimport wasi_snapshot_preview1 sock_accept
func sockAccept(fd int32, flags int32, out unsafe.Pointer) int32

// png1x1 is a valid 1×1 PNG.
var png1x1, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Cursor    string          `json:"cursor"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	} `json:"params"`
}

var out = bufio.NewWriter(os.Stdout)

func reply(id json.RawMessage, result any) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		panic(err)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var m msg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(1)
		}
		if m.ID == nil {
			continue
		}
		if m.Params.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" {
			fmt.Fprintln(os.Stderr, "missing protocol version in _meta")
			os.Exit(1)
		}
		switch m.Method {
		case "server/discover":
			if b, err := os.ReadFile("/package/discover.json"); err == nil {
				reply(m.ID, json.RawMessage(b))
				continue
			}
			reply(m.ID, map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{}}, "ttlMs": 86400000, "cacheScope": "public"})
		case "tools/list":
			reply(m.ID, listTools(m.Params.Cursor))
		case "tools/call":
			reply(m.ID, call(m.Params.Name, m.Params.Arguments, m.ID, m.Params.Meta))
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			fmt.Println(string(b))
		}
	}
	out.Flush()
}

// preopens lists the preopened directories in descriptor order.
func preopens() []string {
	var pre []string
	for fd := int32(3); fd < 64; fd++ {
		var st [8]byte
		if fdPrestatGet(fd, unsafe.Pointer(&st[0])) != 0 {
			break
		}
		n := *(*uint32)(unsafe.Pointer(&st[4]))
		buf := make([]byte, n)
		if n > 0 {
			fdPrestatDirName(fd, unsafe.Pointer(&buf[0]), int32(n))
		}
		pre = append(pre, string(buf))
	}
	return pre
}

// httpAnswer sends one subako_http request and returns the answer.
func httpAnswer(req []byte) string {
	n := httpRequest(unsafe.Pointer(&req[0]), int32(len(req)))
	if n <= 0 {
		return "request returned " + strconv.Itoa(int(n))
	}
	buf := make([]byte, n)
	if rc := httpReadResponse(unsafe.Pointer(&buf[0]), n); rc != 0 {
		return "read_response returned " + strconv.Itoa(int(rc))
	}
	return string(buf)
}

func listTools(cursor string) any {
	if _, err := os.Stat("/package/probe.txt"); err == nil {
		// Describe the discovery environment in the one tool's description.
		desc := fmt.Sprintf("preopens=%s args=%d env=%d http=%s", strings.Join(preopens(), ","), len(os.Args), len(os.Environ()),
			httpAnswer([]byte(`{"url":"https://example.com/"}`)))
		return map[string]any{"resultType": "complete", "tools": []any{
			map[string]any{"name": "probe", "description": desc, "inputSchema": map[string]any{"type": "object"}}}}
	}
	if b, err := os.ReadFile("/package/pages.json"); err == nil {
		var pages []json.RawMessage
		if err := json.Unmarshal(b, &pages); err != nil {
			panic(err)
		}
		i := 0
		if cursor != "" {
			i, _ = strconv.Atoi(strings.TrimPrefix(cursor, "p"))
		}
		r := map[string]any{"resultType": "complete", "tools": pages[i]}
		if i+1 < len(pages) {
			r["nextCursor"] = "p" + strconv.Itoa(i+1)
		}
		return r
	}
	obj := map[string]any{"type": "object"}
	return map[string]any{"resultType": "complete", "tools": []any{
		map[string]any{"name": "greet", "description": "Greet someone by name.", "inputSchema": map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
			"outputSchema": map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}},
		map[string]any{"name": "blocks", "description": "Returns one content block of each kind.", "inputSchema": obj},
		map[string]any{"name": "fail", "description": "Always fails for the model to read.", "inputSchema": obj},
		map[string]any{"name": "env", "description": "Describes what the module was given.", "inputSchema": obj},
		map[string]any{"name": "write", "description": "Writes bytes to a file.", "inputSchema": obj},
		map[string]any{"name": "http", "description": "Sends a subako_http request.", "inputSchema": obj},
		map[string]any{"name": "abi", "description": "Misuses subako_http on purpose.", "inputSchema": obj},
	}, "ttlMs": 86400000, "cacheScope": "public"}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func result(blocks ...any) map[string]any {
	return map[string]any{"resultType": "complete", "content": blocks}
}

func call(name string, raw json.RawMessage, id json.RawMessage, meta map[string]any) any {
	var args map[string]any
	json.Unmarshal(raw, &args)
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch name {
	case "greet":
		msg := "Hello, " + str("name") + "!"
		r := result(text(msg))
		r["structuredContent"] = map[string]any{"message": msg}
		return r
	case "fail":
		r := result(text("name must not be empty"))
		r["isError"] = true
		return r
	case "blocks":
		// A file name that needs percent-encoding in its URI.
		if err := os.WriteFile("/volume/tmp/chart 1.png", png1x1, 0o644); err != nil {
			return result(text("write: " + err.Error()))
		}
		os.WriteFile("/volume/tmp/notes.txt", []byte("not an image"), 0o644)
		return result(
			text("plain"),
			map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(png1x1)},
			map[string]any{"type": "resource_link", "uri": "volume:///tmp/chart%201.png", "name": "chart 1.png"},
			map[string]any{"type": "resource_link", "uri": "volume:///tmp/notes.txt", "name": "notes.txt"},
			map[string]any{"type": "resource_link", "uri": "https://example.com/report", "name": "report"},
			map[string]any{"type": "audio", "mimeType": "audio/wav", "data": ""},
		)
	case "env":
		pre := preopens()
		asset, _ := os.ReadFile("/package/hello.txt")
		skill, _ := os.ReadFile("/skills/writing/SKILL.md")
		ro := os.WriteFile("/package/x", []byte("x"), 0o644)
		// fd_allocate on a volume file, and sock_accept on a preopen and on no descriptor at all.
		var allocate, accept3, accept99 int32 = -1, -1, -1
		if f, err := os.Create("/volume/tmp/allocate"); err == nil {
			allocate = fdAllocate(int32(f.Fd()), 0, 4096)
			f.Close()
		}
		var fdOut [4]byte
		accept3 = sockAccept(3, 0, unsafe.Pointer(&fdOut[0]))
		accept99 = sockAccept(99, 0, unsafe.Pointer(&fdOut[0]))
		b, _ := json.Marshal(map[string]any{"args": os.Args, "env": os.Environ(), "preopens": pre,
			"asset": string(asset), "skill": string(skill), "package_writable": ro == nil,
			"id": id, "meta": meta, "fd_allocate": allocate, "sock_accept_preopen": accept3, "sock_accept_none": accept99})
		return result(text(string(b)))
	case "write":
		n, _ := args["bytes"].(float64)
		err := os.WriteFile(str("path"), make([]byte, int(n)), 0o644)
		if err != nil {
			return result(text("error: " + err.Error()))
		}
		return result(text("ok"))
	case "http":
		req, _ := json.Marshal(args["request"])
		if s, ok := args["raw"].(string); ok {
			req = []byte(s)
		}
		n := httpRequest(unsafe.Pointer(&req[0]), int32(len(req)))
		if n < 0 {
			return result(text("request returned " + strconv.Itoa(int(n))))
		}
		buf := make([]byte, n)
		var rc int32
		if n > 0 {
			rc = httpReadResponse(unsafe.Pointer(&buf[0]), n)
		}
		if rc != 0 {
			return result(text("read_response returned " + strconv.Itoa(int(rc))))
		}
		return result(text(string(buf)))
	case "abi":
		var buf [64]byte
		req := []byte(`{"url":"https://example.com/"}`)
		codes := map[string]int32{
			"nothing_held": httpReadResponse(unsafe.Pointer(&buf[0]), 64),
			"out_of_range": httpRequest(unsafe.Pointer(uintptr(0xfffffff0)), 64),
		}
		n := httpRequest(unsafe.Pointer(&req[0]), int32(len(req)))
		codes["mismatch"] = httpReadResponse(unsafe.Pointer(&buf[0]), n+1)
		big := make([]byte, n)
		codes["read_out_of_range"] = httpReadResponse(unsafe.Pointer(uintptr(0xfffffff0)), n)
		codes["read"] = httpReadResponse(unsafe.Pointer(&big[0]), n)
		codes["read_again"] = httpReadResponse(unsafe.Pointer(&big[0]), n)
		b, _ := json.Marshal(map[string]any{"codes": codes, "answer": string(big)})
		return result(text(string(b)))
	}
	r := result(text("unknown tool " + name))
	r["isError"] = true
	return r
}
