package subako

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
)

// Result is a CallToolResult mapped for a model, following ABI 1's table: text blocks as they
// are; image blocks decoded; a resource_link to a PNG, JPEG, GIF or WebP file in the volume as that
// image (read after the module exited, checked by content); any other resource_link as one line
// naming the link; any other block as a note that something was omitted.
type Result struct {
	Content []Content
	// StructuredContent is the module's structuredContent, if any.
	StructuredContent json.RawMessage
	// IsError is the module's isError: a failure the model should read, not a crash.
	IsError bool
	// Raw is the CallToolResult exactly as the module wrote it.
	Raw json.RawMessage
}

// Content is one mapped block: Type "text" (Text) or "image" (MIMEType, Data).
type Content struct {
	Type     string
	Text     string
	MIMEType string
	Data     []byte
	// URI is the volume:/// link an image was read from, empty for an inline image.
	URI string
}

// MarshalJSON writes the result as an MCP CallToolResult (wire.CallToolResult) with the mapped
// content, images in base64.
func (r *Result) MarshalJSON() ([]byte, error) {
	out := wire.CallToolResult{Content: make([]json.RawMessage, 0, len(r.Content)), StructuredContent: r.StructuredContent, IsError: r.IsError}
	for _, c := range r.Content {
		var blk wire.Content
		if c.Type == wire.ContentImage {
			data := base64.StdEncoding.EncodeToString(c.Data)
			blk = wire.Content{Type: wire.ContentImage, MimeType: c.MIMEType, Data: &data}
		} else {
			blk = wire.Content{Type: wire.ContentText, Text: &c.Text}
		}
		b, err := json.Marshal(blk)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, b)
	}
	return json.Marshal(out)
}

// imageType returns the MIME type of a PNG, JPEG, GIF or WebP image, judged by its first bytes.
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

func mapResult(raw json.RawMessage, vols map[string]string, maxImage int64) (*Result, error) {
	var r wire.CallToolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &CrashError{Rule: RuleMalformedResult, Detail: fmt.Sprintf("not a CallToolResult: %v", err)}
	}
	return mapDecoded(raw, &callResult{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}, vols, maxImage), nil
}

// mapDecoded maps a CallToolResult already decoded from raw.
func mapDecoded(raw json.RawMessage, r *callResult, vols map[string]string, maxImage int64) *Result {
	res := &Result{Raw: raw, StructuredContent: r.StructuredContent, Content: make([]Content, 0, len(r.Content)), IsError: r.IsError}
	for i, b := range r.Content {
		var blk wire.Content
		if err := json.Unmarshal(b, &blk); err != nil {
			res.Content = append(res.Content, note(fmt.Sprintf("[content block %d was omitted: it is not a content block]", i+1)))
			continue
		}
		switch blk.Type {
		case wire.ContentText:
			res.Content = append(res.Content, Content{Type: "text", Text: deref(blk.Text)})
		case wire.ContentImage:
			data, err := base64.StdEncoding.DecodeString(deref(blk.Data))
			if err != nil || len(data) == 0 {
				res.Content = append(res.Content, note(fmt.Sprintf("[an image (content block %d) was omitted: its data is not base64]", i+1)))
				continue
			}
			res.Content = append(res.Content, Content{Type: "image", MIMEType: blk.MimeType, Data: data})
		case wire.ContentResourceLink:
			if !strings.HasPrefix(blk.URI, "volume:") {
				res.Content = append(res.Content, note(fmt.Sprintf("[resource link: %s <%s>]", oneLine(deref(blk.Name)), oneLine(blk.URI))))
				continue
			}
			data, mime, err := readVolumeImage(blk.URI, vols, maxImage)
			if err != nil {
				res.Content = append(res.Content, note(fmt.Sprintf("[the image %s was omitted: %v]", oneLine(blk.URI), err)))
				continue
			}
			res.Content = append(res.Content, Content{Type: "image", MIMEType: mime, Data: data, URI: blk.URI})
		default:
			res.Content = append(res.Content, note(fmt.Sprintf("[a content block of type %q was omitted]", clip([]byte(blk.Type)))))
		}
	}
	return res
}

func note(s string) Content { return Content{Type: "text", Text: s} }

// deref reads an optional member of a block the lenient way the host reads blocks: absent is empty.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	return clip([]byte(s))
}

// VolumePath resolves a volume:/// URI to the volume ("tmp" or "data") and the path inside it.
// Each segment is percent-decoded on its own, so "%2F" cannot add a separator; empty, "." and ".."
// segments, NUL bytes, queries and fragments are refused.
func VolumePath(uri string) (volume, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, wire.VolumeScheme)
	if !ok {
		return "", "", errors.New("a volume URI starts with volume:///")
	}
	if strings.ContainsAny(rest, "?#") {
		return "", "", errors.New("a volume URI has no query or fragment")
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", "", fmt.Errorf("segment %d is not percent-encoded correctly", i+1)
		}
		if d == "" || d == "." || d == ".." || strings.ContainsAny(d, "/\x00") {
			return "", "", fmt.Errorf("segment %d (%q) is not a file name", i+1, d)
		}
		segs[i] = d
	}
	if len(segs) < 2 {
		return "", "", errors.New("it names no file inside /volume/tmp or /volume/data")
	}
	return segs[0], strings.Join(segs[1:], "/"), nil
}

// readVolumeImage reads an image that a resource_link names, through the same sandbox the module
// had, after it exited.
func readVolumeImage(uri string, vols map[string]string, maxImage int64) ([]byte, string, error) {
	vol, rel, err := VolumePath(uri)
	if err != nil {
		return nil, "", err
	}
	hostDir, ok := vols[vol]
	if !ok {
		return nil, "", fmt.Errorf("/volume/%s is not mounted", vol)
	}
	dir, err := wasi.OpenHostDir(hostDir, wasi.HostDirOptions{ReadOnly: true})
	if err != nil {
		return nil, "", fmt.Errorf("the volume cannot be opened: %v", err)
	}
	defer dir.Close()
	node, err := dir.OpenAt(rel, wasi.OpenFlags{Read: true})
	if err != nil {
		return nil, "", fmt.Errorf("it cannot be opened: %v", err)
	}
	defer node.Close()
	f, ok := node.(wasi.File)
	if !ok {
		return nil, "", errors.New("it is a directory")
	}
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if int64(st.Size) > maxImage {
		return nil, "", fmt.Errorf("it is %d bytes, more than %d", st.Size, maxImage)
	}
	data, err := io.ReadAll(io.LimitReader(&fileReader{f: f}, maxImage+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) > maxImage {
		return nil, "", fmt.Errorf("it is more than %d bytes", maxImage)
	}
	mime := imageType(data)
	if mime == "" {
		return nil, "", errors.New("it is not a PNG, JPEG, GIF or WebP image")
	}
	return data, mime, nil
}
