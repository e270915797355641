package wire

import "encoding/json"

// ABI 1 「HTTP: subako_http」: the import module, its two functions, and their limits.
const (
	// HTTPModule is the import module of the HTTP functions.
	HTTPModule = "subako_http"
	// HTTPRequestFunc is request(ptr, len) -> len: send the JSON request at ptr, hold the JSON
	// answer and return its length.
	HTTPRequestFunc = "request"
	// HTTPReadResponseFunc is read_response(ptr, len) -> 0: copy the held answer to ptr (len must
	// be its length) and drop it.
	HTTPReadResponseFunc = "read_response"

	// MaxHTTPRequestBytes is the largest request JSON the host accepts.
	MaxHTTPRequestBytes = 8 << 20
	// MaxInlineBodyBytes is the largest response body returned inline, as UTF-8 text.
	MaxInlineBodyBytes = 256 << 10
	// MaxRedirects is how many redirects the host follows.
	MaxRedirects = 10
)

// The negative results of the subako_http functions, which mean the module misused the ABI
// (「HTTP: subako_http」).
const (
	// ABIOutOfBounds: the memory range is outside the module's memory.
	ABIOutOfBounds = -1
	// ABINothingHeld: read_response with no answer held.
	ABINothingHeld = -2
	// ABILengthMismatch: read_response's length is not the held answer's.
	ABILengthMismatch = -3
)

// The methods a request may name (「HTTP: subako_http」, the method row); absent means GET.
const (
	MethodGET     = "GET"
	MethodHEAD    = "HEAD"
	MethodPOST    = "POST"
	MethodPUT     = "PUT"
	MethodPATCH   = "PATCH"
	MethodDELETE  = "DELETE"
	MethodOPTIONS = "OPTIONS"
)

// ValidHTTPMethod reports whether m is one of the methods a request may name. It is a switch, not
// a map, so that nothing is built at init.
func ValidHTTPMethod(m string) bool {
	switch m {
	case MethodGET, MethodHEAD, MethodPOST, MethodPUT, MethodPATCH, MethodDELETE, MethodOPTIONS:
		return true
	}
	return false
}

// Types of HTTPBody, HTTPOutput and HTTPResponseBody (「HTTP: subako_http」).
const (
	BodyText     = "text"
	BodyJSON     = "json"
	BodyFile     = "file"
	OutputInline = "inline"
	OutputFile   = "file"
)

// The 13 error kinds of an HTTPError (「HTTP: subako_http」, the end of the section).
const (
	KindInvalidRequest        = "invalid_request"
	KindHostNotAllowed        = "host_not_allowed"
	KindForbiddenDestination  = "forbidden_destination"
	KindCredentialHeader      = "credential_header"
	KindCredentialUnavailable = "credential_unavailable"
	KindTooManyRedirects      = "too_many_redirects"
	KindTimeout               = "timeout"
	KindTooLarge              = "too_large"
	KindNotText               = "not_text"
	KindWriteBudget           = "write_budget"
	KindBadPath               = "bad_path"
	KindConnection            = "connection"
	KindABI                   = "abi"
)

// HTTPRequest is the request a module passes to request (「HTTP: subako_http」): at most
// MaxHTTPRequestBytes, only these members. Only URL is required.
type HTTPRequest struct {
	// Method is one of ValidHTTPMethod's; absent means GET.
	Method *string `json:"method,omitempty"`
	// URL must be https.
	URL string `json:"url"`
	// Headers have lower-case names; the host removes connection headers such as host.
	Headers map[string]string `json:"headers,omitempty"`
	Body    *HTTPBody         `json:"body,omitempty"`
	// Output is where the response body goes; absent means inline.
	Output *HTTPOutput `json:"output,omitempty"`
	// FollowRedirects defaults to true; at most MaxRedirects hops.
	FollowRedirects *bool `json:"follow_redirects,omitempty"`
	// TimeoutMS bounds the whole request, in milliseconds. It is kept as written so that the
	// host can say what is wrong with a value that is not a whole number.
	TimeoutMS json.Number `json:"timeout_ms,omitempty"`
}

// HTTPBody is a request body (「HTTP: subako_http」, the body row): {"type":"text","text":…},
// {"type":"json","json":…} or {"type":"file","path":…}, with only the member its type uses.
type HTTPBody struct {
	Type string          `json:"type"`
	Text *string         `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
	Path *string         `json:"path,omitempty"`
}

// HTTPOutput says where the response body goes (「HTTP: subako_http」, the output row):
// {"type":"inline"} or {"type":"file","path":…} beneath /volume.
type HTTPOutput struct {
	Type string  `json:"type"`
	Path *string `json:"path,omitempty"`
}

// HTTPAnswer is what read_response copies out (「HTTP: subako_http」): {"ok":…} or {"error":…},
// exactly one of them.
type HTTPAnswer struct {
	OK    *HTTPResponse `json:"ok,omitempty"`
	Error *HTTPError    `json:"error,omitempty"`
}

// HTTPResponse is a completed exchange: the status, the response headers with lower-case names,
// and the body.
type HTTPResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    HTTPResponseBody  `json:"body"`
}

// HTTPResponseBody is a response body: {"type":"inline","text":…} (at most MaxInlineBodyBytes of
// UTF-8) or {"type":"file","path":…,"bytes":…} for a body saved beneath /volume.
type HTTPResponseBody struct {
	Type  string  `json:"type"`
	Text  *string `json:"text,omitempty"`
	Path  string  `json:"path,omitempty"`
	Bytes *int64  `json:"bytes,omitempty"`
}

// HTTPError is a failed request: one of the 13 kinds and a message for a person.
type HTTPError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}
