package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kobako/kobako/oci"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
	"github.com/kobako/kobako/zeroclaw/runner"
	"github.com/kobako/kobako/zeroclaw/signature"
)

const pluginUsage = `Usage: kobako plugin SUBCOMMAND [flags] [ARGS]

Manage ZeroClaw plugins (wasm32-wasip2 components with a manifest.toml).

Subcommands:
  list                      list installed plugins and why any were skipped
  search QUERY              search the registry by name and description
  install SOURCE            install a local directory or manifest.toml, a registry NAME[@VERSION], or an
                            OCI artifact oci://REGISTRY/REPOSITORY[:TAG|@DIGEST]
  update SOURCE             replace an installed plugin with the version at SOURCE (same sources as install)
  push DIR oci://REF        push a plugin directory to an OCI registry as a ZeroClaw plugin artifact
  remove NAME               remove an installed plugin
  info NAME|PATH            show a plugin's manifest, signature, permissions, config schema and config key,
                            and for an installed plugin its world's metadata (tool name, description
                            and schema; channel or memory name and capability flags)
  call NAME ARGS            run a tool plugin's execute once with ARGS (a JSON object, "-" for stdin or
                            @FILE); stdout is the tool result as one JSON line
  shell NAME                load a channel or memory plugin once and answer WAVE calls read from stdin,
                            one per line (channels also take "inbound <host-inbound-message>")
  keygen [--out FILE]       create an Ed25519 publisher key
  sign DIR|MANIFEST --key FILE
                            sign a plugin manifest with a publisher key

Common flags (where they apply):
  --config FILE             kobako config file (default $KOBAKO_CONFIG or ~/.kobako/config.toml)
  --plugins-dir DIR         plugins directory (default from the config, else ~/.kobako/plugins)
  --registry URL|PATH       registry index (default $KOBAKO_PLUGIN_REGISTRY_URL, $ZEROCLAW_PLUGIN_REGISTRY_URL,
                            else the public ZeroClaw registry)
  --signature-mode MODE     disabled, permissive or strict (default from the config, else disabled)
  --trusted-key HEX         trust a publisher key (repeatable; adds to the config's keys)
  --json                    machine-readable output

call and shell flags:
  --binding B               instance binding (default: the package name)
  --fuel N, --timeout D, --max-memory SIZE
                            override [plugins.limits] call_fuel, call_timeout_ms, max_memory_mb
  --log-format text|json    plugin log records on stderr, one line each (default text)
  --stdio                   forward the guest's WASI stdout and stderr to stderr
  --snapshot                start instances from a snapshot taken after the plugin's initialization:
                            same results and fuel, initialization runs once (what it read from
                            wasi:random and the clocks is then the same in every instance)

Run 'kobako plugin SUBCOMMAND -h' for a subcommand's flags.
`

// pluginStrings is a repeatable string flag.
type pluginStrings []string

func (s *pluginStrings) String() string     { return strings.Join(*s, ",") }
func (s *pluginStrings) Set(v string) error { *s = append(*s, v); return nil }

// pluginKeys is the repeatable --trusted-key flag: each value must be an Ed25519 public key in
// hex, so a typo is a usage error instead of a key that silently matches nothing.
type pluginKeys []string

func (s *pluginKeys) String() string { return strings.Join(*s, ",") }
func (s *pluginKeys) Set(v string) error {
	if err := checkTrustedKey(v); err != nil {
		return err
	}
	*s = append(*s, v)
	return nil
}

func checkTrustedKey(v string) error {
	if _, err := signature.DecodePublicKey(v); err != nil || len(v) != 2*ed25519.PublicKeySize {
		return fmt.Errorf("want %d hex characters (an Ed25519 public key, as keygen prints it), got %q", 2*ed25519.PublicKeySize, v)
	}
	return nil
}

// pluginEnv is one invocation's flags and streams.
type pluginEnv struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer

	config        string
	pluginsDir    string
	registry      string
	signatureMode string
	trustedKeys   pluginStrings
	json          bool
}

type pluginSub struct {
	name, args, help string
	registry         bool // takes --registry
	host             bool // takes the host flags
	run              func(e *pluginEnv, fs *flag.FlagSet, args []string) error
	flags            func(fs *flag.FlagSet)
}

// pluginUsageError marks errors that should print usage and exit 2.
type pluginUsageError struct{ msg string }

func (e *pluginUsageError) Error() string { return e.msg }

func pluginUsageErrorf(format string, args ...any) error {
	return &pluginUsageError{fmt.Sprintf(format, args...)}
}

// pluginCommand runs `kobako plugin ARGS...` and returns the exit status.
func pluginCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, pluginUsage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, pluginUsage)
		return 0
	}
	var sub *pluginSub
	for i := range pluginSubs {
		if pluginSubs[i].name == args[0] {
			sub = &pluginSubs[i]
		}
	}
	if sub == nil {
		fmt.Fprintf(stderr, "error: unknown plugin subcommand %q\nRun 'kobako plugin -h' for usage.\n", args[0])
		return exitUsage
	}
	e := &pluginEnv{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	line := "Usage: kobako plugin " + sub.name + " [flags]"
	if sub.args != "" {
		line += " " + sub.args
	}
	fs := newCommand("kobako plugin "+sub.name, line+"\n\n"+sub.help+"\n", stdout, stderr)
	if sub.host {
		fs.StringVar(&e.config, "config", "", "kobako config `FILE` (default $KOBAKO_CONFIG or ~/.kobako/config.toml); it must exist")
		fs.StringVar(&e.pluginsDir, "plugins-dir", "", "plugins `DIR` (default from the config, else ~/.kobako/plugins)")
		fs.StringVar(&e.signatureMode, "signature-mode", "", "signature `MODE`: disabled, permissive or strict (default from the config)")
		fs.Var((*pluginKeys)(&e.trustedKeys), "trusted-key", "trust a publisher key given in `HEX` (repeatable)")
	}
	if sub.registry {
		fs.StringVar(&e.registry, "registry", "", "registry index `URL|PATH`")
	}
	fs.BoolVar(&e.json, "json", false, "machine-readable JSON output")
	if sub.flags != nil {
		sub.flags(fs.FlagSet)
	}
	positional, code := fs.parse(args[1:], true)
	if code >= 0 {
		return code
	}
	err := sub.run(e, fs.FlagSet, positional)
	var ue *pluginUsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return fs.usageErr("%s", ue.msg)
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "error: interrupted\n")
		return exitInterrupted
	default:
		reportPluginError(stderr, err)
		return exitError
	}
}

// reportPluginError prints err once, then, for a trap, the end of the guest's stderr output, as
// function call does for a crashed module: a JavaScript plugin's exception is only there.
func reportPluginError(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "error: %v\n", err)
	if tail := runner.GuestStderr(err); tail != "" {
		fmt.Fprintf(stderr, "last stderr output of the plugin:\n%s\n", strings.TrimRight(tail, "\n"))
	}
}

var pluginSubs = []pluginSub{
	{name: "list", help: "List the plugins in the plugins directory: admitted plugins, and the directories discovery skipped with the reason.", host: true, run: pluginList},
	{name: "search", args: "QUERY", help: "Search the registry index: a case-insensitive match on plugin names and descriptions. Nothing is installed or run.", registry: true, run: pluginSearch},
	{name: "install", args: "SOURCE", help: "Install a plugin from a local directory, manifest.toml path or .zip archive, a registry NAME or\nNAME@VERSION (a bare name takes the index's last matching entry), or an OCI artifact\noci://REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST] (as plugin push writes it; a Wasm OCI artifact, one\ncomponent, with --manifest FILE). The same checks apply either way, the wasm included: it must be a\ncomponent exporting the worlds the capabilities name, and match the manifest's wasm_sha256 when it\npins one. Installing an oci:// reference again does nothing while its digest is the installed one,\nand updates the plugin when it changed; info shows the reference and digest.\n\n" + registryHelp, host: true, registry: true, run: pluginInstall, flags: pluginOCIFlags},
	{name: "update", args: "SOURCE", help: "Replace an installed plugin with the plugin at SOURCE (any source install takes), after the checks\ninstall makes. The new version is copied beside the old one and swapped in at once: until then the old\nversion stays, and an update that fails or is interrupted leaves it in place.", host: true, registry: true, run: pluginUpdate, flags: pluginOCIFlags},
	{name: "push", args: "DIR oci://REGISTRY/REPOSITORY:TAG", help: "Check the plugin in DIR as install would, push it as a ZeroClaw plugin artifact and print its\ndigest. The same directory gives the same digest. The artifact:\n  config  " + oci.MediaTypePluginConfig + "\n  layer   " + oci.MediaTypePluginManifest + " (manifest.toml)\n  layer   " + oci.MediaTypeWasm + " (the component)\n  layer   " + oci.MediaTypePluginSkills + " (skills/, for skills)\n\n" + registryHelp, host: true, run: pluginPush,
		flags: func(fs *flag.FlagSet) { addRegistryFlags(fs) }},
	{name: "remove", args: "NAME", help: "Remove an installed plugin (or a plugin directory that failed discovery).", host: true, run: pluginRemove},
	{name: "info", args: "NAME|PATH", help: "Show an installed plugin, or check a local plugin directory without installing it. A signature\ncovers the manifest; it covers the wasm too when the manifest pins it with wasm_sha256.", host: true, run: pluginInfo},
	{name: "call", args: "NAME ARGS", help: "Run a tool plugin's execute once, in a fresh instance, with the config of its [[plugins.entries]] section.\nARGS is a JSON object, \"-\" to read it from stdin, or @FILE to read it from FILE; it is checked before the\nplugin is loaded. stdout is exactly one JSON line, the tool result; a guest error, trap or limit is one\nerror: line on stderr. Exit status: 0 when the call completed, 1 for a guest error, trap or limit,\n2 for a usage mistake (malformed ARGS, a zero limit), 130 when interrupted.", host: true, run: pluginCall, flags: pluginCallFlagSet},
	{name: "shell", args: "NAME", help: "Load a channel or memory plugin once and answer, in order, one stdout line per stdin line:\na WAVE call of a plugin function by its WIT name (store-entry(\"k\", \"v\", core, none)), answered with the\nWAVE result or error: …. Channels also take `inbound <WAVE host-inbound-message>` (answered `queued N`)\nand print every message their listen loop polls as `message <WAVE inbound-message>`.", host: true, run: pluginShell, flags: pluginRunFlagSet},
	{name: "keygen", help: "Create an Ed25519 publisher key. The private key (PKCS#8 PEM) goes to --out, or to stdout without it;\nthe public key is printed as hex for publisher_key and trusted_publisher_keys.", run: pluginKeygen,
		flags: func(fs *flag.FlagSet) {
			fs.String("out", "", "write the private key to `FILE` (mode 0600)")
			fs.Bool("force", false, "overwrite an existing --out file")
		}},
	{name: "sign", args: "DIR|MANIFEST", help: "Sign a plugin manifest in place: signature and publisher_key are (re)written at the root,\nthe rest of the file is kept exactly as written. The signature covers the manifest's text, not the\nwasm file; pin the wasm with wasm_sha256 = \"<hex sha256>\" (a kobako extension, ignored by the\nreference host) before signing, and the signature covers the component too.", run: pluginSign,
		flags: func(fs *flag.FlagSet) {
			fs.String("key", "", "private key `FILE` (from keygen, OpenSSL or the reference's PKCS#8 DER)")
		}},
}

func pluginWantArgs(args []string, n int, what string) error {
	if len(args) != n {
		if n == 0 {
			return pluginUsageErrorf("unexpected argument %q", args[0])
		}
		return pluginUsageErrorf("want %s, got %d argument(s)", what, len(args))
	}
	return nil
}

// hostConfig loads the config file and applies the flags over it.
func (e *pluginEnv) hostConfig() (*zeroclaw.Config, string, zeroclaw.Options, error) {
	cfgPath, err := zeroclaw.ConfigPath(e.config)
	if err != nil {
		return nil, "", zeroclaw.Options{}, err
	}
	// A config file named on purpose (--config or $KOBAKO_CONFIG) must exist: a typo would
	// otherwise silently give the defaults.
	named := e.config != "" || os.Getenv(zeroclaw.EnvConfigFile) != ""
	if _, err := os.Stat(cfgPath); named && errors.Is(err, fs.ErrNotExist) {
		return nil, "", zeroclaw.Options{}, fmt.Errorf("config file %s does not exist (create it, or leave out --config and $KOBAKO_CONFIG for the defaults)", cfgPath)
	}
	cfg, err := zeroclaw.LoadConfig(cfgPath, false)
	if err != nil {
		return nil, "", zeroclaw.Options{}, err
	}
	opts, warning, err := zeroclaw.OptionsFromConfig(&cfg.Plugins)
	if err != nil {
		return nil, "", zeroclaw.Options{}, err
	}
	if e.pluginsDir != "" {
		if opts.PluginsDir, err = zeroclaw.ExpandHome(e.pluginsDir); err != nil {
			return nil, "", zeroclaw.Options{}, err
		}
	}
	if e.signatureMode != "" {
		opts.SignatureMode, warning = signature.ResolveMode(e.signatureMode)
	}
	for _, k := range e.trustedKeys {
		// The plugin commands check this while parsing flags; other callers of hostConfig get it here.
		if err := checkTrustedKey(k); err != nil {
			return nil, "", zeroclaw.Options{}, fmt.Errorf("--trusted-key: %v", err)
		}
	}
	opts.TrustedKeys = append(append([]string(nil), opts.TrustedKeys...), e.trustedKeys...)
	if warning != "" {
		fmt.Fprintln(e.stderr, "warning:", warning)
	}
	return cfg, cfgPath, opts, nil
}

func (e *pluginEnv) openHost() (*zeroclaw.Host, *zeroclaw.Config, string, zeroclaw.Options, error) {
	cfg, cfgPath, opts, err := e.hostConfig()
	if err != nil {
		return nil, nil, "", opts, err
	}
	h, err := zeroclaw.Open(opts)
	if err != nil {
		return nil, nil, "", opts, err
	}
	return h, cfg, cfgPath, opts, nil
}

func (e *pluginEnv) writeJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (e *pluginEnv) reportDiscovery(h *zeroclaw.Host) {
	for _, r := range h.Rejected() {
		fmt.Fprintf(e.stderr, "warning: skipped %s: %v\n", r.Dir, r.Err)
	}
	for _, w := range h.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %s: %s\n", w.Plugin, w.Message)
	}
}

type pluginRejectionJSON struct {
	Dir   string `json:"dir"`
	Error string `json:"error"`
}

func pluginRejections(h *zeroclaw.Host) []pluginRejectionJSON {
	out := []pluginRejectionJSON{}
	for _, r := range h.Rejected() {
		out = append(out, pluginRejectionJSON{Dir: r.Dir, Error: r.Err.Error()})
	}
	return out
}

func pluginList(e *pluginEnv, _ *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 0, ""); err != nil {
		return err
	}
	h, _, _, opts, err := e.openHost()
	if err != nil {
		return err
	}
	if e.json {
		infos := []zeroclaw.Info{}
		for _, p := range h.Plugins() {
			infos = append(infos, p.Describe(opts.TrustedKeys))
		}
		return e.writeJSON(map[string]any{"plugins_dir": h.PluginsDir(), "plugins": infos,
			"rejected": pluginRejections(h), "warnings": nonNilWarnings(h.Warnings())})
	}
	e.reportDiscovery(h)
	plugins := h.Plugins()
	defer pluginListRejected(e.stdout, h)
	if len(plugins) == 0 {
		if len(h.Rejected()) == 0 {
			fmt.Fprintf(e.stdout, "No plugins installed in %s.\n", h.PluginsDir())
		} else {
			fmt.Fprintf(e.stdout, "No plugins admitted in %s (signature_mode %s).\n", h.PluginsDir(), opts.SignatureMode)
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "Installed plugins in %s (signature_mode %s):\n", h.PluginsDir(), opts.SignatureMode)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tVERSION\tCAPABILITIES\tWASM\tSIGNATURE\tDESCRIPTION")
	for _, p := range plugins {
		m := p.Manifest
		wasm := "present"
		switch {
		case m.WasmPath == "":
			wasm = "none (skills)"
		case !p.Loaded():
			wasm = "MISSING"
		}
		desc := m.Description
		if desc == "" {
			desc = "(no description)"
		}
		// The verification against the trusted keys, which says something
		// even when the signature mode does not enforce it.
		sig := p.Describe(opts.TrustedKeys).Verification.Status
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Version, pluginJoinCaps(m.Capabilities), wasm, sig, desc)
	}
	tw.Flush()
	for _, p := range plugins {
		if inert := p.InertPermissions(); len(inert) > 0 {
			fmt.Fprintf(e.stdout, "note: %s declares permissions that grant nothing in this host: %s\n", p.Name(), pluginJoinPerms(inert))
		}
	}
	return nil
}

// pluginListRejected lists, after the admitted plugins, the directories discovery refused and
// why: a plugin refused for its signature is installed, and "no plugins" would hide it.
func pluginListRejected(w io.Writer, h *zeroclaw.Host) {
	if len(h.Rejected()) == 0 {
		return
	}
	fmt.Fprintf(w, "Not admitted:\n")
	for _, r := range h.Rejected() {
		name := r.Name
		if name == "" {
			name = filepath.Base(r.Dir)
		}
		fmt.Fprintf(w, "  %s (%s): %v\n", name, r.Dir, r.Err)
	}
}

func nonNilWarnings(w []zeroclaw.Warning) []zeroclaw.Warning {
	if w == nil {
		return []zeroclaw.Warning{}
	}
	return w
}

func pluginJoinCaps(cs []manifest.Capability) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ",")
}

func pluginJoinPerms(ps []manifest.Permission) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = string(p)
	}
	return strings.Join(parts, ", ")
}

func pluginSearch(e *pluginEnv, _ *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 1, "a QUERY"); err != nil {
		return err
	}
	loc := registry.Location(e.registry, nil)
	ix, err := zeroclaw.FetchIndex(e.ctx, zeroclaw.RegistryOptions{Location: loc})
	if err != nil {
		return err
	}
	matches := ix.Search(args[0])
	if e.json {
		if matches == nil {
			matches = []registry.Entry{}
		}
		return e.writeJSON(map[string]any{"registry": loc, "query": args[0], "plugins": matches})
	}
	if len(matches) == 0 {
		fmt.Fprintf(e.stdout, "No plugins matching %q in %s.\n", args[0], loc)
		return nil
	}
	fmt.Fprintf(e.stdout, "Plugins matching %q in %s:\n", args[0], loc)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, m := range matches {
		desc := m.Description
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Name, m.Version, strings.Join(m.Capabilities, ","), desc)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "Install one with: kobako plugin install NAME[@VERSION]%s\n", pluginRegistryHint(e.registry))
	return nil
}

func pluginRegistryHint(flagValue string) string {
	if flagValue == "" {
		return ""
	}
	return " --registry " + flagValue
}

func pluginInstall(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	return pluginInstallOrUpdate(e, fs, args, false)
}

func pluginUpdate(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	return pluginInstallOrUpdate(e, fs, args, true)
}

func pluginInstallOrUpdate(e *pluginEnv, fs *flag.FlagSet, args []string, update bool) error {
	if err := pluginWantArgs(args, 1, "a SOURCE"); err != nil {
		return err
	}
	if oci.IsRef(args[0]) {
		return pluginInstallOCI(e, fs, args[0], update)
	}
	if fs.Lookup("manifest").Value.String() != "" {
		return pluginUsageErrorf("--manifest applies to an oci:// source only")
	}
	h, _, cfgPath, opts, err := e.openHost()
	if err != nil {
		return err
	}
	progress := newPluginProgress(e.stderr)
	ro := zeroclaw.RegistryOptions{Location: registry.Location(e.registry, nil), Progress: progress.update}
	if !e.json && !zeroclaw.IsLocalSource(args[0]) && !registry.IsURL(args[0]) {
		fmt.Fprintf(e.stderr, "Resolving %s in %s...\n", args[0], ro.Location)
	}
	install, verb := h.InstallSource, "Installed"
	if update {
		install, verb = h.UpdateSource, "Updated"
	}
	res, err := install(e.ctx, args[0], ro)
	progress.finish(err == nil)
	if err != nil {
		return err
	}
	return pluginReportInstall(e, res, cfgPath, opts, verb)
}

// pluginReportInstall seeds the config file's entries for an installed plugin and reports the
// install (verb is "Installed" or "Updated").
func pluginReportInstall(e *pluginEnv, res *zeroclaw.InstallResult, cfgPath string, opts zeroclaw.Options, verb string) error {
	p := res.Plugin
	var seeded []string
	var seedErrs []string
	if p.Schema != nil {
		for _, id := range p.ConfigEntryKeys() {
			added, err := zeroclaw.SeedEntry(cfgPath, id.Key(), p.Schema.Properties()...)
			switch {
			case err != nil:
				seedErrs = append(seedErrs, err.Error())
			case added:
				seeded = append(seeded, id.Key())
			}
		}
	}
	if e.json {
		return e.writeJSON(map[string]any{"installed": p.Describe(opts.TrustedKeys), "registry_entry": res.Entry,
			"config_file": cfgPath, "seeded_entries": pluginNonNil(seeded), "seed_errors": pluginNonNil(seedErrs)})
	}
	fmt.Fprintf(e.stdout, "%s %s v%s into %s\n", verb, p.Name(), p.Manifest.Version, p.Dir)
	if odd := pluginUnexpectedKeys(p.Describe(opts.TrustedKeys).UnknownKeys); len(odd) > 0 {
		fmt.Fprintf(e.stderr, "warning: manifest keys that neither ZeroClaw nor kobako interpret (kept, and signed; misspelt?): %s\n", strings.Join(odd, ", "))
	}
	if p.Signature.Warning != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", p.Signature.Warning)
	}
	if !p.Loaded() {
		fmt.Fprintf(e.stderr, "warning: %s has no wasm file at %s\n", p.Name(), p.WasmFile())
	}
	if inert := p.InertPermissions(); len(inert) > 0 {
		fmt.Fprintf(e.stdout, "note: these declared permissions grant nothing in this host: %s\n", pluginJoinPerms(inert))
	}
	if p.Schema != nil {
		for _, id := range p.ConfigEntryKeys() {
			fmt.Fprintf(e.stdout, "Config entry key (%s): %s\n", id.Capability, id.Key())
		}
		for _, k := range seeded {
			fmt.Fprintf(e.stdout, "Seeded a [[plugins.entries]] row for %s in %s, with its config properties commented out; set them under its [plugins.entries.config] table (as strings).\n", k, cfgPath)
		}
	}
	for _, msg := range seedErrs {
		fmt.Fprintf(e.stderr, "warning: %s\n", msg)
	}
	return nil
}

// pluginUnexpectedKeys drops, from a manifest's uninterpreted keys, the ones the public registry's
// manifests carry on purpose (ZeroClaw ignores them too); the rest are worth a warning.
func pluginUnexpectedKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if k != "provides" && k != "sender_match" {
			out = append(out, k)
		}
	}
	return out
}

func pluginNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func pluginRemove(e *pluginEnv, _ *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 1, "a plugin NAME"); err != nil {
		return err
	}
	if args[0] == "" {
		return pluginUsageErrorf("a plugin NAME is required, not an empty string ('kobako plugin list' shows the names)")
	}
	h, _, _, _, err := e.openHost()
	if err != nil {
		return err
	}
	if err := h.Remove(args[0]); err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(map[string]any{"removed": args[0]})
	}
	fmt.Fprintf(e.stdout, "Removed %s\n", args[0])
	return nil
}

func pluginInfo(e *pluginEnv, _ *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 1, "a plugin NAME or PATH"); err != nil {
		return err
	}
	h, _, _, opts, err := e.openHost()
	if err != nil {
		return err
	}
	p, ok := h.Plugin(args[0])
	if !ok {
		if !zeroclaw.IsLocalSource(args[0]) {
			_, err := h.Lookup(args[0])
			return err
		}
		if p, err = zeroclaw.Inspect(args[0], opts); err != nil {
			return err
		}
	}
	info := p.Describe(opts.TrustedKeys)
	var world map[string]any
	var worldErr error
	if _, installed := h.Plugin(args[0]); installed && p.WasmFile() != "" && p.Loaded() {
		world, worldErr = pluginWorldInfo(e.ctx, h, p)
	}
	if e.json {
		out := struct {
			zeroclaw.Info
			World      map[string]any `json:"world,omitempty"`
			WorldError string         `json:"world_error,omitempty"`
		}{Info: info, World: world}
		if worldErr != nil {
			out.WorldError = worldErr.Error()
		}
		return e.writeJSON(out)
	}
	pluginPrintInfo(e.stdout, info, opts.SignatureMode)
	pluginPrintWorld(e.stdout, world, worldErr)
	return nil
}

// pluginPrintWorld prints the world metadata pluginWorldInfo found.
func pluginPrintWorld(w io.Writer, world map[string]any, err error) {
	if world == nil && err == nil {
		return
	}
	if t, ok := world["tool"].(map[string]any); ok {
		fmt.Fprintf(w, "Tool:         %s\n", t["name"])
		fmt.Fprintf(w, "  Description: %s\n", t["description"])
		fmt.Fprintf(w, "  Parameters:  %s\n", t["parameters_schema"])
	}
	if c, ok := world["channel"].(map[string]any); ok {
		fmt.Fprintf(w, "Channel:      %s, %s\n", c["name"], c["configure"])
		fmt.Fprintf(w, "  Capabilities: %s\n", strings.Join(c["capabilities"].([]string), ", "))
	}
	if m, ok := world["memory"].(map[string]any); ok {
		fmt.Fprintf(w, "Memory:       %s\n", m["name"])
		fmt.Fprintf(w, "  Capabilities: %s\n", strings.Join(m["capabilities"].([]string), ", "))
	}
	if err != nil {
		fmt.Fprintf(w, "World:        not loaded: %v\n", err)
	}
}

func pluginPrintInfo(w io.Writer, info zeroclaw.Info, mode signature.Mode) {
	fmt.Fprintf(w, "Plugin:       %s v%s\n", info.Name, info.Version)
	if info.Description != "" {
		fmt.Fprintf(w, "Description:  %s\n", info.Description)
	}
	if info.Author != "" {
		fmt.Fprintf(w, "Author:       %s\n", info.Author)
	}
	fmt.Fprintf(w, "Directory:    %s\n", info.Dir)
	if info.Origin != nil {
		fmt.Fprintf(w, "Source:       %s\n", info.Origin.Source)
		fmt.Fprintf(w, "Digest:       %s\n", info.Origin.Digest)
	}
	switch {
	case info.WasmPath == "":
		fmt.Fprintf(w, "WASM:         (skill-only plugin)\n")
	case info.Loaded:
		fmt.Fprintf(w, "WASM:         %s\n", info.WasmFile)
	default:
		fmt.Fprintf(w, "WASM:         %s (MISSING)\n", info.WasmFile)
	}
	fmt.Fprintf(w, "Capabilities: %s\n", pluginJoinCaps(info.Capabilities))
	perms := "(none)"
	if len(info.Permissions) > 0 {
		perms = pluginJoinPerms(info.Permissions)
	}
	fmt.Fprintf(w, "Permissions:  %s\n", perms)
	if len(info.InertPermissions) > 0 {
		fmt.Fprintf(w, "              inert here (accepted, not wired to any host import): %s\n", pluginJoinPerms(info.InertPermissions))
	}
	fmt.Fprintf(w, "Signature:    %s\n", pluginDescribeSignature(info, mode))
	if len(info.ConfigSchema) > 0 {
		var pretty bytes.Buffer
		if json.Indent(&pretty, info.ConfigSchema, "              ", "  ") != nil {
			pretty.Write(info.ConfigSchema)
		}
		fmt.Fprintf(w, "Config schema: %s\n", pretty.String())
		var props []string
		for _, p := range info.ConfigProperties {
			s := p.Name + " (" + string(p.Kind)
			if p.Secret {
				s += ", secret"
			}
			props = append(props, s+")")
		}
		fmt.Fprintf(w, "Config properties: %s\n", strings.Join(props, ", "))
	} else {
		fmt.Fprintf(w, "Config schema: (none; the plugin takes no operator config)\n")
	}
	for _, k := range info.InstanceKeys {
		fmt.Fprintf(w, "Config entry key (%s, binding %q): %s\n", k.Capability, k.Binding, k.Key)
	}
	for _, k := range info.InstanceKeys {
		// The row an operator needs for config values or network access, which nothing else shows.
		egress := slices.Contains(info.Permissions, manifest.PermissionHTTPClient)
		fmt.Fprintf(w, "Config entry row (%s, binding %q), to paste into the kobako config:\n%s\n", k.Capability, k.Binding,
			zeroclaw.EntryRow(k.Key, info.ConfigProperties, egress))
	}
	if len(info.InstanceKeys) == 0 {
		for _, c := range info.Capabilities {
			if c == manifest.CapabilityChannel || c == manifest.CapabilityMemory {
				fmt.Fprintf(w, "Config entry key: a %s's key depends on the alias it is bound under\n", c)
				break
			}
		}
	}
	for _, s := range info.Skills {
		fmt.Fprintf(w, "Skill:        %s: %s\n", s.ID, s.Description)
	}
	if len(info.UnknownKeys) > 0 {
		fmt.Fprintf(w, "Other keys:   %s (kept and signed, not interpreted)\n", strings.Join(info.UnknownKeys, ", "))
	}
}

func pluginDescribeSignature(info zeroclaw.Info, mode signature.Mode) string {
	v := info.Verification
	var s string
	switch v.Status {
	case signature.StatusValid:
		s = "valid, publisher key " + v.PublisherKey
	case signature.StatusUntrusted:
		s = "signed by untrusted publisher key " + info.SignedBy
	case signature.StatusInvalid:
		s = "INVALID (" + v.Reason + "), publisher key " + info.SignedBy
	default:
		s = "unsigned"
		if info.SignedBy != "" {
			s = "unsigned (publisher_key without signature)"
		}
	}
	s += " [signature_mode " + mode.String() + "]"
	if info.Signature.Warning != "" {
		s += " " + info.Signature.Warning
	}
	return s
}

func pluginKeygen(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 0, ""); err != nil {
		return err
	}
	out := fs.Lookup("out").Value.String()
	force := fs.Lookup("force").Value.String() == "true"
	if out == "" {
		priv, err := signature.GenerateKey()
		if err != nil {
			return err
		}
		pemBytes, err := signature.MarshalPrivateKey(priv)
		if err != nil {
			return err
		}
		pub := signature.PublicKeyHex(priv.Public().(ed25519.PublicKey))
		if e.json {
			return e.writeJSON(map[string]string{"public_key": pub, "private_key_pem": string(pemBytes)})
		}
		e.stdout.Write(pemBytes)
		fmt.Fprintf(e.stderr, "Public key: %s\n", pub)
		return nil
	}
	pub, err := zeroclaw.GenerateKeyFile(out, force)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(map[string]string{"public_key": pub, "private_key_file": out})
	}
	fmt.Fprintf(e.stdout, "Wrote the private key to %s (keep it secret).\n", out)
	fmt.Fprintf(e.stdout, "Public key: %s\n", pub)
	fmt.Fprintf(e.stdout, "Sign with:  kobako plugin sign DIR --key %s\n", out)
	fmt.Fprintf(e.stdout, "Operators trust it with [plugins.security] trusted_publisher_keys = [\"%s\"] or --trusted-key %s\n", pub, pub)
	return nil
}

func pluginSign(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 1, "a plugin DIR or MANIFEST"); err != nil {
		return err
	}
	keyPath := fs.Lookup("key").Value.String()
	if keyPath == "" {
		return pluginUsageErrorf("--key FILE is required")
	}
	priv, err := zeroclaw.ReadKeyFile(keyPath)
	if err != nil {
		return err
	}
	res, err := zeroclaw.SignPlugin(args[0], priv)
	if err != nil {
		return err
	}
	if e.json {
		shape := ""
		if res.ShapeError != nil {
			shape = res.ShapeError.Error()
		}
		return e.writeJSON(map[string]string{"name": res.Manifest.Name, "version": res.Manifest.Version,
			"manifest": res.Path, "publisher_key": res.PublisherKey, "shape_error": shape})
	}
	fmt.Fprintf(e.stdout, "Signed %s v%s (%s) with publisher key %s\n", res.Manifest.Name, res.Manifest.Version, res.Path, res.PublisherKey)
	if res.ShapeError != nil {
		fmt.Fprintf(e.stderr, "warning: the manifest still fails its checks, so installs will refuse it: %v\n", res.ShapeError)
	}
	return nil
}

// pluginProgress reports a download on stderr: a redrawn bar on a
// terminal, two plain lines otherwise.
type pluginProgress struct {
	w       io.Writer
	tty     bool
	started bool
	done    int64
	total   int64
	last    time.Time
}

func newPluginProgress(w io.Writer) *pluginProgress {
	return &pluginProgress{w: w, tty: pluginIsTerminal(w)}
}

func pluginIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *pluginProgress) update(done, total int64) {
	p.done, p.total = done, total
	if !p.started {
		p.started = true
		if !p.tty {
			if total >= 0 {
				fmt.Fprintf(p.w, "Downloading plugin archive (%s)...\n", pluginHumanBytes(total))
			} else {
				fmt.Fprintf(p.w, "Downloading plugin archive...\n")
			}
			return
		}
	}
	if p.tty && (time.Since(p.last) > 100*time.Millisecond || done == total) {
		p.last = time.Now()
		p.draw()
	}
}

func (p *pluginProgress) draw() {
	const width = 30
	if p.total > 0 {
		filled := int(p.done * width / p.total)
		fmt.Fprintf(p.w, "\r[%s%s] %3d%% %s / %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
			p.done*100/p.total, pluginHumanBytes(p.done), pluginHumanBytes(p.total))
	} else {
		fmt.Fprintf(p.w, "\r%s downloaded", pluginHumanBytes(p.done))
	}
}

func (p *pluginProgress) finish(ok bool) {
	if !p.started {
		return
	}
	if p.tty {
		p.draw()
		fmt.Fprintln(p.w)
		return
	}
	if ok {
		fmt.Fprintf(p.w, "Downloaded %s.\n", pluginHumanBytes(p.done))
	}
}

func pluginHumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
