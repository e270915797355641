package signature

import "errors"

// Sentinel errors. Strict-mode refusals unwrap to one of the first three;
// their messages are the reference host's.
var (
	// ErrUnsignedPlugin: strict mode and the manifest lacks signature or
	// publisher_key.
	ErrUnsignedPlugin = errors.New("unsigned plugin")
	// ErrUntrustedPublisher: strict mode and the publisher key is not trusted.
	ErrUntrustedPublisher = errors.New("untrusted publisher")
	// ErrSignatureInvalid: strict mode and the signature does not verify.
	ErrSignatureInvalid = errors.New("invalid plugin signature")
	// ErrInvalidKey reports a malformed private or public key.
	ErrInvalidKey = errors.New("invalid signing key")
)
