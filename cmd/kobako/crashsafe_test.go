package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
)

// crashPluginSource writes version v of plugin p (a tool with a config schema, so installs seed
// the config file) into a new directory. Its wasm carries v in a custom section and the manifest
// pins it, so a directory mixing two versions is caught.
func crashPluginSource(t *testing.T, v string) string {
	t.Helper()
	name := "kobako-version"
	payload := append([]byte{byte(len(name))}, name+"="+v...)
	wasm := append([]byte(pluginToolWasm(t)), append([]byte{0, byte(len(payload))}, payload...)...)
	sum := sha256.Sum256(wasm)
	dir := filepath.Join(t.TempDir(), "p-"+v)
	pluginWriteFile(t, filepath.Join(dir, "p.wasm"), string(wasm))
	pluginWriteFile(t, filepath.Join(dir, "manifest.toml"), fmt.Sprintf(`name = "p"
version = "%s.0.0"
wasm_path = "p.wasm"
wasm_sha256 = "%s"
capabilities = ["tool"]
permissions = ["config_read"]

[config_schema]
type = "object"
additionalProperties = false
properties.label.type = "string"
`, v, hex.EncodeToString(sum[:])))
	return dir
}

// crashPluginState is "", "p@N" for a whole version N, or what is wrong.
func crashPluginState(plugins string) string {
	h, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: plugins})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, r := range h.Rejected() {
		out = append(out, "rejected: "+r.Err.Error())
	}
	for _, p := range h.Plugins() {
		b, _ := os.ReadFile(p.WasmFile())
		v, _, _ := strings.Cut(p.Manifest.Version, ".")
		if !bytes.HasSuffix(b, []byte("kobako-version="+v)) {
			out = append(out, "mixed")
			continue
		}
		out = append(out, p.Name()+"@"+v)
	}
	return strings.Join(out, ",")
}

// crashDebris lists the temporary files and leftover directories under dir.
func crashDebris(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".kobako-") && n != ".kobako.lock" || strings.Contains(n, ".tmp-") || strings.Contains(n, ".keygen-") {
			out = append(out, n)
		}
	}
	return out
}

func TestPluginUpdate(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	plugins, config := filepath.Join(work, "plugins"), filepath.Join(work, "config.toml")
	pluginWriteFile(t, config, "")
	common := []string{"--plugins-dir", plugins, "--config", config}
	v1, v2 := crashPluginSource(t, "1"), crashPluginSource(t, "2")
	tests := []struct {
		args       []string
		code       int
		say, state string
	}{
		{[]string{"update", v1}, 1, "p is not installed", ""},
		{[]string{"install", v1}, 0, "Installed p v1.0.0", "p@1"},
		{[]string{"install", v2}, 1, "already loaded", "p@1"},
		{[]string{"update", v2}, 0, "Updated p v2.0.0", "p@2"},
		{[]string{"update", v1}, 0, "Updated p v1.0.0", "p@1"},
		{[]string{"remove", "p"}, 0, "Removed p", ""},
	}
	for _, tt := range tests {
		r := runPluginCLI(t, append(tt.args, common...)...)
		if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.say) {
			t.Errorf("%q: %+v, want exit %d and %q", tt.args, r, tt.code, tt.say)
		}
		if st := crashPluginState(plugins); st != tt.state {
			t.Errorf("after %q: %q, want %q", tt.args, st, tt.state)
		}
	}
	cfg, err := zeroclaw.LoadConfig(config, true)
	if err != nil || len(cfg.Plugins.Entries) != 1 {
		t.Errorf("config seeded by install and update: %v %+v", err, cfg)
	}
	if d := crashDebris(plugins); len(d) > 0 {
		t.Errorf("left %q", d)
	}
}

// packSetup writes two versions of a package and packs the first to out.
func packSetup(t *testing.T) (dir1, dir2, out string, old []byte) {
	dir1 = fixturePackage(t, "tiny", map[string]string{"a.txt": "version 1"})
	dir2 = fixturePackage(t, "tiny", map[string]string{"a.txt": "version 2", "b.txt": "new"})
	out = filepath.Join(t.TempDir(), "pkg.zip")
	if code, _, errOut := runFunction(t, "pack", dir1, "-o", out); code != 0 {
		t.Fatal(errOut)
	}
	old, _ = os.ReadFile(out)
	return dir1, dir2, out, old
}

func setPackStep(t *testing.T, f func(string) error) {
	packStep = f
	t.Cleanup(func() { packStep = func(string) error { return nil } })
}

// TestPack_CrashAtEveryStep copies the output directory at every step of a pack, as a crash there
// leaves it: the zip is the old one or the new one, and the next pack succeeds and leaves only the
// zip.
func TestPack_CrashAtEveryStep(t *testing.T) {
	_, dir2, out, old := packSetup(t)
	snaps := t.TempDir()
	var steps []string
	setPackStep(t, func(s string) error {
		steps = append(steps, s)
		snap := filepath.Join(snaps, fmt.Sprint(len(steps)))
		os.Mkdir(snap, 0o755)
		entries, _ := os.ReadDir(filepath.Dir(out))
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(out), e.Name()))
			os.WriteFile(filepath.Join(snap, e.Name()), b, 0o644)
		}
		return nil
	})
	if code, _, errOut := runFunction(t, "pack", dir2, "-o", out); code != 0 {
		t.Fatal(errOut)
	}
	packStep = func(string) error { return nil }
	updated, _ := os.ReadFile(out)
	if bytes.Equal(old, updated) || len(steps) < 5 {
		t.Fatalf("the pack did not change the zip, or went through %q", steps)
	}
	for i, s := range steps {
		snap := filepath.Join(snaps, fmt.Sprint(i+1))
		zip := filepath.Join(snap, "pkg.zip")
		if got, _ := os.ReadFile(zip); !bytes.Equal(got, old) && !bytes.Equal(got, updated) {
			t.Errorf("crash before %q: pkg.zip is neither version (%d bytes)", s, len(got))
		}
		if code, _, errOut := runFunction(t, "pack", dir2, "-o", zip); code != 0 {
			t.Errorf("crash before %q: the next pack: %s", s, errOut)
		}
		if entries, _ := os.ReadDir(snap); len(entries) != 1 {
			t.Errorf("crash before %q: the next pack left %v", s, entries)
		}
	}
}

// TestPack_FullDiskAtEveryStep fails each step of a pack up to its rename as a full disk would:
// exit 1 with an error naming the zip and the full disk, the old zip untouched, nothing left.
func TestPack_FullDiskAtEveryStep(t *testing.T) {
	for _, step := range []string{"pack: create temp", "pack: write", "pack: sync", "pack: commit rename"} {
		t.Run(step, func(t *testing.T) {
			_, dir2, out, old := packSetup(t)
			setPackStep(t, func(s string) error {
				if s == step {
					return syscall.ENOSPC
				}
				return nil
			})
			code, _, errOut := runFunction(t, "pack", dir2, "-o", out)
			if code != exitError || !strings.Contains(strings.ToLower(errOut), "no space left on device") || !strings.Contains(errOut, out) {
				t.Errorf("exit %d, %q", code, errOut)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, old) {
				t.Error("the old zip changed")
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Errorf("left %v", entries)
			}
		})
	}
}

// TestPlugin_ConcurrentProcesses starts two kobako processes installing one plugin, then two
// updating it: one install wins and the other says the plugin is there, both updates succeed,
// and the plugin and the config file are whole.
func TestPlugin_ConcurrentProcesses(t *testing.T) {
	work := t.TempDir()
	plugins, config := filepath.Join(work, "plugins"), filepath.Join(work, "config.toml")
	os.WriteFile(config, nil, 0o644)
	v1, v2 := crashPluginSource(t, "1"), crashPluginSource(t, "2")
	both := func(sub string) []error {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		outs := make([]bytes.Buffer, 2)
		for i, src := range []string{v1, v2} {
			cmd := kobakoCmd(t, "plugin", sub, src, "--plugins-dir", plugins, "--config", config)
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
			wg.Go(func() {
				if err := cmd.Run(); err != nil {
					errs[i] = fmt.Errorf("%v: %s", err, outs[i].String())
				}
			})
		}
		wg.Wait()
		return errs
	}
	errs := both("install")
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two installs: %v", errs)
	}
	for _, err := range errs {
		if err != nil && !strings.Contains(err.Error(), "already") {
			t.Errorf("the losing install: %v", err)
		}
	}
	for _, err := range both("update") {
		if err != nil {
			t.Errorf("update: %v", err)
		}
	}
	if st := crashPluginState(plugins); st != "p@1" && st != "p@2" {
		t.Errorf("state %q", st)
	}
	if cfg, err := zeroclaw.LoadConfig(config, true); err != nil || len(cfg.Plugins.Entries) != 1 {
		t.Errorf("config: %v %+v", err, cfg)
	}
}

// TestPlugin_KilledAtRandom runs `kobako plugin install`, `update`, `remove` and `function pack`
// as child processes and kills each (SIGKILL where there are signals) after a random delay:
// whenever one dies, the plugin is absent or one whole version, the zip is the old or the new one,
// and the config loads; afterwards an update and a pack succeed and leave nothing behind.
func TestPlugin_KilledAtRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes many times")
	}
	work := t.TempDir()
	plugins, config := filepath.Join(work, "plugins"), filepath.Join(work, "config.toml")
	os.WriteFile(config, nil, 0o644)
	srcs := []string{crashPluginSource(t, "1"), crashPluginSource(t, "2")}
	dir1, dir2, out, old := packSetup(t)
	newZip := filepath.Join(t.TempDir(), "new.zip")
	if code, _, errOut := runFunction(t, "pack", dir2, "-o", newZip); code != 0 {
		t.Fatal(errOut)
	}
	updated, _ := os.ReadFile(newZip)
	rt, err := subako.New(context.Background(), subako.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	killed := 0
	for i := range 24 {
		var args []string
		switch i % 4 {
		case 0:
			args = []string{"plugin", "install", srcs[rand.IntN(2)]}
		case 1:
			args = []string{"plugin", "update", srcs[rand.IntN(2)]}
		case 2:
			args = []string{"plugin", "remove", "p"}
		case 3:
			args = []string{"function", "pack", []string{dir1, dir2}[rand.IntN(2)], "-o", out}
		}
		if args[0] == "plugin" {
			args = append(args, "--plugins-dir", plugins, "--config", config)
		}
		cmd := kobakoCmd(t, args...)
		var output bytes.Buffer
		cmd.Stdout, cmd.Stderr = &output, &output
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(60)) * time.Millisecond)
		cmd.Process.Kill()
		var exit *exec.ExitError
		if err := cmd.Wait(); errors.As(err, &exit) && !exit.Exited() {
			killed++
		}
		if st := crashPluginState(plugins); st != "" && st != "p@1" && st != "p@2" {
			t.Errorf("%q killed: plugins %q (%s)", args[:3], st, output.String())
		}
		got, err := os.ReadFile(out)
		if err != nil || (!bytes.Equal(got, old) && !bytes.Equal(got, updated)) {
			t.Errorf("%q killed: the zip is neither version (%v)", args[:3], err)
		} else if p, err := rt.LoadZip(context.Background(), bytes.NewReader(got), int64(len(got))); err != nil {
			t.Errorf("%q killed: the zip does not load: %v", args[:3], err)
		} else {
			p.Close()
		}
		if _, err := zeroclaw.LoadConfig(config, true); err != nil {
			t.Errorf("%q killed: config: %v", args[:3], err)
		}
	}
	if killed == 0 {
		t.Error("no child was killed before it finished; the delays are too long for this machine")
	}
	for _, args := range [][]string{
		{"plugin", "remove", "p", "--plugins-dir", plugins, "--config", config},
		{"plugin", "install", srcs[1], "--plugins-dir", plugins, "--config", config},
		{"function", "pack", dir2, "-o", out},
	} {
		if b, err := kobakoCmd(t, args...).CombinedOutput(); err != nil && args[1] != "remove" {
			t.Errorf("%q after the kills: %v: %s", args[:2], err, b)
		}
	}
	if st := crashPluginState(plugins); st != "p@2" {
		t.Errorf("after a fresh install: %q", st)
	}
	for _, dir := range []string{plugins, filepath.Dir(out)} {
		if d := crashDebris(dir); len(d) > 0 {
			t.Errorf("left %q in %s", d, dir)
		}
	}
	var zips []string
	filepath.WalkDir(filepath.Dir(out), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			zips = append(zips, d.Name())
		}
		return nil
	})
	if len(zips) != 1 {
		t.Errorf("the zip's directory holds %q", zips)
	}
}
