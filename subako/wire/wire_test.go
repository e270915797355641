package wire

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSpecExamples decodes the JSON examples of the ABI 1 document into the types and encodes them
// again: the bytes come back unchanged, so the types follow the document's member names and order.
func TestSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		into func() any
		json string
	}{
		{"discover result", func() any { return &DiscoverResult{} }, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":1,"cacheScope":"public","_meta":{}}`},
		{"tools/list result", func() any { return &ListToolsResult{} }, `{"resultType":"complete","tools":[{"name":"greet","description":"Greet someone by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}}],"ttlMs":1,"cacheScope":"public","_meta":{}}`},
		{"tool", func() any { return &Tool{} }, `{"name":"greet","description":"Greet someone by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}}`},
		{"tools/call params", func() any { return &CallToolParams{} }, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"subako","version":"0.2.3"},"io.modelcontextprotocol/clientCapabilities":{}},"arguments":{"name":"Ada"},"name":"greet"}`},
		{"request meta", func() any { return &RequestMeta{} }, `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"subako","version":"0.2.3"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`},
		{"call result", func() any { return &CallToolResult{} }, `{"content":[{"type":"text","text":"{\"message\":\"Hello, Ada!\"}"}],"structuredContent":{"message":"Hello, Ada!"}}`},
		{"call error result", func() any { return &CallToolResult{} }, `{"content":[{"type":"text","text":"name must not be empty"}],"isError":true}`},
		{"text block", func() any { return &Content{} }, `{"type":"text","text":""}`},
		{"image block", func() any { return &Content{} }, `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`},
		{"resource_link block", func() any { return &Content{} }, `{"type":"resource_link","uri":"volume:///tmp/chart.png","name":"chart.png"}`},
		{"http request", func() any { return &HTTPRequest{} }, `{"method":"POST","url":"https://api.example.com/orders","headers":{"accept":"application/json"},"body":{"type":"json","json":{"order":1042}},"output":{"type":"inline"},"follow_redirects":true,"timeout_ms":5000}`},
		{"http file request", func() any { return &HTTPRequest{} }, `{"url":"https://a.example/","body":{"type":"file","path":"/volume/tmp/in.bin"},"output":{"type":"file","path":"/volume/tmp/out.bin"}}`},
		{"http inline answer", func() any { return &HTTPAnswer{} }, `{"ok":{"status":200,"headers":{"content-type":"application/json"},"body":{"type":"inline","text":"{\"status\":\"shipped\"}"}}}`},
		{"http file answer", func() any { return &HTTPAnswer{} }, `{"ok":{"status":200,"headers":{},"body":{"type":"file","path":"/volume/tmp/out.bin","bytes":48211}}}`},
		{"http error answer", func() any { return &HTTPAnswer{} }, `{"error":{"kind":"host_not_allowed","message":"api.example.com is not in this function's network allowlist"}}`},
		{"manifest", func() any { return &Manifest{} }, `{"abi":1,"name":"wordcount","description":"Counts words."}`},
		{"json-rpc error", func() any { return &Response{} }, `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.into()
			d := json.NewDecoder(strings.NewReader(tt.json))
			d.DisallowUnknownFields()
			if err := d.Decode(v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.json {
				t.Errorf("re-encoded\n got %s\nwant %s", got, tt.json)
			}
		})
	}
}

func TestValidHTTPMethod(t *testing.T) {
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		if !ValidHTTPMethod(m) {
			t.Errorf("%s refused", m)
		}
	}
	for _, m := range []string{"", "get", "CONNECT", "TRACE", "GET "} {
		if ValidHTTPMethod(m) {
			t.Errorf("%q accepted", m)
		}
	}
}

// validString draws valid UTF-8 with the characters JSON escapes: what survives a round trip
// (encoding/json writes invalid UTF-8 as U+FFFD).
func validString() *rapid.Generator[string] {
	return rapid.OneOf(rapid.String(), rapid.Map(rapid.SliceOf(rapid.SampledFrom([]string{
		"a", "é", "\x00", "\x1f", "\n", "\t", `"`, `\`, "<", ">", "&", "\u2028", "😀", "\x7f",
	})), func(parts []string) string { return strings.Join(parts, "") }))
}

func optString(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label+"?") {
		return new(validString().Draw(t, label))
	}
	return nil
}

func optJSON(t *rapid.T, label string) json.RawMessage {
	if !rapid.Bool().Draw(t, label+"?") {
		return nil
	}
	var c bytes.Buffer
	json.Compact(&c, anyJSON(t, label, validString()))
	return c.Bytes()
}

// roundTrip encodes v, decodes it strictly into a fresh value of its type and checks equality.
func roundTrip[T any](t *rapid.T, v T) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	var back T
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&back); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	// A raw member comes back compacted and HTML-escaped, which changes its bytes but not its
	// meaning: such a value passes when it encodes the same again.
	if again, _ := json.Marshal(back); !reflect.DeepEqual(v, back) && string(again) != string(b) {
		t.Fatalf("round trip of %s\n got %#v\nwant %#v", b, back, v)
	}
}

func TestPropContent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		roundTrip(t, Content{Type: validString().Draw(t, "type"), Text: optString(t, "text"), Data: optString(t, "data"),
			MimeType: validString().Draw(t, "mime"), URI: validString().Draw(t, "uri"), Name: optString(t, "name")})
	})
}

func TestPropHTTPRequest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := HTTPRequest{Method: optString(t, "method"), URL: validString().Draw(t, "url")}
		if h := rapid.MapOf(validString(), validString()).Draw(t, "headers"); len(h) > 0 {
			r.Headers = h
		}
		if rapid.Bool().Draw(t, "body") {
			r.Body = &HTTPBody{Type: validString().Draw(t, "btype"), Text: optString(t, "btext"), JSON: optJSON(t, "bjson"), Path: optString(t, "bpath")}
		}
		if rapid.Bool().Draw(t, "output") {
			r.Output = &HTTPOutput{Type: validString().Draw(t, "otype"), Path: optString(t, "opath")}
		}
		if rapid.Bool().Draw(t, "follow?") {
			r.FollowRedirects = new(rapid.Bool().Draw(t, "follow"))
		}
		if rapid.Bool().Draw(t, "timeout?") {
			r.TimeoutMS = json.Number(rapid.StringMatching(`-?[1-9][0-9]{0,12}(\.[0-9]{1,3})?`).Draw(t, "timeout"))
		}
		roundTrip(t, r)
	})
}

func TestPropHTTPAnswer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a HTTPAnswer
		if rapid.Bool().Draw(t, "error") {
			a.Error = &HTTPError{Kind: validString().Draw(t, "kind"), Message: validString().Draw(t, "message")}
		} else {
			a.OK = &HTTPResponse{Status: rapid.IntRange(100, 999).Draw(t, "status"), Headers: rapid.MapOf(validString(), validString()).Draw(t, "headers"),
				Body: HTTPResponseBody{Type: validString().Draw(t, "type"), Text: optString(t, "text"), Path: validString().Draw(t, "path")}}
			if rapid.Bool().Draw(t, "bytes?") {
				a.OK.Body.Bytes = new(rapid.Int64().Draw(t, "bytes"))
			}
		}
		roundTrip(t, a)
	})
}

// TestNoInitWork keeps the package free of package-level variables: whatever one holds is built
// when a module starts, and an ABI 1 module starts afresh for every call.
func TestNoInitWork(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for name, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					if d.Tok == token.VAR {
						t.Errorf("%s: package-level var at %s", name, fset.Position(d.Pos()))
					}
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						t.Errorf("%s: func init at %s", name, fset.Position(d.Pos()))
					}
				}
			}
		}
	}
}
