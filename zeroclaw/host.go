// Package zeroclaw is kobako's host for ZeroClaw-compatible plugins: the
// wasm32-wasip2 components that export the zeroclaw:plugin@0.1.0 worlds,
// packaged as a directory with a manifest.toml.
//
// This package covers everything an operator does before a plugin runs,
// matching the reference host (zeroclaw-labs/zeroclaw, crate
// zeroclaw-plugins): discovery of a plugins directory, the manifest shape
// checks, Ed25519 signature policy, config schema admission and config
// resolution, install from a local directory or a registry archive, and
// removal. The pieces live in subpackages: [manifest], [signature],
// [instance], [pluginconfig] and [registry]; this package ties them together
// with the host config file ([Config]).
//
//	host, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: dir})
//	for _, p := range host.Plugins() { ... }
//	p, err := host.Install("./my-plugin")
//
// An admitted [Plugin] carries what execution needs: the manifest, the wasm
// file, the compiled config schema, and [Plugin.Scope] /
// [Plugin.ResolveConfig] to build an instance's authority and config view
// under the [Limits] of the config file.
package zeroclaw

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/internal/durable"
	"github.com/kobako/kobako/zeroclaw/internal/errs"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/signature"
	"github.com/kobako/kobako/zeroclaw/wasmcheck"
)

// Options configure a Host.
type Options struct {
	// PluginsDir is scanned for plugins and receives installs.
	PluginsDir string
	// SignatureMode applies at discovery (a failing plugin is skipped) and
	// at install (an error).
	SignatureMode signature.Mode
	// TrustedKeys are the hex publisher keys strict and permissive modes
	// trust.
	TrustedKeys []string
}

// OptionsFromConfig derives host options from the config file's [plugins]
// section. The warning is non-empty when the signature mode was not
// recognised and strict applies.
func OptionsFromConfig(p *PluginsConfig) (Options, string, error) {
	dir, err := p.ResolvedPluginsDir()
	if err != nil {
		return Options{}, "", err
	}
	mode, warning := p.Security.Mode()
	return Options{PluginsDir: dir, SignatureMode: mode, TrustedKeys: p.Security.TrustedPublisherKeys}, warning, nil
}

// Plugin is an admitted plugin: its manifest passed the shape checks, the
// signature policy and config schema admission.
type Plugin struct {
	Manifest *manifest.Manifest
	// Dir is the plugin directory.
	Dir string
	// Skills is the validated skill bundle (skill plugins only).
	Skills []manifest.Skill
	// Signature is the signature policy's verdict.
	Signature signature.Result
	// Schema is the compiled config_schema; nil without one.
	Schema *pluginconfig.Schema
	// Origin is where the plugin was installed from, when the install recorded it (InstallFrom).
	Origin *Origin
}

// Name is the manifest name.
func (p *Plugin) Name() string { return p.Manifest.Name }

// WasmFile is the absolute path of the component, "" for skill-only
// plugins.
func (p *Plugin) WasmFile() string {
	if p.Manifest.WasmPath == "" {
		return ""
	}
	return filepath.Join(p.Dir, filepath.FromSlash(p.Manifest.WasmPath))
}

// Loaded reports what the reference's PluginInfo.loaded reports: the wasm
// file exists, or for skill-only plugins the skills directory does.
// Discovery admits a plugin whose wasm is missing; loading it fails later.
func (p *Plugin) Loaded() bool {
	target := p.WasmFile()
	if target == "" {
		target = filepath.Join(p.Dir, manifest.SkillsDir)
		fi, err := os.Stat(target)
		return err == nil && fi.IsDir()
	}
	fi, err := os.Stat(target)
	return err == nil && fi.Mode().IsRegular()
}

// InertPermissions are the declared permissions that grant nothing today.
func (p *Plugin) InertPermissions() []manifest.Permission { return p.Manifest.InertPermissions() }

// Scope admits an instance of the plugin: capability must be declared,
// binding is host-chosen (a channel alias, or the package name for tools),
// and grants must be a subset of the requested permissions.
func (p *Plugin) Scope(capability manifest.Capability, binding string, grants instance.Grants) (instance.Scope, error) {
	return instance.NewScope(p.Manifest, capability, binding, grants)
}

// DefaultScope is the package-name binding with every requested permission
// granted, how the reference runtime admits tools.
func (p *Plugin) DefaultScope(capability manifest.Capability) (instance.Scope, error) {
	return instance.PackageScope(p.Manifest, capability, instance.RequestedGrants(p.Manifest))
}

// ResolveConfig resolves an instance's config from the host config's
// [[plugins.entries]] row keyed by the scope's instance key.
func (p *Plugin) ResolveConfig(scope instance.Scope, cfg *PluginsConfig) (*pluginconfig.Resolved, error) {
	var source pluginconfig.Source
	if cfg != nil {
		source = cfg.Source(scope.ID)
	}
	return pluginconfig.Resolve(p.Manifest, p.Schema, scope, source)
}

// ConfigEntryKeys are the instance keys install seeds and info prints:
// today only a tool's package-name binding (a channel's key depends on the
// alias the operator binds it under).
func (p *Plugin) ConfigEntryKeys() []instance.ID {
	if !p.Manifest.HasCapability(manifest.CapabilityTool) {
		return nil
	}
	id, err := instance.NewID(p.Manifest.Name, manifest.CapabilityTool, p.Manifest.Name)
	if err != nil {
		return nil
	}
	return []instance.ID{id}
}

// Rejection is a plugin directory discovery skipped.
type Rejection struct {
	Dir string
	// Name is the name the manifest declares, when it could be read; empty otherwise.
	Name string
	Err  error
}

// Warning is a plugin admitted despite a signature problem (permissive
// mode).
type Warning struct {
	Plugin  string
	Dir     string
	Message string
}

// Host manages the plugins of one plugins directory.
type Host struct {
	opts     Options
	plugins  map[string]*Plugin
	rejected []Rejection
	warnings []Warning
}

// Open scans opts.PluginsDir (a missing directory is empty) and returns the
// host. Failing plugins are recorded in Rejected, never fatal.
func Open(opts Options) (*Host, error) {
	if opts.PluginsDir == "" {
		return nil, fmt.Errorf("%w: no plugins directory", ErrConfig)
	}
	h := &Host{opts: opts}
	if err := h.Rescan(); err != nil {
		return nil, err
	}
	return h, nil
}

// PluginsDir is the directory the host manages.
func (h *Host) PluginsDir() string { return h.opts.PluginsDir }

// Rescan discovers the plugins directory again: every direct subdirectory
// holding a manifest.toml is admitted (shape, signature policy, config
// schema) or rejected; when admitted plugins share a name, all of them are
// rejected.
func (h *Host) Rescan() error {
	h.plugins = map[string]*Plugin{}
	h.rejected, h.warnings = nil, nil
	entries, err := os.ReadDir(h.opts.PluginsDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("zeroclaw: scanning %s: %w", h.opts.PluginsDir, err)
	}
	if hasLeftovers(entries) {
		// A killed install, update or removal left these; repair them now unless a running one
		// holds the lock (its entries are then not leftovers, and the loop below skips them). A
		// directory this process may not write is only read.
		if l, err := durable.TryAcquire(filepath.Join(h.opts.PluginsDir, lockName), "scanning the plugins directory"); err == nil {
			rerr := h.recoverLeftovers()
			l.Unlock()
			if rerr != nil {
				return fmt.Errorf("zeroclaw: scanning %s: %w", h.opts.PluginsDir, rerr)
			}
			if entries, err = os.ReadDir(h.opts.PluginsDir); err != nil {
				return fmt.Errorf("zeroclaw: scanning %s: %w", h.opts.PluginsDir, err)
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	ambiguous := map[string][]string{}
	for _, e := range entries {
		if isLeftover(e.Name()) {
			continue
		}
		dir := filepath.Join(h.opts.PluginsDir, e.Name())
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
			continue
		}
		p, err := h.admit(dir)
		if err != nil {
			r := Rejection{Dir: dir, Err: err}
			if m, merr := manifest.ReadFile(filepath.Join(dir, manifest.FileName)); merr == nil {
				r.Name = m.Name
			}
			h.rejected = append(h.rejected, r)
			continue
		}
		name := p.Name()
		if dirs, ok := ambiguous[name]; ok {
			ambiguous[name] = append(dirs, dir)
			continue
		}
		if prev, ok := h.plugins[name]; ok {
			delete(h.plugins, name)
			ambiguous[name] = []string{prev.Dir, dir}
			continue
		}
		h.plugins[name] = p
		if p.Signature.Warning != "" {
			h.warnings = append(h.warnings, Warning{Plugin: name, Dir: dir, Message: p.Signature.Warning})
		}
	}
	for name, dirs := range ambiguous {
		for _, dir := range dirs {
			h.rejected = append(h.rejected, Rejection{Dir: dir, Name: name, Err: errs.New(ErrDuplicateName,
				"plugin '%s' is declared by %d directories (%s); all of them are rejected",
				name, len(dirs), strings.Join(baseNames(dirs), ", "))})
		}
	}
	h.warnings = slicesFilter(h.warnings, func(w Warning) bool { _, ok := h.plugins[w.Plugin]; return ok })
	sort.Slice(h.rejected, func(i, j int) bool { return h.rejected[i].Dir < h.rejected[j].Dir })
	return nil
}

func slicesFilter[T any](s []T, keep func(T) bool) []T {
	out := s[:0]
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

func baseNames(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = filepath.Base(d)
	}
	return out
}

// admit runs discovery's checks in the reference's order.
func (h *Host) admit(dir string) (*Plugin, error) {
	m, err := manifest.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return nil, err
	}
	skills, err := manifest.ValidateShape(m, dir)
	if err != nil {
		return nil, err
	}
	sig, err := signature.Enforce(m.Name, string(m.Raw), m.Signature, m.PublisherKey, h.opts.TrustedKeys, h.opts.SignatureMode)
	if err != nil {
		return nil, err
	}
	schema, err := pluginconfig.Compile(m)
	if err != nil {
		return nil, err
	}
	// A missing wasm file leaves the plugin admitted but not loaded, as in the reference; one that
	// is there must be the component the capabilities promise.
	if m.WasmPath != "" {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m.WasmPath))); err == nil && fi.Mode().IsRegular() {
			if err := checkWasm(m, dir); err != nil {
				return nil, err
			}
		}
	}
	return &Plugin{Manifest: m, Dir: dir, Skills: skills, Signature: sig, Schema: schema, Origin: readOrigin(dir)}, nil
}

// Plugins returns the admitted plugins sorted by name.
func (h *Host) Plugins() []*Plugin {
	out := make([]*Plugin, 0, len(h.plugins))
	for _, p := range h.plugins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Plugin looks up an admitted plugin by name.
func (h *Host) Plugin(name string) (*Plugin, bool) {
	p, ok := h.plugins[name]
	return p, ok
}

// Lookup finds an admitted plugin by name. When there is none, but discovery rejected a
// directory of that name or whose manifest declares it, the error says why (an untrusted or
// invalid signature, a bad manifest) and wraps the rejection's error; otherwise it wraps
// ErrNotFound.
func (h *Host) Lookup(name string) (*Plugin, error) {
	if p, ok := h.plugins[name]; ok {
		return p, nil
	}
	for _, r := range h.rejected {
		if r.Name == name || filepath.Base(r.Dir) == name {
			return nil, fmt.Errorf("plugin %s (%s) was skipped at discovery: %w", name, r.Dir, r.Err)
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
}

// PluginsWith returns the admitted plugins declaring a capability.
func (h *Host) PluginsWith(c manifest.Capability) []*Plugin {
	var out []*Plugin
	for _, p := range h.Plugins() {
		if p.Manifest.HasCapability(c) {
			out = append(out, p)
		}
	}
	return out
}

// Rejected returns the directories discovery skipped, with the reason.
func (h *Host) Rejected() []Rejection { return h.rejected }

// Warnings returns the signature warnings of admitted plugins.
func (h *Host) Warnings() []Warning { return h.warnings }

// IsLocalSource reports whether an install source names a local plugin
// rather than a registry entry, as the reference decides: the path exists,
// or it starts with '.' or '~', or it contains a slash or backslash.
func IsLocalSource(source string) bool {
	if _, err := os.Stat(source); err == nil {
		return true
	}
	return strings.HasPrefix(source, ".") || strings.HasPrefix(source, "~") || strings.ContainsAny(source, `/\`)
}

// sourceManifest maps a directory or manifest path to the manifest path.
func sourceManifest(source string) (string, error) {
	expanded, err := ExpandHome(source)
	if err != nil {
		return "", err
	}
	path := expanded
	if fi, err := os.Stat(expanded); err == nil && fi.IsDir() {
		path = filepath.Join(expanded, manifest.FileName)
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: manifest.toml not found at %s", ErrNotFound, path)
	}
	return filepath.Abs(path)
}

// Inspect runs the install-time checks on a local plugin (a directory or a
// manifest path) without installing it: the manifest shape, the wasm file,
// the signature policy and the config schema.
func Inspect(source string, opts Options) (*Plugin, error) {
	path, err := sourceManifest(source)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	skills, err := manifest.ValidateShape(m, dir)
	if err != nil {
		return nil, err
	}
	if err := requireWasm(m, dir); err != nil {
		return nil, err
	}
	sig, err := signature.Enforce(m.Name, string(m.Raw), m.Signature, m.PublisherKey, opts.TrustedKeys, opts.SignatureMode)
	if err != nil {
		return nil, err
	}
	schema, err := pluginconfig.Compile(m)
	if err != nil {
		return nil, err
	}
	return &Plugin{Manifest: m, Dir: dir, Skills: skills, Signature: sig, Schema: schema}, nil
}

func requireWasm(m *manifest.Manifest, dir string) error {
	if m.WasmPath == "" {
		return nil
	}
	wasm := filepath.Join(dir, filepath.FromSlash(m.WasmPath))
	_, err := os.Stat(wasm)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: WASM file not found: %s", ErrNotFound, wasm)
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrWasm, m.WasmPath, err)
	}
	// checkWasm's read refuses a wasm_path that is not a regular file (a link to /dev/zero, a
	// directory), naming what it is.
	return checkWasm(m, dir)
}

// ReadWasm reads the plugin's component file, refusing anything but a regular file (a link to
// /dev/zero must not be read forever) and a file over MaxWasmBytes. Its errors match ErrWasm,
// and a missing file's also fs.ErrNotExist.
func (p *Plugin) ReadWasm() ([]byte, error) {
	b, err := boundedfile.Read(p.WasmFile(), MaxWasmBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWasm, err)
	}
	return b, nil
}

// MaxWasmBytes caps the component file install and discovery read.
const MaxWasmBytes = 256 << 20

// worldExports are the interfaces a component must export for each capability that has a
// zeroclaw:plugin@0.1.0 world (observer and skill have none).
var worldExports = map[manifest.Capability][]string{
	manifest.CapabilityTool:    {"zeroclaw:plugin/plugin-info@0.1.0", "zeroclaw:plugin/tool@0.1.0"},
	manifest.CapabilityChannel: {"zeroclaw:plugin/plugin-info@0.1.0", "zeroclaw:plugin/channel@0.1.0"},
	manifest.CapabilityMemory:  {"zeroclaw:plugin/plugin-info@0.1.0", "zeroclaw:plugin/memory@0.1.0"},
}

// checkWasm reads the plugin's wasm file and checks it structurally: its sha256 against the
// manifest's wasm_sha256 pin when there is one, then that it is a component exporting the
// interfaces of every world the manifest's capabilities name.
func checkWasm(m *manifest.Manifest, dir string) error {
	b, err := boundedfile.Read(filepath.Join(dir, filepath.FromSlash(m.WasmPath)), MaxWasmBytes)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrWasm, err)
	}
	if m.WasmSHA256 != "" {
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != m.WasmSHA256 {
			return fmt.Errorf("%w: %s: sha256 %s, but the manifest's wasm_sha256 pins %s", ErrWasm, m.WasmPath, got, m.WasmSHA256)
		}
	}
	var want []string
	for _, c := range m.Capabilities {
		for _, w := range worldExports[c] {
			if !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
	}
	if err := wasmcheck.Require(b, want); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWasm, m.WasmPath, err)
	}
	return nil
}

// Install copies a local plugin (a directory, or the path of its
// manifest.toml) into the plugins directory after the reference's checks,
// in its order: manifest shape, wasm file present, name not already
// installed, signature policy, config schema. The copy holds the exact
// manifest bytes, the wasm at its wasm_path and, for skill plugins, the
// skills/ tree without symlinks. It is built in a staging directory, flushed
// to disk and renamed into place under the plugins directory's lock, so a
// failed or killed install leaves nothing behind and two installs of one
// plugin never interleave.
func (h *Host) Install(source string) (*Plugin, error) { return h.install(source, false) }

// Update replaces an installed plugin (or a directory of that name that failed
// discovery) with the local plugin at source, after the checks Install makes.
// The new version is staged beside the old one and swapped in at once: until
// then the old version is served, and a failed or killed update leaves it in
// place. The name is the manifest's; a plugin that is not installed is
// ErrNotFound.
func (h *Host) Update(source string) (*Plugin, error) { return h.install(source, true) }

func (h *Host) install(source string, replace bool) (*Plugin, error) {
	return h.installOrigin(source, replace, nil)
}

func (h *Host) installOrigin(source string, replace bool, origin *Origin) (*Plugin, error) {
	path, err := sourceManifest(source)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	srcDir := filepath.Dir(path)
	if _, err := manifest.ValidateShape(m, srcDir); err != nil {
		return nil, err
	}
	if err := manifest.CheckVersion(m); err != nil {
		return nil, err
	}
	if err := requireWasm(m, srcDir); err != nil {
		return nil, err
	}
	dest := filepath.Join(h.opts.PluginsDir, m.Name)
	if _, ok := h.plugins[m.Name]; ok && !replace {
		return nil, errs.New(ErrAlreadyInstalled, "plugin '%s' is already loaded", m.Name)
	}
	sig, err := signature.Enforce(m.Name, string(m.Raw), m.Signature, m.PublisherKey, h.opts.TrustedKeys, h.opts.SignatureMode)
	if err != nil {
		return nil, err
	}
	schema, err := pluginconfig.Compile(m)
	if err != nil {
		return nil, err
	}
	verb := "installing"
	if replace {
		verb = "updating"
	}
	lock, err := h.lockPlugins(verb + " " + m.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInstall, err)
	}
	defer lock.Unlock()
	// Checked under the lock: another kobako may have installed or removed the plugin since this
	// host scanned the directory.
	_, statErr := os.Lstat(dest)
	switch {
	case !replace && statErr == nil:
		return nil, errs.New(ErrAlreadyInstalled, "plugin '%s' cannot be installed: %s already exists (a plugin that failed discovery?); remove it first, or update it", m.Name, dest)
	case replace && statErr != nil:
		return nil, fmt.Errorf("%w: %s is not installed (%s does not exist); install it instead", ErrNotFound, m.Name, dest)
	case replace:
		if fi, err := os.Stat(filepath.Join(dest, manifest.FileName)); err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %s is not a plugin directory (no manifest.toml); it is left as it is", ErrInstall, dest)
		}
	}
	stage, err := h.stage(m, srcDir, origin)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInstall, err)
	}
	committed := false
	defer func() {
		if !committed {
			os.RemoveAll(stage)
		}
	}()
	if _, err := manifest.ValidateShape(m, stage); err != nil {
		return nil, fmt.Errorf("%w: the copied plugin fails its checks: %w", ErrInstall, err)
	}
	if replace {
		err = h.swapIn(m.Name, stage, dest)
	} else {
		err = step("install: commit rename")
		if err == nil {
			err = os.Rename(stage, dest)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInstall, err)
	}
	committed = true
	step("install: sync plugins dir")
	// The plugin is in place; a failed flush of the directory cannot undo that.
	durable.SyncDir(h.opts.PluginsDir)
	if replace {
		// After an exchange, stage holds the old version; after the fallback, it is gone.
		step("update: remove old version")
		os.RemoveAll(stage)
	}
	skills, err := manifest.ValidateShape(m, dest)
	if err != nil {
		return nil, fmt.Errorf("%w: the installed plugin fails its checks: %w", ErrInstall, err)
	}
	for name, p := range h.plugins {
		if p.Dir == dest && name != m.Name {
			delete(h.plugins, name)
		}
	}
	h.rejected = slicesFilter(h.rejected, func(r Rejection) bool { return r.Dir != dest })
	p := &Plugin{Manifest: m, Dir: dest, Skills: skills, Signature: sig, Schema: schema, Origin: origin}
	h.plugins[m.Name] = p
	return p, nil
}

// stage copies the plugin's files into a new staging directory in the plugins directory and
// flushes them to disk.
func (h *Host) stage(m *manifest.Manifest, srcDir string, origin *Origin) (string, error) {
	if err := step("install: mkdir stage"); err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(h.opts.PluginsDir, stagingPrefix+m.Name+leftoverSep+"*")
	if err != nil {
		return "", err
	}
	err = os.Chmod(stage, 0o755)
	if err == nil {
		err = stageFiles(m, srcDir, stage)
	}
	if err == nil && origin != nil {
		err = writeOrigin(stage, origin)
	}
	if err == nil {
		err = step("install: sync stage")
	}
	if err == nil {
		err = syncTree(stage)
	}
	if err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	return stage, nil
}

// swapIn puts the staged new version at dest in one step. Where directories can be exchanged,
// stage then holds the old version; elsewhere the old version is renamed aside, the new one in,
// and the aside deleted: a crash between the two renames leaves the aside, which the next
// operation puts back.
func (h *Host) swapIn(name, stage, dest string) error {
	if err := step("update: commit exchange"); err != nil {
		return err
	}
	err := exchangeDirs(stage, dest)
	if err == nil || !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	aside := uniqueName(h.opts.PluginsDir, asidePrefix, name)
	if err := step("update: rename old aside"); err != nil {
		return err
	}
	if err := os.Rename(dest, aside); err != nil {
		return err
	}
	err = step("update: commit rename")
	if err == nil {
		err = os.Rename(stage, dest)
	}
	if err != nil {
		if rerr := os.Rename(aside, dest); rerr != nil {
			return fmt.Errorf("%w; the old version is in %s and the next install, update or removal puts it back", err, aside)
		}
		return err
	}
	durable.SyncDir(h.opts.PluginsDir)
	step("update: remove aside")
	os.RemoveAll(aside)
	return nil
}

// stageFiles writes the plugin's files into stage.
func stageFiles(m *manifest.Manifest, srcDir, stage string) error {
	if err := writeFileSynced(filepath.Join(stage, manifest.FileName), m.Raw, 0o644); err != nil {
		return err
	}
	if m.WasmPath != "" {
		rel := filepath.FromSlash(m.WasmPath)
		dst := filepath.Join(stage, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(srcDir, rel), dst); err != nil {
			return err
		}
	}
	if m.HasCapability(manifest.CapabilitySkill) {
		src := filepath.Join(srcDir, manifest.SkillsDir)
		if fi, err := os.Stat(src); err == nil && fi.IsDir() {
			if err := copyTree(src, filepath.Join(stage, manifest.SkillsDir)); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyTree copies directories and regular files, skipping symlinks and
// anything else, as the reference's skill copy does.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

// Remove deletes an installed plugin. name may also be the directory name
// of a plugin that failed discovery, so a broken plugin can be cleaned up.
// The directory is first renamed away in one step, under the plugins
// directory's lock, and then deleted: a removal killed half-way leaves the
// plugin installed or gone, never a directory missing some of its files.
func (h *Host) Remove(name string) error {
	if err := manifest.ValidatePackageName(name); err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	dir := filepath.Join(h.opts.PluginsDir, name)
	if p, ok := h.plugins[name]; ok {
		dir = p.Dir
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	lock, err := h.lockPlugins("removing " + name)
	if err != nil {
		return fmt.Errorf("zeroclaw: removing %s: %w", dir, err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
		// Another kobako removed it while this one waited for the lock.
		delete(h.plugins, name)
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	trash := uniqueName(h.opts.PluginsDir, removedPrefix, filepath.Base(dir))
	err = step("remove: commit rename")
	if err == nil {
		err = os.Rename(dir, trash)
	}
	if err != nil {
		return fmt.Errorf("zeroclaw: removing %s: %w", dir, err)
	}
	step("remove: sync plugins dir")
	durable.SyncDir(h.opts.PluginsDir)
	step("remove: delete")
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("zeroclaw: removing %s (renamed to %s, which the next install, update or removal deletes): %w", dir, trash, err)
	}
	delete(h.plugins, name)
	h.rejected = slicesFilter(h.rejected, func(r Rejection) bool { return r.Dir != dir })
	return nil
}
