package preview2

import (
	"net/http"
	"strings"

	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

// wasi:http/types' variants and records in Go, as generated into package bindings from the
// WIT; the short names keep the host code readable.
type (
	method           = b.Method
	scheme           = b.Scheme
	headerError      = b.HeaderError
	httpErrorCode    = b.ErrorCode
	dnsErrorPayload  = b.DNSErrorPayload
	tlsAlertPayload  = b.TLSAlertReceivedPayload
	fieldSizePayload = b.FieldSizePayload
)

// methodString returns the method's name; other(m) as given.
func methodString(m method) string {
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

// schemeString returns the scheme's name, lower-case for the two it names.
func schemeString(s scheme) string {
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
		w.TLSAlertReceived = &tlsAlertPayload{AlertId: c.TLSAlertID, AlertMessage: c.TLSAlertMessage}
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
