package subako

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/wire"
)

// File names inside a package.
const (
	ManifestFile = wire.ManifestFile
	ModuleFile   = "module.wasm"
	AssetsDir    = "assets"
)

// Caps on what a package may hold, so that a hostile upload cannot make the host read without end.
const (
	MaxManifestBytes = 64 << 10
	MaxModuleBytes   = 64 << 20
	// MaxDescriptionChars bounds the manifest description, as it does a tool's.
	MaxDescriptionChars = 1024
	// MaxNameBytes bounds the manifest name.
	MaxNameBytes = 128
)

// ABI is the only function ABI this package speaks: MCP 2026-07-28 over stdio.
const ABI = wire.ABI

// ProtocolVersion is the MCP revision of ABI 1.
const ProtocolVersion = wire.ProtocolVersion

// Manifest is subako-package.json (wire.Manifest). Fields other than these three are ignored: ABI
// 1 defines none, and tools come from tools/list, not from the manifest.
type Manifest = wire.Manifest

// ParseManifest decodes and checks subako-package.json: a JSON object whose "abi" is 1, whose
// "name" is a non-empty string of at most MaxNameBytes printable characters, and whose optional
// "description" is at most MaxDescriptionChars characters.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	if len(b) > MaxManifestBytes {
		return m, fmt.Errorf("subako: manifest: %w: %s is %d bytes, more than %d", ErrManifest, ManifestFile, len(b), MaxManifestBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return m, fmt.Errorf("subako: manifest: %w: %s: %v", ErrManifest, ManifestFile, err)
	}
	abi, ok := raw["abi"]
	if !ok {
		return m, fmt.Errorf("subako: manifest: %w: %s has no \"abi\"", ErrManifest, ManifestFile)
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(abi))
	d.UseNumber()
	if err := d.Decode(&n); err != nil || abi[0] == '"' {
		return m, fmt.Errorf("subako: manifest: %w: \"abi\" must be a number, found %s", ErrManifest, abi)
	}
	if n.String() != "1" {
		return m, fmt.Errorf("subako: manifest: %w: \"abi\" is %s; this host speaks ABI 1 only", ErrManifest, n)
	}
	m.ABI = ABI
	if err := stringField(raw, "name", &m.Name, true); err != nil {
		return m, err
	}
	if err := stringField(raw, "description", &m.Description, false); err != nil {
		return m, err
	}
	if len(m.Name) > MaxNameBytes {
		return m, fmt.Errorf("subako: manifest: %w: \"name\" is %d bytes, more than %d", ErrManifest, len(m.Name), MaxNameBytes)
	}
	for _, r := range m.Name {
		if !unicode.IsPrint(r) {
			return m, fmt.Errorf("subako: manifest: %w: \"name\" holds the unprintable character %U", ErrManifest, r)
		}
	}
	if c := utf8.RuneCountInString(m.Description); c > MaxDescriptionChars {
		return m, fmt.Errorf("subako: manifest: %w: \"description\" is %d characters, more than %d", ErrManifest, c, MaxDescriptionChars)
	}
	return m, nil
}

func stringField(raw map[string]json.RawMessage, key string, dst *string, required bool) error {
	v, ok := raw[key]
	if !ok {
		if required {
			return fmt.Errorf("subako: manifest: %w: %s has no %q", ErrManifest, ManifestFile, key)
		}
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil || (required && *dst == "") || bytes.Equal(v, []byte("null")) {
		return fmt.Errorf("subako: manifest: %w: %q must be a non-empty string, found %s", ErrManifest, key, v)
	}
	return nil
}

// Config configures a Runtime. The zero value is ready to use.
type Config struct {
	// Engine compiles and runs modules; nil means a new engine.Engine owned by the Runtime.
	Engine *engine.Engine
	// HTTPClient performs subako_http requests; nil means egress.NewClient(egress.Options{}),
	// which refuses loopback and every other private or reserved address.
	HTTPClient *egress.Client
	// ClientVersion is the version sent in each request's clientInfo; empty means "dev".
	ClientVersion string
	// DiscoveryLimits bound discovery runs; the zero value means DefaultCallLimits with
	// DiscoveryDeadline (10 s, as ABI 1 requires of uploads).
	DiscoveryLimits engine.Limits
}

// Runtime loads ABI 1 packages and runs them. It is safe for concurrent use.
type Runtime struct {
	eng       *engine.Engine
	ownEngine bool
	client    *egress.Client
	version   string
	discovery engine.Limits
	// meta is the _meta object of every request, encoded once: it depends only on version.
	meta json.RawMessage
}

// New returns a Runtime configured by cfg.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	r := &Runtime{eng: cfg.Engine, client: cfg.HTTPClient, version: cfg.ClientVersion, discovery: cfg.DiscoveryLimits}
	if r.discovery == (engine.Limits{}) {
		r.discovery = DefaultCallLimits()
		r.discovery.Deadline = DiscoveryDeadline
	}
	var err error
	if r.meta, err = json.Marshal(requestMeta(r.version)); err != nil {
		return nil, fmt.Errorf("subako: new runtime: BUG: request _meta: %w", err)
	}
	if err := r.discovery.Validate(); err != nil {
		return nil, fmt.Errorf("subako: new runtime: %w: discovery limits: %v", ErrOptions, err)
	}
	if r.eng == nil {
		e, err := engine.New(ctx, engine.Config{})
		if err != nil {
			return nil, fmt.Errorf("subako: new runtime: %w", err)
		}
		r.eng, r.ownEngine = e, true
	}
	if r.client == nil {
		r.client = egress.NewClient(egress.Options{})
	}
	if r.version == "" {
		r.version = "dev"
	}
	return r, nil
}

// Close releases the engine if the Runtime created it. Packages of the Runtime cannot be called
// afterwards.
func (r *Runtime) Close(ctx context.Context) error {
	if r.ownEngine {
		return r.eng.Close(ctx)
	}
	return nil
}

// Package is a loaded, validated and compiled ABI 1 package. Its methods are safe for
// concurrent use; each call runs in a fresh instance of the module compiled once at load.
type Package struct {
	// Manifest is the package's subako-package.json.
	Manifest Manifest

	rt     *Runtime
	wasm   []byte
	mod    *engine.Module
	assets fs.FS // nil without assets/
	closer io.Closer
	args   []string // argv of every run, the package name alone; shared, never changed

	mu    sync.Mutex
	tools []Tool // set by Discover
}

// Load loads the package at path: a directory, or a zip file of one (see LoadZip). A directory is
// read through an os.Root, so symbolic links cannot lead the package outside it; it stays open
// until Package.Close, because its assets are served from it.
func (r *Runtime) Load(ctx context.Context, path string) (*Package, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("subako: load: %w: %v", ErrPackage, err)
	}
	if !fi.IsDir() {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("subako: load: %w: %v", ErrPackage, err)
		}
		defer f.Close()
		var head [8]byte
		if n, _ := f.ReadAt(head[:], 0); n == 8 && string(head[:4]) == "\x00asm" {
			kind := "core module"
			if head[4] != 1 || head[6] != 0 {
				kind = "component" // version 0x0d, layer 1
			}
			return nil, fmt.Errorf("subako: load: %w: %s is a WebAssembly %s, not a function package: a package is a directory (or a zip of one) holding %s and %s (its module)", ErrPackage, filepath.Base(path), kind, ManifestFile, ModuleFile)
		}
		return r.LoadZip(ctx, f, fi.Size())
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("subako: load: %w: %v", ErrPackage, err)
	}
	p, err := r.LoadFS(ctx, root.FS())
	if err != nil {
		root.Close()
		return nil, err
	}
	p.closer = root
	return p, nil
}

// LoadZip loads a package from a zip archive of its directory: either the archive's root, or its
// single top-level directory when the manifest is there rather than at the root. Every entry name
// must be a relative slash-separated path without "." or ".." elements, backslashes or duplicates;
// symbolic links and other special files are refused; there are at most MaxZipEntries entries and
// MaxPackageBytes decompressed bytes in total, module.wasm at most MaxModuleBytes.
func (r *Runtime) LoadZip(ctx context.Context, ra io.ReaderAt, size int64) (*Package, error) {
	fsys, err := readZip(ra, size)
	if err != nil {
		return nil, err
	}
	return r.LoadFS(ctx, fsys)
}

// LoadFS loads a package from the root of fsys: it parses the manifest, reads module.wasm, runs the
// upload checks (Validate) and compiles the module. It does not run it; Discover does.
func (r *Runtime) LoadFS(ctx context.Context, fsys fs.FS) (*Package, error) {
	mb, err := readCapped(fsys, ManifestFile, MaxManifestBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("subako: load: %w: the package has no %s", ErrManifest, ManifestFile)
		}
		return nil, fmt.Errorf("subako: load: %w: %v", ErrManifest, err)
	}
	man, err := ParseManifest(mb)
	if err != nil {
		return nil, err
	}
	wasm, err := readCapped(fsys, ModuleFile, MaxModuleBytes)
	if err != nil {
		return nil, fmt.Errorf("subako: load: %w: %v", ErrPackage, err)
	}
	if err := Validate(wasm); err != nil {
		return nil, err
	}
	mod, err := r.eng.Compile(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("subako: load: %w: %v", ErrInvalidModule, err)
	}
	p := &Package{Manifest: man, rt: r, wasm: wasm, mod: mod, args: []string{man.Name}}
	if fi, err := fs.Stat(fsys, AssetsDir); err == nil {
		if !fi.IsDir() {
			return nil, fmt.Errorf("subako: load: %w: %s is not a directory", ErrPackage, AssetsDir)
		}
		sub, err := fs.Sub(fsys, AssetsDir)
		if err != nil {
			return nil, fmt.Errorf("subako: load: %w: %v", ErrPackage, err)
		}
		p.assets = sub
	}
	return p, nil
}

// readCapped reads a regular file of at most max bytes, without trusting its reported size.
func readCapped(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	}
	return b, nil
}

// Module returns the bytes of module.wasm.
func (p *Package) Module() []byte { return p.wasm }

// HasAssets reports whether the package has assets/, mounted at /package.
func (p *Package) HasAssets() bool { return p.assets != nil }

// Close releases the package directory when it was loaded from one. The compiled module stays in
// the engine's cache (another Package may share it) until the Runtime is closed.
func (p *Package) Close() error {
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}
