package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kobako/kobako/subako/wire"

	"pgregory.net/rapid"
)

func genContent() *rapid.Generator[Content] {
	return rapid.Custom(func(t *rapid.T) Content {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			return Text(rapid.String().Draw(t, "text"))
		case 1:
			data := rapid.SliceOf(rapid.Byte()).Draw(t, "data")
			if len(data) == 0 {
				data = nil
			}
			return Image(rapid.StringMatching(`image/[a-z]{1,8}`).Draw(t, "mime"), data)
		default:
			return ResourceLink(rapid.StringN(1, 40, -1).Draw(t, "uri"), rapid.String().Draw(t, "name"), rapid.StringMatching(`(image/[a-z]{1,8})?`).Draw(t, "mime"))
		}
	})
}

func genObject(t *rapid.T, label string) json.RawMessage {
	m := rapid.MapOf(rapid.String(), rapid.OneOf(
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
	)).Draw(t, label)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip encodes v, decodes it into a fresh value of its type, and checks equality.
func roundTrip[T any](t *rapid.T, v T) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	if !reflect.DeepEqual(v, back) {
		t.Fatalf("round trip of %s\n got %#v\nwant %#v", b, back, v)
	}
}

func TestPropContent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { roundTrip(t, genContent().Draw(t, "c")) })
}

func TestPropResult(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := Result{
			Content: rapid.SliceOf(genContent()).Draw(t, "content"),
			IsError: rapid.Bool().Draw(t, "isError"),
		}
		if r.Content == nil {
			r.Content = []Content{}
		}
		if rapid.Bool().Draw(t, "structured") {
			r.StructuredContent = genObject(t, "sc")
		}
		roundTrip(t, r)
	})
}

func genBody() *rapid.Generator[*Body] {
	return rapid.Custom(func(t *rapid.T) *Body {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			return TextBody(rapid.String().Draw(t, "text"))
		case 1:
			return &Body{Type: BodyJSON, JSON: genObject(t, "json")}
		default:
			return FileBody("/volume/tmp/" + rapid.StringN(1, 20, -1).Draw(t, "path"))
		}
	})
}

func TestPropRequest(t *testing.T) {
	methods := []string{"", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	rapid.Check(t, func(t *rapid.T) {
		r := &Request{
			Method:    rapid.SampledFrom(methods).Draw(t, "method"),
			URL:       "https://" + rapid.StringMatching(`[a-z]{1,10}\.example/[a-z0-9/]{0,10}`).Draw(t, "url"),
			Headers:   rapid.MapOf(rapid.StringMatching(`[a-z][a-z0-9-]{0,15}`), rapid.String()).Draw(t, "headers"),
			TimeoutMs: rapid.Int64Range(0, 1<<40).Draw(t, "timeout"),
		}
		if len(r.Headers) == 0 {
			r.Headers = nil
		}
		if rapid.Bool().Draw(t, "hasBody") {
			r.Body = genBody().Draw(t, "body")
		}
		switch rapid.IntRange(0, 2).Draw(t, "output") {
		case 1:
			r.Output = InlineOutput()
		case 2:
			r.Output = FileOutput("/volume/tmp/" + rapid.StringN(1, 20, -1).Draw(t, "out"))
		}
		if rapid.Bool().Draw(t, "hasFollow") {
			r.FollowRedirects = new(rapid.Bool().Draw(t, "follow"))
		}
		b, err := r.Encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := ParseRequest(b)
		if err != nil {
			t.Fatalf("parse %s: %v", b, err)
		}
		if !reflect.DeepEqual(r, back) {
			t.Fatalf("round trip of %s\n got %#v\nwant %#v", b, back, r)
		}
	})
}

func TestPropHeadersLowerCased(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`[A-Za-z][A-Za-z0-9-]{0,15}`).Draw(t, "name")
		b, err := (&Request{URL: "https://a.example/", Headers: map[string]string{name: "v"}}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRequest(b)
		if err != nil {
			t.Fatal(err)
		}
		if back.Headers[strings.ToLower(name)] != "v" || len(back.Headers) != 1 {
			t.Fatalf("headers %v from %q", back.Headers, name)
		}
	})
}

func TestPropAnswer(t *testing.T) {
	kinds := []ErrorKind{KindInvalidRequest, KindHostNotAllowed, KindForbiddenDestination, KindCredentialHeader,
		KindCredentialUnavailable, KindTooManyRedirects, KindTimeout, KindTooLarge, KindNotText, KindWriteBudget,
		KindBadPath, KindConnection, KindABI}
	rapid.Check(t, func(t *rapid.T) {
		if rapid.Bool().Draw(t, "isError") {
			herr := &Error{Kind: rapid.SampledFrom(kinds).Draw(t, "kind"), Message: rapid.String().Draw(t, "msg")}
			b, err := EncodeAnswer(nil, herr)
			if err != nil {
				t.Fatal(err)
			}
			_, got := DecodeAnswer(b)
			if !reflect.DeepEqual(got, herr) {
				t.Fatalf("decoded %#v, want %#v", got, herr)
			}
			return
		}
		resp := &Response{
			Status:  rapid.IntRange(100, 999).Draw(t, "status"),
			Headers: rapid.MapOf(rapid.StringMatching(`[a-z-]{1,10}`), rapid.String()).Draw(t, "headers"),
		}
		if rapid.Bool().Draw(t, "file") {
			resp.Body = ResponseBody{Type: OutputFile, Path: "/volume/tmp/" + rapid.StringN(1, 20, -1).Draw(t, "path"), Bytes: rapid.Int64Min(0).Draw(t, "bytes")}
		} else {
			resp.Body = ResponseBody{Type: OutputInline, Text: rapid.String().Draw(t, "text")}
		}
		b, err := EncodeAnswer(resp, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeAnswer(b)
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if !reflect.DeepEqual(got, resp) {
			t.Fatalf("decoded %#v, want %#v", got, resp)
		}
	})
}

func TestPropManifest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := &Package{Name: rapid.StringN(1, 40, -1).Draw(t, "name"), Description: rapid.String().Draw(t, "desc")}
		b, err := json.Marshal(p.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifest(b)
		if err != nil || m != p.Manifest() {
			t.Fatalf("parse %s: %+v %v", b, m, err)
		}
	})
}

func TestPropVolumeURI(t *testing.T) {
	seg := rapid.StringN(1, 12, -1).Filter(func(s string) bool {
		return s != "." && s != ".." && !strings.Contains(s, "/")
	})
	rapid.Check(t, func(t *rapid.T) {
		p := VolumeRoot + "/" + strings.Join(rapid.SliceOfN(seg, 1, 5).Draw(t, "segs"), "/")
		uri, err := VolumeURI(p)
		if err != nil {
			t.Fatalf("VolumeURI(%q): %v", p, err)
		}
		if strings.ContainsAny(uri[len(VolumeScheme):], " ?#") {
			t.Fatalf("uri %q keeps a reserved character", uri)
		}
		back, err := VolumePath(uri)
		if err != nil || back != p {
			t.Fatalf("VolumePath(%q) = %q, %v; want %q", uri, back, err, p)
		}
	})
}

// Whatever a line holds, the loop answers with at most one line of JSON-RPC and never panics.
func TestPropServeAnyLine(t *testing.T) {
	s := newServer(testPackage(), io.Discard)
	pieces := []string{`{`, `}`, `"jsonrpc":"2.0"`, `"id":1`, `"id":"x"`, `"id":null`, `"method":"tools/call"`,
		`"method":"tools/list"`, `"params":`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
		`"name":"add"`, `"arguments":{"a":1}`, `"cursor":"1"`, `,`, `[`, `]`, `null`, `1e400`, `"\u0000"`}
	rapid.Check(t, func(t *rapid.T) {
		var line string
		if rapid.Bool().Draw(t, "structured") {
			line = strings.Join(rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "pieces"), "")
		} else {
			line = rapid.String().Draw(t, "line")
		}
		if strings.TrimSpace(line) == "" {
			return
		}
		out, err := s.handle(context.Background(), []byte(line))
		if err != nil {
			t.Fatalf("handle %q: %v", line, err)
		}
		if out == nil {
			return
		}
		if bytes.ContainsRune(out, '\n') || !json.Valid(out) {
			t.Fatalf("answer to %q is not one JSON line: %s", line, out)
		}
		var m wire.Response
		if err := json.Unmarshal(out, &m); err != nil || m.JSONRPC != "2.0" || (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("answer to %q is not a JSON-RPC response: %s", line, out)
		}
	})
}

// TestPropWireForms checks that the JSON methods of the HTTP types, which go through subako/wire,
// round-trip: encoding/json reads back what it writes.
func TestPropWireForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := Request{
			Method:    rapid.SampledFrom([]string{"", "GET", "POST"}).Draw(t, "method"),
			URL:       rapid.String().Draw(t, "url"),
			TimeoutMs: rapid.Int64().Draw(t, "timeout"),
		}
		if h := rapid.MapOf(rapid.String(), rapid.String()).Draw(t, "headers"); len(h) > 0 {
			r.Headers = h
		}
		if rapid.Bool().Draw(t, "hasBody") {
			r.Body = genBody().Draw(t, "body")
		}
		if rapid.Bool().Draw(t, "hasOutput") {
			r.Output = FileOutput("/volume/tmp/" + rapid.StringN(1, 20, -1).Draw(t, "out"))
		}
		if rapid.Bool().Draw(t, "hasFollow") {
			r.FollowRedirects = new(rapid.Bool().Draw(t, "follow"))
		}
		roundTrip(t, r)
		roundTrip(t, Error{Kind: ErrorKind(rapid.String().Draw(t, "kind")), Message: rapid.String().Draw(t, "msg")})
		resp := Response{Status: rapid.IntRange(1, 999).Draw(t, "status"), Headers: rapid.MapOf(rapid.String(), rapid.String()).Draw(t, "rh"),
			Body: ResponseBody{Type: OutputInline, Text: rapid.String().Draw(t, "text")}}
		roundTrip(t, resp)
	})
}
