package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/kobako/kobako/subako/wire"
)

// FuzzServe feeds arbitrary stdin to the loop: it must end without panicking, and every line it
// writes must be one JSON-RPC response.
func FuzzServe(f *testing.F) {
	f.Add([]byte(req(1, MethodDiscover, "") + "\n" + req("x", MethodToolsCall, `"name":"add","arguments":{"a":1}`) + "\n"))
	f.Add([]byte(req(1, MethodToolsList, `"cursor":"2"`) + "\n{\n\n[1]\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"s":"` + "\xff" + `"},` + testMeta + `}}`))
	p := testPackage()
	p.MaxRequestBytes = 4096
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if err := p.serve(context.Background(), bytes.NewReader(in), &out, io.Discard); err != nil {
			t.Fatalf("serve: %v", err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var m wire.Response
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("line %q is not a response", line)
			}
		}
	})
}

// FuzzDecodeAnswer checks that any host answer decodes to a response or an *Error, and that a
// decoded response encodes again.
func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"ok":{"status":200,"headers":{"content-type":"application/json"},"body":{"type":"inline","text":"{}"}}}`))
	f.Add([]byte(`{"ok":{"status":200,"headers":{},"body":{"type":"file","path":"/volume/tmp/out.bin","bytes":48211}}}`))
	f.Add([]byte(`{"error":{"kind":"host_not_allowed","message":"no"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		resp, err := DecodeAnswer(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" {
				t.Fatalf("error %v is not a kinded *Error", err)
			}
			return
		}
		if _, err := EncodeAnswer(resp, nil); err != nil {
			t.Fatalf("decoded response does not encode: %v", err)
		}
	})
}

// FuzzParseRequest checks that any request JSON either parses into a request that encodes again or
// is refused with an error.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"method":"POST","url":"https://api.example.com/orders","headers":{"accept":"application/json"},"body":{"type":"json","json":{"order":1042}},"output":{"type":"inline"},"follow_redirects":true,"timeout_ms":5000}`))
	f.Add([]byte(`{"url":"https://a/","body":{"type":"file","path":"/volume/tmp/in"},"output":{"type":"file","path":"/volume/tmp/out"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseRequest(in)
		if err != nil {
			return
		}
		if r.URL == "" {
			t.Fatal("parsed a request without a URL")
		}
		_, _ = r.Encode() // may refuse (bad method, header clash), must not panic
	})
}
