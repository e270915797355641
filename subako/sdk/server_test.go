package sdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

const testMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func req(id any, method, params string) string {
	idJSON, _ := json.Marshal(id)
	if params == "" {
		params = "{" + testMeta + "}"
	} else {
		params = "{" + testMeta + "," + params + "}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idJSON, method, params)
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b,omitempty"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type nonEmpty struct {
	S string `json:"s"`
}

func (n nonEmpty) Validate() error {
	if n.S == "" {
		return errors.New("s must not be empty")
	}
	return nil
}

func testPackage() *Package {
	return &Package{
		Name: "test", Description: "Test tools.", Version: "1.2.3",
		Tools: []ToolDef{
			Tool("add", "Add two numbers.", func(_ context.Context, in addIn) (addOut, error) {
				return addOut{Sum: in.A + in.B}, nil
			}),
			Tool("fail", "Always fails.", func(context.Context, struct{}) (string, error) {
				return "", errors.New("the disk is on fire")
			}),
			Tool("rich_fail", "Fails with an attachment.", func(context.Context, struct{}) (string, error) {
				return "", &ToolError{Message: "see the log", Content: []Content{Text("log line")}}
			}),
			Tool("boom", "Panics.", func(context.Context, struct{}) (string, error) {
				panic("kaboom")
			}),
			Tool("check", "Validates its input.", func(_ context.Context, in nonEmpty) (string, error) {
				return "ok " + in.S, nil
			}),
			Tool("big", "Answers too much.", func(context.Context, struct{}) (string, error) {
				return strings.Repeat("x", MaxResponseBytes), nil
			}),
			Tool("raw", "Returns a raw result.", func(context.Context, struct{}) (*Result, error) {
				return TextResult("raw").Add(Image("image/png", []byte{0x89, 'P', 'N', 'G'})), nil
			}),
			Tool("list", "Returns a non-object.", func(context.Context, struct{}) ([]int, error) {
				return []int{1, 2}, nil
			}),
		},
	}
}

// serve runs the loop over input and returns the answers, one decoded object per line.
func serve(t *testing.T, p *Package, input string) []map[string]any {
	t.Helper()
	var out, log bytes.Buffer
	if err := p.serve(context.Background(), strings.NewReader(input), &out, &log); err != nil {
		t.Fatalf("serve: %v", err)
	}
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("answer %q is not JSON: %v", line, err)
		}
		if m["jsonrpc"] != "2.0" {
			t.Fatalf("answer %q lacks jsonrpc 2.0", line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("answer has no result: %v", m)
	}
	if r["resultType"] != "complete" {
		t.Fatalf("resultType = %v", r["resultType"])
	}
	return r
}

func firstText(t *testing.T, r map[string]any) string {
	t.Helper()
	c := r["content"].([]any)
	if len(c) == 0 {
		t.Fatalf("no content: %v", r)
	}
	b := c[0].(map[string]any)
	if b["type"] != "text" {
		t.Fatalf("first block is %v", b)
	}
	return b["text"].(string)
}

func TestServe(t *testing.T) {
	tests := []struct {
		name  string
		input string
		check func(t *testing.T, msgs []map[string]any)
	}{
		{"discover", req("discover-1", MethodDiscover, "") + "\n", func(t *testing.T, msgs []map[string]any) {
			if len(msgs) != 1 || msgs[0]["id"] != "discover-1" {
				t.Fatalf("answers %v", msgs)
			}
			r := result(t, msgs[0])
			if v := r["supportedVersions"].([]any); len(v) != 1 || v[0] != ProtocolVersion {
				t.Errorf("supportedVersions = %v", v)
			}
			if _, ok := r["capabilities"].(map[string]any)["tools"]; !ok {
				t.Errorf("no tools capability: %v", r["capabilities"])
			}
			info := r["_meta"].(map[string]any)[MetaServerInfo].(map[string]any)
			if info["name"] != "test" || info["version"] != "1.2.3" {
				t.Errorf("serverInfo = %v", info)
			}
			if r["ttlMs"].(float64) != ListTTLMillis || r["cacheScope"] != "public" {
				t.Errorf("cache fields: %v %v", r["ttlMs"], r["cacheScope"])
			}
		}},
		{"numeric id echoed", req(7, MethodDiscover, "") + "\n", func(t *testing.T, msgs []map[string]any) {
			if msgs[0]["id"] != float64(7) {
				t.Fatalf("id = %#v", msgs[0]["id"])
			}
		}},
		{"call ok with structured output", req("c", MethodToolsCall, `"name":"add","arguments":{"a":2,"b":3}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != nil {
				t.Fatalf("isError set: %v", r)
			}
			if sc := r["structuredContent"].(map[string]any); sc["sum"] != float64(5) {
				t.Errorf("structuredContent = %v", sc)
			}
			if txt := firstText(t, r); txt != `{"sum":5}` {
				t.Errorf("text = %q", txt)
			}
		}},
		{"call with null arguments uses zero values", req("c", MethodToolsCall, `"name":"fail","arguments":null`) + "\n", func(t *testing.T, msgs []map[string]any) {
			if txt := firstText(t, result(t, msgs[0])); txt != "the disk is on fire" {
				t.Errorf("text = %q", txt)
			}
		}},
		{"call error is isError", req(1, MethodToolsCall, `"name":"fail","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || firstText(t, r) != "the disk is on fire" {
				t.Errorf("result %v", r)
			}
		}},
		{"tool error keeps its content", req(1, MethodToolsCall, `"name":"rich_fail","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			c := r["content"].([]any)
			if r["isError"] != true || len(c) != 2 || c[1].(map[string]any)["text"] != "log line" {
				t.Errorf("result %v", r)
			}
		}},
		{"panic is isError", req(1, MethodToolsCall, `"name":"boom","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), "kaboom") {
				t.Errorf("result %v", r)
			}
		}},
		{"unknown tool is isError", req(1, MethodToolsCall, `"name":"nope","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), `unknown tool "nope"`) {
				t.Errorf("result %v", r)
			}
		}},
		{"unknown argument is isError", req(1, MethodToolsCall, `"name":"add","arguments":{"a":1,"c":2}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), `"c"`) {
				t.Errorf("result %v", r)
			}
		}},
		{"missing required argument is isError", req(1, MethodToolsCall, `"name":"add","arguments":{"b":1}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), `missing required argument "a"`) {
				t.Errorf("result %v", r)
			}
		}},
		{"wrong argument type is isError", req(1, MethodToolsCall, `"name":"add","arguments":{"a":"one"}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			if r := result(t, msgs[0]); r["isError"] != true {
				t.Errorf("result %v", r)
			}
		}},
		{"validator failure is isError", req(1, MethodToolsCall, `"name":"check","arguments":{"s":""}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), "s must not be empty") {
				t.Errorf("result %v", r)
			}
		}},
		{"oversized result becomes isError", req(1, MethodToolsCall, `"name":"big","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if r["isError"] != true || !strings.Contains(firstText(t, r), "over the 1048576 bytes") {
				t.Errorf("result %v", r)
			}
		}},
		{"raw result with image", req(1, MethodToolsCall, `"name":"raw","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			c := result(t, msgs[0])["content"].([]any)
			img := c[1].(map[string]any)
			if img["type"] != "image" || img["mimeType"] != "image/png" || img["data"] != "iVBORw==" {
				t.Errorf("image block %v", img)
			}
		}},
		{"non-object output is text only", req(1, MethodToolsCall, `"name":"list","arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			r := result(t, msgs[0])
			if _, ok := r["structuredContent"]; ok || firstText(t, r) != "[1,2]" {
				t.Errorf("result %v", r)
			}
		}},
		{"arguments not an object", req(1, MethodToolsCall, `"name":"add","arguments":[1]`) + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"name missing", req(1, MethodToolsCall, `"arguments":{}`) + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeUnsupportedProtocolVersion {
				t.Fatalf("answer %v", msgs[0])
			}
			data := msgs[0]["error"].(map[string]any)["data"].(map[string]any)
			if data["requested"] != "1900-01-01" || data["supported"].([]any)[0] != ProtocolVersion {
				t.Errorf("data %v", data)
			}
		}},
		{"missing _meta", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"missing client capabilities", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"missing params", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"unknown method", req("u", "initialize", "") + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeMethodNotFound || msgs[0]["id"] != "u" {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"parse error", "{not json\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeParseError || msgs[0]["id"] != nil {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"batch refused", "[" + req(1, MethodDiscover, "") + "]\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidRequest {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":1,"method":"server/discover","params":{` + testMeta + `}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidRequest || msgs[0]["id"] != float64(1) {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"null id refused", `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + testMeta + `}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidRequest {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"response from client refused", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidRequest {
				t.Errorf("answer %v", msgs[0])
			}
		}},
		{"notifications ignored", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"tools/call"}` + "\n\n" + req(2, MethodDiscover, "") + "\n", func(t *testing.T, msgs []map[string]any) {
			if len(msgs) != 1 || msgs[0]["id"] != float64(2) {
				t.Errorf("answers %v", msgs)
			}
		}},
		{"EOF without newline still answered", req(3, MethodDiscover, ""), func(t *testing.T, msgs []map[string]any) {
			if len(msgs) != 1 || msgs[0]["id"] != float64(3) {
				t.Errorf("answers %v", msgs)
			}
		}},
		{"CRLF lines", req(4, MethodDiscover, "") + "\r\n" + req(5, MethodDiscover, "") + "\r\n", func(t *testing.T, msgs []map[string]any) {
			if len(msgs) != 2 || errCode(msgs[0]) != 0 || errCode(msgs[1]) != 0 {
				t.Errorf("answers %v", msgs)
			}
		}},
		{"empty input", "", func(t *testing.T, msgs []map[string]any) {
			if len(msgs) != 0 {
				t.Errorf("answers %v", msgs)
			}
		}},
		{"bad cursor", req(1, MethodToolsList, `"cursor":"999"`) + "\n", func(t *testing.T, msgs []map[string]any) {
			if errCode(msgs[0]) != CodeInvalidParams {
				t.Errorf("answer %v", msgs[0])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, serve(t, testPackage(), tt.input))
		})
	}
}

func TestListPaging(t *testing.T) {
	p := testPackage()
	for _, size := range []int{1, 3, 8, 100} {
		p.PageSize = size
		var names []string
		cursor := ""
		pages := 0
		for {
			params := ""
			if cursor != "" {
				params = fmt.Sprintf(`"cursor":%q`, cursor)
			}
			msgs := serve(t, p, req(pages, MethodToolsList, params)+"\n")
			r := result(t, msgs[0])
			pages++
			tools := r["tools"].([]any)
			if len(tools) > size {
				t.Fatalf("page size %d: page has %d tools", size, len(tools))
			}
			for _, tool := range tools {
				tm := tool.(map[string]any)
				names = append(names, tm["name"].(string))
				if tm["inputSchema"].(map[string]any)["type"] != "object" {
					t.Errorf("tool %v: inputSchema not an object", tm["name"])
				}
			}
			next, _ := r["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		if len(names) != len(p.Tools) || pages != (len(p.Tools)+size-1)/size {
			t.Errorf("page size %d: %d names over %d pages", size, len(names), pages)
		}
		for i, tool := range p.Tools {
			if names[i] != tool.Name() {
				t.Errorf("page size %d: tool %d is %s, want %s", size, i, names[i], tool.Name())
			}
		}
	}
}

// The host keeps stdin open until each answer arrives, so every answer must be flushed before the
// next line is read.
func TestAnswersBeforeEOF(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- testPackage().serve(context.Background(), inR, outW, io.Discard)
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	for i := range 3 {
		if _, err := io.WriteString(inW, req(i, MethodDiscover, "")+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if !strings.Contains(line, fmt.Sprintf(`"id":%d`, i)) {
			t.Fatalf("answer %d: %s", i, line)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after EOF: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return after stdin closed")
	}
}

func TestLongLine(t *testing.T) {
	p := testPackage()
	p.MaxRequestBytes = 1024
	input := `{"pad":"` + strings.Repeat("a", 200_000) + `"}` + "\n" + req(9, MethodDiscover, "") + "\n"
	msgs := serve(t, p, input)
	if len(msgs) != 2 || errCode(msgs[0]) != CodeParseError || msgs[1]["id"] != float64(9) {
		t.Fatalf("answers %v", msgs)
	}
	// A line of exactly the limit is still read.
	p.MaxRequestBytes = len(req(9, MethodDiscover, ""))
	if msgs := serve(t, p, req(9, MethodDiscover, "")+"\n"); errCode(msgs[0]) != 0 {
		t.Fatalf("answer at the limit: %v", msgs[0])
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("pipe broke") }

func TestServeReadError(t *testing.T) {
	err := testPackage().Serve(context.Background(), failingReader{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "pipe broke") {
		t.Fatalf("err = %v", err)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		p        *Package
		args     []string
		stdin    string
		code     int
		stdout   string
		stderrIn string
	}{
		{"manifest", testPackage(), []string{"pkg", ManifestFlag}, "", 0, `{"abi":1,"name":"test","description":"Test tools."}` + "\n", ""},
		{"serve until EOF", testPackage(), []string{"pkg"}, req(1, MethodDiscover, "") + "\n", 0, "", ""},
		{"unknown argument", testPackage(), []string{"pkg", "greet"}, "", 2, "", "unknown arguments"},
		{"invalid package", &Package{Name: "empty"}, []string{"pkg"}, "", 1, "", "has 0 tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := tt.p.Run(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.code {
				t.Fatalf("code %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if tt.stdout != "" && out.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String(), tt.stderrIn) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.stderrIn)
			}
		})
	}
}

type hugeIn struct {
	A string `json:"a"`
}

func okTool(name string) ToolDef {
	return Tool(name, "A tool.", func(context.Context, struct{}) (string, error) { return "", nil })
}

func TestValidate(t *testing.T) {
	many := func(n int) []ToolDef {
		ts := make([]ToolDef, n)
		for i := range ts {
			ts[i] = okTool(fmt.Sprintf("t%d", i))
		}
		return ts
	}
	tests := []struct {
		name  string
		p     *Package
		errIn string
	}{
		{"ok", &Package{Name: "p", Tools: many(64)}, ""},
		{"no name", &Package{Tools: many(1)}, "name is empty"},
		{"no tools", &Package{Name: "p"}, "has 0 tools"},
		{"65 tools", &Package{Name: "p", Tools: many(65)}, "has 65 tools"},
		{"too many pages", &Package{Name: "p", Tools: many(17), PageSize: 1}, "17 tools/list pages"},
		{"duplicate", &Package{Name: "p", Tools: []ToolDef{okTool("a"), okTool("a")}}, `tool "a"`},
		{"upper case", &Package{Name: "p", Tools: []ToolDef{okTool("Greet")}}, `'G'`},
		{"empty name", &Package{Name: "p", Tools: []ToolDef{okTool("")}}, "1 to 64"},
		{"long name", &Package{Name: "p", Tools: []ToolDef{okTool(strings.Repeat("a", 65))}}, "has 65"},
		{"long description", &Package{Name: "p", Tools: []ToolDef{Tool("a", strings.Repeat("é", 1025), func(context.Context, struct{}) (string, error) { return "", nil })}}, "1025 characters"},
		{"description at limit", &Package{Name: "p", Tools: []ToolDef{Tool("a", strings.Repeat("é", 1024), func(context.Context, struct{}) (string, error) { return "", nil })}}, ""},
		{"string input", &Package{Name: "p", Tools: []ToolDef{Tool("a", "", func(context.Context, string) (string, error) { return "", nil })}}, `not "object"`},
		{"channel input", &Package{Name: "p", Tools: []ToolDef{Tool("a", "", func(context.Context, chan int) (string, error) { return "", nil })}}, `tool "a"`},
		{"zero ToolDef", &Package{Name: "p", Tools: []ToolDef{{}}}, "not made with sdk.Tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.errIn == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errIn) {
				t.Fatalf("err = %v, want one containing %q", err, tt.errIn)
			}
			if !errors.Is(err, ErrInvalidPackage) && !errors.Is(err, ErrInvalidTool) {
				t.Errorf("err %v wraps no sentinel", err)
			}
		})
	}
}

// setInput makes tool's input schema s, as if derived.
func setInput(tool ToolDef, s string) {
	tool.schemas.once.Do(func() { tool.schemas.input = json.RawMessage(s) })
}

func TestSchemaLimits(t *testing.T) {
	// A description tag large enough to push one schema past 64 KiB.
	type bigSchema struct {
		A string `json:"a"`
	}
	tool := Tool("a", "", func(context.Context, bigSchema) (string, error) { return "", nil })
	setInput(tool, `{"type":"object","description":"`+strings.Repeat("x", MaxSchemaBytes)+`"}`)
	if err := (&Package{Name: "p", Tools: []ToolDef{tool}}).Validate(); err == nil || !strings.Contains(err.Error(), "inputSchema is") {
		t.Fatalf("err = %v", err)
	}
	// Five tools each under 64 KiB but together over 256 KiB.
	var tools []ToolDef
	for i := range 5 {
		tl := okTool(fmt.Sprintf("t%d", i))
		setInput(tl, `{"type":"object","description":"`+strings.Repeat("x", 60<<10)+`"}`)
		tools = append(tools, tl)
	}
	if err := (&Package{Name: "p", Tools: tools}).Validate(); err == nil || !strings.Contains(err.Error(), "over 262144") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolSchemas(t *testing.T) {
	add := testPackage().Tools[0]
	var in map[string]any
	if err := json.Unmarshal(add.InputSchema(), &in); err != nil {
		t.Fatal(err)
	}
	if in["type"] != "object" || in["additionalProperties"] != false {
		t.Errorf("input schema %s", add.InputSchema())
	}
	if req := in["required"].([]any); len(req) != 1 || req[0] != "a" {
		t.Errorf("required %v", req)
	}
	if _, ok := in["$schema"]; ok {
		t.Errorf("input schema keeps $schema: %s", add.InputSchema())
	}
	if add.OutputSchema() == nil {
		t.Error("add has no output schema")
	}
	if fail := testPackage().Tools[1]; fail.OutputSchema() != nil {
		t.Errorf("string output got a schema: %s", fail.OutputSchema())
	}
}

// TestRunChecksSchemasWhenListed checks when a package whose schemas cannot be derived fails: a
// tools/call, which needs no schema, is answered; server/discover and tools/list, which show the
// schemas, end the run with exit code 1 and the reason on stderr, before anything is written;
// and Validate and the manifest flag report it up front.
func TestRunChecksSchemasWhenListed(t *testing.T) {
	type withChan struct {
		A string   `json:"a"`
		C chan int `json:"c,omitempty"`
	}
	p := &Package{Name: "bad", Tools: []ToolDef{
		Tool("bad", "Its input has a channel.", func(_ context.Context, in withChan) (string, error) { return "got " + in.A, nil }),
	}}
	tests := []struct {
		name, args, stdin string
		code              int
		stdoutIn          string
	}{
		{"call", "", req(1, MethodToolsCall, `"name":"bad","arguments":{"a":"x"}`) + "\n", 0, `"text":"got x"`},
		{"list", "", req(1, MethodToolsList, "") + "\n", 1, ""},
		{"discover", "", req(1, MethodDiscover, "") + "\n", 1, ""},
		{"call then list", "", req(1, MethodToolsCall, `"name":"bad","arguments":{"a":"x"}`) + "\n" + req(2, MethodToolsList, "") + "\n", 1, `"text":"got x"`},
		{"manifest", ManifestFlag, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"pkg"}
			if tt.args != "" {
				args = append(args, tt.args)
			}
			var out, errb bytes.Buffer
			code := p.Run(context.Background(), args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.code {
				t.Fatalf("code %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if tt.stdoutIn != "" && !strings.Contains(out.String(), tt.stdoutIn) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.stdoutIn)
			}
			if tt.code == 1 && (!strings.Contains(errb.String(), "chan int") || strings.Count(out.String(), "\n") > 1) {
				t.Errorf("stderr %q, stdout %q", errb.String(), out.String())
			}
		})
	}
	if err := p.Validate(); !errors.Is(err, ErrInvalidTool) {
		t.Errorf("Validate: %v", err)
	}
}
