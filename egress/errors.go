package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Kind classifies an egress failure. The thirteen kinds are exactly the error kinds of the ABI 1
// `subako_http` answer (`{"error":{"kind":…}}`), so subako maps an *Error to the wire 1:1 with
// Kind.String. This package itself produces only the network-side kinds (InvalidRequest,
// HostNotAllowed, ForbiddenDestination, CredentialHeader, CredentialUnavailable,
// TooManyRedirects, Timeout, TooLarge, NotText, Connection); WriteBudget, BadPath and ABI
// belong to the caller, which builds them with NewError so that every HTTP failure has one type.
type Kind uint8

// The error kinds, in the order the ABI 1 document lists them. The zero Kind is not a kind.
const (
	// KindInvalidRequest: the request names a method, URL or header no request can carry.
	KindInvalidRequest Kind = iota + 1
	// KindHostNotAllowed: the policy's host allowlist does not admit the URL's host.
	KindHostNotAllowed
	// KindForbiddenDestination: plain http, or a destination address in a refused range.
	KindForbiddenDestination
	// KindCredentialHeader: the request sets a header that a granted credential sets for that origin.
	KindCredentialHeader
	// KindCredentialUnavailable: the origin is granted but not exactly one usable credential exists.
	KindCredentialUnavailable
	// KindTooManyRedirects: more than MaxRedirects redirects.
	KindTooManyRedirects
	// KindTimeout: the request's deadline (its own timeout or the caller's) passed.
	KindTimeout
	// KindTooLarge: the response body is larger than the caller's cap.
	KindTooLarge
	// KindNotText: the response body is not UTF-8 text where text was asked for.
	KindNotText
	// KindWriteBudget: saving the response would exceed the invocation's write budget (caller side).
	KindWriteBudget
	// KindBadPath: a body or output path is not a usable volume file (caller side).
	KindBadPath
	// KindConnection: resolving, connecting, TLS, or the HTTP exchange itself failed.
	KindConnection
	// KindABI: the host import was misused (caller side).
	KindABI

	numKinds = int(KindABI)
)

var kindNames = [...]string{
	KindInvalidRequest:        "invalid_request",
	KindHostNotAllowed:        "host_not_allowed",
	KindForbiddenDestination:  "forbidden_destination",
	KindCredentialHeader:      "credential_header",
	KindCredentialUnavailable: "credential_unavailable",
	KindTooManyRedirects:      "too_many_redirects",
	KindTimeout:               "timeout",
	KindTooLarge:              "too_large",
	KindNotText:               "not_text",
	KindWriteBudget:           "write_budget",
	KindBadPath:               "bad_path",
	KindConnection:            "connection",
	KindABI:                   "abi",
}

// Sentinel errors, one per Kind. An *Error matches the sentinel of its Kind with errors.Is, so
// callers that only care about the class can write errors.Is(err, egress.ErrForbiddenDestination).
var (
	ErrInvalidRequest        = errors.New("invalid_request")
	ErrHostNotAllowed        = errors.New("host_not_allowed")
	ErrForbiddenDestination  = errors.New("forbidden_destination")
	ErrCredentialHeader      = errors.New("credential_header")
	ErrCredentialUnavailable = errors.New("credential_unavailable")
	ErrTooManyRedirects      = errors.New("too_many_redirects")
	ErrTimeout               = errors.New("timeout")
	ErrTooLarge              = errors.New("too_large")
	ErrNotText               = errors.New("not_text")
	ErrWriteBudget           = errors.New("write_budget")
	ErrBadPath               = errors.New("bad_path")
	ErrConnection            = errors.New("connection")
	ErrABI                   = errors.New("abi")

	// ErrPolicy: a PolicyConfig is malformed (a bad host pattern, grant origin or credential).
	// It is an embedder configuration error, reported by NewPolicy, never by Client.Do.
	ErrPolicy = errors.New("invalid egress policy")
)

var kindSentinels = [...]error{
	KindInvalidRequest:        ErrInvalidRequest,
	KindHostNotAllowed:        ErrHostNotAllowed,
	KindForbiddenDestination:  ErrForbiddenDestination,
	KindCredentialHeader:      ErrCredentialHeader,
	KindCredentialUnavailable: ErrCredentialUnavailable,
	KindTooManyRedirects:      ErrTooManyRedirects,
	KindTimeout:               ErrTimeout,
	KindTooLarge:              ErrTooLarge,
	KindNotText:               ErrNotText,
	KindWriteBudget:           ErrWriteBudget,
	KindBadPath:               ErrBadPath,
	KindConnection:            ErrConnection,
	KindABI:                   ErrABI,
}

// Valid reports whether k is one of the thirteen kinds.
func (k Kind) Valid() bool { return k >= KindInvalidRequest && int(k) <= numKinds }

// String returns the snake_case wire name ("host_not_allowed"), or "kind(N)" for an invalid Kind.
func (k Kind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("kind(%d)", uint8(k))
	}
	return kindNames[k]
}

// MarshalText encodes k as its wire name; an invalid Kind is an error rather than a made-up name.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("egress: marshal kind: %d is not an error kind", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText decodes a wire name produced by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	p, ok := ParseKind(string(b))
	if !ok {
		return fmt.Errorf("egress: unmarshal kind: %q is not an error kind", b)
	}
	*k = p
	return nil
}

// ParseKind returns the Kind whose wire name is s.
func ParseKind(s string) (Kind, bool) {
	for k := KindInvalidRequest; int(k) <= numKinds; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// Error is the one error type Client.Do and Response bodies return. Message is written for the
// guest: it names the host, origin, header name, range or limit involved, never a credential
// value, and never the address a name resolved to when that address was refused (that stays in
// Addr, for host logs: a guest must not be able to map internal DNS through error messages).
// Connection messages quote the network error, which may name the public address that was
// dialled. Err, when set, is the underlying cause for host logs; Error() includes it.
type Error struct {
	Kind Kind
	// Reason is the finer cause, always one of Kind's reasons.
	Reason  Reason
	Message string
	// Limit is the limit that was passed, when the Reason names one (the body cap of
	// ReasonBodyTooLarge, the hop count of ReasonTooManyRedirects); 0 otherwise.
	Limit int64
	// Addr is the refused or failing address, when one is known (for host logs).
	Addr netip.Addr
	Err  error
}

// NewError returns an *Error of the given kind; callers use it for the kinds produced outside
// this package (WriteBudget, BadPath, ABI, NotText) so that the wire mapping stays in one place.
// The Reason is the Kind's least specific one (ReasonRequest for KindInvalidRequest,
// ReasonConnection for KindConnection, and so on); an invalid kind gets none.
func NewError(kind Kind, message string) *Error {
	e := &Error{Kind: kind, Message: message}
	if kind.Valid() {
		e.Reason = kindReasons[kind]
	}
	return e
}

// Deny returns the error a Sender returns to veto a request: KindHostNotAllowed with
// ReasonDenied, which each protocol answers as a refusal by policy (subako_http's
// host_not_allowed, wasi:http's HTTP-request-denied). message is shown to the guest.
func Deny(message string) *Error {
	return &Error{Kind: KindHostNotAllowed, Reason: ReasonDenied, Message: message}
}

func errorf(r Reason, cause error, format string, args ...any) *Error {
	return &Error{Kind: r.Kind(), Reason: r, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Error returns "egress: <kind>: <message>[: <cause>]"; the cause is left out when the
// message already quotes it.
func (e *Error) Error() string {
	s := "egress: " + e.Kind.String() + ": " + e.Message
	if e.Err != nil {
		if c := e.Err.Error(); !strings.Contains(e.Message, c) {
			s += ": " + c
		}
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	return e.Kind.Valid() && kindSentinels[e.Kind] == target
}

// KindOf returns the Kind of the first *Error in err's chain.
func KindOf(err error) (Kind, bool) {
	var e *Error
	if errors.As(err, &e) && e.Kind.Valid() {
		return e.Kind, true
	}
	return 0, false
}

// Reason says why a request failed, one level finer than Kind: Kind is the ABI 1 wire class
// (several causes share "invalid_request" or "connection"), Reason is what an embedder or a
// protocol host switches on to tell them apart, for example to pick the wasi:http error-code
// (a refused method is HTTP-request-method-invalid, an overlong URL HTTP-request-URI-too-long)
// without reading Message, which is written for people and may change. Every Reason belongs to
// exactly one Kind (Reason.Kind). The zero Reason is not a reason.
type Reason uint8

// The reasons, grouped by their Kind.
const (
	// ReasonRequest (invalid_request): the request is unusable in a way no finer reason names
	// (no request, a negative timeout, trailers with a body of known length, a caller-side
	// parse failure).
	ReasonRequest Reason = iota + 1
	// ReasonMethod (invalid_request): the method is not GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS.
	ReasonMethod
	// ReasonURL (invalid_request): the URL does not parse, is not absolute, has a scheme other
	// than https and http, carries user info, or has a bad host or port.
	ReasonURL
	// ReasonURLTooLong (invalid_request): the URL is longer than MaxURLBytes.
	ReasonURLTooLong
	// ReasonHeader (invalid_request): a header name is not a lower-case token or a value has
	// control characters.
	ReasonHeader
	// ReasonHeaderTooLarge (invalid_request): more than MaxHeaderFields fields or MaxHeaderBytes bytes.
	ReasonHeaderTooLarge
	// ReasonBody (invalid_request): the request body is shorter or longer than its declared
	// length, or cannot be sent again for a redirect.
	ReasonBody
	// ReasonHostNotAllowed (host_not_allowed): the policy's allowlist does not admit the host.
	ReasonHostNotAllowed
	// ReasonDenied (host_not_allowed): the embedder's Sender refused the request (see Deny).
	ReasonDenied
	// ReasonPlainHTTP (forbidden_destination): plain http to a host AllowHTTPHosts does not name.
	ReasonPlainHTTP
	// ReasonLocalhost (forbidden_destination): the host is a "localhost" name (RFC 6761 §6.3).
	ReasonLocalhost
	// ReasonAddress (forbidden_destination): the destination address is in a refused range
	// (private, loopback, link-local, …; see RefusedRanges). Error.Addr holds it.
	ReasonAddress
	// ReasonCredentialHeader (credential_header): the guest set a header a granted credential sets.
	ReasonCredentialHeader
	// ReasonCredentialUnavailable (credential_unavailable): not exactly one usable credential.
	ReasonCredentialUnavailable
	// ReasonTooManyRedirects (too_many_redirects): more than MaxRedirects redirects. Error.Limit
	// holds the limit.
	ReasonTooManyRedirects
	// ReasonTimeout (timeout): the request's deadline (its own timeout or the caller's) passed
	// before the response header arrived.
	ReasonTimeout
	// ReasonConnectTimeout (timeout): resolving and connecting took longer than the sender's
	// connect timeout (or the dialler's own bound).
	ReasonConnectTimeout
	// ReasonFirstByteTimeout (timeout): the response header took longer than the sender's
	// first-byte timeout.
	ReasonFirstByteTimeout
	// ReasonBetweenBytesTimeout (timeout): the response body paused longer than the sender's
	// between-bytes timeout.
	ReasonBetweenBytesTimeout
	// ReasonBodyTimeout (timeout): the request's deadline passed while the response body was
	// being read.
	ReasonBodyTimeout
	// ReasonBodyTooLarge (too_large): the response body is larger than the cap. Error.Limit
	// holds the cap in bytes.
	ReasonBodyTooLarge
	// ReasonNotText (not_text): the response body is not UTF-8 text where text was asked for.
	ReasonNotText
	// ReasonWriteBudget (write_budget): caller side, see KindWriteBudget.
	ReasonWriteBudget
	// ReasonBadPath (bad_path): caller side, see KindBadPath.
	ReasonBadPath
	// ReasonDNS (connection): the host name does not resolve (or resolves to no address).
	ReasonDNS
	// ReasonConnect (connection): no connection could be made (refused, unreachable).
	ReasonConnect
	// ReasonTLS (connection): the TLS handshake or a TLS record failed (certificate, alert, protocol).
	ReasonTLS
	// ReasonProtocol (connection): the server broke HTTP (a malformed response, an HTTP/2
	// protocol error, a redirect without a usable Location).
	ReasonProtocol
	// ReasonResponseHeaderTooLarge (connection): the response header is larger than
	// Options.MaxResponseHeaderBytes.
	ReasonResponseHeaderTooLarge
	// ReasonIncomplete (connection): the connection ended or broke while the response body
	// was being read.
	ReasonIncomplete
	// ReasonCancelled (connection): the caller's context was cancelled, or the body was read
	// after Close.
	ReasonCancelled
	// ReasonConnection (connection): any other network failure before the response arrived.
	ReasonConnection
	// ReasonABI (abi): caller side, see KindABI.
	ReasonABI

	numReasons = int(ReasonABI)
)

var reasonInfo = [...]struct {
	name string
	kind Kind
}{
	ReasonRequest:                {"request", KindInvalidRequest},
	ReasonMethod:                 {"method", KindInvalidRequest},
	ReasonURL:                    {"url", KindInvalidRequest},
	ReasonURLTooLong:             {"url_too_long", KindInvalidRequest},
	ReasonHeader:                 {"header", KindInvalidRequest},
	ReasonHeaderTooLarge:         {"header_too_large", KindInvalidRequest},
	ReasonBody:                   {"body", KindInvalidRequest},
	ReasonHostNotAllowed:         {"host_not_allowed", KindHostNotAllowed},
	ReasonDenied:                 {"denied", KindHostNotAllowed},
	ReasonPlainHTTP:              {"plain_http", KindForbiddenDestination},
	ReasonLocalhost:              {"localhost", KindForbiddenDestination},
	ReasonAddress:                {"address", KindForbiddenDestination},
	ReasonCredentialHeader:       {"credential_header", KindCredentialHeader},
	ReasonCredentialUnavailable:  {"credential_unavailable", KindCredentialUnavailable},
	ReasonTooManyRedirects:       {"too_many_redirects", KindTooManyRedirects},
	ReasonTimeout:                {"timeout", KindTimeout},
	ReasonConnectTimeout:         {"connect_timeout", KindTimeout},
	ReasonFirstByteTimeout:       {"first_byte_timeout", KindTimeout},
	ReasonBetweenBytesTimeout:    {"between_bytes_timeout", KindTimeout},
	ReasonBodyTimeout:            {"body_timeout", KindTimeout},
	ReasonBodyTooLarge:           {"body_too_large", KindTooLarge},
	ReasonNotText:                {"not_text", KindNotText},
	ReasonWriteBudget:            {"write_budget", KindWriteBudget},
	ReasonBadPath:                {"bad_path", KindBadPath},
	ReasonDNS:                    {"dns", KindConnection},
	ReasonConnect:                {"connect", KindConnection},
	ReasonTLS:                    {"tls", KindConnection},
	ReasonProtocol:               {"protocol", KindConnection},
	ReasonResponseHeaderTooLarge: {"response_header_too_large", KindConnection},
	ReasonIncomplete:             {"incomplete", KindConnection},
	ReasonCancelled:              {"cancelled", KindConnection},
	ReasonConnection:             {"connection", KindConnection},
	ReasonABI:                    {"abi", KindABI},
}

// kindReasons is the Reason NewError gives each Kind: the one that says no more than the Kind.
var kindReasons = [...]Reason{
	KindInvalidRequest:        ReasonRequest,
	KindHostNotAllowed:        ReasonHostNotAllowed,
	KindForbiddenDestination:  ReasonAddress,
	KindCredentialHeader:      ReasonCredentialHeader,
	KindCredentialUnavailable: ReasonCredentialUnavailable,
	KindTooManyRedirects:      ReasonTooManyRedirects,
	KindTimeout:               ReasonTimeout,
	KindTooLarge:              ReasonBodyTooLarge,
	KindNotText:               ReasonNotText,
	KindWriteBudget:           ReasonWriteBudget,
	KindBadPath:               ReasonBadPath,
	KindConnection:            ReasonConnection,
	KindABI:                   ReasonABI,
}

// Valid reports whether r is one of the reasons.
func (r Reason) Valid() bool { return r >= ReasonRequest && int(r) <= numReasons }

// Kind returns the Kind r belongs to, or 0 for an invalid Reason.
func (r Reason) Kind() Kind {
	if !r.Valid() {
		return 0
	}
	return reasonInfo[r].kind
}

// String returns the snake_case name ("plain_http"), for logs, or "reason(N)" for an invalid Reason.
func (r Reason) String() string {
	if !r.Valid() {
		return fmt.Sprintf("reason(%d)", uint8(r))
	}
	return reasonInfo[r].name
}

// ReasonOf returns the Reason of the first *Error in err's chain.
func ReasonOf(err error) (Reason, bool) {
	var e *Error
	if errors.As(err, &e) && e.Reason.Valid() {
		return e.Reason, true
	}
	return 0, false
}
