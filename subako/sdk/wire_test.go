package sdk

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/kobako/kobako/subako/wire"
	"pgregory.net/rapid"
)

// refContent is the block as encoding/json writes its wire.Content: the reference.
func refContent(c Content) wire.Content {
	w := wire.Content{Type: c.Type}
	switch c.Type {
	case ContentText:
		w.Text = &c.Text
	case ContentImage:
		d := base64.StdEncoding.EncodeToString(c.Data)
		w.Data, w.MimeType = &d, c.MimeType
	case ContentResourceLink:
		w.URI, w.Name, w.MimeType = c.URI, &c.Name, c.MimeType
	}
	return w
}

// refResult is the result as encoding/json writes its wire.CallToolResult: the reference.
func refResult(t *rapid.T, r *Result, meta json.RawMessage) wire.CallToolResult {
	ref := wire.CallToolResult{ResultType: ResultComplete, Content: []json.RawMessage{}, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: meta}
	for _, c := range r.Content {
		b, err := json.Marshal(refContent(c))
		if err != nil {
			t.Fatal(err)
		}
		ref.Content = append(ref.Content, b)
	}
	return ref
}

// anyString draws strings with the characters JSON escapes: controls, quotes, HTML, U+2028 and
// invalid UTF-8.
func anyString() *rapid.Generator[string] {
	return rapid.OneOf(rapid.String(), rapid.Map(rapid.SliceOf(rapid.SampledFrom([]string{
		"a", "é", "\x00", "\x1f", "\n", "\r", "\t", "\b", "\f", `"`, `\`, "<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "\x7f",
	})), func(parts []string) string {
		s := ""
		for _, p := range parts {
			s += p
		}
		return s
	}))
}

// TestPropResultWire checks the hand-written tools/call answer against encoding/json's.
func TestPropResultWire(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var blocks []Content
		for range rapid.IntRange(0, 3).Draw(t, "blocks") {
			c := genContent().Draw(t, "block")
			switch c.Type {
			case ContentText:
				c.Text = anyString().Draw(t, "text")
			case ContentResourceLink:
				c.Name = anyString().Draw(t, "name")
			}
			blocks = append(blocks, c)
		}
		r := &Result{Content: blocks, IsError: rapid.Bool().Draw(t, "isError")}
		if rapid.Bool().Draw(t, "structured") {
			r.StructuredContent = json.RawMessage(" {\"a\" : [1, \"<&>\u2028\"],\n\"b\":{}} ")
			if rapid.Bool().Draw(t, "generated") {
				r.StructuredContent = genObject(t, "object")
			}
		}
		meta := wire.AppendServerInfoMeta(nil, anyString().Draw(t, "name"), anyString().Draw(t, "version"))
		want, err := json.Marshal(refResult(t, r, meta))
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.appendJSON(nil, meta)
		if err != nil || string(got) != string(want) {
			t.Fatalf("got %s (%v)\nwant %s", got, err, want)
		}
	})
}
