package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/engine"
)

// cacheFlags are --cache-dir and --no-cache, on every command that compiles modules or
// components: where the engine keeps what it prepares from a module before wazero compiles it
// (engine.Config.CacheDir), so that the next run of the same plugin skips that work.
type cacheFlags struct {
	dir string
	off bool
}

func addCacheFlags(fs *flag.FlagSet) *cacheFlags {
	c := &cacheFlags{}
	fs.StringVar(&c.dir, "cache-dir", "", "keep modules decoded, checked and metered for the next run in `DIR` (default "+defaultCacheDirHelp()+")")
	fs.BoolVar(&c.off, "no-cache", false, "neither read nor write the cache of prepared modules")
	return c
}

func defaultCacheDirHelp() string {
	if d := defaultCacheDir(); d != "" {
		return d
	}
	return "the user cache directory's kobako, none here"
}

// defaultCacheDir is kobako's directory in the user cache directory ($XDG_CACHE_HOME or
// ~/.cache on Linux), or "" where there is none (js/wasm, wasip1, no home directory).
func defaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "kobako")
}

type cacheDirKey struct{}

// context returns ctx carrying the cache directory the flags choose, "" for none, for newEngine.
func (c *cacheFlags) context(ctx context.Context) context.Context {
	dir := c.dir
	switch {
	case c.off:
		dir = ""
	case dir == "":
		dir = defaultCacheDir()
	}
	return context.WithValue(ctx, cacheDirKey{}, dir)
}

func cacheDirFrom(ctx context.Context) string {
	d, _ := ctx.Value(cacheDirKey{}).(string)
	return d
}

// newEngine makes the engine of a command: one that reports fuel per function when the command
// writes a fuel profile (which costs a listener call per guest call, so only then), with the
// cache directory of its flags.
func newEngine(ctx context.Context) (*engine.Engine, error) {
	return engine.New(ctx, engineConfig(ctx, fuelProfileFrom(ctx) != nil))
}

// engineConfig is the engine configuration of a command run with ctx, profiling functions or not.
func engineConfig(ctx context.Context, profile bool) engine.Config {
	return engine.Config{ProfileFunctions: profile, CacheDir: cacheDirFrom(ctx)}
}
