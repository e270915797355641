package zeroclaw

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
)

// RegistryOptions say where and how registry installs fetch.
type RegistryOptions struct {
	// Location is the index: an http(s) URL, file:// URL or path. Empty
	// means registry.Location("", nil).
	Location string
	// Fetcher performs the requests; nil uses the default client.
	Fetcher *registry.Fetcher
	// Progress, when set, is told how much of the archive has arrived.
	Progress registry.Progress
	// TempDir holds the download and extraction; empty means os.TempDir().
	TempDir string
}

func (o RegistryOptions) location() string {
	if o.Location != "" {
		return o.Location
	}
	return registry.Location("", nil)
}

// FetchIndex reads the registry index the options name.
func FetchIndex(ctx context.Context, o RegistryOptions) (*registry.Index, error) {
	return o.Fetcher.FetchIndex(ctx, o.location())
}

// InstallResult describes a completed install.
type InstallResult struct {
	Plugin *Plugin
	// Entry is the registry entry for registry installs.
	Entry *registry.Entry
}

// InstallSource installs a local plugin (see IsLocalSource) or a registry
// entry ("name" or "name@version"). A URL is refused, as in the reference:
// registries are chosen with RegistryOptions.Location.
func (h *Host) InstallSource(ctx context.Context, source string, o RegistryOptions) (*InstallResult, error) {
	return h.installSource(ctx, source, o, false)
}

// UpdateSource replaces an installed plugin with the one at source, any source InstallSource
// takes, as Update does: the checks of an install, then the new version swapped in at once.
func (h *Host) UpdateSource(ctx context.Context, source string, o RegistryOptions) (*InstallResult, error) {
	return h.installSource(ctx, source, o, true)
}

func (h *Host) installSource(ctx context.Context, source string, o RegistryOptions, replace bool) (*InstallResult, error) {
	if registry.IsURL(source) {
		return nil, fmt.Errorf("%w: installing from a URL is not supported; use --registry <url> with a plugin name, or install a local plugin path", ErrUnsupportedSource)
	}
	if IsLocalSource(source) {
		if isZipFile(source) {
			return h.installZip(source, o.TempDir, replace)
		}
		p, err := h.install(source, replace)
		if err != nil {
			return nil, err
		}
		return &InstallResult{Plugin: p}, nil
	}
	return h.installFromRegistry(ctx, source, o, replace)
}

// InstallFromRegistry resolves spec ("name" takes the last matching entry,
// "name@version" that version) in the index, downloads the archive (capped
// at registry.MaxArchiveBytes while streaming, sha256 verified when
// pinned), extracts it safely (capped at registry.MaxExtractedBytes), finds
// its single manifest.toml, requires the manifest's name and version to be
// the entry's, and installs the directory like a local plugin. The download
// and extraction live in a temporary directory that is always removed.
func (h *Host) InstallFromRegistry(ctx context.Context, spec string, o RegistryOptions) (*InstallResult, error) {
	return h.installFromRegistry(ctx, spec, o, false)
}

func (h *Host) installFromRegistry(ctx context.Context, spec string, o RegistryOptions, replace bool) (*InstallResult, error) {
	ix, err := FetchIndex(ctx, o)
	if err != nil {
		return nil, err
	}
	s, err := registry.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	entry, err := ix.Resolve(s)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(o.TempDir, "kobako-plugin-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	defer os.RemoveAll(tmp)
	archivePath := filepath.Join(tmp, "archive.zip")
	archive, err := os.OpenFile(archivePath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	defer archive.Close()
	size, err := o.Fetcher.Download(ctx, entry, ix.Base, archive, o.Progress)
	if err != nil {
		return nil, err
	}
	extractDir := filepath.Join(tmp, "plugin")
	if err := os.Mkdir(extractDir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	if err := registry.ExtractZip(archive, size, extractDir, registry.MaxExtractedBytes); err != nil {
		return nil, err
	}
	dir, err := registry.FindManifestDir(extractDir)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return nil, err
	}
	if err := registry.CheckIdentity(entry, m.Name, m.Version); err != nil {
		return nil, err
	}
	p, err := h.install(dir, replace)
	if err != nil {
		return nil, err
	}
	return &InstallResult{Plugin: p, Entry: &entry}, nil
}

// isZipFile reports whether path is a regular file that starts like a zip archive.
func isZipFile(path string) bool {
	expanded, err := ExpandHome(path)
	if err != nil {
		return false
	}
	// A FIFO given as the source must not block the probe at its open.
	f, err := boundedfile.Open(expanded, math.MaxInt64)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	return n == 4 && string(head[:]) == "PK\x03\x04"
}

// InstallZip installs a plugin from a local zip archive exactly as a registry archive is
// installed once downloaded: extracted safely (entry names checked, symbolic links refused,
// capped at registry.MaxExtractedBytes) into a temporary directory under tempDir (os.TempDir()
// when empty) that is always removed, its single manifest.toml found, and that directory
// installed like a local plugin.
func (h *Host) InstallZip(path, tempDir string) (*InstallResult, error) {
	return h.installZip(path, tempDir, false)
}

func (h *Host) installZip(path, tempDir string, replace bool) (*InstallResult, error) {
	expanded, err := ExpandHome(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(expanded)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	tmp, err := os.MkdirTemp(tempDir, "kobako-plugin-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	defer os.RemoveAll(tmp)
	if err := registry.ExtractZip(f, fi.Size(), tmp, registry.MaxExtractedBytes); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := registry.FindManifestDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := h.install(dir, replace)
	if err != nil {
		return nil, err
	}
	return &InstallResult{Plugin: p}, nil
}
