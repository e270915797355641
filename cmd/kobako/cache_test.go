package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cacheEntries returns the files of a cache directory's prepared modules, by name.
func cacheEntries(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "prepared"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]os.FileInfo{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi
	}
	return out
}

// TestPluginCallCache: plugin call writes the prepared core modules of the component to
// --cache-dir, and the next call reads them (the files are not written again) and answers the
// same; --no-cache neither reads nor writes; the default is the user cache directory.
func TestPluginCallCache(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	cache := t.TempDir()
	call := func(extra ...string) pluginResult {
		t.Helper()
		args := append(append([]string{"call"}, cfg...), extra...)
		r := runPluginCLIStdin(t, "", append(args, "gotool", `{"tool_error":"bad"}`)...)
		if r.code != 0 || r.stdout != `{"success":false,"output":"","error":"bad"}`+"\n" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", extra, r.code, r.stdout, r.stderr)
		}
		return r
	}
	call("--cache-dir", cache)
	first := cacheEntries(t, cache)
	if len(first) == 0 {
		t.Fatal("nothing was cached")
	}
	call("--cache-dir", cache)
	second := cacheEntries(t, cache)
	if len(second) != len(first) {
		t.Fatalf("%d entries, then %d", len(first), len(second))
	}
	for name, fi := range first {
		if !os.SameFile(fi, second[name]) {
			t.Errorf("%s was written again: the warm call did not use it", name)
		}
	}
	none := t.TempDir()
	call("--cache-dir", none, "--no-cache")
	if n := len(cacheEntries(t, none)); n != 0 {
		t.Errorf("--no-cache wrote %d entries", n)
	}
	// The default: $XDG_CACHE_HOME/kobako here (os.UserCacheDir).
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	call()
	if n := len(cacheEntries(t, filepath.Join(xdg, "kobako"))); n != len(first) {
		t.Errorf("the default cache directory has %d entries, want %d", n, len(first))
	}
}

// TestPluginCallFuelProfile: plugin call --fuel-profile writes the execute's fuel by function of
// the component's core modules, named from their name sections; an existing file is refused.
func TestPluginCallFuelProfile(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	out := filepath.Join(t.TempDir(), "tool.pprof")
	args := append(append([]string{"call"}, cfg...), "--fuel-profile", out, "gotool", `{"tool_error":"bad"}`)
	if r := runPluginCLIStdin(t, "", args...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	total, funcs := readProfile(t, out)
	// gotool's Go module has no name section (its functions are $INDEX); the WASI adapter's
	// core module, in the same component, has one: its functions must be named from it.
	var adapter bool
	for f := range funcs {
		adapter = adapter || strings.Contains(f, "wasi_snapshot_preview1")
	}
	if total <= 0 || !adapter {
		t.Fatalf("the profile holds %d fuel in %d functions, none of the adapter's named: %v", total, len(funcs), funcs)
	}
	t.Logf("%d fuel in %d functions", total, len(funcs))
	if r := runPluginCLIStdin(t, "", args...); r.code != 2 {
		t.Fatalf("an existing profile: exit %d: %s", r.code, r.stderr)
	}
}
