package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Limits of the subako_http import.
const (
	// MaxHTTPRequestBytes is the largest request JSON the host accepts.
	MaxHTTPRequestBytes = 8 << 20
	// MaxInlineBodyBytes is the largest response body returned inline.
	MaxInlineBodyBytes = 256 << 10
	// MaxRedirects is how many redirects the host follows.
	MaxRedirects = 10
	// maxAnswerBytes bounds the answer the SDK will allocate for: an inline body of 256 KiB
	// escaped as JSON at worst six bytes a byte, plus headers.
	maxAnswerBytes = 16 << 20
)

// ErrorKind names why a subako_http request failed, as the host reports it.
type ErrorKind string

// The 13 error kinds of ABI 1.
const (
	KindInvalidRequest        ErrorKind = "invalid_request"
	KindHostNotAllowed        ErrorKind = "host_not_allowed"
	KindForbiddenDestination  ErrorKind = "forbidden_destination"
	KindCredentialHeader      ErrorKind = "credential_header"
	KindCredentialUnavailable ErrorKind = "credential_unavailable"
	KindTooManyRedirects      ErrorKind = "too_many_redirects"
	KindTimeout               ErrorKind = "timeout"
	KindTooLarge              ErrorKind = "too_large"
	KindNotText               ErrorKind = "not_text"
	KindWriteBudget           ErrorKind = "write_budget"
	KindBadPath               ErrorKind = "bad_path"
	KindConnection            ErrorKind = "connection"
	KindABI                   ErrorKind = "abi"
)

// Error is a failed subako_http request: the host's answer {"error":{kind,message}}, or an error of
// kind "abi" when the import misbehaved or is missing, or of kind "invalid_request" when the SDK
// refused the request before sending it.
type Error struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

// Error returns "subako_http: KIND: MESSAGE".
func (e *Error) Error() string { return "subako_http: " + string(e.Kind) + ": " + e.Message }

// KindOf returns the kind of the *Error in err's chain, or "" when there is none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Body types of a request.
const (
	BodyText = "text"
	BodyJSON = "json"
	BodyFile = "file"
)

// Body is a request body: text, a JSON value, or a file beneath /volume that the host streams
// without it passing through guest memory.
type Body struct {
	Type string
	Text string
	JSON json.RawMessage
	Path string
}

// TextBody returns a text body.
func TextBody(s string) *Body { return &Body{Type: BodyText, Text: s} }

// JSONBody returns a body holding v serialised as JSON.
func JSONBody(v any) (*Body, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sdk: json body: %w", err)
	}
	return &Body{Type: BodyJSON, JSON: b}, nil
}

// FileBody returns a body read from a file beneath /volume, such as "/volume/tmp/in.bin".
func FileBody(path string) *Body { return &Body{Type: BodyFile, Path: path} }

type bodyWire struct {
	Type string          `json:"type"`
	Text *string         `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
	Path string          `json:"path,omitempty"`
}

// MarshalJSON writes the tagged form the host reads, with only the field the type uses.
func (b Body) MarshalJSON() ([]byte, error) {
	w := bodyWire{Type: b.Type}
	switch b.Type {
	case BodyText:
		w.Text = &b.Text
	case BodyJSON:
		if len(b.JSON) == 0 || !json.Valid(b.JSON) {
			return nil, fmt.Errorf("sdk: json body: %w: not valid JSON", ErrInvalidMessage)
		}
		w.JSON = b.JSON
	case BodyFile:
		if b.Path == "" {
			return nil, fmt.Errorf("sdk: file body: %w: path is empty", ErrInvalidMessage)
		}
		w.Path = b.Path
	default:
		return nil, fmt.Errorf("sdk: body: %w: unknown type %q", ErrInvalidMessage, b.Type)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a text, json or file body.
func (b *Body) UnmarshalJSON(data []byte) error {
	var w bodyWire
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: body: %w: %v", ErrInvalidMessage, err)
	}
	out := Body{Type: w.Type}
	switch w.Type {
	case BodyText:
		if w.Text == nil || w.JSON != nil || w.Path != "" {
			return fmt.Errorf("sdk: text body: %w: needs exactly a text field", ErrInvalidMessage)
		}
		out.Text = *w.Text
	case BodyJSON:
		if w.JSON == nil || w.Text != nil || w.Path != "" {
			return fmt.Errorf("sdk: json body: %w: needs exactly a json field", ErrInvalidMessage)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.JSON); err != nil {
			return fmt.Errorf("sdk: json body: %w: %v", ErrInvalidMessage, err)
		}
		out.JSON = buf.Bytes()
	case BodyFile:
		if w.Path == "" || w.Text != nil || w.JSON != nil {
			return fmt.Errorf("sdk: file body: %w: needs exactly a path field", ErrInvalidMessage)
		}
		out.Path = w.Path
	default:
		return fmt.Errorf("sdk: body: %w: unknown type %q", ErrInvalidMessage, w.Type)
	}
	*b = out
	return nil
}

// Output types of a request.
const (
	OutputInline = "inline"
	OutputFile   = "file"
)

// Output says where the response body goes: inline in the answer (UTF-8 text of at most 256 KiB),
// or into a file beneath /volume.
type Output struct {
	Type string `json:"type"`
	Path string `json:"path,omitempty"`
}

// InlineOutput returns the default output: the body inline as text.
func InlineOutput() *Output { return &Output{Type: OutputInline} }

// FileOutput returns an output that saves the body to path beneath /volume.
func FileOutput(path string) *Output { return &Output{Type: OutputFile, Path: path} }

func (o Output) check() error {
	switch {
	case o.Type == OutputInline && o.Path == "":
	case o.Type == OutputFile && o.Path != "":
	default:
		return fmt.Errorf("sdk: output: %w: want {\"type\":\"inline\"} or {\"type\":\"file\",\"path\":…}, got type %q path %q", ErrInvalidMessage, o.Type, o.Path)
	}
	return nil
}

// UnmarshalJSON reads an inline or file output.
func (o *Output) UnmarshalJSON(data []byte) error {
	type plain Output
	var p plain
	if err := strictUnmarshal(data, &p); err != nil {
		return fmt.Errorf("sdk: output: %w: %v", ErrInvalidMessage, err)
	}
	if err := Output(p).check(); err != nil {
		return err
	}
	*o = Output(p)
	return nil
}

// Methods the host accepts. An empty Method means GET.
var httpMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// Request is one HTTPS request sent through the host. Only URL is required.
type Request struct {
	// Method is GET (the default when empty), HEAD, POST, PUT, PATCH, DELETE or OPTIONS.
	Method string `json:"method,omitempty"`
	// URL must be https.
	URL string `json:"url"`
	// Headers are sent with lower-case names; the host removes connection headers such as host
	// and content-length.
	Headers map[string]string `json:"headers,omitempty"`
	Body    *Body             `json:"body,omitempty"`
	// Output is where the response body goes; nil means inline.
	Output *Output `json:"output,omitempty"`
	// FollowRedirects, when set to false, returns a redirect as the response; nil means true.
	FollowRedirects *bool `json:"follow_redirects,omitempty"`
	// TimeoutMs limits the whole request; 0 means no limit of its own (the call's still applies).
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
}

// Encode checks the request and returns the JSON the host reads. Header names are lower-cased;
// two names that differ only in case, an unknown method, an empty URL, a negative timeout or a
// request over 8 MiB are refused with an *Error of kind invalid_request.
func (r *Request) Encode() ([]byte, error) {
	if r.URL == "" {
		return nil, &Error{Kind: KindInvalidRequest, Message: "url is empty"}
	}
	if r.Method != "" && !httpMethods[r.Method] {
		return nil, &Error{Kind: KindInvalidRequest, Message: fmt.Sprintf("method %q is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS", r.Method)}
	}
	if r.TimeoutMs < 0 {
		return nil, &Error{Kind: KindInvalidRequest, Message: fmt.Sprintf("timeout_ms %d is negative", r.TimeoutMs)}
	}
	if r.Output != nil {
		if err := r.Output.check(); err != nil {
			return nil, &Error{Kind: KindInvalidRequest, Message: err.Error()}
		}
	}
	w := *r
	if len(r.Headers) > 0 {
		w.Headers = make(map[string]string, len(r.Headers))
		for k, v := range r.Headers {
			lk := strings.ToLower(k)
			if _, dup := w.Headers[lk]; dup {
				return nil, &Error{Kind: KindInvalidRequest, Message: fmt.Sprintf("header %q is given twice, in different cases", lk)}
			}
			w.Headers[lk] = v
		}
	}
	type plain Request
	b, err := json.Marshal(plain(w))
	if err != nil {
		return nil, &Error{Kind: KindInvalidRequest, Message: err.Error()}
	}
	if len(b) > MaxHTTPRequestBytes {
		return nil, &Error{Kind: KindInvalidRequest, Message: fmt.Sprintf("request is %d bytes of JSON, over %d", len(b), MaxHTTPRequestBytes)}
	}
	return b, nil
}

// ParseRequest reads a request as the host would: only the documented fields, a URL present.
func ParseRequest(b []byte) (*Request, error) {
	type plain Request
	var p plain
	if err := strictUnmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("sdk: http request: %w: %v", ErrInvalidMessage, err)
	}
	r := Request(p)
	if r.URL == "" {
		return nil, fmt.Errorf("sdk: http request: %w: url is missing", ErrInvalidMessage)
	}
	return &r, nil
}

// Response is a completed HTTP exchange.
type Response struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    ResponseBody      `json:"body"`
}

// UnmarshalJSON reads a response, requiring its status and body; missing headers read as none.
func (r *Response) UnmarshalJSON(data []byte) error {
	var w struct {
		Status  *int              `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    *ResponseBody     `json:"body"`
	}
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: response: %w: %v", ErrInvalidMessage, err)
	}
	if w.Status == nil || w.Body == nil {
		return fmt.Errorf("sdk: response: %w: status and body are required", ErrInvalidMessage)
	}
	if w.Headers == nil {
		w.Headers = map[string]string{}
	}
	*r = Response{Status: *w.Status, Headers: w.Headers, Body: *w.Body}
	return nil
}

// ResponseBody is the body of a Response: inline text, or the path and size of the file the host
// saved it to.
type ResponseBody struct {
	Type  string
	Text  string
	Path  string
	Bytes int64
}

type responseBodyWire struct {
	Type  string  `json:"type"`
	Text  *string `json:"text,omitempty"`
	Path  string  `json:"path,omitempty"`
	Bytes *int64  `json:"bytes,omitempty"`
}

// MarshalJSON writes {"type":"inline","text":…} or {"type":"file","path":…,"bytes":…}.
func (b ResponseBody) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case OutputInline:
		return json.Marshal(responseBodyWire{Type: b.Type, Text: &b.Text})
	case OutputFile:
		if b.Path == "" || b.Bytes < 0 {
			return nil, fmt.Errorf("sdk: response body: %w: file body needs a path and a size", ErrInvalidMessage)
		}
		return json.Marshal(responseBodyWire{Type: b.Type, Path: b.Path, Bytes: &b.Bytes})
	}
	return nil, fmt.Errorf("sdk: response body: %w: unknown type %q", ErrInvalidMessage, b.Type)
}

// UnmarshalJSON reads an inline or file response body.
func (b *ResponseBody) UnmarshalJSON(data []byte) error {
	var w responseBodyWire
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: response body: %w: %v", ErrInvalidMessage, err)
	}
	switch {
	case w.Type == OutputInline && w.Text != nil && w.Path == "" && w.Bytes == nil:
		*b = ResponseBody{Type: w.Type, Text: *w.Text}
	case w.Type == OutputFile && w.Path != "" && w.Bytes != nil && *w.Bytes >= 0 && w.Text == nil:
		*b = ResponseBody{Type: w.Type, Path: w.Path, Bytes: *w.Bytes}
	default:
		return fmt.Errorf("sdk: response body: %w: want an inline body with text or a file body with path and bytes", ErrInvalidMessage)
	}
	return nil
}

// answer is the host's reply: exactly one of ok and error.
type answer struct {
	OK    *Response `json:"ok,omitempty"`
	Error *Error    `json:"error,omitempty"`
}

// DecodeAnswer reads the host's reply to a request: the response, or the *Error the host
// reported. A reply of any other shape is an *Error of kind abi.
func DecodeAnswer(b []byte) (*Response, error) {
	var a answer
	if err := strictUnmarshal(b, &a); err != nil {
		return nil, &Error{Kind: KindABI, Message: "the host's answer is malformed: " + clip(err.Error(), 200)}
	}
	switch {
	case a.OK != nil && a.Error == nil:
		if a.OK.Status < 100 || a.OK.Status > 999 {
			return nil, &Error{Kind: KindABI, Message: fmt.Sprintf("the host's answer has status %d", a.OK.Status)}
		}
		return a.OK, nil
	case a.Error != nil && a.OK == nil:
		if a.Error.Kind == "" {
			return nil, &Error{Kind: KindABI, Message: "the host's error answer has no kind"}
		}
		return nil, a.Error
	}
	return nil, &Error{Kind: KindABI, Message: `the host's answer must hold exactly one of "ok" and "error"`}
}

// EncodeAnswer writes a reply as the host sends it; exactly one of resp and herr must be non-nil.
// It exists for hosts written in Go and for tests.
func EncodeAnswer(resp *Response, herr *Error) ([]byte, error) {
	if (resp == nil) == (herr == nil) {
		return nil, fmt.Errorf("sdk: answer: %w: want exactly one of a response and an error", ErrInvalidMessage)
	}
	return json.Marshal(answer{OK: resp, Error: herr})
}

// transport is the pair of subako_http imports, so that the two-step exchange can be tested
// without a wasm host.
type transport interface {
	request(req []byte) int32
	readResponse(buf []byte) int32
}

// Do sends req through the host and waits for the answer. Failures are *Error values: the host's
// own (KindOf tells them apart), invalid_request for a request the SDK refused to send, and abi
// when the import misbehaved or, on a platform other than wasip1, does not exist.
func Do(ctx context.Context, req *Request) (*Response, error) {
	return do(ctx, hostTransport, req)
}

// Get sends a GET request for url with the body returned inline.
func Get(ctx context.Context, url string) (*Response, error) {
	return Do(ctx, &Request{URL: url})
}

func do(ctx context.Context, t transport, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: KindTimeout, Message: "not sent: " + err.Error()}
	}
	b, err := req.Encode()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, &Error{Kind: KindABI, Message: "the subako_http import exists only in a wasip1 module run by an ABI 1 host"}
	}
	ans, err := exchange(t, b)
	if err != nil {
		return nil, err
	}
	return DecodeAnswer(ans)
}

// exchange runs the two-step protocol: request returns the held answer's length, read_response
// copies exactly that many bytes and releases it.
func exchange(t transport, req []byte) ([]byte, error) {
	n := t.request(req)
	switch {
	case n < 0:
		return nil, &Error{Kind: KindABI, Message: "request: " + abiCode(n)}
	case n == 0:
		return nil, &Error{Kind: KindABI, Message: "request: the host held an empty answer"}
	case n > maxAnswerBytes:
		// Leave the answer held rather than allocate what no valid answer needs; the next request
		// replaces it.
		return nil, &Error{Kind: KindABI, Message: fmt.Sprintf("request: the host's answer is %d bytes, over %d", n, maxAnswerBytes)}
	}
	buf := make([]byte, n)
	if rc := t.readResponse(buf); rc != 0 {
		return nil, &Error{Kind: KindABI, Message: "read_response: " + abiCode(rc)}
	}
	return buf, nil
}

func abiCode(rc int32) string {
	switch rc {
	case -1:
		return "the memory range is outside guest memory (-1)"
	case -2:
		return "the host holds no answer (-2)"
	case -3:
		return "the length does not match the held answer (-3)"
	}
	return fmt.Sprintf("unexpected return value %d", rc)
}
