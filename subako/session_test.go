package subako

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stdinPipe keeps wasi.PollableReader's contract at every step of a run's stdin.
func TestStdinPipe(t *testing.T) {
	p := newStdinPipe()
	buf := make([]byte, 4)
	waiting := p.ReadyChan()
	steps := []struct {
		name     string
		do       func()
		read     int // bytes to TryRead after the step; 0 for none
		want     string
		err      error
		buffered int
		ready    bool
	}{
		{name: "empty", read: 4, err: wasi.EAGAIN},
		{name: "write", do: func() { p.Write([]byte("hello\n")) }, buffered: 6, ready: true},
		{name: "empty write", do: func() { p.Write(nil) }, buffered: 6, ready: true},
		{name: "partial read", read: 4, want: "hell", buffered: 2, ready: true},
		{name: "rest", read: 4, want: "o\n"},
		{name: "drained", read: 4, err: wasi.EAGAIN},
		{name: "write again", do: func() { p.Write([]byte("ab")); p.Write([]byte("cd")) }, read: 4, want: "abcd"},
		{name: "close", do: func() { p.Close() }, read: 4, err: io.EOF, ready: true},
		{name: "write after close", do: func() { p.Write([]byte("late")) }, read: 4, err: io.EOF, ready: true},
		{name: "close again", do: func() { p.Close() }, read: 4, err: io.EOF, ready: true},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		if s.read > 0 {
			n, err := p.TryRead(buf[:s.read])
			if string(buf[:n]) != s.want || err != s.err {
				t.Fatalf("%s: TryRead = %q, %v; want %q, %v", s.name, buf[:n], err, s.want, s.err)
			}
		}
		if got := p.Buffered(); got != s.buffered {
			t.Fatalf("%s: Buffered = %d, want %d", s.name, got, s.buffered)
		}
		if got := isClosed(p.ReadyChan()); got != s.ready {
			t.Fatalf("%s: ReadyChan closed = %v, want %v", s.name, got, s.ready)
		}
		if _, err := p.TryRead(nil); s.ready != (err != wasi.EAGAIN) {
			t.Fatalf("%s: TryRead(nil) = %v with ReadyChan closed = %v", s.name, err, s.ready)
		}
	}
	if !isClosed(waiting) {
		t.Error("the channel handed out while empty was never closed")
	}
}

// The blocking Read, for readers other than wasi.Input, waits for a write or the end.
func TestStdinPipeBlockingRead(t *testing.T) {
	p := newStdinPipe()
	got := make(chan string, 1)
	go func() {
		b, err := io.ReadAll(p)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b)
	}()
	for _, s := range []string{"one ", "two ", "three"} {
		time.Sleep(time.Millisecond)
		p.Write([]byte(s))
	}
	p.Close()
	select {
	case s := <-got:
		if s != "one two three" {
			t.Fatalf("ReadAll = %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read never saw the end")
	}
}

// A guest reading through wasi.Input sees requests as the host writes them, and the end, with
// the writer, the reader and the pollers on different goroutines.
func TestStdinPipeThroughInput(t *testing.T) {
	p := newStdinPipe()
	in := wasi.NewInput(p)
	defer in.Close()
	if n, err := in.Read(context.Background(), make([]byte, 1), false); n != 0 || err != wasi.EAGAIN {
		t.Fatalf("non-blocking Read of nothing = %d, %v", n, err)
	}
	var want bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			line := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%50)
			want.Write(line)
			p.Write(line)
		}
		p.Close()
	})
	wg.Go(func() {
		for !in.AtEOF() {
			<-in.ReadyChan()
			in.Buffered()
		}
	})
	var got []byte
	buf := make([]byte, 37)
	for {
		n, err := in.Read(context.Background(), buf, true)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read %d bytes, %q..., want %d", len(got), got[:min(len(got), 20)], want.Len())
	}
}

// TestSendLine checks the request lines send splices together: one line of valid JSON, the id
// before params, _meta as the first member of params, and a call's tool name last.
func TestSendLine(t *testing.T) {
	meta, err := json.Marshal(requestMeta("1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	// The _meta bytes guests have always seen (subako/example/module.wat reads past them).
	if want := `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"kobako","version":"1.2.3"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`; string(meta) != want {
		t.Fatalf("_meta %s, want %s", meta, want)
	}
	tests := []struct {
		name   string
		o      outgoing
		params string // params without _meta, compact
	}{
		{"discover", outgoing{method: wire.MethodDiscover, params: wire.DiscoverParams{}}, `{}`},
		{"list page", outgoing{method: wire.MethodToolsList, params: wire.ListToolsParams{Cursor: "a\"<b"}}, `{"cursor":"a\"\u003cb"}`},
		{"call", (&callDriver{tool: "greet", args: json.RawMessage(` {"name": "Ada"} `)}).first(), `{"name":"greet","arguments":{"name":"Ada"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &session{meta: meta, stdin: newStdinPipe()}
			if err := s.send(tt.o); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 4096)
			n, _ := s.stdin.TryRead(buf)
			line := string(buf[:n])
			if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
				t.Fatalf("not one line: %q", line)
			}
			var m struct {
				JSONRPC, ID, Method string
				Params              map[string]json.RawMessage
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if m.JSONRPC != "2.0" || m.ID != s.pending || m.Method != tt.o.method || string(m.Params["_meta"]) != string(meta) {
				t.Fatalf("line %q", line)
			}
			if !strings.Contains(line, `"id":"`+s.pending+`","method"`) || !strings.Contains(line, `"params":{"_meta":`+string(meta)) {
				t.Errorf("members out of order: %q", line)
			}
			if tt.o.method == wire.MethodToolsCall && !strings.HasSuffix(line, `,"name":"greet"}}`+"\n") {
				t.Errorf("a call's tool name is not last: %q", line)
			}
			delete(m.Params, "_meta")
			got, _ := json.Marshal(m.Params)
			var want map[string]json.RawMessage
			_ = json.Unmarshal([]byte(tt.params), &want)
			if w, _ := json.Marshal(want); string(got) != string(w) {
				t.Errorf("params %s, want %s", got, w)
			}
		})
	}
}

// plainDriver hides callDriver's predecode, so that a run takes the general path: a resultType
// decode in handle and a wire.CallToolResult decode in answer.
type plainDriver struct{ d *callDriver }

func (p plainDriver) first() outgoing                             { return p.d.first() }
func (p plainDriver) answer(r json.RawMessage) (*outgoing, error) { return p.d.answer(r) }

// handleOutcome runs handle on one answer line and describes what the run concluded.
func handleOutcome(t interface{ Fatal(...any) }, drv driver, line string) (outcome string, d *callDriver) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s := &session{ctx: ctx, cancel: cancel, drv: drv, stdin: newStdinPipe(), pending: "call-0123"}
	s.handle([]byte(line))
	if s.timer != nil {
		s.timer.Stop()
	}
	switch v := drv.(type) {
	case *callDriver:
		d = v
	case plainDriver:
		d = v.d
	}
	if s.failure != nil {
		return "fail: " + s.failure.Error(), d
	}
	if !s.answered {
		return "not answered", d
	}
	res := mapDecoded(d.result, d.decoded, nil, 1)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return "answered: " + string(d.result) + " -> " + string(b), d
}

// One decode of a tools/call answer (callDriver.predecode) reaches the same verdict, with the same
// error, as the separate resultType and CallToolResult decodes it replaced.
func TestHandleAnswerOneDecode(t *testing.T) {
	results := []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[],"resultType":"complete"}`,
		`{"content":[],"resultType":null}`,
		`{"content":[],"resultType":""}`,
		`{"content":[],"resultType":"input_required"}`,
		`{"content":5,"resultType":"input_required"}`,
		`{"content":[],"resultType":7}`,
		`{"content":"x","resultType":7}`,
		`{"content":"text"}`,
		`{"content":null}`,
		`{}`,
		`{"content":[],"isError":"yes"}`,
		`{"content":[],"isError":true,"structuredContent":{"a":1},"_meta":{"x":[1]}}`,
		`{"content":[],"_meta":5,"structuredContent":"s"}`,
		`{"CONTENT":[{"type":"text","text":"case"}],"RESULTTYPE":"complete"}`,
		`{"content":[],"ResultType":"other"}`,
		`{"content":[1,{"type":"image","data":"!!"}]}`,
		`{"content":[],"resultType":"complete","resultType":"x"}`,
	}
	for _, r := range results {
		line := `{"jsonrpc":"2.0","id":"call-0123","result":` + r + `}`
		one, _ := handleOutcome(t, &callDriver{}, line)
		two, _ := handleOutcome(t, plainDriver{&callDriver{}}, line)
		if one != two {
			t.Errorf("%s:\none decode:  %s\ntwo decodes: %s", r, one, two)
		}
	}
	if out, _ := handleOutcome(t, &callDriver{}, `{"jsonrpc":"2.0","id":"call-0123","result":{"content":[],"resultType":"input_required"}}`); !strings.Contains(out, "resultType \"input_required\"") {
		t.Errorf("not-complete result: %s", out)
	}
}

// The same, for results made of random members.
func TestPropHandleAnswerOneDecode(t *testing.T) {
	values := []string{`null`, `"complete"`, `"input_required"`, `""`, `0`, `-1.5`, `true`, `false`, `[]`, `{}`,
		`[{"type":"text","text":"hi"}]`, `[1,"a",null]`, `{"a":[1]}`, `"x"`}
	names := []string{"resultType", "content", "structuredContent", "isError", "_meta", "RESULTTYPE", "Content", "other"}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "members")
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(rapid.SampledFrom(names).Draw(t, "name")))
			b.WriteByte(':')
			b.WriteString(rapid.SampledFrom(values).Draw(t, "value"))
		}
		b.WriteByte('}')
		line := `{"jsonrpc":"2.0","id":"call-0123","result":` + b.String() + `}`
		one, _ := handleOutcome(t, &callDriver{}, line)
		two, _ := handleOutcome(t, plainDriver{&callDriver{}}, line)
		if one != two {
			t.Fatalf("%s:\none decode:  %s\ntwo decodes: %s", b.String(), one, two)
		}
	})
}

// idIs agrees with decoding the id into a string, for ids written plainly, escaped or as numbers.
func TestPropIdIs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "id")
		want := s
		if rapid.Bool().Draw(t, "other") {
			want = rapid.String().Draw(t, "want")
		}
		var raw []byte
		switch rapid.IntRange(0, 3).Draw(t, "form") {
		case 0:
			raw, _ = json.Marshal(s)
		case 1: // every rune escaped
			raw = append(raw, '"')
			for _, r := range s {
				if r > 0xffff {
					raw = append(raw, string(r)...)
					continue
				}
				raw = fmt.Appendf(raw, `\u%04x`, r)
			}
			raw = append(raw, '"')
		case 2: // as written, even when not valid UTF-8
			raw = []byte(`"` + s + `"`)
		case 3:
			raw = []byte(strconv.Itoa(rapid.IntRange(-5, 5).Draw(t, "n")))
			want = string(raw)
		}
		if !json.Valid(raw) {
			t.Skip("not JSON")
		}
		var id string
		wantIs := json.Unmarshal(raw, &id) == nil && id == want
		if got := idIs(raw, want); got != wantIs {
			t.Fatalf("idIs(%s, %q) = %v, decoding says %v", raw, want, got, wantIs)
		}
	})
	for _, tt := range []struct {
		raw, want string
		is        bool
	}{
		{`"call-1"`, "call-1", true},
		{`"call\u002d1"`, "call-1", true},
		{`"call-2"`, "call-1", false},
		{`1`, "1", false},
		{`"\ud800"`, "\ufffd", true},
		{"\"\xff\"", "\xff", false},
		{"\"\xff\"", "\ufffd", true},
	} {
		if got := idIs(json.RawMessage(tt.raw), tt.want); got != tt.is {
			t.Errorf("idIs(%s, %q) = %v, want %v", tt.raw, tt.want, got, tt.is)
		}
	}
}
