package zeroclaw

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// MaxKeyFileBytes caps a private key file.
const MaxKeyFileBytes = 64 * 1024

// ErrKeyFile reports a key file that cannot be written or read.
var ErrKeyFile = errors.New("publisher key file")

// GenerateKeyFile creates a publisher key pair and writes the private key to
// path as PKCS#8 PEM, readable only by the owner. An existing file is kept
// unless overwrite is set. It returns the public key's hex, the value for
// publisher_key and trusted_publisher_keys.
func GenerateKeyFile(path string, overwrite bool) (string, error) {
	priv, err := signature.GenerateKey()
	if err != nil {
		return "", err
	}
	pemBytes, err := signature.MarshalPrivateKey(priv)
	if err != nil {
		return "", err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%w: %s already exists; refusing to overwrite a key", ErrKeyFile, path)
		}
		return "", fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	if _, err := f.Write(pemBytes); err != nil {
		f.Close()
		return "", fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	return signature.PublicKeyHex(priv.Public().(ed25519.PublicKey)), nil
}

// ReadKeyFile reads a private key written by GenerateKeyFile, OpenSSL
// (`openssl genpkey -algorithm ed25519`) or the reference's PKCS#8 DER.
func ReadKeyFile(path string) (ed25519.PrivateKey, error) {
	data, err := manifest.ReadCapped(path, MaxKeyFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	priv, err := signature.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return priv, nil
}

// SignedPlugin describes a manifest SignPlugin signed.
type SignedPlugin struct {
	Manifest     *manifest.Manifest
	Path         string
	PublisherKey string
	// ShapeError is set when the signed manifest still fails the shape
	// checks (signing does not fix that; install would refuse it).
	ShapeError error
}

// SignPlugin signs a plugin's manifest in place (source is the plugin
// directory or its manifest.toml): the root signature and publisher_key are
// replaced, everything else stays as written, and the file is replaced
// atomically with its mode kept.
func SignPlugin(source string, priv ed25519.PrivateKey) (*SignedPlugin, error) {
	path, err := sourceManifest(source)
	if err != nil {
		return nil, err
	}
	raw, err := manifest.ReadCapped(path, manifest.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	if _, err := manifest.Parse(raw); err != nil {
		return nil, err
	}
	signed, err := signature.SignManifest(string(raw), priv)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse([]byte(signed))
	if err != nil {
		return nil, fmt.Errorf("BUG: zeroclaw: signed manifest does not parse: %w", err)
	}
	if err := writeFileAtomic(path, []byte(signed), 0o644); err != nil {
		return nil, fmt.Errorf("zeroclaw: writing %s: %w", path, err)
	}
	_, shapeErr := manifest.ValidateShape(m, filepath.Dir(path))
	return &SignedPlugin{Manifest: m, Path: path, PublisherKey: signature.PublicKeyHex(priv.Public().(ed25519.PublicKey)), ShapeError: shapeErr}, nil
}
