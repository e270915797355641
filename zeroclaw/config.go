package zeroclaw

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/internal/durable"
	"github.com/kobako/kobako/zeroclaw/internal/tomldepth"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// Defaults of the host configuration.
const (
	// DefaultConfigDir is the kobako directory under the home directory.
	DefaultConfigDir = "~/.kobako"
	// DefaultConfigFile is the host config file.
	DefaultConfigFile = DefaultConfigDir + "/config.toml"
	// DefaultPluginsDir is where plugins are installed and discovered.
	DefaultPluginsDir = DefaultConfigDir + "/plugins"
	// EnvConfigFile overrides the config file location.
	EnvConfigFile = "KOBAKO_CONFIG"

	DefaultMaxPlugins = 50
)

// Config is the kobako host configuration file. Only the [plugins] section
// belongs to this package; other sections are ignored here.
type Config struct {
	Plugins PluginsConfig `toml:"plugins"`
}

// PluginsConfig is [plugins], the reference host's plugin settings.
type PluginsConfig struct {
	// Enabled switches the plugin system on for runtimes (default false).
	Enabled bool `toml:"enabled"`
	// PluginsDir is where plugins live; a leading "~/" is the home directory.
	PluginsDir string `toml:"plugins_dir"`
	// AutoDiscover loads discovered plugins at startup (default false).
	AutoDiscover bool `toml:"auto_discover"`
	// MaxPlugins bounds how many plugins a runtime loads (default 50).
	MaxPlugins int            `toml:"max_plugins"`
	Security   SecurityConfig `toml:"security"`
	Limits     Limits         `toml:"limits"`
	Entries    []EntryConfig  `toml:"entries"`
}

// SecurityConfig is [plugins.security].
type SecurityConfig struct {
	// SignatureMode is "disabled" (default), "permissive" or "strict"; any
	// other string is strict.
	SignatureMode string `toml:"signature_mode"`
	// TrustedPublisherKeys are hex Ed25519 public keys.
	TrustedPublisherKeys []string `toml:"trusted_publisher_keys"`
}

// Mode resolves SignatureMode, failing safe to strict; the warning is
// non-empty for an unrecognised string.
func (s SecurityConfig) Mode() (signature.Mode, string) {
	return signature.ResolveMode(s.SignatureMode)
}

// EntryConfig is one [[plugins.entries]] row: the operator's values for one
// plugin instance, keyed by the instance's "zpi1_…" key.
type EntryConfig struct {
	Name string `toml:"name"`
	// Config holds the operator values as strings; the schema gives them
	// types at resolution.
	Config map[string]string `toml:"config"`
	// EgressHosts and EgressAllowPrivate are the instance's network
	// allowlist (used by execution; not interpreted here).
	EgressHosts        []string `toml:"egress_hosts"`
	EgressAllowPrivate []string `toml:"egress_allow_private"`
}

// Limits is [plugins.limits], the per-call execution limits. Every value
// must be non-zero.
type Limits struct {
	// CallFuel is the instruction budget of one export call.
	CallFuel uint64 `toml:"call_fuel"`
	// MaxMemoryMB caps a store's linear memory, in MiB.
	MaxMemoryMB uint64 `toml:"max_memory_mb"`
	// MaxTableElements caps a store's table elements.
	MaxTableElements uint64 `toml:"max_table_elements"`
	// MaxInstances caps the component instances of a store.
	MaxInstances uint64 `toml:"max_instances"`
	// CallTimeoutMS is the wall-clock deadline of one export call.
	CallTimeoutMS uint64 `toml:"call_timeout_ms"`
	// MaxConnectionsPerInstance caps live host-owned network connections of
	// one instance, across calls.
	MaxConnectionsPerInstance uint64 `toml:"max_connections_per_instance"`
}

// fields maps [plugins.limits] keys to their fields.
func (l *Limits) fields() map[string]*uint64 {
	return map[string]*uint64{
		"call_fuel":                    &l.CallFuel,
		"max_memory_mb":                &l.MaxMemoryMB,
		"max_table_elements":           &l.MaxTableElements,
		"max_instances":                &l.MaxInstances,
		"call_timeout_ms":              &l.CallTimeoutMS,
		"max_connections_per_instance": &l.MaxConnectionsPerInstance,
	}
}

// UnmarshalTOML decodes [plugins.limits] over the current values. TOML
// integers are signed; a negative limit is reported like a zero one instead
// of wrapping around to a huge unsigned value.
func (l *Limits) UnmarshalTOML(v any) error {
	table, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("plugins.limits must be a table")
	}
	for key, dst := range l.fields() {
		raw, present := table[key]
		if !present {
			continue
		}
		n, ok := raw.(int64)
		if !ok {
			return fmt.Errorf("plugins.limits.%s must be an integer", key)
		}
		if n <= 0 {
			*dst = 0 // Validate reports it with the reference's message.
			continue
		}
		*dst = uint64(n)
	}
	return nil
}

// DefaultLimits are the reference host's defaults.
func DefaultLimits() Limits {
	return Limits{
		CallFuel:                  1_000_000_000,
		MaxMemoryMB:               256,
		MaxTableElements:          100_000,
		MaxInstances:              64,
		CallTimeoutMS:             30_000,
		MaxConnectionsPerInstance: 16,
	}
}

// MaxMemoryBytes is MaxMemoryMB in bytes, saturating instead of overflowing.
func (l Limits) MaxMemoryBytes() uint64 {
	const mib = 1024 * 1024
	if l.MaxMemoryMB > ^uint64(0)/mib {
		return ^uint64(0)
	}
	return l.MaxMemoryMB * mib
}

// CallTimeout is CallTimeoutMS as a duration.
func (l Limits) CallTimeout() time.Duration { return time.Duration(l.CallTimeoutMS) * time.Millisecond }

// Validate rejects zero limits with the reference's messages.
func (l Limits) Validate() error {
	checks := []struct {
		v   uint64
		msg string
	}{
		{l.CallFuel, "plugins.limits.call_fuel must be greater than 0; a zero budget traps every plugin call before it runs"},
		{l.MaxMemoryMB, "plugins.limits.max_memory_mb must be greater than 0; a zero cap rejects every plugin at instantiation"},
		{l.MaxTableElements, "plugins.limits.max_table_elements must be greater than 0; a zero ceiling rejects every plugin that allocates a table"},
		{l.MaxInstances, "plugins.limits.max_instances must be greater than 0; a zero ceiling rejects every plugin at instantiation"},
		{l.CallTimeoutMS, "plugins.limits.call_timeout_ms must be greater than 0; a zero deadline aborts every plugin call before it runs"},
		{l.MaxConnectionsPerInstance, "plugins.limits.max_connections_per_instance must be greater than 0; a zero ceiling rejects every plugin network connection"},
	}
	for _, c := range checks {
		if c.v == 0 {
			return fmt.Errorf("%w: %s", ErrConfig, c.msg)
		}
	}
	return nil
}

// DefaultConfig is the configuration used when no file exists.
func DefaultConfig() *Config {
	return &Config{Plugins: PluginsConfig{
		PluginsDir: DefaultPluginsDir,
		MaxPlugins: DefaultMaxPlugins,
		Security:   SecurityConfig{SignatureMode: "disabled"},
		Limits:     DefaultLimits(),
	}}
}

// ExpandHome replaces a leading "~/" (or a lone "~") with the home
// directory.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: expanding %s: %v", ErrConfig, p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// ConfigPath picks the config file: flag if set, else $KOBAKO_CONFIG, else
// DefaultConfigFile, with "~/" expanded.
func ConfigPath(flag string) (string, error) {
	p := flag
	if p == "" {
		p = os.Getenv(EnvConfigFile)
	}
	if p == "" {
		p = DefaultConfigFile
	}
	return ExpandHome(p)
}

// MaxConfigBytes caps the config file.
const MaxConfigBytes = 4 << 20

// LoadConfig reads the config file at path over the defaults. A missing file
// yields the defaults when mustExist is false. The limits are validated.
func LoadConfig(path string, mustExist bool) (*Config, error) {
	cfg := DefaultConfig()
	raw, err := manifest.ReadCapped(path, MaxConfigBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !mustExist {
			return cfg, nil
		}
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := ParseConfig(raw, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig decodes config text over cfg (whose fields act as defaults)
// and validates the limits.
func ParseConfig(raw []byte, cfg *Config) error {
	if err := tomldepth.Check(string(raw), tomldepth.Max); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if _, err := toml.Decode(string(raw), cfg); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := cfg.Plugins.Limits.Validate(); err != nil {
		return err
	}
	if cfg.Plugins.MaxPlugins < 0 {
		return fmt.Errorf("%w: plugins.max_plugins must not be negative", ErrConfig)
	}
	for i, e := range cfg.Plugins.Entries {
		if e.Name == "" {
			return fmt.Errorf("%w: plugins.entries[%d] has no name (the instance key)", ErrConfig, i)
		}
	}
	return nil
}

// ResolvedPluginsDir is PluginsDir with "~/" expanded.
func (p *PluginsConfig) ResolvedPluginsDir() (string, error) {
	dir := p.PluginsDir
	if dir == "" {
		dir = DefaultPluginsDir
	}
	return ExpandHome(dir)
}

// EntryConfig returns the operator values stored under an instance key (nil
// when there is no entry). Two entries with the same key are an error, as
// in the reference.
func (p *PluginsConfig) EntryConfig(key string) (map[string]string, error) {
	var found *EntryConfig
	for i := range p.Entries {
		if p.Entries[i].Name != key {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: duplicate plugin config entries for one instance key", ErrConfig)
		}
		found = &p.Entries[i]
	}
	if found == nil {
		return nil, nil
	}
	if found.Config == nil {
		return map[string]string{}, nil
	}
	return found.Config, nil
}

// Source is the pluginconfig.Source of one instance's entry.
func (p *PluginsConfig) Source(id instance.ID) pluginconfig.Source {
	return func() (map[string]string, error) { return p.EntryConfig(id.Key()) }
}

// HasEntry reports whether an entry with the key exists.
func (p *PluginsConfig) HasEntry(key string) bool {
	for _, e := range p.Entries {
		if e.Name == key {
			return true
		}
	}
	return false
}

// SeedEntry makes sure the config file at path has a [[plugins.entries]]
// row for key, so operators can fill in values under the instance key that
// `install` and `info` print. The file is created if missing; otherwise the
// row is appended to its text, leaving everything else as written. It
// reports whether a row was added. A file whose entries cannot take an
// appended row (an inline `entries = [...]` array) is left untouched and
// reported as an error. props, the plugin's config schema properties, become a commented-out
// template of its [plugins.entries.config] table.
func SeedEntry(path, key string, props ...pluginconfig.Property) (bool, error) {
	if strings.Trim(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || key == "" {
		return false, fmt.Errorf("%w: %q is not an instance key", ErrConfig, key)
	}
	if err := step("config: mkdir"); err != nil {
		return false, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// Two installs seeding at once must not both read the file and each write back its own row:
	// one row would be lost, or two rows would share a key.
	lock, err := durable.Acquire(configLockPath(path), "editing "+path)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer lock.Unlock()
	cleanTemps(filepath.Dir(path), configTempPattern(path))
	raw, err := manifest.ReadCapped(path, MaxConfigBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	existing := DefaultConfig()
	if err := ParseConfig(raw, existing); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if existing.Plugins.HasEntry(key) {
		return false, nil
	}
	text := string(raw)
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += nl
	}
	if text != "" {
		text += nl
	}
	text += "[[plugins.entries]]" + nl + "name = \"" + key + "\"" + nl + entryTemplate(props, nl)
	updated := DefaultConfig()
	if err := ParseConfig([]byte(text), updated); err != nil || !updated.Plugins.HasEntry(key) ||
		len(updated.Plugins.Entries) != len(existing.Plugins.Entries)+1 {
		return false, fmt.Errorf("%w: %s: cannot append a [[plugins.entries]] row; add one with name = %q by hand", ErrConfig, path, key)
	}
	if err := writeFileAtomic(path, []byte(text), 0o600, configTempPattern(path)); err != nil {
		return false, fmt.Errorf("%w: writing %s: %w", ErrConfig, path, err)
	}
	return true, nil
}

// configLockPath is the lock file config edits hold, beside the config file.
func configLockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// configTempPattern names the temporary files config edits write before renaming them over the
// config file.
func configTempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// EntryRow is a [[plugins.entries]] row for instance key key, ready to paste into the config
// file: the key, for a plugin that may use the network (egress) empty egress_hosts and
// egress_allow_private lists to fill in, and, for a config schema, a [plugins.entries.config]
// table listing its properties as comments (every value is a string; a secret is read through
// secrets.get, never shown to the tool's arguments).
func EntryRow(key string, props []pluginconfig.Property, egress bool) string {
	var b strings.Builder
	b.WriteString("[[plugins.entries]]\n")
	b.WriteString("name = " + strconv.Quote(key) + "\n")
	if egress {
		b.WriteString("egress_hosts = []          # hosts the http_client grant may reach: \"api.example.com\", \"*.example.com\"\n")
		b.WriteString("egress_allow_private = []  # of those, the hosts allowed to resolve to private or loopback addresses\n")
	}
	if len(props) > 0 {
		b.WriteString("[plugins.entries.config]   # uncomment and set; every value is a string\n")
	}
	for _, p := range props {
		name := p.Name
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			name = strconv.Quote(name)
		}
		note := string(p.Kind)
		if p.Secret {
			note += ", secret"
		}
		b.WriteString("# " + name + " = \"\"  # " + note + "\n")
	}
	return b.String()
}

// entryTemplate is the commented-out [plugins.entries.config] table of a seeded row: one line
// per schema property, its type and whether it is a secret, for the operator to fill in. The
// values are strings, as the config file holds them.
func entryTemplate(props []pluginconfig.Property, nl string) string {
	if len(props) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# [plugins.entries.config]  # uncomment and set; every value is a string" + nl)
	for _, p := range props {
		name := p.Name
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			name = strconv.Quote(name)
		}
		note := string(p.Kind)
		if p.Secret {
			note += ", secret"
		}
		b.WriteString("# " + name + " = \"\"  # " + note + nl)
	}
	return b.String()
}
