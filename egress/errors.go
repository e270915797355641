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
	Kind    Kind
	Message string
	// Addr is the refused or failing address, when one is known (for host logs).
	Addr netip.Addr
	Err  error
}

// NewError returns an *Error of the given kind; callers use it for the kinds produced outside
// this package (WriteBudget, BadPath, ABI, NotText) so that the wire mapping stays in one place.
func NewError(kind Kind, message string) *Error { return &Error{Kind: kind, Message: message} }

func errorf(kind Kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: cause}
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
