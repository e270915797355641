// Package signature implements ZeroClaw manifest signatures: the canonical
// bytes a signature covers, Ed25519 signing and verification, the three
// signature modes, and publisher key files.
//
// A signed manifest carries two root keys: `signature`, the base64url
// (unpadded) Ed25519 signature of [Canonicalize]'s output, and
// `publisher_key`, the lower-case hex of the 32-byte public key. The .wasm is
// not signed; registry archives are pinned by their sha256 instead.
//
//	signed, err := signature.SignManifest(text, privateKey)
//	res, err := signature.Enforce(name, signed, m.Signature, m.PublisherKey, trusted, signature.ModeStrict)
package signature

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kobako/kobako/zeroclaw/internal/errs"
)

// Mode is how a host treats unsigned and unverifiable plugins.
type Mode int

const (
	// ModeDisabled performs no check; every plugin is Unsigned. The default.
	ModeDisabled Mode = iota
	// ModePermissive loads unsigned, untrusted and invalid plugins with a
	// warning.
	ModePermissive
	// ModeStrict loads only plugins validly signed by a trusted key.
	ModeStrict
)

// String returns the mode's configuration spelling.
func (m Mode) String() string {
	switch m {
	case ModeDisabled:
		return "disabled"
	case ModePermissive:
		return "permissive"
	case ModeStrict:
		return "strict"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode maps "strict", "permissive" and "disabled" (any case) to a mode.
func ParseMode(s string) (Mode, bool) {
	switch strings.ToLower(s) {
	case "strict":
		return ModeStrict, true
	case "permissive":
		return ModePermissive, true
	case "disabled":
		return ModeDisabled, true
	}
	return ModeStrict, false
}

// ResolveMode is ParseMode failing safe: an unrecognised string is strict,
// and the returned warning says so (empty when s was recognised).
func ResolveMode(s string) (Mode, string) {
	if m, ok := ParseMode(s); ok {
		return m, ""
	}
	return ModeStrict, fmt.Sprintf("unrecognized plugins.security.signature_mode %s; failing safe to strict", strconv.Quote(s))
}

// Status is the outcome of checking one manifest's signature.
type Status int

const (
	// StatusUnsigned: signature or publisher_key is missing, or checking is
	// disabled.
	StatusUnsigned Status = iota
	// StatusValid: the signature verifies under a trusted publisher key.
	StatusValid
	// StatusUntrusted: the publisher key is not among the trusted keys (no
	// cryptography was attempted).
	StatusUntrusted
	// StatusInvalid: the key is trusted but the signature does not verify.
	StatusInvalid
)

// String names the status.
func (s Status) String() string {
	switch s {
	case StatusUnsigned:
		return "unsigned"
	case StatusValid:
		return "valid"
	case StatusUntrusted:
		return "untrusted"
	case StatusInvalid:
		return "invalid"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText makes a Status render as its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Result describes a verification.
type Result struct {
	Status Status `json:"status"`
	// PublisherKey is the trimmed, lower-cased key of a valid signature.
	PublisherKey string `json:"publisher_key,omitempty"`
	// Reason explains an invalid signature.
	Reason string `json:"reason,omitempty"`
	// Warning is set when permissive mode let a plugin through that strict
	// mode would refuse.
	Warning string `json:"warning,omitempty"`
}

// NormalizeKey trims and lower-cases a hex publisher key for comparison.
func NormalizeKey(key string) string { return strings.ToLower(strings.TrimSpace(key)) }

// Verify checks a signature as the reference does, in its order: the
// publisher key must be trusted (compared trimmed and lower-cased) before any
// cryptography; then the key is hex-decoded, the signature base64url-decoded
// (no padding) and the canonical bytes computed, any failure being Invalid;
// then Ed25519 decides Valid or Invalid.
func Verify(manifestTOML, sig, publisherKey string, trusted []string) Result {
	normalized := NormalizeKey(publisherKey)
	isTrusted := false
	for _, k := range trusted {
		if NormalizeKey(k) == normalized {
			isTrusted = true
			break
		}
	}
	if !isTrusted {
		return Result{Status: StatusUntrusted}
	}
	pub, err := decodeHexKey(publisherKey)
	if err != nil {
		return Result{Status: StatusInvalid, Reason: "invalid publisher key: " + err.Error()}
	}
	sigBytes, err := DecodeSignature(sig)
	if err != nil {
		return Result{Status: StatusInvalid, Reason: "invalid signature encoding: " + err.Error()}
	}
	canonical, err := Canonicalize(manifestTOML)
	if err != nil {
		return Result{Status: StatusInvalid, Reason: err.Error()}
	}
	if len(pub) != ed25519.PublicKeySize || len(sigBytes) != ed25519.SignatureSize ||
		!ed25519.Verify(ed25519.PublicKey(pub), canonical, sigBytes) {
		return Result{Status: StatusInvalid, Reason: "Ed25519 signature verification failed"}
	}
	return Result{Status: StatusValid, PublisherKey: normalized}
}

// Examine is Verify, except that a signature or publisher key that does not even decode is
// reported as Invalid with a "malformed" reason, not as Untrusted: the reference checks trust
// first, so `signature = "!!!"` under an unknown key would read "untrusted publisher key", which
// sends the operator after the wrong problem. Decoding needs no trust and does no cryptography.
func Examine(manifestTOML, sig, publisherKey string, trusted []string) Result {
	res := Verify(manifestTOML, sig, publisherKey, trusted)
	if res.Status != StatusUntrusted {
		return res
	}
	if _, err := DecodePublicKey(publisherKey); err != nil {
		return Result{Status: StatusInvalid, Reason: "malformed publisher_key: " + strings.TrimPrefix(err.Error(), ErrInvalidKey.Error()+": ")}
	}
	b, err := DecodeSignature(sig)
	if err != nil {
		return Result{Status: StatusInvalid, Reason: "malformed signature: " + err.Error()}
	}
	if len(b) != ed25519.SignatureSize {
		return Result{Status: StatusInvalid, Reason: fmt.Sprintf("malformed signature: %d bytes, want %d", len(b), ed25519.SignatureSize)}
	}
	return res
}

// decodeHexKey decodes the trimmed key; either case is accepted.
func decodeHexKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s)%2 != 0 {
		return nil, errors.New("hex string must have even length")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("hex decode: invalid digit found in string")
	}
	return b, nil
}

// DecodePublicKey parses a hex publisher key into an Ed25519 public key.
func DecodePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := decodeHexKey(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: publisher key is %d bytes, want %d", ErrInvalidKey, len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

var rawURL = base64.RawURLEncoding.Strict()

// DecodeSignature decodes base64url without padding, strictly: padding,
// line breaks and non-zero trailing bits are errors, as in the reference's
// decoder (Go's decoder would skip CR and LF).
func DecodeSignature(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("base64url decode error: line breaks are not allowed")
	}
	b, err := rawURL.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("base64url decode error: %v", err)
	}
	return b, nil
}

// EncodeSignature encodes a raw signature as base64url without padding.
func EncodeSignature(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }

// PublicKeyHex is the publisher_key spelling of pub: lower-case hex.
func PublicKeyHex(pub ed25519.PublicKey) string { return hex.EncodeToString(pub) }

// Sign returns the base64url signature of manifestTOML's canonical bytes.
func Sign(manifestTOML string, priv ed25519.PrivateKey) (string, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("%w: private key is %d bytes, want %d", ErrInvalidKey, len(priv), ed25519.PrivateKeySize)
	}
	canonical, err := Canonicalize(manifestTOML)
	if err != nil {
		return "", err
	}
	return EncodeSignature(ed25519.Sign(priv, canonical)), nil
}

// SignManifest returns manifestTOML signed by priv: any root `signature`
// and `publisher_key` entries are removed (with their decor, as
// canonicalisation removes them), and fresh ones are written right after the
// last root key-value, before any comment or [table] that follows, so the
// rest of the text stays exactly as written. The signed text verifies under
// the key's hex. The result keeps the text's line-ending style.
func SignManifest(manifestTOML string, priv ed25519.PrivateKey) (string, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("%w: private key is %d bytes, want %d", ErrInvalidKey, len(priv), ed25519.PrivateKeySize)
	}
	if err := checkTOML(manifestTOML); err != nil {
		return "", err
	}
	bom := ""
	text := manifestTOML
	if strings.HasPrefix(text, utf8BOM) {
		bom, text = utf8BOM, text[len(utf8BOM):]
	}
	stripped, err := removeRootSignatureFields(text)
	if err != nil {
		return "", err
	}
	sig, err := Sign(stripped, priv)
	if err != nil {
		return "", err
	}
	stmts, _, err := rootStatements(stripped)
	if err != nil {
		return "", err
	}
	at := 0
	if len(stmts) > 0 {
		at = stmts[len(stmts)-1].end
	}
	nl := "\n"
	if strings.Contains(stripped, "\r\n") {
		nl = "\r\n"
	}
	var sb strings.Builder
	sb.WriteString(bom)
	sb.WriteString(stripped[:at])
	if at > 0 && !strings.HasSuffix(stripped[:at], "\n") {
		sb.WriteString(nl)
	}
	pub := priv.Public().(ed25519.PublicKey)
	fmt.Fprintf(&sb, "signature = \"%s\"%spublisher_key = \"%s\"%s", sig, nl, PublicKeyHex(pub), nl)
	sb.WriteString(stripped[at:])
	signed := sb.String()
	if res := Verify(signed, sig, PublicKeyHex(pub), []string{PublicKeyHex(pub)}); res.Status != StatusValid {
		return "", fmt.Errorf("BUG: signature: freshly signed manifest does not verify: %s", res.Reason)
	}
	return signed, nil
}

// Enforce applies a signature mode to one manifest. sig and publisherKey are
// the manifest's fields (nil when absent; either missing means unsigned).
// Disabled returns Unsigned without looking. Permissive returns every result
// with a Warning where strict would refuse. Strict returns ErrUnsignedPlugin,
// ErrUntrustedPublisher or ErrSignatureInvalid with the reference's
// messages; a malformed signature or key is Invalid (see Examine).
func Enforce(plugin, manifestTOML string, sig, publisherKey *string, trusted []string, mode Mode) (Result, error) {
	if mode == ModeDisabled {
		return Result{Status: StatusUnsigned}, nil
	}
	if sig == nil || publisherKey == nil {
		if mode == ModeStrict {
			return Result{Status: StatusUnsigned}, errs.New(ErrUnsignedPlugin,
				"plugin '%s' is unsigned and signature verification is required", plugin)
		}
		return Result{Status: StatusUnsigned, Warning: "plugin is unsigned; loading in permissive mode"}, nil
	}
	res := Examine(manifestTOML, *sig, *publisherKey, trusted)
	switch res.Status {
	case StatusUntrusted:
		if mode == ModeStrict {
			return res, errs.New(ErrUntrustedPublisher,
				"plugin '%s' signed by untrusted publisher key '%s'", plugin, *publisherKey)
		}
		res.Warning = "plugin publisher key not trusted; loading in permissive mode"
	case StatusInvalid:
		if mode == ModeStrict {
			return res, fmt.Errorf("%w: plugin '%s': %s", ErrSignatureInvalid, plugin, res.Reason)
		}
		res.Warning = "plugin signature invalid; loading in permissive mode"
	}
	return res, nil
}
