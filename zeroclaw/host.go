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
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/internal/errs"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/signature"
	"github.com/kobako/kobako/zeroclaw/wasmcheck"
)

// stagingPrefix names the temporary directories installs build in the
// plugins directory; discovery ignores them, so a crash mid-install cannot
// leave a half-copied plugin that shadows (and, as a duplicate, disables)
// the real one.
const stagingPrefix = ".kobako-install-"

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
	Err error
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
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	ambiguous := map[string][]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagingPrefix) {
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
			h.rejected = append(h.rejected, Rejection{Dir: dir, Err: err})
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
			h.rejected = append(h.rejected, Rejection{Dir: dir, Err: errs.New(ErrDuplicateName,
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
	return &Plugin{Manifest: m, Dir: dir, Skills: skills, Signature: sig, Schema: schema}, nil
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
	fi, err := os.Stat(wasm)
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: WASM file not found: %s", ErrNotFound, wasm)
	}
	return checkWasm(m, dir)
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
	path := filepath.Join(dir, filepath.FromSlash(m.WasmPath))
	b, err := manifest.ReadCapped(path, MaxWasmBytes)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrWasm, m.WasmPath, err)
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
// skills/ tree without symlinks. It is built in a staging directory and
// renamed into place, so a failed install leaves nothing behind.
func (h *Host) Install(source string) (*Plugin, error) {
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
	if err := requireWasm(m, srcDir); err != nil {
		return nil, err
	}
	dest := filepath.Join(h.opts.PluginsDir, m.Name)
	if _, ok := h.plugins[m.Name]; ok {
		return nil, errs.New(ErrAlreadyInstalled, "plugin '%s' is already loaded", m.Name)
	}
	if _, err := os.Lstat(dest); err == nil {
		return nil, errs.New(ErrAlreadyInstalled, "plugin '%s' cannot be installed: %s already exists (a plugin that failed discovery?); remove it first", m.Name, dest)
	}
	sig, err := signature.Enforce(m.Name, string(m.Raw), m.Signature, m.PublisherKey, h.opts.TrustedKeys, h.opts.SignatureMode)
	if err != nil {
		return nil, err
	}
	schema, err := pluginconfig.Compile(m)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(h.opts.PluginsDir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	stage, err := os.MkdirTemp(h.opts.PluginsDir, stagingPrefix+m.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	committed := false
	defer func() {
		if !committed {
			os.RemoveAll(stage)
		}
	}()
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	if err := stageFiles(m, srcDir, stage); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	if _, err := manifest.ValidateShape(m, stage); err != nil {
		return nil, fmt.Errorf("%w: the copied plugin fails its checks: %w", ErrInstall, err)
	}
	if err := os.Rename(stage, dest); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstall, err)
	}
	committed = true
	skills, err := manifest.ValidateShape(m, dest)
	if err != nil {
		return nil, fmt.Errorf("%w: the installed plugin fails its checks: %w", ErrInstall, err)
	}
	p := &Plugin{Manifest: m, Dir: dest, Skills: skills, Signature: sig, Schema: schema}
	h.plugins[m.Name] = p
	return p, nil
}

// stageFiles writes the plugin's files into stage.
func stageFiles(m *manifest.Manifest, srcDir, stage string) error {
	if err := os.WriteFile(filepath.Join(stage, manifest.FileName), m.Raw, 0o644); err != nil {
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

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
func (h *Host) Remove(name string) error {
	if err := manifest.ValidatePackageName(name); err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if p, ok := h.plugins[name]; ok {
		if err := os.RemoveAll(p.Dir); err != nil {
			return fmt.Errorf("zeroclaw: removing %s: %w", p.Dir, err)
		}
		delete(h.plugins, name)
		return nil
	}
	dir := filepath.Join(h.opts.PluginsDir, name)
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("zeroclaw: removing %s: %w", dir, err)
		}
		h.rejected = slicesFilter(h.rejected, func(r Rejection) bool { return r.Dir != dir })
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotFound, name)
}
