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
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/boundedfile"
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
	// MaxNameBytes bounds the manifest name, which follows ABI 1's rule for tool names.
	MaxNameBytes = MaxToolNameLen
)

// ABI is the only function ABI this package speaks: MCP 2026-07-28 over stdio.
const ABI = wire.ABI

// ProtocolVersion is the MCP revision of ABI 1.
const ProtocolVersion = wire.ProtocolVersion

// Manifest is subako-package.json (wire.Manifest). Members other than these three are ignored,
// with a warning (see ManifestWarnings): tools come from tools/list, not from the manifest.
type Manifest = wire.Manifest

// manifestFields are the members ABI 1 gives subako-package.json.
var manifestFields = map[string]bool{"abi": true, "name": true, "description": true}

// ParseManifest decodes and checks subako-package.json: a JSON object, without duplicate members,
// whose "abi" is 1, whose "name" is 1 to MaxNameBytes characters of a-z, 0-9, '_' and '-' (the
// rule ABI 1 gives tool names, since the name prefixes them), and whose optional "description"
// is at most MaxDescriptionChars characters. Other members are allowed (ManifestWarnings lists
// them).
func ParseManifest(b []byte) (Manifest, error) {
	m, _, err := parseManifest(b)
	return m, err
}

// ManifestWarnings lists what a valid manifest holds that ABI 1 ignores: members other than
// "abi", "name" and "description", each named. It returns nil for a manifest ParseManifest
// refuses.
func ManifestWarnings(b []byte) []string {
	_, warns, err := parseManifest(b)
	if err != nil {
		return nil
	}
	return warns
}

func parseManifest(b []byte) (Manifest, []string, error) {
	var m Manifest
	if len(b) > MaxManifestBytes {
		return m, nil, fmt.Errorf("subako: manifest: %w: %s is %d bytes, more than %d", ErrManifest, ManifestFile, len(b), MaxManifestBytes)
	}
	raw, err := manifestObject(b)
	if err != nil {
		return m, nil, fmt.Errorf("subako: manifest: %w: %s %v", ErrManifest, ManifestFile, err)
	}
	abi, ok := raw["abi"]
	if !ok {
		return m, nil, fmt.Errorf("subako: manifest: %w: %s has no \"abi\"", ErrManifest, ManifestFile)
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(abi))
	d.UseNumber()
	if err := d.Decode(&n); err != nil || abi[0] == '"' {
		return m, nil, fmt.Errorf("subako: manifest: %w: \"abi\" must be a number, found %s", ErrManifest, abi)
	}
	if n.String() != "1" {
		return m, nil, fmt.Errorf("subako: manifest: %w: \"abi\" is %s; this host speaks ABI 1 only", ErrManifest, n)
	}
	m.ABI = ABI
	if err := stringField(raw, "name", &m.Name, true); err != nil {
		return m, nil, err
	}
	if err := stringField(raw, "description", &m.Description, false); err != nil {
		return m, nil, err
	}
	if !validName(m.Name) {
		return m, nil, fmt.Errorf("subako: manifest: %w: \"name\" %s: a name is 1 to %d characters of a-z, 0-9, _ and - (it prefixes the package's tool names)", ErrManifest, clip([]byte(strconv.Quote(m.Name))), MaxNameBytes)
	}
	if c := utf8.RuneCountInString(m.Description); c > MaxDescriptionChars {
		return m, nil, fmt.Errorf("subako: manifest: %w: \"description\" is %d characters, more than %d", ErrManifest, c, MaxDescriptionChars)
	}
	var warns []string
	for k := range raw {
		if !manifestFields[k] {
			warns = append(warns, fmt.Sprintf("%s: unknown member %s is ignored (ABI 1 reads \"abi\", \"name\" and \"description\")", ManifestFile, clip([]byte(strconv.Quote(k)))))
		}
	}
	sort.Strings(warns)
	return m, warns, nil
}

// manifestObject splits a JSON object into its members, refusing anything else with a message
// for a person: what the top level is instead, a byte order mark, a member given twice (which
// encoding/json would silently resolve to the last), or where the syntax breaks.
func manifestObject(b []byte) (map[string]json.RawMessage, error) {
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		return nil, errors.New("starts with a UTF-8 byte order mark (BOM); save it as UTF-8 without a BOM")
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	syntax := func(err error) error {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// The decoder stops at the byte that failed; syn.Offset is relative to the value
			// being decoded, not to the file.
			line, col := lineCol(b, d.InputOffset())
			return fmt.Errorf("is not valid JSON: line %d, column %d: %v", line, col, err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("is not valid JSON: it ends early")
		}
		return fmt.Errorf("is not valid JSON: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New(`is empty; it must be a JSON object such as {"abi":1,"name":"my-package"}`)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("must be a JSON object, not %s", jsonTokenKind(tok))
	}
	raw := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, syntax(err)
		}
		if _, dup := raw[key]; dup {
			return nil, fmt.Errorf("gives the member %s twice", clip([]byte(strconv.Quote(key))))
		}
		raw[key] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("is not valid JSON: something follows the object")
	}
	return raw, nil
}

// jsonTokenKind names the JSON value a first token starts.
func jsonTokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// lineCol turns the 0-based offset of a byte into its 1-based line and column.
func lineCol(b []byte, off int64) (int, int) {
	off = max(0, min(off, int64(len(b))))
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
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
		return fmt.Errorf("subako: manifest: %w: %q must be a non-empty string, found %s", ErrManifest, key, clip(v))
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
	// Warnings name what the package holds that ABI 1 ignores (ManifestWarnings), for a
	// validator to show; they do not stop the package from loading.
	Warnings []string

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
// MaxPackageBytes decompressed bytes in total, the manifest at most MaxManifestBytes and
// module.wasm at most MaxModuleBytes.
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
	man, warns, err := parseManifest(mb)
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
	p := &Package{Manifest: man, Warnings: warns, rt: r, wasm: wasm, mod: mod, args: []string{man.Name}}
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

// readCapped reads a regular file of at most max bytes, without trusting its reported size; a
// FIFO (which would block the open until a writer comes) or a device (/dev/zero has no end) is
// refused, not read.
func readCapped(fsys fs.FS, name string, max int64) ([]byte, error) {
	b, err := boundedfile.ReadFS(fsys, name, max)
	if err != nil && !errors.Is(err, boundedfile.ErrNotRegular) && !errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, explainStat(fsys, name, err)
	}
	return b, err
}

// explainStat rewords the error of a Stat that failed on a symbolic link leading out of the
// package (os.Root's "path escapes from parent"), naming the link and where it leads. An error
// of the open or the read of a file that Stat finds is left as it is.
func explainStat(fsys fs.FS, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, serr := fs.Stat(fsys, name); serr == nil {
		return err
	}
	if lfi, lerr := fs.Lstat(fsys, name); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 {
		if target, rerr := fs.ReadLink(fsys, name); rerr == nil {
			return fmt.Errorf("%s is a symbolic link to %s, which leads outside the package: a package's files must lie inside its directory", name, target)
		}
	}
	return err
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
