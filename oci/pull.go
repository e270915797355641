package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
)

// MaxPackageBytes caps a package zip layer: subako.MaxPackageBytes, the most a package may
// decompress to, which this package cannot import (subako brings the WebAssembly engine); a test
// keeps the two equal.
const MaxPackageBytes = 256 << 20

// PullPlugin writes the files of a resolved plugin (KindPlugin) or component (KindWasm) into
// workDir, an empty directory the caller owns and removes, and returns the plugin directory in
// it: manifest.toml, the component at the manifest's wasm_path, and skills/ from the skills layer.
// A Wasm artifact takes its manifest.toml from manifestTOML, which a plugin artifact must not be
// given. Nothing is checked beyond the layers themselves (their caps, sizes and digests, the
// manifest's wasm_path, the skills zip's entries): installing the directory makes the checks
// every install makes.
func (c *Client) PullPlugin(ctx context.Context, r *Resolved, workDir string, manifestTOML []byte) (string, error) {
	a := r.Artifact
	var raw []byte
	switch {
	case a.Kind == KindWasm && manifestTOML == nil:
		return "", fmt.Errorf("%s: %w: a Wasm OCI artifact holds a component alone; give the plugin's manifest.toml beside it (--manifest FILE)", r.Ref, ErrMissingLayer)
	case a.Kind == KindWasm:
		raw = manifestTOML
	case a.Kind == KindPlugin && manifestTOML != nil:
		return "", fmt.Errorf("%s: %w: the plugin artifact carries its own manifest.toml; leave out --manifest", r.Ref, ErrManifest)
	case a.Kind == KindPlugin:
		var buf bytes.Buffer
		if err := c.Layer(ctx, r, *a.Manifest, manifest.MaxManifestBytes, &buf); err != nil {
			return "", err
		}
		raw = buf.Bytes()
	default:
		return "", fmt.Errorf("%s: %w: it holds a %s, not a plugin", r.Ref, ErrManifest, a.Kind)
	}
	m, err := manifest.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%s: manifest.toml: %w", r.Ref, err)
	}
	dir := filepath.Join(workDir, "plugin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), raw, 0o644); err != nil {
		return "", err
	}
	switch {
	case m.WasmPath != "" && a.Wasm == nil:
		return "", fmt.Errorf("%s: %w: the manifest's wasm_path is %s, but the artifact has no %s layer", r.Ref, ErrMissingLayer, m.WasmPath, MediaTypeWasm)
	case m.WasmPath == "" && a.Wasm != nil:
		return "", fmt.Errorf("%s: %w: the artifact has a component layer, but the manifest has no wasm_path to put it at", r.Ref, ErrManifest)
	case m.WasmPath != "":
		if err := manifest.ValidateSubpath("wasm_path", m.Name, m.WasmPath); err != nil {
			return "", fmt.Errorf("%s: %w", r.Ref, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(m.WasmPath))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := c.layerToFile(ctx, r, *a.Wasm, zeroclaw.MaxWasmBytes, dst); err != nil {
			return "", err
		}
	}
	if a.Skills != nil {
		if !m.HasCapability(manifest.CapabilitySkill) {
			return "", fmt.Errorf("%s: %w: the artifact has a skills layer, but the manifest does not declare the skill capability", r.Ref, ErrManifest)
		}
		zipPath := filepath.Join(workDir, "skills.zip")
		if err := c.layerToFile(ctx, r, *a.Skills, registry.MaxArchiveBytes, zipPath); err != nil {
			return "", err
		}
		if err := extractSkills(zipPath, filepath.Join(dir, manifest.SkillsDir)); err != nil {
			return "", fmt.Errorf("%s: skills layer %s: %w", r.Ref, a.Skills.Digest, err)
		}
	}
	return dir, nil
}

func extractSkills(zipPath, dst string) error {
	f, err := os.Open(zipPath)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	return registry.ExtractZip(f, fi.Size(), dst, registry.MaxExtractedBytes)
}

// layerToFile streams a layer into a new file at dst (which must not exist), removing it again
// on failure.
func (c *Client) layerToFile(ctx context.Context, r *Resolved, d Descriptor, max int64, dst string) (err error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	if err := c.Layer(ctx, r, d, max, f); err != nil {
		return err
	}
	return f.Sync()
}

// DefaultCacheDir is where Package keeps package zips: kobako/oci under os.UserCacheDir.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrCache, err)
	}
	return filepath.Join(d, "kobako", "oci"), nil
}

// Package resolves an ABI 1 package reference and returns the path of its package zip in
// cacheDir, downloading it when the cache does not hold it yet. Zips are kept by digest
// (cacheDir/blobs/sha256/HEX.zip), written to a temporary file beside their final name, flushed
// and renamed, so an interrupted download leaves no entry. A reference by digest whose manifest
// the cache holds (cacheDir/manifests/sha256/HEX.json) is served without asking the registry.
func (c *Client) Package(ctx context.Context, ref, cacheDir string) (string, *Resolved, error) {
	r, err := c.cachedPackage(ref, cacheDir)
	if err != nil {
		return "", nil, err
	}
	if r == nil {
		if r, err = c.Resolve(ctx, ref, KindPackage); err != nil {
			return "", nil, err
		}
	}
	d := *r.Artifact.Package
	path := blobPath(cacheDir, d.Digest)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == d.Size {
		return path, r, c.saveManifest(cacheDir, r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrCache, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".partial-*")
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrCache, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := c.Layer(ctx, r, d, MaxPackageBytes, tmp); err != nil {
		return "", nil, err
	}
	if err := tmp.Sync(); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrCache, err)
	}
	if err := tmp.Close(); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrCache, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrCache, err)
	}
	done = true
	return path, r, c.saveManifest(cacheDir, r)
}

func blobPath(cacheDir, digest string) string {
	return filepath.Join(cacheDir, "blobs", "sha256", strings.TrimPrefix(digest, "sha256:")+".zip")
}

func manifestPath(cacheDir, digest string) string {
	return filepath.Join(cacheDir, "manifests", "sha256", strings.TrimPrefix(digest, "sha256:")+".json")
}

// cachedPackage returns the resolved reference of a reference by digest whose manifest and zip
// the cache holds, else nil.
func (c *Client) cachedPackage(ref, cacheDir string) (*Resolved, error) {
	nr, err := parseRef(ref, c.insecure())
	if err != nil {
		return nil, err
	}
	_, hex, byDigest := strings.Cut(nr.Identifier(), "sha256:")
	if !byDigest || len(hex) != 64 {
		return nil, nil
	}
	raw, err := os.ReadFile(manifestPath(cacheDir, "sha256:"+hex))
	if err != nil || len(raw) > MaxManifestJSONBytes || sha256Hex(raw) != hex {
		return nil, nil
	}
	a, err := Classify("", raw)
	if err != nil || a.Kind != KindPackage {
		return nil, nil
	}
	fi, err := os.Stat(blobPath(cacheDir, a.Package.Digest))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != a.Package.Size {
		return nil, nil
	}
	return &Resolved{Ref: Scheme + nr.Name(), Digest: "sha256:" + hex, Artifact: a, Manifest: raw, ref: nr}, nil
}

// saveManifest records a package's manifest by digest, so that a later use of the reference by
// digest needs no registry. Only the cache's speed depends on it.
func (c *Client) saveManifest(cacheDir string, r *Resolved) error {
	path := manifestPath(cacheDir, r.Digest)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".partial-*")
	if err != nil {
		return nil
	}
	_, err = tmp.Write(r.Manifest)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		os.Remove(tmp.Name())
	}
	return nil
}
