package sdk

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// refContent is the block as the SDK wrote it with encoding/json before wire.go: the reference.
func refContent(c Content) contentWire {
	w := contentWire{Type: c.Type}
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

type refResult struct {
	ResultType        string          `json:"resultType"`
	Content           []contentWire   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
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

func TestPropAppendString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := anyString().Draw(t, "s")
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
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
		meta := serverInfoMeta(anyString().Draw(t, "name"), anyString().Draw(t, "version"))
		ref := refResult{ResultType: ResultComplete, Content: []contentWire{}, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: meta}
		for _, c := range blocks {
			ref.Content = append(ref.Content, refContent(c))
		}
		want, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.appendJSON(nil, meta)
		if err != nil || string(got) != string(want) {
			t.Fatalf("got %s (%v)\nwant %s", got, err, want)
		}
		wantMeta, _ := json.Marshal(map[string]any{MetaServerInfo: map[string]string{"name": "n<", "version": "1.0"}})
		if m := serverInfoMeta("n<", "1.0"); string(m) != string(wantMeta) {
			t.Fatalf("meta %s, want %s", m, wantMeta)
		}
	})
}
