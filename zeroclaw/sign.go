package zeroclaw

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/zeroclaw/internal/durable"
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
//
// The key is written to a temporary file beside path, flushed, and then
// linked (or, with overwrite, renamed) to path, so path never names an empty
// or partial key, even if the process is killed; a temporary file a killed
// keygen left is removed by the next keygen of the same path.
func GenerateKeyFile(path string, overwrite bool) (string, error) {
	priv, err := signature.GenerateKey()
	if err != nil {
		return "", err
	}
	pemBytes, err := signature.MarshalPrivateKey(priv)
	if err != nil {
		return "", err
	}
	// A directory is a mistaken path, not a key to protect: say so, with or without overwrite.
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%w: %s is a directory; give the path of the key file to create, such as %s", ErrKeyFile, path, filepath.Join(path, "publisher.pem"))
	}
	exists := func() error {
		return fmt.Errorf("%w: %s already exists; refusing to overwrite a key", ErrKeyFile, path)
	}
	if _, err := os.Lstat(path); err == nil && !overwrite {
		return "", exists()
	}
	dir, pattern := filepath.Dir(path), keyTempPattern(path)
	cleanTemps(dir, pattern)
	if err := step("keygen: create temp"); err != nil {
		return "", fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	// CreateTemp makes 0600 files; the chmod keeps a key private under any umask and on platforms
	// where that default differs.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if err := finishFile(tmp, path, func(w io.Writer) error { _, err := w.Write(pemBytes); return err }); err != nil {
		return "", fmt.Errorf("%w: writing %s: %w", ErrKeyFile, path, err)
	}
	if err := step("keygen: commit"); err != nil {
		return "", fmt.Errorf("%w: writing %s: %w", ErrKeyFile, path, err)
	}
	if overwrite {
		err = os.Rename(name, path)
	} else {
		// A link, unlike a rename, fails if another keygen created path meanwhile.
		err = os.Link(name, path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
				// A file system without hard links.
				err = os.Rename(name, path)
			}
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return "", exists()
	}
	if err != nil {
		return "", fmt.Errorf("%w: writing %s: %w", ErrKeyFile, path, err)
	}
	step("keygen: sync dir")
	durable.SyncDir(dir)
	return signature.PublicKeyHex(priv.Public().(ed25519.PublicKey)), nil
}

// keyTempPattern names the temporary files keygen writes before linking them to path.
func keyTempPattern(path string) string { return "." + filepath.Base(path) + ".keygen-*" }

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
	if err := writeFileAtomic(path, []byte(signed), 0o644, "."+filepath.Base(path)+".tmp-*"); err != nil {
		return nil, fmt.Errorf("zeroclaw: writing %s: %w", path, err)
	}
	_, shapeErr := manifest.ValidateShape(m, filepath.Dir(path))
	return &SignedPlugin{Manifest: m, Path: path, PublisherKey: signature.PublicKeyHex(priv.Public().(ed25519.PublicKey)), ShapeError: shapeErr}, nil
}
