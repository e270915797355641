package sdk

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/kobako/kobako/subako/wire"
)

// The answer to tools/call is written by hand rather than with encoding/json, with subako/wire's
// writers: the first json.Marshal of each type builds that type's encoder by reflection, and in a
// package that starts afresh for every call those encoders were most of the call's work. The bytes
// are those json.Marshal writes for a wire.CallToolResult holding the same blocks (wire_test.go
// checks this on random values).

// appendJSON appends the block's MCP form (see MarshalJSON).
func (c Content) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = wire.AppendString(b, c.Type)
	switch c.Type {
	case ContentText:
		b = append(b, `,"text":`...)
		b = wire.AppendString(b, c.Text)
	case ContentImage:
		if c.MimeType == "" {
			return nil, fmt.Errorf("sdk: image block: %w: mimeType is empty", ErrInvalidContent)
		}
		b = append(b, `,"data":"`...)
		b = base64.StdEncoding.AppendEncode(b, c.Data)
		b = append(b, `","mimeType":`...)
		b = wire.AppendString(b, c.MimeType)
	case ContentResourceLink:
		if c.URI == "" {
			return nil, fmt.Errorf("sdk: resource_link block: %w: uri is empty", ErrInvalidContent)
		}
		if c.MimeType != "" {
			b = append(b, `,"mimeType":`...)
			b = wire.AppendString(b, c.MimeType)
		}
		b = append(b, `,"uri":`...)
		b = wire.AppendString(b, c.URI)
		b = append(b, `,"name":`...)
		b = wire.AppendString(b, c.Name)
	default:
		return nil, fmt.Errorf("sdk: %w: unknown type %q", ErrInvalidContent, c.Type)
	}
	return append(b, '}'), nil
}

// appendResult appends r's CallToolResult (see Result.MarshalJSON), with meta as its _meta when
// meta is not empty.
func (r *Result) appendJSON(b []byte, meta json.RawMessage) ([]byte, error) {
	if len(r.StructuredContent) > 0 && !isJSONObject(r.StructuredContent) {
		return nil, fmt.Errorf("sdk: result: %w: structuredContent is not a JSON object", ErrInvalidMessage)
	}
	b = append(b, `{"resultType":"complete","content":[`...)
	var err error
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = c.appendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		if b, err = wire.AppendRaw(b, r.StructuredContent); err != nil {
			return nil, err
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(meta) > 0 {
		b = append(b, `,"_meta":`...)
		if b, err = wire.AppendRaw(b, meta); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
