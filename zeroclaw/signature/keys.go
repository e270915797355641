package signature

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
)

// pemType is the PEM block type of a PKCS#8 private key.
const pemType = "PRIVATE KEY"

// GenerateKey creates a new Ed25519 publisher key pair from crypto/rand.
func GenerateKey() (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("signature: generate key: %w", err)
	}
	return priv, nil
}

// MarshalPrivateKey encodes priv as a PKCS#8 "PRIVATE KEY" PEM block, the
// format `openssl genpkey -algorithm ed25519` writes.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), nil
}

// oidEd25519 is id-Ed25519 (RFC 8410).
var oidEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}

// oneAsymmetricKey is RFC 5958's PKCS#8 v2 structure, which ring (the
// reference host's crypto library) writes: v1 plus an optional public key.
type oneAsymmetricKey struct {
	Version    int
	Algorithm  pkix.AlgorithmIdentifier
	PrivateKey []byte
	Attributes asn1.RawValue  `asn1:"optional,tag:0"`
	PublicKey  asn1.BitString `asn1:"optional,tag:1"`
}

// ParsePrivateKey reads an Ed25519 private key from a PKCS#8 PEM block or
// raw PKCS#8 DER, either v1 (Go, OpenSSL) or v2 with the public key
// included (ring, which the reference's key generator uses). A v2 public key
// must match the private key.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	der := data
	if block, _ := pem.Decode(data); block != nil {
		if block.Type != pemType {
			return nil, fmt.Errorf("%w: PEM block is %q, want %q", ErrInvalidKey, block.Type, pemType)
		}
		der = block.Bytes
	}
	var k oneAsymmetricKey
	if rest, err := asn1.Unmarshal(der, &k); err != nil || len(rest) != 0 || !k.Algorithm.Algorithm.Equal(oidEd25519) {
		// Not Ed25519 PKCS#8; let x509 say what it is.
		key, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return nil, fmt.Errorf("%w: not a PKCS#8 Ed25519 private key", ErrInvalidKey)
		}
		return nil, fmt.Errorf("%w: key is %T, want an Ed25519 key", ErrInvalidKey, key)
	}
	var seed []byte
	if _, err := asn1.Unmarshal(k.PrivateKey, &seed); err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: malformed Ed25519 private key", ErrInvalidKey)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if len(k.PublicKey.Bytes) > 0 && !bytes.Equal(k.PublicKey.Bytes, priv.Public().(ed25519.PublicKey)) {
		return nil, fmt.Errorf("%w: embedded public key does not match the private key", ErrInvalidKey)
	}
	return priv, nil
}
