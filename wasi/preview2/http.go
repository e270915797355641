package preview2

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kobako/kobako/egress"
)

// The wasi:http interfaces this host serves (client side). Version 0.2.0 satisfies imports of
// every 0.2.x version.
const (
	ifaceHTTPTypes    = "wasi:http/types@0.2.0"
	ifaceHTTPOutgoing = "wasi:http/outgoing-handler@0.2.0"
)

// HTTPConfig configures the wasi:http of one Host (WithHTTP). It does not decide whether
// wasi:http is linked (DefineHTTP on the Linker does): a nil Send denies every request, which
// the guest sees as HTTP-request-denied, so a component that imports wasi:http but is given no
// network still instantiates and runs. To keep wasi:http from a component altogether, leave
// DefineHTTP off its Linker; the component then fails to instantiate naming the import.
type HTTPConfig struct {
	// Send performs every request the guest hands to outgoing-handler.handle. It is the one
	// place an embedder decides what reaches the network, and the same type ABI 1's
	// subako_http takes, so one function can guard both (see egress.Sender). It receives req
	// already validated (method, scheme, authority, path and header syntax) while the guest
	// may still be writing the body: req.Body reads what the guest writes to the
	// outgoing-body stream and ends when the guest finishes it, req.Trailer is then filled
	// with the guest's trailers. It runs on a goroutine of its own; its ctx ends when the guest
	// drops the request or its response, when the host closes, or at the deadline of the call
	// that sent the request. The options carry the guest's request-options only.
	//
	// A failure, of the send or of a response body read, answers the guest the error-code of
	// an *HTTPError in its chain, else the one egress's Reason maps to (an *egress.Error from
	// egress.NewSender, or egress.Deny's veto: HTTP-request-denied), else internal-error. The
	// response body is read as the guest reads it (a bounded buffer in between, so a large body
	// streams), and resp.Trailer is read after it ends. Package wasi/preview2/httpegress
	// provides the egress-policy sender kobako uses.
	Send egress.Sender
	// ForbiddenHeader reports the header names (lower-case) the guest may not set in any fields
	// resource: fields.from-list, set and append refuse them with header-error.forbidden. Nil
	// means IsForbiddenHeader.
	ForbiddenHeader func(name string) bool
	// MaxFieldsBytes bounds the names and values one fields resource may hold; 0 means
	// DefaultMaxFieldsBytes. Exceeding it is header-error.invalid-syntax, as the guest cannot
	// send such a header anyway.
	MaxFieldsBytes int
}

// An Option configures what a Host has beyond the Config both previews share (Bind, NewHost,
// Run, RunComponent, RunPrepared).
type Option func(*options)

type options struct {
	http HTTPConfig
}

// WithHTTP gives the Host's wasi:http its configuration; without it, every request the guest
// makes answers HTTP-request-denied.
func WithHTTP(hc HTTPConfig) Option { return func(o *options) { o.http = hc } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// DefaultMaxFieldsBytes bounds one fields resource when HTTPConfig.MaxFieldsBytes is 0.
const DefaultMaxFieldsBytes = 64 << 10

// forbiddenHeaders are the hop-by-hop and framing headers a guest may not set (RFC 9110 §7.6.1,
// RFC 9113 §8.2.2): the host computes them itself, and a guest value would only allow request
// smuggling. Every name starting "proxy-" is forbidden too.
var forbiddenHeaders = map[string]bool{
	"connection":        true,
	"keep-alive":        true,
	"transfer-encoding": true,
	"upgrade":           true,
	"host":              true,
	"http2-settings":    true,
	"te":                true,
	"trailer":           true,
}

// IsForbiddenHeader reports whether a guest may not set the header name (lower-case): connection,
// keep-alive, proxy-*, transfer-encoding, upgrade, host, http2-settings, te and trailer.
func IsForbiddenHeader(name string) bool {
	return forbiddenHeaders[name] || strings.HasPrefix(name, "proxy-")
}

// HTTPError gives a wasi:http error-code to a failed request or response body read.
type HTTPError struct {
	Code ErrorCode
	// Err is the cause, for host logs; the guest sees only Code.
	Err error
}

func (e *HTTPError) Error() string {
	s := "wasi:http: " + e.Code.String()
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *HTTPError) Unwrap() error { return e.Err }

// ErrorCodeOf returns the error-code err carries (an *HTTPError in its chain), else the one its
// *egress.Error maps to by Reason, else internal-error with err's message.
func ErrorCodeOf(err error) ErrorCode {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Code
	}
	if c, ok := egressCode(err); ok {
		return c
	}
	msg := err.Error()
	return ErrorCode{Kind: InternalError, Message: &msg}
}

// ErrorKind is a case of wasi:http's error-code variant, in the WIT's order.
type ErrorKind uint8

// The error-code cases.
const (
	DNSTimeout ErrorKind = iota
	DNSError
	DestinationNotFound
	DestinationUnavailable
	DestinationIPProhibited
	DestinationIPUnroutable
	ConnectionRefused
	ConnectionTerminated
	ConnectionTimeout
	ConnectionReadTimeout
	ConnectionWriteTimeout
	ConnectionLimitReached
	TLSProtocolError
	TLSCertificateError
	TLSAlertReceived
	HTTPRequestDenied
	HTTPRequestLengthRequired
	HTTPRequestBodySize
	HTTPRequestMethodInvalid
	HTTPRequestURIInvalid
	HTTPRequestURITooLong
	HTTPRequestHeaderSectionSize
	HTTPRequestHeaderSize
	HTTPRequestTrailerSectionSize
	HTTPRequestTrailerSize
	HTTPResponseIncomplete
	HTTPResponseHeaderSectionSize
	HTTPResponseHeaderSize
	HTTPResponseBodySize
	HTTPResponseTrailerSectionSize
	HTTPResponseTrailerSize
	HTTPResponseTransferCoding
	HTTPResponseContentCoding
	HTTPResponseTimeout
	HTTPUpgradeFailed
	HTTPProtocolError
	LoopDetected
	ConfigurationError
	InternalError
	numErrorKinds
)

var errorKindNames = [numErrorKinds]string{
	"DNS-timeout", "DNS-error", "destination-not-found", "destination-unavailable",
	"destination-IP-prohibited", "destination-IP-unroutable", "connection-refused",
	"connection-terminated", "connection-timeout", "connection-read-timeout",
	"connection-write-timeout", "connection-limit-reached", "TLS-protocol-error",
	"TLS-certificate-error", "TLS-alert-received", "HTTP-request-denied",
	"HTTP-request-length-required", "HTTP-request-body-size", "HTTP-request-method-invalid",
	"HTTP-request-URI-invalid", "HTTP-request-URI-too-long", "HTTP-request-header-section-size",
	"HTTP-request-header-size", "HTTP-request-trailer-section-size", "HTTP-request-trailer-size",
	"HTTP-response-incomplete", "HTTP-response-header-section-size", "HTTP-response-header-size",
	"HTTP-response-body-size", "HTTP-response-trailer-section-size", "HTTP-response-trailer-size",
	"HTTP-response-transfer-coding", "HTTP-response-content-coding", "HTTP-response-timeout",
	"HTTP-upgrade-failed", "HTTP-protocol-error", "loop-detected", "configuration-error",
	"internal-error",
}

// String returns the WIT case name ("destination-IP-prohibited").
func (k ErrorKind) String() string {
	if k < numErrorKinds {
		return errorKindNames[k]
	}
	return fmt.Sprintf("error-kind(%d)", uint8(k))
}

// ErrorCode is one wasi:http error-code: its case and, for the cases that carry one, the payload
// fields that case uses (the others are ignored).
type ErrorCode struct {
	Kind ErrorKind
	// DNS-error: the response code and extended info code.
	DNSRcode    *string
	DNSInfoCode *uint16
	// TLS-alert-received: the alert number and message.
	TLSAlertID      *uint8
	TLSAlertMessage *string
	// The *-size cases over a field (header-size, trailer-size): its name and size.
	FieldName *string
	FieldSize *uint32
	// HTTP-request-body-size and HTTP-response-body-size: the size.
	BodySize *uint64
	// The *-section-size cases: the section's size.
	SectionSize *uint32
	// HTTP-response-transfer-coding, HTTP-response-content-coding: the coding; internal-error:
	// the message.
	Message *string
}

// Code returns an ErrorCode of kind k without payload.
func Code(k ErrorKind) ErrorCode { return ErrorCode{Kind: k} }

// String returns the case name and the payload that is set.
func (c ErrorCode) String() string {
	s := c.Kind.String()
	var parts []string
	add := func(name string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", name, v)) }
	if c.DNSRcode != nil {
		add("rcode", *c.DNSRcode)
	}
	if c.DNSInfoCode != nil {
		add("info-code", *c.DNSInfoCode)
	}
	if c.TLSAlertID != nil {
		add("alert-id", *c.TLSAlertID)
	}
	if c.TLSAlertMessage != nil {
		add("alert-message", *c.TLSAlertMessage)
	}
	if c.FieldName != nil {
		add("field-name", *c.FieldName)
	}
	if c.FieldSize != nil {
		add("field-size", *c.FieldSize)
	}
	if c.BodySize != nil {
		add("size", *c.BodySize)
	}
	if c.SectionSize != nil {
		add("size", *c.SectionSize)
	}
	if c.Message != nil {
		add("message", *c.Message)
	}
	if len(parts) > 0 {
		s += "(" + strings.Join(parts, ", ") + ")"
	}
	return s
}
