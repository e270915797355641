package sdk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/kobako/kobako/subako/wire"
)

// Content block types that ABI 1 hosts read.
const (
	ContentText         = wire.ContentText
	ContentImage        = wire.ContentImage
	ContentResourceLink = wire.ContentResourceLink
)

// VolumeRoot is where the session volume is mounted in the guest, and VolumeScheme prefixes the
// URIs of files beneath it.
const (
	VolumeRoot   = "/volume"
	VolumeScheme = wire.VolumeScheme
)

// Content is one MCP content block: text, an image carried inline, or a link to a resource. Build
// it with Text, Image, ResourceLink or VolumeLink; the JSON encoding writes only the fields the
// block's Type uses and refuses a block missing a field its type requires.
type Content struct {
	// Type is ContentText, ContentImage or ContentResourceLink.
	Type string
	// Text is a text block's text.
	Text string
	// Data is an image block's bytes (base64 on the wire).
	Data []byte
	// MimeType is an image's media type, or a resource link's optional one.
	MimeType string
	// URI and Name identify a resource link.
	URI, Name string
}

// Text returns a text block.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// Image returns an image block carrying data inline. The host counts its base64 form inside the
// 1 MiB stdout limit, so a large image is better written to the volume and linked with VolumeLink.
func Image(mimeType string, data []byte) Content {
	return Content{Type: ContentImage, MimeType: mimeType, Data: data}
}

// ResourceLink returns a resource_link block. mimeType may be empty.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: ContentResourceLink, URI: uri, Name: name, MimeType: mimeType}
}

// VolumeLink returns a resource_link block for a file the tool wrote beneath /volume, such as
// "/volume/tmp/chart.png"; the host reads the file after the module exits and shows it to the model
// when it is a PNG, JPEG, GIF or WebP image. The link's name is the file's base name.
func VolumeLink(filePath, mimeType string) (Content, error) {
	uri, err := VolumeURI(filePath)
	if err != nil {
		return Content{}, err
	}
	return ResourceLink(uri, path.Base(filePath), mimeType), nil
}

// VolumeURI turns an absolute path beneath /volume into its volume:/// URI, percent-encoding each
// segment, so "/volume/tmp/a b.png" becomes "volume:///tmp/a%20b.png". It refuses a path outside
// /volume, the volume itself, and any path with empty, "." or ".." segments, because the host would
// resolve those differently from what the tool meant.
func VolumeURI(filePath string) (string, error) {
	rest, ok := strings.CutPrefix(filePath, VolumeRoot+"/")
	if !ok || rest == "" {
		return "", fmt.Errorf("sdk: volume uri %q: %w", filePath, ErrNotVolumePath)
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Errorf("sdk: volume uri %q: segment %q: %w", filePath, s, ErrNotVolumePath)
		}
		segs[i] = url.PathEscape(s)
	}
	return VolumeScheme + strings.Join(segs, "/"), nil
}

// VolumePath is VolumeURI's inverse: it turns a volume:/// URI back into the absolute guest path,
// decoding each segment, and refuses a URI whose segments decode to "", ".", ".." or contain "/".
func VolumePath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, VolumeScheme)
	if !ok || rest == "" {
		return "", fmt.Errorf("sdk: volume path %q: %w", uri, ErrNotVolumePath)
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", fmt.Errorf("sdk: volume path %q: %w: %v", uri, ErrNotVolumePath, err)
		}
		if d == "" || d == "." || d == ".." || strings.Contains(d, "/") {
			return "", fmt.Errorf("sdk: volume path %q: segment %q: %w", uri, d, ErrNotVolumePath)
		}
		segs[i] = d
	}
	return VolumeRoot + "/" + strings.Join(segs, "/"), nil
}

// MarshalJSON writes the block's MCP form.
func (c Content) MarshalJSON() ([]byte, error) {
	return c.appendJSON(nil)
}

// UnmarshalJSON reads a text, image or resource_link block (a wire.Content) and refuses any other
// type, or a block with a member its type does not use.
func (c *Content) UnmarshalJSON(b []byte) error {
	var w wire.Content
	if err := strictUnmarshal(b, &w); err != nil {
		return fmt.Errorf("sdk: content block: %w: %v", ErrInvalidContent, err)
	}
	out := Content{Type: w.Type}
	switch w.Type {
	case ContentText:
		if w.Text == nil || w.Data != nil || w.URI != "" || w.Name != nil || w.MimeType != "" {
			return fmt.Errorf("sdk: text block: %w: needs exactly a text field", ErrInvalidContent)
		}
		out.Text = *w.Text
	case ContentImage:
		if w.Data == nil || w.MimeType == "" || w.Text != nil || w.URI != "" || w.Name != nil {
			return fmt.Errorf("sdk: image block: %w: needs exactly data and mimeType", ErrInvalidContent)
		}
		d, err := base64.StdEncoding.DecodeString(*w.Data)
		if err != nil {
			return fmt.Errorf("sdk: image block: %w: data: %v", ErrInvalidContent, err)
		}
		if len(d) == 0 {
			d = nil // one spelling for "no bytes", as Image gives it
		}
		out.Data, out.MimeType = d, w.MimeType
	case ContentResourceLink:
		if w.URI == "" || w.Name == nil || w.Text != nil || w.Data != nil {
			return fmt.Errorf("sdk: resource_link block: %w: needs uri and name", ErrInvalidContent)
		}
		out.URI, out.Name, out.MimeType = w.URI, *w.Name, w.MimeType
	default:
		return fmt.Errorf("sdk: %w: unknown type %q", ErrInvalidContent, w.Type)
	}
	*c = out
	return nil
}

// Result is an MCP CallToolResult: content blocks for the model, an optional structuredContent
// object beside them, and IsError for a failure the model should read.
type Result struct {
	Content []Content
	// StructuredContent, when set, is a JSON object matching the tool's outputSchema.
	StructuredContent json.RawMessage
	IsError           bool
}

// MarshalJSON writes the result with resultType "complete", an empty content array rather than
// null, and refuses structured content that is not a JSON object.
func (r Result) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil, nil)
}

// UnmarshalJSON reads a CallToolResult (a wire.CallToolResult), refusing a resultType other than
// "complete" (a missing one reads as complete, as MCP says) and any block Content refuses.
func (r *Result) UnmarshalJSON(b []byte) error {
	var w wire.CallToolResult
	if err := strictUnmarshal(b, &w); err != nil {
		return fmt.Errorf("sdk: result: %w: %v", ErrInvalidMessage, err)
	}
	if w.ResultType != "" && w.ResultType != ResultComplete {
		return fmt.Errorf("sdk: result: %w: resultType %q", ErrInvalidMessage, w.ResultType)
	}
	if w.Content == nil {
		return fmt.Errorf("sdk: result: %w: content is missing", ErrInvalidMessage)
	}
	if len(w.StructuredContent) > 0 && !isJSONObject(w.StructuredContent) {
		return fmt.Errorf("sdk: result: %w: structuredContent is not a JSON object", ErrInvalidMessage)
	}
	var sc json.RawMessage
	if len(w.StructuredContent) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.StructuredContent); err != nil {
			return fmt.Errorf("sdk: result: %w: %v", ErrInvalidMessage, err)
		}
		sc = buf.Bytes()
	}
	content := make([]Content, len(w.Content))
	for i, raw := range w.Content {
		if err := content[i].UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("sdk: result: %w: %v", ErrInvalidMessage, err)
		}
	}
	*r = Result{Content: content, StructuredContent: sc, IsError: w.IsError}
	return nil
}

// TextResult returns a result holding one text block.
func TextResult(s string) *Result { return &Result{Content: []Content{Text(s)}} }

// ErrorResult returns an isError result holding one text block formatted like fmt.Sprintf.
func ErrorResult(format string, args ...any) *Result {
	return &Result{Content: []Content{Text(fmt.Sprintf(format, args...))}, IsError: true}
}

// StructuredResult returns a result whose structuredContent is v serialised and whose one text
// block is the same JSON, for clients that read only content. v must serialise to a JSON object.
func StructuredResult(v any) (*Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sdk: structured result: %w", err)
	}
	if !isJSONObject(b) {
		return nil, fmt.Errorf("sdk: structured result: %w: %T does not serialise to a JSON object", ErrInvalidMessage, v)
	}
	return &Result{Content: []Content{Text(string(b))}, StructuredContent: b}, nil
}

// Add appends blocks to r and returns r, so that results can be built in one expression.
func (r *Result) Add(blocks ...Content) *Result {
	r.Content = append(r.Content, blocks...)
	return r
}

// ToolError is a tool failure with more to show than its message: the result the model reads has
// isError set, a text block with Message, then Content.
type ToolError struct {
	Message string
	Content []Content
}

// Error returns the message.
func (e *ToolError) Error() string { return e.Message }

// Errorf returns a *ToolError with a formatted message, for tools whose failures the model should
// read as written.
func Errorf(format string, args ...any) error {
	return &ToolError{Message: fmt.Sprintf(format, args...)}
}

// errorResult turns any error a tool returned into the isError result the model sees.
func errorResult(err error) *Result {
	var te *ToolError
	if errors.As(err, &te) {
		r := &Result{Content: []Content{Text(te.Message)}, IsError: true}
		return r.Add(te.Content...)
	}
	return &Result{Content: []Content{Text(err.Error())}, IsError: true}
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// strictUnmarshal decodes one JSON value into v, refusing unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) > 0 {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
