package oci

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
)

// annotationTitle names a layer's file, as ORAS and other OCI tools read it.
const annotationTitle = "org.opencontainers.image.title"

// blob is a layer or config to push: bytes in memory, or a file read again when it is uploaded.
type blob struct {
	mediaType string
	title     string
	data      []byte
	path      string
	size      int64
	max       int64 // a file's cap
	digest    v1.Hash
}

func memBlob(mediaType, title string, b []byte) *blob {
	sum := sha256.Sum256(b)
	return &blob{mediaType: mediaType, title: title, data: b, size: int64(len(b)),
		digest: v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}}
}

// fileBlob hashes the regular file at path, refusing one over max.
func fileBlob(mediaType, title, path string, max int64) (*blob, error) {
	h := sha256.New()
	n, err := boundedfile.Copy(h, path, max)
	if errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	if err != nil {
		return nil, err
	}
	return &blob{mediaType: mediaType, title: title, path: path, size: n, max: max,
		digest: v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(h.Sum(nil))}}, nil
}

func (b *blob) Digest() (v1.Hash, error)            { return b.digest, nil }
func (b *blob) Size() (int64, error)                { return b.size, nil }
func (b *blob) MediaType() (types.MediaType, error) { return types.MediaType(b.mediaType), nil }
func (b *blob) Compressed() (io.ReadCloser, error) {
	if b.path == "" {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	f, err := boundedfile.Open(b.path, b.max)
	if err != nil {
		return nil, err
	}
	// The file may have changed since it was hashed; the registry checks the digest on upload.
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, b.size), f}, nil
}

func (b *blob) descriptor() Descriptor {
	d := Descriptor{MediaType: b.mediaType, Digest: b.digest.String(), Size: b.size}
	if b.title != "" {
		d.Annotations = map[string]string{annotationTitle: b.title}
	}
	return d
}

// rawManifest is a manifest to push as it is.
type rawManifest struct {
	b []byte
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.b, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return mediaTypeOCIManifest, nil }

// push uploads the blobs and then the manifest naming them, and returns the manifest's digest.
func (c *Client) push(ctx context.Context, ref string, config *blob, layers []*blob) (string, error) {
	r, err := parseRef(ref, c.insecure())
	if err != nil {
		return "", err
	}
	if _, ok := r.(name.Tag); !ok {
		return "", fmt.Errorf("%w: %q: push to a tag (oci://REGISTRY/REPOSITORY:TAG); the digest is printed after the push", ErrReference, ref)
	}
	p, err := c.getPusher()
	if err != nil {
		return "", err
	}
	m := struct {
		SchemaVersion int          `json:"schemaVersion"`
		MediaType     string       `json:"mediaType"`
		Config        Descriptor   `json:"config"`
		Layers        []Descriptor `json:"layers"`
	}{SchemaVersion: 2, MediaType: mediaTypeOCIManifest, Config: config.descriptor(), Layers: []Descriptor{}}
	for _, b := range append([]*blob{config}, layers...) {
		l, err := partial.CompressedToLayer(b)
		if err != nil {
			return "", err
		}
		if err := p.Upload(ctx, r.Context(), l); err != nil {
			return "", c.wrap(ref, "uploading "+b.digest.String()+" ("+b.mediaType+")", err)
		}
		if b != config {
			m.Layers = append(m.Layers, b.descriptor())
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	if err := p.Push(ctx, r, rawManifest{raw}); err != nil {
		return "", c.wrap(ref, "pushing the manifest", err)
	}
	return "sha256:" + sha256Hex(raw), nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PushPlugin pushes the plugin in dir (its manifest.toml, its component and, for a skill plugin,
// its skills/ directory) as a ZeroClaw plugin artifact to ref, a tag, and returns the manifest's
// digest. The same directory gives the same digest: the skills zip has fixed times and sorted
// entries, and the manifest holds no time. It reads the files as they are; check the plugin first
// (zeroclaw.Inspect), as `kobako plugin push` does.
func (c *Client) PushPlugin(ctx context.Context, ref, dir string) (string, error) {
	m, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return "", err
	}
	cfg, err := json.Marshal(map[string]any{"name": m.Name, "version": m.Version, "capabilities": m.Capabilities})
	if err != nil {
		return "", err
	}
	layers := []*blob{memBlob(MediaTypePluginManifest, manifest.FileName, m.Raw)}
	if m.WasmPath != "" {
		if err := manifest.ValidateSubpath("wasm_path", m.Name, m.WasmPath); err != nil {
			return "", err
		}
		b, err := fileBlob(MediaTypeWasm, m.WasmPath, filepath.Join(dir, filepath.FromSlash(m.WasmPath)), zeroclaw.MaxWasmBytes)
		if err != nil {
			return "", err
		}
		layers = append(layers, b)
	}
	skills := filepath.Join(dir, manifest.SkillsDir)
	if fi, err := os.Stat(skills); err == nil && fi.IsDir() && m.HasCapability(manifest.CapabilitySkill) {
		z, err := zipTree(skills, registry.MaxArchiveBytes)
		if err != nil {
			return "", fmt.Errorf("skills: %w", err)
		}
		layers = append(layers, memBlob(MediaTypePluginSkills, "skills.zip", z))
	}
	return c.push(ctx, ref, memBlob(MediaTypePluginConfig, "", cfg), layers)
}

// PushPackage pushes the package zip at zipPath (as `kobako function pack` writes it) as an ABI 1
// package artifact to ref, a tag, and returns the manifest's digest. name and abi go into the
// config. Check the zip first (subako's Runtime.Load), as `kobako function push` does.
func (c *Client) PushPackage(ctx context.Context, ref, zipPath, name string, abi int) (string, error) {
	b, err := fileBlob(MediaTypePackage, filepath.Base(zipPath), zipPath, MaxPackageBytes)
	if err != nil {
		return "", err
	}
	cfg, err := json.Marshal(map[string]any{"name": name, "abi": abi})
	if err != nil {
		return "", err
	}
	return c.push(ctx, ref, memBlob(MediaTypePackageConfig, "", cfg), []*blob{b})
}

// zipTree zips the regular files under root (symbolic links and special files are left out, as
// installs copy skills) with sorted names and fixed times, refusing more than max bytes.
func zipTree(root string, max int64) ([]byte, error) {
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	fixed := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: fixed})
		if err != nil {
			return nil, err
		}
		// Each file is capped too, not only the zip: a compressible file over the cap would
		// otherwise go in cut at max+1 bytes, under the cap once deflated.
		_, err = boundedfile.Copy(w, filepath.Join(root, filepath.FromSlash(n)), max)
		if errors.Is(err, boundedfile.ErrTooLarge) {
			return nil, fmt.Errorf("%w: %w", ErrTooLarge, err)
		}
		if err != nil {
			return nil, err
		}
		if int64(buf.Len()) > max {
			return nil, fmt.Errorf("%w: the skills zip is larger than %d bytes", ErrTooLarge, max)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%w: the skills zip is larger than %d bytes", ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}
