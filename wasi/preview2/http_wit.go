package preview2

import (
	"net/http"
	"strings"
)

// The Go shapes of wasi:http/types' variants and records, for package abi's typed mapping.

// method is wasi:http's method variant.
type method struct {
	Get     bool    `wit:"get"`
	Head    bool    `wit:"head"`
	Post    bool    `wit:"post"`
	Put     bool    `wit:"put"`
	Delete  bool    `wit:"delete"`
	Connect bool    `wit:"connect"`
	Options bool    `wit:"options"`
	Trace   bool    `wit:"trace"`
	Patch   bool    `wit:"patch"`
	Other   *string `wit:"other"`
}

// methodString returns the method's name; other(m) as given.
func (m method) String() string {
	switch {
	case m.Get:
		return http.MethodGet
	case m.Head:
		return http.MethodHead
	case m.Post:
		return http.MethodPost
	case m.Put:
		return http.MethodPut
	case m.Delete:
		return http.MethodDelete
	case m.Connect:
		return http.MethodConnect
	case m.Options:
		return http.MethodOptions
	case m.Trace:
		return http.MethodTrace
	case m.Patch:
		return http.MethodPatch
	case m.Other != nil:
		return *m.Other
	}
	return http.MethodGet
}

// scheme is wasi:http's scheme variant.
type scheme struct {
	HTTP  bool    `wit:"HTTP"`
	HTTPS bool    `wit:"HTTPS"`
	Other *string `wit:"other"`
}

func (s scheme) String() string {
	switch {
	case s.HTTP:
		return "http"
	case s.HTTPS:
		return "https"
	case s.Other != nil:
		return *s.Other
	}
	return "https"
}

// headerError is wasi:http's header-error variant.
type headerError struct {
	InvalidSyntax bool `wit:"invalid-syntax"`
	Forbidden     bool `wit:"forbidden"`
	Immutable     bool `wit:"immutable"`
}

type dnsErrorPayload struct {
	Rcode    *string `wit:"rcode"`
	InfoCode *uint16 `wit:"info-code"`
}

type tlsAlertPayload struct {
	AlertID      *uint8  `wit:"alert-id"`
	AlertMessage *string `wit:"alert-message"`
}

type fieldSizePayload struct {
	FieldName *string `wit:"field-name"`
	FieldSize *uint32 `wit:"field-size"`
}

// httpErrorCode is wasi:http's error-code variant.
type httpErrorCode struct {
	DNSTimeout                     bool               `wit:"DNS-timeout"`
	DNSError                       *dnsErrorPayload   `wit:"DNS-error"`
	DestinationNotFound            bool               `wit:"destination-not-found"`
	DestinationUnavailable         bool               `wit:"destination-unavailable"`
	DestinationIPProhibited        bool               `wit:"destination-IP-prohibited"`
	DestinationIPUnroutable        bool               `wit:"destination-IP-unroutable"`
	ConnectionRefused              bool               `wit:"connection-refused"`
	ConnectionTerminated           bool               `wit:"connection-terminated"`
	ConnectionTimeout              bool               `wit:"connection-timeout"`
	ConnectionReadTimeout          bool               `wit:"connection-read-timeout"`
	ConnectionWriteTimeout         bool               `wit:"connection-write-timeout"`
	ConnectionLimitReached         bool               `wit:"connection-limit-reached"`
	TLSProtocolError               bool               `wit:"TLS-protocol-error"`
	TLSCertificateError            bool               `wit:"TLS-certificate-error"`
	TLSAlertReceived               *tlsAlertPayload   `wit:"TLS-alert-received"`
	HTTPRequestDenied              bool               `wit:"HTTP-request-denied"`
	HTTPRequestLengthRequired      bool               `wit:"HTTP-request-length-required"`
	HTTPRequestBodySize            **uint64           `wit:"HTTP-request-body-size"`
	HTTPRequestMethodInvalid       bool               `wit:"HTTP-request-method-invalid"`
	HTTPRequestURIInvalid          bool               `wit:"HTTP-request-URI-invalid"`
	HTTPRequestURITooLong          bool               `wit:"HTTP-request-URI-too-long"`
	HTTPRequestHeaderSectionSize   **uint32           `wit:"HTTP-request-header-section-size"`
	HTTPRequestHeaderSize          **fieldSizePayload `wit:"HTTP-request-header-size"`
	HTTPRequestTrailerSectionSize  **uint32           `wit:"HTTP-request-trailer-section-size"`
	HTTPRequestTrailerSize         *fieldSizePayload  `wit:"HTTP-request-trailer-size"`
	HTTPResponseIncomplete         bool               `wit:"HTTP-response-incomplete"`
	HTTPResponseHeaderSectionSize  **uint32           `wit:"HTTP-response-header-section-size"`
	HTTPResponseHeaderSize         *fieldSizePayload  `wit:"HTTP-response-header-size"`
	HTTPResponseBodySize           **uint64           `wit:"HTTP-response-body-size"`
	HTTPResponseTrailerSectionSize **uint32           `wit:"HTTP-response-trailer-section-size"`
	HTTPResponseTrailerSize        *fieldSizePayload  `wit:"HTTP-response-trailer-size"`
	HTTPResponseTransferCoding     **string           `wit:"HTTP-response-transfer-coding"`
	HTTPResponseContentCoding      **string           `wit:"HTTP-response-content-coding"`
	HTTPResponseTimeout            bool               `wit:"HTTP-response-timeout"`
	HTTPUpgradeFailed              bool               `wit:"HTTP-upgrade-failed"`
	HTTPProtocolError              bool               `wit:"HTTP-protocol-error"`
	LoopDetected                   bool               `wit:"loop-detected"`
	ConfigurationError             bool               `wit:"configuration-error"`
	InternalError                  **string           `wit:"internal-error"`
}

// toWIT converts c to the variant the guest receives; an unknown Kind becomes internal-error.
func (c ErrorCode) toWIT() httpErrorCode {
	var w httpErrorCode
	fs := func() *fieldSizePayload { return &fieldSizePayload{FieldName: c.FieldName, FieldSize: c.FieldSize} }
	switch c.Kind {
	case DNSTimeout:
		w.DNSTimeout = true
	case DNSError:
		w.DNSError = &dnsErrorPayload{Rcode: c.DNSRcode, InfoCode: c.DNSInfoCode}
	case DestinationNotFound:
		w.DestinationNotFound = true
	case DestinationUnavailable:
		w.DestinationUnavailable = true
	case DestinationIPProhibited:
		w.DestinationIPProhibited = true
	case DestinationIPUnroutable:
		w.DestinationIPUnroutable = true
	case ConnectionRefused:
		w.ConnectionRefused = true
	case ConnectionTerminated:
		w.ConnectionTerminated = true
	case ConnectionTimeout:
		w.ConnectionTimeout = true
	case ConnectionReadTimeout:
		w.ConnectionReadTimeout = true
	case ConnectionWriteTimeout:
		w.ConnectionWriteTimeout = true
	case ConnectionLimitReached:
		w.ConnectionLimitReached = true
	case TLSProtocolError:
		w.TLSProtocolError = true
	case TLSCertificateError:
		w.TLSCertificateError = true
	case TLSAlertReceived:
		w.TLSAlertReceived = &tlsAlertPayload{AlertID: c.TLSAlertID, AlertMessage: c.TLSAlertMessage}
	case HTTPRequestDenied:
		w.HTTPRequestDenied = true
	case HTTPRequestLengthRequired:
		w.HTTPRequestLengthRequired = true
	case HTTPRequestBodySize:
		w.HTTPRequestBodySize = &c.BodySize
	case HTTPRequestMethodInvalid:
		w.HTTPRequestMethodInvalid = true
	case HTTPRequestURIInvalid:
		w.HTTPRequestURIInvalid = true
	case HTTPRequestURITooLong:
		w.HTTPRequestURITooLong = true
	case HTTPRequestHeaderSectionSize:
		w.HTTPRequestHeaderSectionSize = &c.SectionSize
	case HTTPRequestHeaderSize:
		var p *fieldSizePayload
		if c.FieldName != nil || c.FieldSize != nil {
			p = fs()
		}
		w.HTTPRequestHeaderSize = &p
	case HTTPRequestTrailerSectionSize:
		w.HTTPRequestTrailerSectionSize = &c.SectionSize
	case HTTPRequestTrailerSize:
		w.HTTPRequestTrailerSize = fs()
	case HTTPResponseIncomplete:
		w.HTTPResponseIncomplete = true
	case HTTPResponseHeaderSectionSize:
		w.HTTPResponseHeaderSectionSize = &c.SectionSize
	case HTTPResponseHeaderSize:
		w.HTTPResponseHeaderSize = fs()
	case HTTPResponseBodySize:
		w.HTTPResponseBodySize = &c.BodySize
	case HTTPResponseTrailerSectionSize:
		w.HTTPResponseTrailerSectionSize = &c.SectionSize
	case HTTPResponseTrailerSize:
		w.HTTPResponseTrailerSize = fs()
	case HTTPResponseTransferCoding:
		w.HTTPResponseTransferCoding = &c.Message
	case HTTPResponseContentCoding:
		w.HTTPResponseContentCoding = &c.Message
	case HTTPResponseTimeout:
		w.HTTPResponseTimeout = true
	case HTTPUpgradeFailed:
		w.HTTPUpgradeFailed = true
	case HTTPProtocolError:
		w.HTTPProtocolError = true
	case LoopDetected:
		w.LoopDetected = true
	case ConfigurationError:
		w.ConfigurationError = true
	default:
		msg := c.Message
		if c.Kind != InternalError {
			s := "unknown error kind " + c.Kind.String()
			msg = &s
		}
		w.InternalError = &msg
	}
	return w
}

// fieldEntry is one (field-name, field-value) tuple.
type fieldEntry struct {
	Name  string
	Value []byte
}

// lowerASCII lower-cases an ASCII token without allocating when it is lower-case already.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
