package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kobako/kobako/subako/wire"
)

// Limits of the subako_http import.
const (
	// MaxHTTPRequestBytes is the largest request JSON the host accepts.
	MaxHTTPRequestBytes = wire.MaxHTTPRequestBytes
	// MaxInlineBodyBytes is the largest response body returned inline.
	MaxInlineBodyBytes = wire.MaxInlineBodyBytes
	// MaxRedirects is how many redirects the host follows.
	MaxRedirects = wire.MaxRedirects
	// maxAnswerBytes bounds the answer the SDK will allocate for: an inline body of 256 KiB
	// escaped as JSON at worst six bytes a byte, plus headers.
	maxAnswerBytes = 16 << 20
)

// ErrorKind names why a subako_http request failed, as the host reports it.
type ErrorKind string

// The 13 error kinds of ABI 1.
const (
	KindInvalidRequest        ErrorKind = wire.KindInvalidRequest
	KindHostNotAllowed        ErrorKind = wire.KindHostNotAllowed
	KindForbiddenDestination  ErrorKind = wire.KindForbiddenDestination
	KindCredentialHeader      ErrorKind = wire.KindCredentialHeader
	KindCredentialUnavailable ErrorKind = wire.KindCredentialUnavailable
	KindTooManyRedirects      ErrorKind = wire.KindTooManyRedirects
	KindTimeout               ErrorKind = wire.KindTimeout
	KindTooLarge              ErrorKind = wire.KindTooLarge
	KindNotText               ErrorKind = wire.KindNotText
	KindWriteBudget           ErrorKind = wire.KindWriteBudget
	KindBadPath               ErrorKind = wire.KindBadPath
	KindConnection            ErrorKind = wire.KindConnection
	KindABI                   ErrorKind = wire.KindABI
)

// Error is a failed subako_http request: the host's answer {"error":{kind,message}}, or an error of
// kind "abi" when the import misbehaved or is missing, or of kind "invalid_request" when the SDK
// refused the request before sending it.
type Error struct {
	Kind    ErrorKind
	Message string
}

// Error returns "subako_http: KIND: MESSAGE".
func (e *Error) Error() string { return "subako_http: " + string(e.Kind) + ": " + e.Message }

func (e *Error) wire() *wire.HTTPError {
	return &wire.HTTPError{Kind: string(e.Kind), Message: e.Message}
}

// MarshalJSON writes the error as the host sends it, a wire.HTTPError.
func (e Error) MarshalJSON() ([]byte, error) { return json.Marshal(e.wire()) }

// UnmarshalJSON reads a wire.HTTPError.
func (e *Error) UnmarshalJSON(data []byte) error {
	var w wire.HTTPError
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Error{Kind: ErrorKind(w.Kind), Message: w.Message}
	return nil
}

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
	BodyText = wire.BodyText
	BodyJSON = wire.BodyJSON
	BodyFile = wire.BodyFile
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

// wire returns the tagged form the host reads (a wire.HTTPBody), with only the member the type
// uses, after checking that the member is there.
func (b *Body) wire() (*wire.HTTPBody, error) {
	w := &wire.HTTPBody{Type: b.Type}
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
		w.Path = &b.Path
	default:
		return nil, fmt.Errorf("sdk: body: %w: unknown type %q", ErrInvalidMessage, b.Type)
	}
	return w, nil
}

// bodyFrom reads a wire.HTTPBody, requiring exactly the member its type uses.
func bodyFrom(w *wire.HTTPBody) (*Body, error) {
	out := &Body{Type: w.Type}
	switch w.Type {
	case BodyText:
		if w.Text == nil || w.JSON != nil || w.Path != nil {
			return nil, fmt.Errorf("sdk: text body: %w: needs exactly a text field", ErrInvalidMessage)
		}
		out.Text = *w.Text
	case BodyJSON:
		if w.JSON == nil || w.Text != nil || w.Path != nil {
			return nil, fmt.Errorf("sdk: json body: %w: needs exactly a json field", ErrInvalidMessage)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.JSON); err != nil {
			return nil, fmt.Errorf("sdk: json body: %w: %v", ErrInvalidMessage, err)
		}
		out.JSON = buf.Bytes()
	case BodyFile:
		if w.Path == nil || *w.Path == "" || w.Text != nil || w.JSON != nil {
			return nil, fmt.Errorf("sdk: file body: %w: needs exactly a path field", ErrInvalidMessage)
		}
		out.Path = *w.Path
	default:
		return nil, fmt.Errorf("sdk: body: %w: unknown type %q", ErrInvalidMessage, w.Type)
	}
	return out, nil
}

// MarshalJSON writes the tagged form the host reads, with only the field the type uses.
func (b Body) MarshalJSON() ([]byte, error) {
	w, err := b.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a text, json or file body.
func (b *Body) UnmarshalJSON(data []byte) error {
	var w wire.HTTPBody
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: body: %w: %v", ErrInvalidMessage, err)
	}
	out, err := bodyFrom(&w)
	if err != nil {
		return err
	}
	*b = *out
	return nil
}

// Output types of a request.
const (
	OutputInline = wire.OutputInline
	OutputFile   = wire.OutputFile
)

// Output says where the response body goes: inline in the answer (UTF-8 text of at most 256 KiB),
// or into a file beneath /volume.
type Output struct {
	Type string
	Path string
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

func (o Output) wire() *wire.HTTPOutput {
	w := &wire.HTTPOutput{Type: o.Type}
	if o.Path != "" {
		w.Path = &o.Path
	}
	return w
}

func outputFrom(w *wire.HTTPOutput) (*Output, error) {
	o := &Output{Type: w.Type}
	if w.Path != nil {
		o.Path = *w.Path
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	return o, nil
}

// MarshalJSON writes the output as the host reads it, a wire.HTTPOutput.
func (o Output) MarshalJSON() ([]byte, error) { return json.Marshal(o.wire()) }

// UnmarshalJSON reads an inline or file output.
func (o *Output) UnmarshalJSON(data []byte) error {
	var w wire.HTTPOutput
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: output: %w: %v", ErrInvalidMessage, err)
	}
	out, err := outputFrom(&w)
	if err != nil {
		return err
	}
	*o = *out
	return nil
}

// Request is one HTTPS request sent through the host. Only URL is required.
type Request struct {
	// Method is GET (the default when empty), HEAD, POST, PUT, PATCH, DELETE or OPTIONS.
	Method string
	// URL must be https.
	URL string
	// Headers are sent with lower-case names; the host removes connection headers such as host
	// and content-length.
	Headers map[string]string
	Body    *Body
	// Output is where the response body goes; nil means inline.
	Output *Output
	// FollowRedirects, when set to false, returns a redirect as the response; nil means true.
	FollowRedirects *bool
	// TimeoutMs limits the whole request; 0 means no limit of its own (the call's still applies).
	TimeoutMs int64
}

// wire returns the request's wire.HTTPRequest, unchecked but for the body's members.
func (r *Request) wire() (*wire.HTTPRequest, error) {
	w := &wire.HTTPRequest{URL: r.URL, Headers: r.Headers, FollowRedirects: r.FollowRedirects}
	if r.Method != "" {
		w.Method = &r.Method
	}
	if r.Body != nil {
		b, err := r.Body.wire()
		if err != nil {
			return nil, err
		}
		w.Body = b
	}
	if r.Output != nil {
		w.Output = r.Output.wire()
	}
	if r.TimeoutMs != 0 {
		w.TimeoutMS = json.Number(strconv.FormatInt(r.TimeoutMs, 10))
	}
	return w, nil
}

// requestFrom reads a wire.HTTPRequest, checking the body, the output and the timeout.
func requestFrom(w *wire.HTTPRequest) (*Request, error) {
	r := &Request{URL: w.URL, Headers: w.Headers, FollowRedirects: w.FollowRedirects}
	if w.Method != nil {
		r.Method = *w.Method
	}
	if w.Body != nil {
		b, err := bodyFrom(w.Body)
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	if w.Output != nil {
		o, err := outputFrom(w.Output)
		if err != nil {
			return nil, err
		}
		r.Output = o
	}
	if w.TimeoutMS != "" {
		ms, err := w.TimeoutMS.Int64()
		if err != nil {
			return nil, fmt.Errorf("sdk: http request: %w: timeout_ms %s is not a whole number", ErrInvalidMessage, w.TimeoutMS)
		}
		r.TimeoutMs = ms
	}
	return r, nil
}

// MarshalJSON writes the request as a wire.HTTPRequest, unchecked (Encode checks it).
func (r Request) MarshalJSON() ([]byte, error) {
	w, err := r.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a wire.HTTPRequest (ParseRequest also refuses unknown members).
func (r *Request) UnmarshalJSON(data []byte) error {
	var w wire.HTTPRequest
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out, err := requestFrom(&w)
	if err != nil {
		return err
	}
	*r = *out
	return nil
}

// Encode checks the request and returns the JSON the host reads. Header names are lower-cased;
// two names that differ only in case, an unknown method, an empty URL, a negative timeout or a
// request over 8 MiB are refused with an *Error of kind invalid_request.
func (r *Request) Encode() ([]byte, error) {
	if r.URL == "" {
		return nil, &Error{Kind: KindInvalidRequest, Message: "url is empty"}
	}
	if r.Method != "" && !wire.ValidHTTPMethod(r.Method) {
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
	w, err := r.wire()
	if err != nil {
		return nil, &Error{Kind: KindInvalidRequest, Message: err.Error()}
	}
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
	b, err := json.Marshal(w)
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
	var w wire.HTTPRequest
	if err := strictUnmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("sdk: http request: %w: %v", ErrInvalidMessage, err)
	}
	r, err := requestFrom(&w)
	if err != nil {
		return nil, err
	}
	if r.URL == "" {
		return nil, fmt.Errorf("sdk: http request: %w: url is missing", ErrInvalidMessage)
	}
	return r, nil
}

// Response is a completed HTTP exchange.
type Response struct {
	Status  int
	Headers map[string]string
	Body    ResponseBody
}

func (r *Response) wire() (*wire.HTTPResponse, error) {
	b, err := r.Body.wire()
	if err != nil {
		return nil, err
	}
	return &wire.HTTPResponse{Status: r.Status, Headers: r.Headers, Body: *b}, nil
}

// responseFrom reads a wire.HTTPResponse, requiring its body; missing headers read as none.
func responseFrom(w *wire.HTTPResponse) (*Response, error) {
	b, err := responseBodyFrom(&w.Body)
	if err != nil {
		return nil, err
	}
	r := &Response{Status: w.Status, Headers: w.Headers, Body: *b}
	if r.Headers == nil {
		r.Headers = map[string]string{}
	}
	return r, nil
}

// MarshalJSON writes the response as the host sends it, a wire.HTTPResponse.
func (r Response) MarshalJSON() ([]byte, error) {
	w, err := r.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a response, requiring its status and body; missing headers read as none.
func (r *Response) UnmarshalJSON(data []byte) error {
	var w wire.HTTPResponse
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: response: %w: %v", ErrInvalidMessage, err)
	}
	if w.Status == 0 {
		return fmt.Errorf("sdk: response: %w: status is missing or 0", ErrInvalidMessage)
	}
	out, err := responseFrom(&w)
	if err != nil {
		return err
	}
	*r = *out
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

func (b *ResponseBody) wire() (*wire.HTTPResponseBody, error) {
	switch b.Type {
	case OutputInline:
		return &wire.HTTPResponseBody{Type: b.Type, Text: &b.Text}, nil
	case OutputFile:
		if b.Path == "" || b.Bytes < 0 {
			return nil, fmt.Errorf("sdk: response body: %w: file body needs a path and a size", ErrInvalidMessage)
		}
		return &wire.HTTPResponseBody{Type: b.Type, Path: b.Path, Bytes: &b.Bytes}, nil
	}
	return nil, fmt.Errorf("sdk: response body: %w: unknown type %q", ErrInvalidMessage, b.Type)
}

func responseBodyFrom(w *wire.HTTPResponseBody) (*ResponseBody, error) {
	switch {
	case w.Type == OutputInline && w.Text != nil && w.Path == "" && w.Bytes == nil:
		return &ResponseBody{Type: w.Type, Text: *w.Text}, nil
	case w.Type == OutputFile && w.Path != "" && w.Bytes != nil && *w.Bytes >= 0 && w.Text == nil:
		return &ResponseBody{Type: w.Type, Path: w.Path, Bytes: *w.Bytes}, nil
	}
	return nil, fmt.Errorf("sdk: response body: %w: want an inline body with text or a file body with path and bytes", ErrInvalidMessage)
}

// MarshalJSON writes {"type":"inline","text":…} or {"type":"file","path":…,"bytes":…}.
func (b ResponseBody) MarshalJSON() ([]byte, error) {
	w, err := b.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an inline or file response body.
func (b *ResponseBody) UnmarshalJSON(data []byte) error {
	var w wire.HTTPResponseBody
	if err := strictUnmarshal(data, &w); err != nil {
		return fmt.Errorf("sdk: response body: %w: %v", ErrInvalidMessage, err)
	}
	out, err := responseBodyFrom(&w)
	if err != nil {
		return err
	}
	*b = *out
	return nil
}

// DecodeAnswer reads the host's reply to a request (a wire.HTTPAnswer): the response, or the
// *Error the host reported. A reply of any other shape is an *Error of kind abi.
func DecodeAnswer(b []byte) (*Response, error) {
	var a wire.HTTPAnswer
	if err := strictUnmarshal(b, &a); err != nil {
		return nil, &Error{Kind: KindABI, Message: "the host's answer is malformed: " + clip(err.Error(), 200)}
	}
	switch {
	case a.OK != nil && a.Error == nil:
		resp, err := responseFrom(a.OK)
		if err != nil {
			return nil, &Error{Kind: KindABI, Message: "the host's answer is malformed: " + clip(err.Error(), 200)}
		}
		if resp.Status < 100 || resp.Status > 999 {
			return nil, &Error{Kind: KindABI, Message: fmt.Sprintf("the host's answer has status %d", resp.Status)}
		}
		return resp, nil
	case a.Error != nil && a.OK == nil:
		if a.Error.Kind == "" {
			return nil, &Error{Kind: KindABI, Message: "the host's error answer has no kind"}
		}
		return nil, &Error{Kind: ErrorKind(a.Error.Kind), Message: a.Error.Message}
	}
	return nil, &Error{Kind: KindABI, Message: `the host's answer must hold exactly one of "ok" and "error"`}
}

// EncodeAnswer writes a reply as the host sends it; exactly one of resp and herr must be non-nil.
// It exists for hosts written in Go and for tests.
func EncodeAnswer(resp *Response, herr *Error) ([]byte, error) {
	if (resp == nil) == (herr == nil) {
		return nil, fmt.Errorf("sdk: answer: %w: want exactly one of a response and an error", ErrInvalidMessage)
	}
	var a wire.HTTPAnswer
	if herr != nil {
		a.Error = herr.wire()
	} else {
		w, err := resp.wire()
		if err != nil {
			return nil, err
		}
		a.OK = w
	}
	return json.Marshal(a)
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
	case wire.ABIOutOfBounds:
		return "the memory range is outside guest memory (-1)"
	case wire.ABINothingHeld:
		return "the host holds no answer (-2)"
	case wire.ABILengthMismatch:
		return "the length does not match the held answer (-3)"
	}
	return fmt.Sprintf("unexpected return value %d", rc)
}
