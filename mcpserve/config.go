package mcpserve

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako"
)

// MaxConfigBytes caps the config file read by LoadConfig.
const MaxConfigBytes = 4 << 20

// Config is the [mcp] section of the kobako config file:
//
//	[mcp]
//	allow_hosts = ["api.example.com"]   # subako_http hosts every package may reach
//	plugins = true                      # serve the installed ZeroClaw tool plugins (default true)
//	watch = false                       # reload on changes (as --watch)
//	max_concurrent_calls = 8            # guests running at once (default 4 × GOMAXPROCS)
//
//	[mcp.limits]                        # every package's call limits (defaults as `function call`)
//	timeout_ms = 30000
//	fuel = 1000000000
//	max_memory_mb = 256
//	write_budget_mb = 1024
//
//	[mcp.http]                          # settings of `--http ADDR`
//	allowed_hosts = ["localhost", "127.0.0.1", "::1"]
//	allowed_origins = []
//	token_file = "~/.kobako/mcp-token"
//	max_body_bytes = 4194304
//	strict_protocol_header = false      # refuse header/_meta version mismatches (-32020)
//
//	[[mcp.packages]]
//	path = "~/tools/weather.zip"        # a package directory or zip (relative to the config file), or oci://…
//	name = "weather"                    # the source name (default: the manifest's name)
//	prefix = true                       # false lists the tools as TOOL instead of NAME__TOOL
//	volume = "~/weather/tmp"            # mounted at /volume/tmp (default: a fresh temporary dir per call)
//	data = "~/weather/data"             # mounted at /volume/data (default: none)
//	allow_hosts = ["api.weather.example"]   # replaces [mcp] allow_hosts for this package
//	skills = { notes = "~/skills/notes" }   # mounted read-only at /skills/NAME
//	[mcp.packages.limits]               # replaces [mcp.limits] field by field
//	timeout_ms = 5000
type Config struct {
	Packages   []PackageConfig `toml:"packages"`
	AllowHosts []string        `toml:"allow_hosts"`
	Plugins    *bool           `toml:"plugins"`
	Watch      bool            `toml:"watch"`
	// MaxConcurrentCalls caps the guests running at once; 0 means the default.
	MaxConcurrentCalls int          `toml:"max_concurrent_calls"`
	Limits             LimitsConfig `toml:"limits"`
	HTTP               HTTPConfig   `toml:"http"`
}

// PackageConfig is one [[mcp.packages]] row.
type PackageConfig struct {
	// Path is the package: a directory or zip archive (relative to the config file's
	// directory), "example" for the embedded example, or an OCI reference
	// "oci://REGISTRY/REPOSITORY[:TAG|@DIGEST]", which LoadConfig leaves as it is for the
	// caller to pull (kobako mcp pulls it as it pulls one given on its command line).
	Path       string            `toml:"path"`
	Name       string            `toml:"name"`
	Prefix     *bool             `toml:"prefix"`
	Volume     string            `toml:"volume"`
	Data       string            `toml:"data"`
	AllowHosts []string          `toml:"allow_hosts"`
	Skills     map[string]string `toml:"skills"`
	Limits     LimitsConfig      `toml:"limits"`
}

// LimitsConfig are call limits; a zero field means "not set here".
type LimitsConfig struct {
	TimeoutMS     uint64 `toml:"timeout_ms"`
	Fuel          uint64 `toml:"fuel"`
	MaxMemoryMB   uint64 `toml:"max_memory_mb"`
	WriteBudgetMB uint64 `toml:"write_budget_mb"`
}

// HTTPConfig is [mcp.http].
type HTTPConfig struct {
	AllowedHosts   []string `toml:"allowed_hosts"`
	AllowedOrigins []string `toml:"allowed_origins"`
	TokenFile      string   `toml:"token_file"`
	MaxBodyBytes   int64    `toml:"max_body_bytes"`
	// StrictProtocolHeader is --strict-protocol-header.
	StrictProtocolHeader bool `toml:"strict_protocol_header"`
}

// ServePlugins reports whether the installed ZeroClaw tool plugins are served (default true).
func (c *Config) ServePlugins() bool { return c.Plugins == nil || *c.Plugins }

// LoadConfig reads the [mcp] section of the config file at path; a missing file is an empty
// section. Relative paths in it are taken from the file's directory and "~/" is the home
// directory. Unknown keys are an error, so that a misspelt limit is not silently ignored.
func LoadConfig(path string) (*Config, error) {
	raw, err := readCapped(path, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcpserve: config: %w: %v", ErrConfig, err)
	}
	cfg, err := ParseConfig(raw, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("mcpserve: config: %w: %s: %v", ErrConfig, path, err)
	}
	return cfg, nil
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}

// ParseConfig decodes the [mcp] section of config text; base is the directory relative paths are
// taken from. Other sections are ignored.
func ParseConfig(raw []byte, base string) (*Config, error) {
	var file struct {
		MCP Config `toml:"mcp"`
	}
	md, err := toml.Decode(string(raw), &file)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "mcp" {
			unknown = append(unknown, k.String())
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown keys %s", strings.Join(unknown, ", "))
	}
	// A limit written as 0 is a mistake, not "unset": no call runs without fuel or time.
	written := map[string]int{}
	for _, k := range md.Keys() {
		if len(k) >= 3 && k[0] == "mcp" && k[len(k)-2] == "limits" {
			written[k.String()]++
		}
	}
	for key, n := range written {
		field := key[strings.LastIndex(key, ".")+1:]
		nonzero := 0
		if strings.HasPrefix(key, "mcp.packages.") {
			// Keys has one entry per row that wrote the key; a row that did not reads as 0.
			for _, p := range file.MCP.Packages {
				if !p.Limits.zero(field) {
					nonzero++
				}
			}
		} else if !file.MCP.Limits.zero(field) {
			nonzero = 1
		}
		if n > nonzero {
			return nil, fmt.Errorf("%s = 0: a limit must be at least 1 (leave it out for the default)", key)
		}
	}
	cfg := &file.MCP
	if err := cfg.Limits.check("mcp.limits"); err != nil {
		return nil, err
	}
	for i, p := range cfg.Packages {
		if err := p.Limits.check(fmt.Sprintf("mcp.packages[%d].limits", i)); err != nil {
			return nil, err
		}
	}
	if err := cfg.Defaults().Limits.Validate(); err != nil {
		return nil, fmt.Errorf("mcp.limits: %v", err)
	}
	if cfg.MaxConcurrentCalls < 0 {
		return nil, errors.New("mcp.max_concurrent_calls must not be negative")
	}
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		if p.Path == "" {
			return nil, fmt.Errorf("mcp.packages[%d] has no path", i)
		}
		paths := []*string{&p.Volume, &p.Data}
		if !isOCIRef(p.Path) {
			paths = append(paths, &p.Path)
		}
		for _, d := range paths {
			if *d, err = resolvePath(*d, base); err != nil {
				return nil, err
			}
		}
		for name, dir := range p.Skills {
			if p.Skills[name], err = resolvePath(dir, base); err != nil {
				return nil, err
			}
		}
	}
	if cfg.HTTP.TokenFile, err = resolvePath(cfg.HTTP.TokenFile, base); err != nil {
		return nil, err
	}
	if cfg.HTTP.MaxBodyBytes < 0 {
		return nil, errors.New("mcp.http.max_body_bytes must not be negative")
	}
	return cfg, nil
}

// check refuses limits too large to express: a millisecond count past what a time.Duration holds,
// or megabytes past what a byte count holds, would wrap around to nonsense.
func (l LimitsConfig) check(where string) error {
	const maxMS = uint64(math.MaxInt64 / int64(time.Millisecond))
	const maxMB = uint64(math.MaxInt64 >> 20)
	switch {
	case l.TimeoutMS > maxMS:
		return fmt.Errorf("%s.timeout_ms = %d is more than %d", where, l.TimeoutMS, maxMS)
	case l.MaxMemoryMB > maxMB:
		return fmt.Errorf("%s.max_memory_mb = %d is more than %d", where, l.MaxMemoryMB, maxMB)
	case l.WriteBudgetMB > maxMB:
		return fmt.Errorf("%s.write_budget_mb = %d is more than %d", where, l.WriteBudgetMB, maxMB)
	}
	return nil
}

// zero reports whether the named field is 0 (unknown names are not limits, and never 0).
func (l LimitsConfig) zero(name string) bool {
	switch name {
	case "timeout_ms":
		return l.TimeoutMS == 0
	case "fuel":
		return l.Fuel == 0
	case "max_memory_mb":
		return l.MaxMemoryMB == 0
	case "write_budget_mb":
		return l.WriteBudgetMB == 0
	}
	return false
}

// isOCIRef reports whether a package path is an OCI reference rather than a file path: only the
// scheme, as oci.IsRef tells them apart; mcpserve leaves pulling (and go-containerregistry) to its
// caller.
func isOCIRef(path string) bool { return strings.HasPrefix(path, "oci://") }

// resolvePath expands "~/" and makes p relative to base; "example" (the embedded package) and ""
// stay as they are.
func resolvePath(p, base string) (string, error) {
	if p == "" || p == ExamplePackage {
		return p, nil
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expanding %s: %v", p, err)
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
	}
	if !filepath.IsAbs(p) && base != "" {
		return filepath.Join(base, p), nil
	}
	return p, nil
}

// Apply returns the call limits of l over base, field by field.
func (l LimitsConfig) Apply(base engine.Limits, budget int64) (engine.Limits, int64) {
	if l.TimeoutMS != 0 {
		base.Deadline = time.Duration(l.TimeoutMS) * time.Millisecond
	}
	if l.Fuel != 0 {
		base.Fuel = l.Fuel
	}
	if l.MaxMemoryMB != 0 {
		base.MemoryBytes = l.MaxMemoryMB << 20
	}
	if l.WriteBudgetMB != 0 {
		budget = int64(l.WriteBudgetMB << 20)
	}
	return base, budget
}

// CallDefaults are what every package's calls get before its own settings: the limits and
// network of `kobako mcp`'s flags over [mcp].
type CallDefaults struct {
	Limits      engine.Limits
	WriteBudget int64
	AllowHosts  []string
}

// Defaults returns the call defaults of the section: the limits of `kobako function call` with
// [mcp.limits] over them, and [mcp] allow_hosts.
func (c *Config) Defaults() CallDefaults {
	lim, wb := c.Limits.Apply(subako.DefaultCallLimits(), subako.DefaultWriteBudget)
	return CallDefaults{Limits: lim, WriteBudget: wb, AllowHosts: c.AllowHosts}
}

// Spec turns a [[mcp.packages]] row into a PackageSpec over the defaults d.
func (p PackageConfig) Spec(d CallDefaults) (PackageSpec, error) {
	lim, wb := p.Limits.Apply(d.Limits, d.WriteBudget)
	hosts := d.AllowHosts
	if p.AllowHosts != nil {
		hosts = p.AllowHosts
	}
	spec, err := NewPackageSpec(p.Name, p.Path, subako.CallOptions{Limits: lim, WriteBudget: wb, Volume: p.Volume, Data: p.Data}, hosts, p.Skills)
	spec.NoPrefix = p.Prefix != nil && !*p.Prefix
	return spec, err
}

// NewPackageSpec builds a PackageSpec, checking the limits, compiling the host allowlist into the
// network policy and adding the skills (sorted by name).
func NewPackageSpec(name, path string, call subako.CallOptions, allowHosts []string, skills map[string]string) (PackageSpec, error) {
	if err := call.Limits.Validate(); err != nil {
		return PackageSpec{}, fmt.Errorf("mcpserve: package %s: %w: %v", path, ErrConfig, err)
	}
	if len(allowHosts) > 0 {
		pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: allowHosts})
		if err != nil {
			return PackageSpec{}, fmt.Errorf("mcpserve: package %s: %w: allow_hosts: %v", path, ErrConfig, err)
		}
		call.Network = pol
	}
	names := make([]string, 0, len(skills))
	for n := range skills {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		call.Skills = append(call.Skills, subako.Skill{Name: n, Dir: skills[n]})
	}
	return PackageSpec{Name: name, Path: path, Call: call}, nil
}
