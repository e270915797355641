package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/subako"
)

// rawClient speaks newline-delimited JSON-RPC to ServeStdio byte for byte, as shipping clients
// do, including the lines the SDK's client never sends.
type rawClient struct {
	t    *testing.T
	in   *io.PipeWriter
	msgs chan map[string]any
	done chan error

	mu   sync.Mutex
	held []map[string]any // read while waiting for another answer
}

func startStdio(t *testing.T, s *Server) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, msgs: make(chan map[string]any, 1024), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- s.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.msgs <- m
		}
		close(c.msgs)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-c.done
	})
	return c
}

func (c *rawClient) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatalf("write: %v", err)
		}
	}
}

// next returns the next message not yet taken.
func (c *rawClient) next(timeout time.Duration) map[string]any {
	c.t.Helper()
	c.mu.Lock()
	if len(c.held) > 0 {
		m := c.held[0]
		c.held = c.held[1:]
		c.mu.Unlock()
		return m
	}
	c.mu.Unlock()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(timeout):
		c.t.Fatalf("no message from the server within %v", timeout)
	}
	return nil
}

// answer returns the response with id (a JSON value as sent), keeping the other messages for
// later next calls.
func (c *rawClient) answer(id string, timeout time.Duration) map[string]any {
	c.t.Helper()
	c.mu.Lock()
	for i, m := range c.held {
		if idText(m) == id && m["method"] == nil {
			c.held = append(c.held[:i], c.held[i+1:]...)
			c.mu.Unlock()
			return m
		}
	}
	c.mu.Unlock()
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("the server closed its output before answering id %s", id)
			}
			if idText(m) == id && m["method"] == nil {
				return m
			}
			c.mu.Lock()
			c.held = append(c.held, m)
			c.mu.Unlock()
		case <-deadline:
			c.t.Fatalf("no answer to id %s within %v", id, timeout)
		}
	}
}

// quiet checks that nothing arrives for d.
func (c *rawClient) quiet(d time.Duration) {
	c.t.Helper()
	select {
	case m := <-c.msgs:
		c.t.Fatalf("unexpected message %v", m)
	case <-time.After(d):
	}
}

func idText(m map[string]any) string {
	if _, ok := m["id"]; !ok {
		return "<none>"
	}
	b, _ := json.Marshal(m["id"])
	return string(b)
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", m)
	}
	return r
}

const (
	initLine   = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	metaParams = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`
	waitLong   = 20 * time.Second
)

func toolNames(t *testing.T, m map[string]any) []string {
	t.Helper()
	var names []string
	for _, tl := range result(t, m)["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// TestStdioHandshakes: any order of server/discover and initialize on one connection, as Claude
// Code sends them, and requests of both eras after either.
func TestStdioHandshakes(t *testing.T) {
	s, _ := fixtureServer(t, 10*time.Second)
	tests := []struct {
		name  string
		lines []string
	}{
		{"discover then initialize", []string{
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + metaParams + `}}`,
			fmt.Sprintf(initLine, "2"),
		}},
		{"initialize then discover", []string{
			fmt.Sprintf(initLine, "2"),
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + metaParams + `}}`,
		}},
		{"initialize twice", []string{
			fmt.Sprintf(initLine, `"first"`),
			`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			fmt.Sprintf(initLine, "2"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startStdio(t, s)
			c.send(tt.lines...)
			for _, l := range tt.lines {
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				json.Unmarshal([]byte(l), &m)
				a := c.answer(string(m.ID), waitLong)
				r := result(t, a)
				if strings.Contains(l, `"initialize"`) && r["protocolVersion"] != "2025-11-25" {
					t.Fatalf("initialize answered %v", a)
				}
				if strings.Contains(l, `"server/discover"`) {
					if vs, _ := r["supportedVersions"].([]any); len(vs) == 0 || vs[0] != "2026-07-28" {
						t.Fatalf("discover answered %v", a)
					}
				}
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":10,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{`+metaParams+`}}`,
				`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"mcptest__echo","arguments":{"a":1},`+metaParams+`}}`,
				`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"mcptest__echo","arguments":{"b":2}}}`)
			for _, id := range []string{"10", "11"} {
				if got := toolNames(t, c.answer(id, waitLong)); len(got) != len(wantTools) {
					t.Fatalf("tools/list %s: %v", id, got)
				}
			}
			for id, want := range map[string]string{"12": `{"a":1}`, "13": `{"b":2}`} {
				r := result(t, c.answer(id, waitLong))
				if b, _ := json.Marshal(r["structuredContent"]); string(b) != want {
					t.Fatalf("call %s answered %v", id, r)
				}
			}
		})
	}
}

// TestStdioBadInput: each line is answered with its JSON-RPC error and the connection goes on.
func TestStdioBadInput(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: ExamplePackage}}, MaxMessageBytes: 1 << 20})
	tests := []struct {
		name string
		line string
		id   string // the id of the error answer; "null" when the id could not be read
		code int
		text string
	}{
		{"not JSON", `{this is not json`, "null", -32700, "not JSON"},
		{"leading NULs", "\x00\x00" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "null", -32700, "not JSON"},
		{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "null", -32700, ""},
		{"empty batch", `[]`, "null", -32600, "batches"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null", -32600, "batches"},
		{"string", `"hello"`, "null", -32600, "a string"},
		{"number", `5`, "null", -32600, "a number"},
		{"no version tag", `{"id":1,"method":"ping"}`, "1", -32600, `"jsonrpc" must be "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, "1", -32600, `"jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600, `"id" must be`},
		{"no method or result", `{"jsonrpc":"2.0","id":3}`, "3", -32600, "needs a"},
		{"unknown method first", `{"jsonrpc":"2.0","id":4,"method":"frobnicate"}`, "4", -32601, "frobnicate"},
		{"prompts before handshake", `{"jsonrpc":"2.0","id":5,"method":"prompts/list"}`, "5", -32601, "no prompts capability"},
		{"tools/list before initialize", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, "6", -32600, "before initialize"},
		{"array params", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}`, "7", -32602, "JSON object"},
		{"numeric protocolVersion", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":12345,"capabilities":{}}}`, "8", -32602, "protocolVersion of initialize must be a string, not a number"},
		{"oversized", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`, "null", -32600, "longer than 1048576 bytes"},
		{"discover without _meta", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{}}`, "11", -32602, "needs params._meta"},
		{"initialize with a 2026-07-28 _meta", `{"jsonrpc":"2.0","id":12,"method":"initialize","params":{` + metaParams + `}}`, "12", -32601, "removed in 2026-07-28"},
		{"unsupported _meta version", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, "10", -32022, ""},
	}
	c := startStdio(t, s)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.send(tt.line)
			m := c.next(waitLong)
			if idText(m) != tt.id || errCode(m) != tt.code || !strings.Contains(errMessage(m), tt.text) {
				t.Fatalf("answered %v, want id %s, code %d, a message with %q", m, tt.id, tt.code, tt.text)
			}
			// The connection goes on: a ping is answered after every bad line.
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
			if a := c.answer(fmt.Sprintf(`"p%d"`, i), waitLong); a["result"] == nil {
				t.Fatalf("ping answered %v", a)
			}
		})
	}
	c.t = t
	// After the handshake: an unknown method is still -32601, an unknown notification no answer.
	c.send(fmt.Sprintf(initLine, "20"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		`{"jsonrpc":"2.0","id":21,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":22,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"arguments":{}}}`)
	result(t, c.answer("20", waitLong))
	for id, code := range map[string]int{"21": -32601, "22": -32601, "23": -32602} {
		if a := c.answer(id, waitLong); errCode(a) != code {
			t.Fatalf("id %s answered %v, want code %d", id, a, code)
		}
	}
	c.quiet(200 * time.Millisecond)
}

// TestStdioCancelled: a cancelled call gets no answer, as MCP asks, and the guest stops.
func TestStdioCancelled(t *testing.T) {
	s, logs := fixtureServer(t, 60*time.Second)
	c := startStdio(t, s)
	c.send(fmt.Sprintf(initLine, "1"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	result(t, c.answer("1", waitLong))
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mcptest__spin"}}`)
	time.Sleep(300 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
	waitFor(t, logs, `msg="call canceled" tool=mcptest__spin`)
	c.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if a := c.next(waitLong); idText(a) != "6" {
		t.Fatalf("after the cancellation the server sent %v, want only the ping's answer", a)
	}
}

// TestStdioEOF: a client that writes its requests and closes its end still gets every answer.
func TestStdioEOF(t *testing.T) {
	s, _ := fixtureServer(t, 10*time.Second)
	in := strings.NewReader(fmt.Sprintf(initLine, "0") + "\n" + `{not json` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcptest__echo","arguments":{"x":1},` + metaParams + `}}` + "\n")
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), io.NopCloser(in), nopCloser{&out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(out.String(), `"protocolVersion":"2025-11-25"`) ||
		!strings.Contains(out.String(), `-32700`) || !strings.Contains(out.String(), `{"x":1}`) {
		t.Fatalf("answers:\n%s", out.String())
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func waitFor(t *testing.T, logs *syncBuffer, text string) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !strings.Contains(logs.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", text, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProgress: a call whose request carries a progressToken reports its fuel while it runs, in
// both eras; a call without one reports nothing.
func TestProgress(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: fixture, Call: subako.CallOptions{Limits: testLimits(1500 * time.Millisecond)}}},
		ProgressInterval: 100 * time.Millisecond})
	c := startStdio(t, s)
	c.send(fmt.Sprintf(initLine, "1"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	result(t, c.answer("1", waitLong))
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			c.t = t
			extra := ""
			if era == "modern" {
				extra = "," + metaParams[:len(metaParams)-1] + `,"progressToken":"tok-` + era + `"}`
			} else {
				extra = `,"_meta":{"progressToken":"tok-` + era + `"}`
			}
			c.send(`{"jsonrpc":"2.0","id":"` + era + `","method":"tools/call","params":{"name":"mcptest__spin"` + extra + `}}`)
			a := c.answer(`"`+era+`"`, waitLong)
			if r := result(t, a); r["isError"] != true {
				t.Fatalf("spin answered %v, want its deadline error", a)
			}
			var progress []float64
			for _, m := range c.held {
				if m["method"] != "notifications/progress" {
					continue
				}
				p := m["params"].(map[string]any)
				if p["progressToken"] != "tok-"+era {
					t.Fatalf("notification %v", m)
				}
				if tot, _ := p["total"].(float64); tot != float64(testLimits(0).Fuel) {
					t.Fatalf("total %v, want the call's fuel budget %d", p["total"], testLimits(0).Fuel)
				}
				if msg, _ := p["message"].(string); !strings.Contains(msg, "s elapsed") {
					t.Fatalf("message %q", msg)
				}
				progress = append(progress, p["progress"].(float64))
			}
			c.held = nil
			if len(progress) < 3 {
				t.Fatalf("%d progress notifications for a 1.5 s call every 100 ms", len(progress))
			}
			for i := 1; i < len(progress); i++ {
				if progress[i] <= progress[i-1] {
					t.Fatalf("progress did not grow: %v", progress)
				}
			}
		})
	}
	c.t = t
	c.send(`{"jsonrpc":"2.0","id":"none","method":"tools/call","params":{"name":"mcptest__spin"}}`)
	c.answer(`"none"`, waitLong)
	if len(c.held) != 0 {
		t.Fatalf("a call without a progressToken sent %v", c.held)
	}
}

// TestConcurrencyCap: 128 calls in flight with the cap at 4 never run more than 4 guests, and
// each is answered right.
func TestConcurrencyCap(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: fixture, Call: subako.CallOptions{Limits: testLimits(30 * time.Second)}}},
		MaxConcurrentCalls: 4})
	c := startStdio(t, s)
	c.send(fmt.Sprintf(initLine, "0"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	result(t, c.answer("0", waitLong))
	var lines []string
	for i := 1; i <= 128; i++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"mcptest__echo","arguments":{"n":%d}}}`, i, i))
	}
	c.send(lines...)
	for i := 1; i <= 128; i++ {
		r := result(t, c.answer(fmt.Sprint(i), time.Minute))
		if b, _ := json.Marshal(r["structuredContent"]); string(b) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("call %d answered %v", i, r)
		}
	}
	if p := s.peak.Load(); p > 4 || p < 1 {
		t.Fatalf("%d guests ran at once under a cap of 4", p)
	}
}

// TestQueuedCall: with the cap at 1, a call waiting behind a running one leaves the queue at once
// when cancelled, and a waiting call's deadline starts when it runs, not when it arrived.
func TestQueuedCall(t *testing.T) {
	s, logs := newServer(t, Options{Packages: []PackageSpec{{Path: fixture, Call: subako.CallOptions{Limits: testLimits(time.Second)}}},
		MaxConcurrentCalls: 1})
	c := startStdio(t, s)
	c.send(fmt.Sprintf(initLine, "0"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	result(t, c.answer("0", waitLong))

	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcptest__spin"}}`)
	time.Sleep(100 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcptest__spin"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mcptest__echo"}}`)
	time.Sleep(100 * time.Millisecond)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	waitFor(t, logs, `msg="call canceled while waiting to run" tool=mcptest__spin`)
	first := c.answer("1", waitLong)
	end1 := time.Now()
	if r := result(t, first); r["isError"] != true {
		t.Fatalf("spin answered %v", first)
	}
	c.answer("3", waitLong)
	if strings.Contains(logs.String(), `msg="call canceled" tool=mcptest__spin`) {
		t.Fatal("the cancelled queued call ran")
	}
	// Call 4 waits behind call 5's full second; its own second starts only then.
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mcptest__spin"}}`)
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mcptest__spin"}}`)
	c.answer("5", waitLong)
	mid := time.Now()
	a := c.answer("4", waitLong)
	if r := result(t, a); r["isError"] != true || !strings.Contains(fmt.Sprint(r), "deadline") {
		t.Fatalf("call 4 answered %v", a)
	}
	if ran := time.Since(mid); ran < 700*time.Millisecond {
		t.Fatalf("call 4 ran %v after call 5 ended (waited %v): its deadline counted the wait", ran, mid.Sub(start))
	}
	_ = end1
}

// TestProgressHTTP: progress notifications reach the SDK's client over Streamable HTTP in both
// eras.
func TestProgressHTTP(t *testing.T) {
	s, _ := newServer(t, Options{Packages: []PackageSpec{{Path: fixture, Call: subako.CallOptions{Limits: testLimits(time.Second)}}},
		ProgressInterval: 100 * time.Millisecond})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			var got []float64
			cs := connect(t, s, "http", era, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, r.Params.Progress)
				mu.Unlock()
			}})
			p := &mcp.CallToolParams{Name: "mcptest__spin"}
			p.SetProgressToken("t1")
			if r, err := cs.CallTool(context.Background(), p); err != nil || !r.IsError {
				t.Fatalf("spin: %v %v", r, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) < 3 {
				t.Fatalf("%d progress notifications for a 1 s call every 100 ms", len(got))
			}
		})
	}
}
