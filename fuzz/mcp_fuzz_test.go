package fuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/mcpserve"
)

var (
	mcpOnce sync.Once
	mcpSrv  *mcpserve.Server
	mcpErr  error
)

// mcpServer is one server for every input: building it compiles the example package.
func mcpServer(t *testing.T) *mcpserve.Server {
	mcpOnce.Do(func() {
		mcpSrv, mcpErr = mcpserve.New(context.Background(), mcpserve.Options{Packages: []mcpserve.PackageSpec{{Path: mcpserve.ExamplePackage}}})
	})
	if mcpErr != nil {
		t.Fatal(mcpErr)
	}
	return mcpSrv
}

// FuzzMCPMessage sends one message, as a stdio line and as an HTTP body, to kobako mcp's server in
// either era. The server must answer or refuse it, never exit, hang or panic: on stdio a ping sent
// after it is still answered and every line written is one JSON value, and over HTTP the status is
// one a client can act on.
func FuzzMCPMessage(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello__greet","arguments":{"name":"x"},` + meta + `}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{not json`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"id":1,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		"\x00\x00{}", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":12345}}`,
		`{"jsonrpc":"2.0","id":9,"method":"prompts/list"}`, `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"p","result":{}}`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, msg []byte, era uint8) {
		s := mcpServer(t)
		if len(msg) > 1<<16 {
			return
		}
		line := bytes.ReplaceAll(msg, []byte("\n"), []byte(" "))

		// stdio: the message, then a ping the server must still answer.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		in := io.NopCloser(io.MultiReader(bytes.NewReader(line), strings.NewReader("\n"+`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`+"\n")))
		var out bytes.Buffer
		if err := s.ServeStdio(ctx, in, nopWriteCloser{&out}); err != nil {
			t.Fatalf("ServeStdio ended with %v on %q", err, msg)
		}
		pinged := false
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("stdio wrote %q for %q", sc.Text(), msg)
			}
			pinged = pinged || bytes.Contains(sc.Bytes(), []byte(`"id":"fuzz-ping","result"`))
		}
		if !pinged {
			t.Fatalf("the ping after %q was not answered; output:\n%s", msg, out.String())
		}

		// HTTP: the same bytes as a body, with the header of either era.
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(msg)).WithContext(ctx)
		req.Host = "localhost"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if era%2 == 1 {
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		}
		rec := httptest.NewRecorder()
		h := s.Handler(mcpserve.HTTPOptions{})
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("HTTP %d for %q: %s", rec.Code, msg, rec.Body.String())
		}
		if id := rec.Header().Get("Mcp-Session-Id"); id != "" {
			// An initialize opened a session: end it, or every input would leave one behind.
			del := httptest.NewRequest(http.MethodDelete, "/mcp", nil)
			del.Host = "localhost"
			del.Header.Set("Mcp-Session-Id", id)
			h.ServeHTTP(httptest.NewRecorder(), del)
		}
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
