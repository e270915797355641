package zeroclaw

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kobako/kobako/zeroclaw/manifest"
)

// The crash tests run each file operation of the host in a root directory laid out as
//
//	root/plugins     the plugins directory
//	root/src-1, -2   versions 1 and 2 of plugin "p" (a tool with a skill), each pinning its wasm
//	root/config.toml the host config
//	root/keys/p.pem  a publisher key
//
// and check, for a crash at every step (a copy of root taken there), a full disk at every step
// before the commit, and concurrent runs, that what the next kobako sees is the old state or the
// new one, and that its next operation succeeds and leaves nothing behind.

// crashKey is the config entry key the config edits seed.
const crashKey = "zpi1_crash"

// versionWasm is the tool component with a custom section naming version v, so that two versions'
// wasm files differ and a plugin mixing one version's manifest with the other's wasm is caught.
func versionWasm(v string) []byte {
	name := "kobako-version"
	payload := append([]byte{byte(len(name))}, name+"="+v...)
	return append([]byte(toolWasm), append([]byte{0, byte(len(payload))}, payload...)...)
}

// writeVersion writes version v of plugin p into dir.
func writeVersion(t testing.TB, dir, v string) {
	wasm := versionWasm(v)
	sum := sha256.Sum256(wasm)
	writeFile(t, filepath.Join(dir, "bin", "p.wasm"), string(wasm))
	writeFile(t, filepath.Join(dir, manifest.FileName), fmt.Sprintf("name = \"p\"\nversion = \"%s.0.0\"\nwasm_path = \"bin/p.wasm\"\nwasm_sha256 = \"%s\"\ncapabilities = [\"tool\", \"skill\"]\n",
		v, hex.EncodeToString(sum[:])))
	writeFile(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: version "+v+"\n---\n")
	writeFile(t, filepath.Join(dir, "skills", "s", "references", "r.md"), "reference of version "+v)
}

// crashRoot lays out a root with both sources and an empty plugins directory.
func crashRoot(t testing.TB) string {
	root := t.TempDir()
	writeVersion(t, filepath.Join(root, "src-1"), "1")
	writeVersion(t, filepath.Join(root, "src-2"), "2")
	if err := os.MkdirAll(filepath.Join(root, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func rootHost(root string) (*Host, error) {
	return Open(Options{PluginsDir: filepath.Join(root, "plugins")})
}

// pluginState is what a kobako started on root sees of the plugins: "" or "p@N", with every file
// of version N; anything else (a rejected directory, a mixed version) is reported as such.
func pluginState(root string) string {
	h, err := rootHost(root)
	if err != nil {
		return "open: " + err.Error()
	}
	var out []string
	for _, r := range h.Rejected() {
		out = append(out, fmt.Sprintf("rejected %s: %v", filepath.Base(r.Dir), r.Err))
	}
	for _, p := range h.Plugins() {
		v, _, _ := strings.Cut(p.Manifest.Version, ".")
		wasm, _ := os.ReadFile(p.WasmFile())
		skill, _ := os.ReadFile(filepath.Join(p.Dir, "skills", "s", "SKILL.md"))
		ref, _ := os.ReadFile(filepath.Join(p.Dir, "skills", "s", "references", "r.md"))
		if string(wasm) != string(versionWasm(v)) || !strings.Contains(string(skill), "version "+v) || string(ref) != "reference of version "+v {
			out = append(out, "mixed "+p.Name())
			continue
		}
		out = append(out, p.Name()+"@"+v)
	}
	return strings.Join(out, ",")
}

// keyState is "" without a key file, the public key of a complete key, or what is wrong.
func keyState(root string) string {
	path := filepath.Join(root, "keys", "p.pem")
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	priv, err := ReadKeyFile(path)
	if err != nil {
		return "broken key: " + err.Error()
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		return fmt.Sprintf("key mode %v", fi.Mode())
	}
	return hex.EncodeToString(priv.Public().(ed25519.PublicKey))
}

// configState is the config file's text, or what is wrong with it.
func configState(root string) string {
	path := filepath.Join(root, "config.toml")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "(none)"
	}
	if _, err := LoadConfig(path, true); err != nil {
		return "broken config: " + err.Error()
	}
	return string(b)
}

// debris lists the entries under root that no operation should leave: leftovers of the plugins
// directory and temporary files.
func debris(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n := d.Name()
		if isLeftover(n) || strings.Contains(n, ".tmp-") || strings.Contains(n, ".keygen-") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

func installOrUpdate(root, src string) error {
	h, err := rootHost(root)
	if err != nil {
		return err
	}
	if _, ok := h.Plugin("p"); ok {
		_, err = h.Update(filepath.Join(root, src))
	} else {
		_, err = h.Install(filepath.Join(root, src))
	}
	return err
}

type crashCase struct {
	name string
	// fallback makes updates move the old version aside instead of exchanging directories.
	fallback bool
	setup    func(t testing.TB, root string)
	run      func(root string) error
	state    func(root string) string
	// next is the operation a user runs after the crash; it must succeed from the old state or
	// the new one and end in the new one (keygen: in some complete key).
	next func(root string) error
	is   error
}

func crashCases() []crashCase {
	installed := func(v string) func(testing.TB, string) {
		return func(t testing.TB, root string) {
			if err := installOrUpdate(root, "src-"+v); err != nil {
				t.Fatal(err)
			}
		}
	}
	update := crashCase{
		setup: installed("1"),
		run: func(root string) error {
			h, err := rootHost(root)
			if err == nil {
				_, err = h.Update(filepath.Join(root, "src-2"))
			}
			return err
		},
		state: pluginState,
		next:  func(root string) error { return installOrUpdate(root, "src-2") },
		is:    ErrInstall,
	}
	seed := func(root string) error {
		_, err := SeedEntry(filepath.Join(root, "config.toml"), crashKey)
		return err
	}
	keygen := func(root string) error {
		_, err := GenerateKeyFile(filepath.Join(root, "keys", "p.pem"), true)
		return err
	}
	withFallback := update
	withFallback.fallback = true
	update.name, withFallback.name = "update", "update moving aside"
	return []crashCase{
		{
			name:  "install",
			setup: func(testing.TB, string) {},
			run: func(root string) error {
				h, err := rootHost(root)
				if err == nil {
					_, err = h.Install(filepath.Join(root, "src-1"))
				}
				return err
			},
			state: pluginState,
			next:  func(root string) error { return installOrUpdate(root, "src-1") },
			is:    ErrInstall,
		},
		update,
		withFallback,
		{
			name:  "remove",
			setup: installed("1"),
			run: func(root string) error {
				h, err := rootHost(root)
				if err == nil {
					err = h.Remove("p")
				}
				return err
			},
			state: pluginState,
			next: func(root string) error {
				h, err := rootHost(root)
				if err != nil {
					return err
				}
				if _, ok := h.Plugin("p"); ok {
					return h.Remove("p")
				}
				return nil
			},
		},
		{
			name:  "keygen",
			setup: func(t testing.TB, root string) { os.MkdirAll(filepath.Join(root, "keys"), 0o700) },
			run: func(root string) error {
				_, err := GenerateKeyFile(filepath.Join(root, "keys", "p.pem"), false)
				return err
			},
			state: keyState,
			next:  keygen,
			is:    ErrKeyFile,
		},
		{
			name: "keygen replacing a key",
			setup: func(t testing.TB, root string) {
				os.MkdirAll(filepath.Join(root, "keys"), 0o700)
				if err := keygen(root); err != nil {
					t.Fatal(err)
				}
			},
			run:   keygen,
			state: keyState,
			next:  keygen,
			is:    ErrKeyFile,
		},
		{
			name:  "config seeded into a new file",
			setup: func(testing.TB, string) {},
			run:   seed,
			state: configState,
			next:  seed,
			is:    ErrConfig,
		},
		{
			name: "config row appended",
			setup: func(t testing.TB, root string) {
				writeFile(t, filepath.Join(root, "config.toml"), "# mine\n[plugins]\nenabled = true\n\n[[plugins.entries]]\nname = \"other\"\n")
			},
			run:   seed,
			state: configState,
			next:  seed,
			is:    ErrConfig,
		},
	}
}

// useFallback makes updates move the old version aside for the rest of the test.
func useFallback(t *testing.T, on bool) {
	if !on {
		return
	}
	exchangeDirs = func(a, b string) error {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
	}
	t.Cleanup(func() { exchangeDirs = durableExchange })
}

var durableExchange = exchangeDirs

func setHook(t *testing.T, hook func(string) error) {
	stepHook = hook
	t.Cleanup(func() { stepHook = nil })
}

// snapshot copies root to dst as a crash at this moment would leave it on disk: every entry, with
// its mode.
func snapshot(t *testing.T, root, dst string) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		target := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm()|0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCrashAtEveryStep stops each operation at every step and copies the files as a crash there
// leaves them; a kobako started on the copy sees the old state or the new one, and its next
// operation succeeds and leaves no temporary file, staging directory or moved-aside version.
func TestCrashAtEveryStep(t *testing.T) {
	for _, tc := range crashCases() {
		t.Run(tc.name, func(t *testing.T) {
			useFallback(t, tc.fallback)
			root := crashRoot(t)
			tc.setup(t, root)
			old := tc.state(root)
			snaps := t.TempDir()
			var steps []string
			setHook(t, func(s string) error {
				steps = append(steps, s)
				snapshot(t, root, filepath.Join(snaps, fmt.Sprint(len(steps))))
				return nil
			})
			if err := tc.run(root); err != nil {
				t.Fatal(err)
			}
			stepHook = nil
			updated := tc.state(root)
			if old == updated || strings.Contains(updated, "broken") || strings.Contains(updated, "mixed") {
				t.Fatalf("the operation went from %q to %q", old, updated)
			}
			if !slices.ContainsFunc(steps, func(s string) bool { return strings.Contains(s, "commit") }) {
				t.Fatalf("no commit among the steps %q", steps)
			}
			for i, s := range steps {
				crashed := filepath.Join(snaps, fmt.Sprint(i+1))
				got := tc.state(crashed)
				if got != old && got != updated {
					t.Errorf("crash before %q: state %q, want %q or %q", s, got, old, updated)
					continue
				}
				if err := tc.next(crashed); err != nil {
					t.Errorf("crash before %q: the next operation: %v", s, err)
					continue
				}
				// keygen makes a new key each time: any complete key will do.
				final, newKey := tc.state(crashed), strings.HasPrefix(tc.name, "keygen")
				if (!newKey && final != updated) || (newKey && (final == "" || strings.Contains(final, "key"))) {
					t.Errorf("crash before %q: after the next operation %q, want %q", s, final, updated)
				}
				if d := debris(crashed); len(d) > 0 {
					t.Errorf("crash before %q: the next operation left %q", s, d)
				}
			}
		})
	}
}

// enospc is the error a write on a full disk returns.
var enospc = &fs.PathError{Op: "write", Path: "(injected)", Err: syscall.ENOSPC}

// TestFullDiskAtEveryStep fails each step up to the commit as a full disk would: the operation
// reports an error naming the full disk, and the old state stays, with nothing left behind.
func TestFullDiskAtEveryStep(t *testing.T) {
	for _, tc := range crashCases() {
		t.Run(tc.name, func(t *testing.T) {
			useFallback(t, tc.fallback)
			var steps []string
			{
				root := crashRoot(t)
				tc.setup(t, root)
				setHook(t, func(s string) error { steps = append(steps, s); return nil })
				if err := tc.run(root); err != nil {
					t.Fatal(err)
				}
				stepHook = nil
			}
			// Moving the old version aside, the last commit is the one that counts.
			commit := slices.IndexFunc(steps, func(s string) bool { return strings.Contains(s, "commit") })
			if i := lastCommit(steps); i > commit {
				commit = i
			}
			if commit < 0 {
				t.Fatalf("no commit among %q", steps)
			}
			for k := 0; k <= commit; k++ {
				root := crashRoot(t)
				tc.setup(t, root)
				old := tc.state(root)
				n := 0
				setHook(t, func(s string) error {
					if n++; n == k+1 {
						return enospc
					}
					return nil
				})
				err := tc.run(root)
				stepHook = nil
				if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") ||
					(tc.is != nil && !errors.Is(err, tc.is)) {
					t.Errorf("full disk at %q: err = %v, want ENOSPC wrapped in %v", steps[k], err, tc.is)
				}
				if got := tc.state(root); got != old {
					t.Errorf("full disk at %q: state %q, want the old %q", steps[k], got, old)
				}
				if d := debris(root); len(d) > 0 {
					t.Errorf("full disk at %q: left %q", steps[k], d)
				}
			}
		})
	}
}

// TestConcurrentInstalls runs installs, updates and config edits of one plugin at once, each on
// its own Host as separate kobako processes would: exactly one install wins, every update lands
// whole, one config row is seeded, and a reader never sees the plugin missing or mixed while
// updates swap versions (where directories can be exchanged).
func TestConcurrentInstalls(t *testing.T) {
	const n = 8
	root := crashRoot(t)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			h, err := rootHost(root)
			if err == nil {
				_, err = h.Install(filepath.Join(root, fmt.Sprintf("src-%d", i%2+1)))
			}
			errs[i] = err
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrAlreadyInstalled):
			t.Errorf("a losing install: %v", err)
		}
	}
	if st := pluginState(root); won != 1 || (st != "p@1" && st != "p@2") {
		t.Fatalf("%d installs won; state %q", won, st)
	}

	exchanges := durableExchange(t.TempDir(), t.TempDir()) == nil
	stop := make(chan struct{})
	var readerErr []string
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Discovery reads a plugin's files one after the other, so a scan may mix two versions
			// swapped in between; what it must never see is the plugin missing.
			if _, err := os.Stat(filepath.Join(root, "plugins", "p", manifest.FileName)); exchanges && err != nil {
				readerErr = append(readerErr, err.Error())
			}
		}
	})
	for i := range n {
		wg.Go(func() {
			h, err := rootHost(root)
			if err == nil {
				_, err = h.Update(filepath.Join(root, fmt.Sprintf("src-%d", i%2+1)))
			}
			errs[i] = err
		})
		wg.Go(func() {
			_, err := SeedEntry(filepath.Join(root, "config.toml"), crashKey)
			if err != nil {
				t.Errorf("seed: %v", err)
			}
		})
		wg.Go(func() {
			_, err := SeedEntry(filepath.Join(root, "config.toml"), fmt.Sprintf("%s_%d", crashKey, i))
			if err != nil {
				t.Errorf("seed: %v", err)
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("update: %v", err)
		}
	}
	if len(readerErr) > 0 {
		t.Errorf("a reader saw %q during updates", readerErr[:min(len(readerErr), 5)])
	}
	if st := pluginState(root); st != "p@1" && st != "p@2" {
		t.Errorf("after the updates: %q", st)
	}
	cfg, err := LoadConfig(filepath.Join(root, "config.toml"), true)
	if err != nil || len(cfg.Plugins.Entries) != n+1 {
		t.Errorf("config after concurrent seeds: %v %+v", err, cfg)
	} else if _, err := cfg.Plugins.EntryConfig(crashKey); err != nil {
		t.Errorf("the shared key: %v", err)
	}
	if d := debris(root); len(d) > 0 {
		t.Errorf("left %q", d)
	}
}

func lastCommit(steps []string) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if strings.Contains(steps[i], "commit") {
			return i
		}
	}
	return -1
}
