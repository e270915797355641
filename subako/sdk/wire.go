package sdk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The answer to tools/call is written by hand rather than with encoding/json: the first
// json.Marshal of each type builds that type's encoder by reflection, and in a package that starts
// afresh for every call those encoders were most of the call's work. The bytes are those
// json.Marshal writes for the same values (wire_test.go checks this on random values).

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string escaped as encoding/json escapes it: HTML-sensitive
// characters, U+2028 and U+2029 as \u escapes, and each byte of invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendRaw appends a JSON value as json.Marshal writes a json.RawMessage: compacted, with the
// HTML-sensitive characters in its strings escaped.
func appendRaw(b []byte, raw []byte) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(b)
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), nil
}

// appendJSON appends the block's MCP form (see MarshalJSON).
func (c Content) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendString(b, c.Type)
	switch c.Type {
	case ContentText:
		b = append(b, `,"text":`...)
		b = appendString(b, c.Text)
	case ContentImage:
		if c.MimeType == "" {
			return nil, fmt.Errorf("sdk: image block: %w: mimeType is empty", ErrInvalidContent)
		}
		b = append(b, `,"data":"`...)
		b = base64.StdEncoding.AppendEncode(b, c.Data)
		b = append(b, `","mimeType":`...)
		b = appendString(b, c.MimeType)
	case ContentResourceLink:
		if c.URI == "" {
			return nil, fmt.Errorf("sdk: resource_link block: %w: uri is empty", ErrInvalidContent)
		}
		if c.MimeType != "" {
			b = append(b, `,"mimeType":`...)
			b = appendString(b, c.MimeType)
		}
		b = append(b, `,"uri":`...)
		b = appendString(b, c.URI)
		b = append(b, `,"name":`...)
		b = appendString(b, c.Name)
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
		if b, err = appendRaw(b, r.StructuredContent); err != nil {
			return nil, err
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(meta) > 0 {
		b = append(b, `,"_meta":`...)
		if b, err = appendRaw(b, meta); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// serverInfoMeta is the _meta object every answer carries, naming the package.
func serverInfoMeta(name, version string) json.RawMessage {
	b := append([]byte(`{"`), MetaServerInfo...)
	b = append(b, `":{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"version":`...)
	b = appendString(b, version)
	return append(b, "}}"...)
}
