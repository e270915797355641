package subako

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

// HTTPModuleName is the import module of ABI 1's HTTP host functions.
const HTTPModuleName = wire.HTTPModule

// Limits of subako_http.
const (
	// MaxHTTPRequestBytes is the largest request JSON a module may pass to request.
	MaxHTTPRequestBytes = wire.MaxHTTPRequestBytes
	// InlineMaxBytes is the largest response body returned inline (as UTF-8 text).
	InlineMaxBytes = wire.MaxInlineBodyBytes
	// MaxTimeoutMS bounds timeout_ms; the call's own deadline applies anyway.
	MaxTimeoutMS = 24 * 60 * 60 * 1000
)

// The negative results of subako_http, which mean the module misused the ABI.
const (
	ABIOutOfBounds    = wire.ABIOutOfBounds    // the memory range is outside the module's memory
	ABINothingHeld    = wire.ABINothingHeld    // read_response with no answer held
	ABILengthMismatch = wire.ABILengthMismatch // read_response's length is not the held answer's
)

var i32 = engine.I32

// HTTPModule is the subako_http host module:
//
//	request(ptr, len) -> len        send the JSON request at ptr, hold the JSON answer, return its length
//	read_response(ptr, len) -> 0    copy the held answer to ptr (len must be its length) and drop it
//
// It is linked into every run; a module that does not import it is unaffected.
var HTTPModule = &engine.HostModule{Name: HTTPModuleName, Funcs: []engine.HostFunc{
	{Name: wire.HTTPRequestFunc, Params: []engine.ValueType{i32, i32}, Results: []engine.ValueType{i32}, Fn: httpRequestFn},
	{Name: wire.HTTPReadResponseFunc, Params: []engine.ValueType{i32, i32}, Results: []engine.ValueType{i32}, Fn: httpReadResponseFn},
}}

// httpKey holds a store's subako_http state.
var httpKey = engine.NewKey[*httpState]()

// httpState is the subako_http state of one run.
type httpState struct {
	host *preview1.Host
	// send is CallOptions.Send, or the policy sender over client and policy when that is nil.
	send    egress.Sender
	client  *egress.Client
	policy  *egress.Policy // nil admits no host
	volumes []string       // guest directories a file body or output may name
	held    []byte
}

// httpRequest is a parsed subako_http request.
type httpRequest struct {
	Method          string
	URL             string
	Headers         map[string]string
	Body            *httpBody
	Output          httpOutput
	FollowRedirects bool
	// Timeout is timeout_ms, zero when absent.
	Timeout time.Duration
}

// httpBody is a request body: Type "text" (Text), "json" (JSON) or "file" (Path).
type httpBody struct {
	Type string
	Text string
	JSON json.RawMessage
	Path string
}

// httpOutput says where the response body goes: Type "inline" or "file" (Path).
type httpOutput struct {
	Type string
	Path string
}

func invalid(format string, a ...any) error {
	return egress.NewError(egress.KindInvalidRequest, fmt.Sprintf(format, a...))
}

// strictDecode decodes one JSON value into v, refusing unknown fields and trailing data.
func strictDecode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// parseHTTPRequest parses a subako_http request: a JSON object of at most MaxHTTPRequestBytes
// with only the documented fields. Errors are *egress.Error of kind invalid_request.
func parseHTTPRequest(b []byte) (*httpRequest, error) {
	if len(b) > MaxHTTPRequestBytes {
		return nil, invalid("the request is %d bytes, more than %d", len(b), MaxHTTPRequestBytes)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, invalid("the request is not a JSON object")
	}
	var w wire.HTTPRequest
	if err := strictDecode(b, &w); err != nil {
		return nil, invalid("the request does not parse: %v", err)
	}
	r := &httpRequest{Method: wire.MethodGET, Headers: w.Headers, Output: httpOutput{Type: wire.OutputInline}, FollowRedirects: true}
	if w.URL == "" {
		return nil, invalid("the request has no url")
	}
	r.URL = w.URL
	if w.Method != nil {
		if !wire.ValidHTTPMethod(*w.Method) {
			return nil, invalid("method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", *w.Method)
		}
		r.Method = *w.Method
	}
	for name := range w.Headers {
		if name != strings.ToLower(name) {
			return nil, invalid("header name %q is not lower-case", name)
		}
	}
	if w.FollowRedirects != nil {
		r.FollowRedirects = *w.FollowRedirects
	}
	if w.TimeoutMS != "" {
		ms, err := w.TimeoutMS.Int64()
		if err != nil || ms <= 0 || ms > MaxTimeoutMS {
			return nil, invalid("timeout_ms must be a whole number of milliseconds from 1 to %d, found %s", MaxTimeoutMS, w.TimeoutMS.String())
		}
		r.Timeout = time.Duration(ms) * time.Millisecond
	}
	if body := w.Body; body != nil {
		b := &httpBody{Type: body.Type}
		switch {
		case body.Type == wire.BodyText && body.Text != nil && body.JSON == nil && body.Path == nil:
			b.Text = *body.Text
		case body.Type == wire.BodyJSON && body.JSON != nil && body.Text == nil && body.Path == nil:
			var c bytes.Buffer
			if err := json.Compact(&c, body.JSON); err != nil {
				return nil, invalid("body: %v", err)
			}
			b.JSON = c.Bytes()
		case body.Type == wire.BodyFile && body.Path != nil && body.Text == nil && body.JSON == nil:
			b.Path = *body.Path
		default:
			return nil, invalid(`body must be {"type":"text","text":…}, {"type":"json","json":…} or {"type":"file","path":…}`)
		}
		r.Body = b
	}
	if out := w.Output; out != nil {
		switch {
		case out.Type == wire.OutputInline && out.Path == nil:
		case out.Type == wire.OutputFile && out.Path != nil:
			r.Output = httpOutput{Type: wire.OutputFile, Path: *out.Path}
		default:
			return nil, invalid(`output must be {"type":"inline"} or {"type":"file","path":…}`)
		}
	}
	return r, nil
}

func httpState1(c *engine.Caller) *httpState {
	hs, _ := httpKey.Get(c.Store())
	return hs
}

func httpRequestFn(ctx context.Context, c *engine.Caller, stack []uint64) {
	ptr, n := uint32(stack[0]), int32(uint32(stack[1]))
	mem := c.Memory()
	hs := httpState1(c)
	if mem == nil || n < 0 || hs == nil {
		stack[0] = abiCode(ABIOutOfBounds)
		return
	}
	b, ok := mem.Read(ptr, uint32(n))
	if !ok {
		stack[0] = abiCode(ABIOutOfBounds)
		return
	}
	var answer []byte
	if int(n) > MaxHTTPRequestBytes {
		answer = errorAnswer(invalid("the request is %d bytes, more than %d", n, MaxHTTPRequestBytes))
	} else {
		answer = hs.do(ctx, bytes.Clone(b))
	}
	hs.held = answer
	stack[0] = uint64(uint32(int32(len(answer))))
}

func httpReadResponseFn(ctx context.Context, c *engine.Caller, stack []uint64) {
	ptr, n := uint32(stack[0]), int32(uint32(stack[1]))
	hs := httpState1(c)
	if hs == nil || hs.held == nil {
		stack[0] = abiCode(ABINothingHeld)
		return
	}
	if int(n) != len(hs.held) {
		stack[0] = abiCode(ABILengthMismatch)
		return
	}
	mem := c.Memory()
	if mem == nil || !mem.Write(ptr, hs.held) {
		stack[0] = abiCode(ABIOutOfBounds)
		return
	}
	hs.held = nil
	stack[0] = 0
}

// abiCode encodes a negative i32 result on the stack.
func abiCode(c int32) uint64 { return uint64(uint32(c)) }

func errorAnswer(err error) []byte {
	var ee *egress.Error
	if !errors.As(err, &ee) {
		ee = egress.NewError(egress.KindConnection, err.Error())
	}
	b, _ := json.Marshal(wire.HTTPAnswer{Error: &wire.HTTPError{Kind: ee.Kind.String(), Message: ee.Message}})
	return b
}

// sender returns the run's Sender: the embedder's, or kobako's egress policy.
func (hs *httpState) sender() egress.Sender {
	if hs.send == nil {
		hs.send = egress.NewSender(egress.SenderConfig{Client: hs.client, Policy: hs.policy})
	}
	return hs.send
}

// do performs one request and returns the JSON answer.
func (hs *httpState) do(ctx context.Context, raw []byte) []byte {
	req, err := parseHTTPRequest(raw)
	if err != nil {
		return errorAnswer(err)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		// The policy would refuse it the same way; a Sender is handed a parsed URL.
		return errorAnswer(egress.NewError(egress.KindInvalidRequest, "url does not parse"))
	}
	hreq := &http.Request{Method: req.Method, URL: u, Host: u.Host, Header: make(http.Header, len(req.Headers)+1),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Body: http.NoBody}
	for k, v := range req.Headers {
		hreq.Header[http.CanonicalHeaderKey(k)] = []string{v}
	}
	// The Sender may be the embedder's: the body is closed by this function, never by it, and
	// keeps Seek so that a 307 or 308 redirect can send it again.
	if req.Body != nil {
		switch req.Body.Type {
		case wire.BodyText:
			hreq.Body, hreq.ContentLength = requestBody{strings.NewReader(req.Body.Text)}, int64(len(req.Body.Text))
		case wire.BodyJSON:
			hreq.Body, hreq.ContentLength = requestBody{bytes.NewReader(req.Body.JSON)}, int64(len(req.Body.JSON))
			if _, set := req.Headers["content-type"]; !set {
				hreq.Header.Set("Content-Type", "application/json")
			}
		case wire.BodyFile:
			f, size, err := hs.openVolume(req.Body.Path, wasi.OpenFlags{Read: true})
			if err != nil {
				return errorAnswer(err)
			}
			defer f.Close()
			hreq.Body, hreq.ContentLength = requestBody{&fileReader{f: f}}, size
		}
		if hreq.ContentLength == 0 {
			hreq.Body = http.NoBody
		}
	}
	opts := egress.SendOptions{FollowRedirects: req.FollowRedirects, Timeout: req.Timeout, MaxResponseBytes: InlineMaxBytes}
	var out wasi.File
	if req.Output.Type == wire.OutputFile {
		f, _, err := hs.openVolume(req.Output.Path, wasi.OpenFlags{Write: true, Create: true, Truncate: true})
		if err != nil {
			return errorAnswer(err)
		}
		defer f.Close()
		out = f
		opts.MaxResponseBytes = -1 // the write budget is the cap
	}
	resp, err := hs.sender()(ctx, hreq.WithContext(ctx), opts)
	if err != nil {
		return errorAnswer(err)
	}
	defer resp.Body.Close()
	var body wire.HTTPResponseBody
	if out != nil {
		n, err := io.Copy(&fileWriter{f: out}, resp.Body)
		if err != nil {
			return errorAnswer(err)
		}
		body = wire.HTTPResponseBody{Type: wire.OutputFile, Path: req.Output.Path, Bytes: &n}
	} else {
		// The cap is enforced here too: the Sender may be one that does not honour it.
		b, err := io.ReadAll(io.LimitReader(resp.Body, InlineMaxBytes+1))
		if err != nil {
			return errorAnswer(err)
		}
		if len(b) > InlineMaxBytes {
			return errorAnswer(egress.NewError(egress.KindTooLarge, fmt.Sprintf("response body is larger than the %d-byte limit", InlineMaxBytes)))
		}
		if !utf8.Valid(b) {
			return errorAnswer(egress.NewError(egress.KindNotText, "response body is not UTF-8 text; save it to a file instead"))
		}
		text := string(b)
		body = wire.HTTPResponseBody{Type: wire.OutputInline, Text: &text}
	}
	ans, err := json.Marshal(wire.HTTPAnswer{OK: &wire.HTTPResponse{Status: resp.StatusCode, Headers: responseHeaders(resp.Header), Body: body}})
	if err != nil {
		return errorAnswer(egress.NewError(egress.KindNotText, "the response cannot be encoded as JSON"))
	}
	return ans
}

// responseHeaders is the answer's header map: names lower-case, a repeated field joined as
// egress.HeaderMap joins it.
func responseHeaders(h http.Header) map[string]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var fields []egress.Field
	for _, k := range names {
		n := strings.ToLower(k)
		for _, v := range h[k] {
			fields = append(fields, egress.Field{Name: n, Value: v})
		}
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	return egress.HeaderMap(fields)
}

// requestBody lends a request body to the Sender: Close is a no-op, as the body's owner closes
// it, and Seek is kept for redirects.
type requestBody struct{ io.ReadSeeker }

func (requestBody) Close() error { return nil }

// openVolume opens a file under one of the run's volume directories for a request body or
// output. Paths are absolute, clean, and strictly inside /volume/tmp or /volume/data (when
// mounted); the preopen's sandbox applies, so symbolic links cannot leave it.
func (hs *httpState) openVolume(p string, flags wasi.OpenFlags) (wasi.File, int64, error) {
	inside := false
	for _, v := range hs.volumes {
		if strings.HasPrefix(p, v+"/") {
			inside = true
		}
	}
	if !inside || path.Clean(p) != p {
		where := "no volume is mounted"
		if len(hs.volumes) > 0 {
			where = "it must be a clean absolute path inside " + strings.Join(hs.volumes, " or ")
		}
		return nil, 0, egress.NewError(egress.KindBadPath, fmt.Sprintf("%q is not a usable volume file: %s", p, where))
	}
	node, err := hs.host.Open(p, flags)
	if err != nil {
		return nil, 0, egress.NewError(egress.KindBadPath, fmt.Sprintf("%q: %v", p, err))
	}
	f, ok := node.(wasi.File)
	if !ok {
		node.Close()
		return nil, 0, egress.NewError(egress.KindBadPath, fmt.Sprintf("%q is a directory", p))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, egress.NewError(egress.KindBadPath, fmt.Sprintf("%q: %v", p, err))
	}
	return f, int64(st.Size), nil
}

type fileReader struct{ f wasi.File }

func (r *fileReader) Read(p []byte) (int, error) {
	n, err := r.f.Readv([][]byte{p}, -1)
	if err == nil && n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, err
}

func (r *fileReader) Seek(off int64, whence int) (int64, error) { return r.f.Seek(off, whence) }

type fileWriter struct{ f wasi.File }

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Writev([][]byte{p}, -1)
	if errors.Is(err, wasi.EDQUOT) {
		return n, egress.NewError(egress.KindWriteBudget, "saving the response would pass this call's write budget")
	}
	if err != nil {
		return n, egress.NewError(egress.KindBadPath, fmt.Sprintf("writing the response: %v", err))
	}
	return n, nil
}
