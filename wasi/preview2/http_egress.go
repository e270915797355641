package preview2

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"

	"github.com/kobako/kobako/egress"
)

// HTTPSender is egress.Sender, the one sender type of both plugin protocols. The alias remains
// for callers that still spell the hook from this package (zeroclaw/runner); new code names
// egress.Sender.
type HTTPSender = egress.Sender

// RequestOptions is egress.SendOptions, kept as HTTPSender is; a wasi:http request fills in the
// guest's request-options (ConnectTimeout, FirstByteTimeout, BetweenBytesTimeout) and leaves the
// rest zero.
type RequestOptions = egress.SendOptions

// egressCode returns the error-code that answers the guest for an egress failure, choosing by
// the error's Reason as wasmtime-wasi-http's default sender chooses by hyper's and rustls's
// errors; ok is false when err carries no *egress.Error.
func egressCode(err error) (ErrorCode, bool) {
	var ee *egress.Error
	if !errors.As(err, &ee) || !ee.Reason.Valid() {
		return ErrorCode{}, false
	}
	switch ee.Reason {
	case egress.ReasonHostNotAllowed, egress.ReasonDenied, egress.ReasonPlainHTTP,
		egress.ReasonCredentialHeader, egress.ReasonCredentialUnavailable:
		return Code(HTTPRequestDenied), true
	case egress.ReasonAddress, egress.ReasonLocalhost:
		return Code(DestinationIPProhibited), true
	case egress.ReasonTooManyRedirects:
		return Code(LoopDetected), true
	case egress.ReasonBodyTooLarge:
		c := Code(HTTPResponseBodySize)
		if ee.Limit > 0 {
			n := uint64(ee.Limit)
			c.BodySize = &n
		}
		return c, true
	case egress.ReasonTimeout:
		return Code(HTTPResponseTimeout), true
	case egress.ReasonConnectTimeout:
		return Code(ConnectionTimeout), true
	case egress.ReasonFirstByteTimeout, egress.ReasonBetweenBytesTimeout, egress.ReasonBodyTimeout:
		return Code(ConnectionReadTimeout), true
	case egress.ReasonMethod:
		return Code(HTTPRequestMethodInvalid), true
	case egress.ReasonURLTooLong:
		return Code(HTTPRequestURITooLong), true
	case egress.ReasonURL:
		return Code(HTTPRequestURIInvalid), true
	case egress.ReasonHeaderTooLarge:
		return Code(HTTPRequestHeaderSectionSize), true
	case egress.ReasonRequest, egress.ReasonHeader, egress.ReasonBody, egress.ReasonProtocol:
		return Code(HTTPProtocolError), true
	case egress.ReasonResponseHeaderTooLarge:
		return Code(HTTPResponseHeaderSectionSize), true
	case egress.ReasonDNS:
		return dnsCode(err), true
	case egress.ReasonTLS:
		return tlsCode(err), true
	case egress.ReasonConnect, egress.ReasonIncomplete, egress.ReasonCancelled, egress.ReasonConnection:
		return connectionCode(err, ee.Reason), true
	}
	// Caller-side reasons (not_text, write_budget, bad_path, abi) belong to subako_http.
	msg := ee.Error()
	return ErrorCode{Kind: InternalError, Message: &msg}, true
}

func dnsCode(err error) ErrorCode {
	c := Code(DNSError)
	rcode := "address not available"
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		rcode = "NXDOMAIN"
	}
	var info uint16
	c.DNSRcode, c.DNSInfoCode = &rcode, &info
	return c
}

func tlsCode(err error) ErrorCode {
	var alert tls.AlertError
	if errors.As(err, &alert) {
		c := Code(TLSAlertReceived)
		id, msg := uint8(alert), alert.Error()
		c.TLSAlertID, c.TLSAlertMessage = &id, &msg
		return c
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidCert) {
		return Code(TLSCertificateError)
	}
	return Code(TLSProtocolError)
}

// connectionCode tells the connection failures apart by the system error underneath, where
// there is one.
func connectionCode(err error, r egress.Reason) ErrorCode {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return Code(ConnectionRefused)
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return Code(DestinationUnavailable)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return Code(ConnectionTerminated)
	case r == egress.ReasonIncomplete:
		return Code(HTTPResponseIncomplete)
	}
	return Code(ConnectionTerminated)
}
