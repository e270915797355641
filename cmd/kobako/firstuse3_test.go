package main

// Tests of the first-use problems of issue 22 ("first use, third pass"): each test names its row.

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// withTimeout runs f and fails the test if it does not return within d: the rows below are about
// reads that blocked or ran on without end.
func withTimeout(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// TestRunInspect_UnboundedInputs (P25): run and inspect stat FILE first and refuse what is not a
// regular file of at most the decoder's module size, without reading it.
func TestRunInspect_UnboundedInputs(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.wasm")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Sparse: a file one byte over the cap costs no disk, but reading it would cost the cap.
	if err := os.Truncate(big, maxWasmFileBytes+1); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.wasm")
	haveFIFO := mkfifo(fifo) == nil
	tests := []struct {
		name, file, say string
	}{
		{"sparse file over the cap", big, "larger than 268435456"},
		{"fifo", fifo, "fifo.wasm is a named pipe, not a regular file"},
		{"device", os.DevNull, "is a character device, not a regular file"},
	}
	for _, tt := range tests {
		if tt.file == fifo && !haveFIFO || tt.file == os.DevNull && runtime.GOOS == "windows" {
			continue
		}
		for _, cmd := range []string{"run", "inspect"} {
			t.Run(cmd+" "+tt.name, func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				withTimeout(t, 10*time.Second, func() {
					code, _, errs := runCLI(t, cmd, tt.file)
					if code != exitError || !strings.Contains(errs, tt.say) {
						t.Errorf("exit %d, stderr %q; want %d saying %q", code, errs, exitError, tt.say)
					}
				})
				runtime.ReadMemStats(&after)
				if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
					t.Errorf("refusing the file allocated %d bytes", n)
				}
			})
		}
	}
}

// TestFunction_FIFOModule (P25): a FIFO module.wasm is refused by name at once, not waited on.
func TestFunction_FIFOModule(t *testing.T) {
	dir := examplePackageDir(t)
	mod := filepath.Join(dir, "module.wasm")
	os.Remove(mod)
	if err := mkfifo(mod); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	withTimeout(t, 10*time.Second, func() {
		code, _, errs := runFunction(t, "validate", dir)
		if code != exitError || !strings.Contains(errs, "module.wasm is a named pipe, not a regular file") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}

// TestRun_PackageHint (P24): run on a package zip or directory says what it is and what to run.
func TestRun_PackageHint(t *testing.T) {
	pkg := examplePackageDir(t)
	zipPath := filepath.Join(t.TempDir(), "wordcount.zip")
	if code, _, errs := runFunction(t, "pack", pkg, "-o", zipPath); code != 0 {
		t.Fatal(errs)
	}
	plugin := t.TempDir()
	os.WriteFile(filepath.Join(plugin, "manifest.toml"), []byte("name = \"x\"\n"), 0o644)
	tests := []struct {
		name, file, say string
	}{
		{"zip", zipPath, "it is a zip: a function package? try `kobako function call " + zipPath + " TOOL`"},
		{"package directory", pkg, pkg + " is a directory, not a regular file; a function package? try `kobako function call " + pkg + " TOOL`"},
		{"plugin directory", plugin, "a ZeroClaw plugin? try `kobako plugin install " + plugin + "`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "run", tt.file)
			if code != exitError || !strings.Contains(errs, tt.say) || strings.Contains(errs, "asm magic") {
				t.Errorf("exit %d, stderr %q; want %q", code, errs, tt.say)
			}
		})
	}
}

// TestPack_Messages (P20): pack errors name the output, never its temporary file, and name a
// zip given as DIR; validate refuses an asset symbolic link in pack's words.
func TestPack_Messages(t *testing.T) {
	pkg := examplePackageDir(t)
	zipPath := filepath.Join(t.TempDir(), "x.zip")
	if code, _, errs := runFunction(t, "pack", pkg, "-o", zipPath); code != 0 {
		t.Fatal(errs)
	}
	missing := filepath.Join(t.TempDir(), "nonexistent", "x.zip")
	tests := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"missing output directory", []string{"pack", pkg, "-o", missing}, exitError, "cannot create " + missing + ": directory " + filepath.Dir(missing) + ": "},
		{"zip as DIR", []string{"pack", zipPath, "-o", filepath.Join(t.TempDir(), "y.zip")}, exitUsage, zipPath + " is not a directory: pack zips a package directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runFunction(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.say) || strings.Contains(errs, ".kobako-pack-") {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, errs, tt.code, tt.say)
			}
		})
	}
	t.Run("validate refuses an asset symlink as pack does", func(t *testing.T) {
		d := fixturePackage(t, "tiny", map[string]string{"a.txt": "a"})
		if err := os.Symlink("/etc/passwd", filepath.Join(d, "assets", "passwd")); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		_, _, packErr := runFunction(t, "pack", d, "-o", filepath.Join(t.TempDir(), "x.zip"))
		code, out, errs := runFunction(t, "validate", d)
		want := "is not a regular file (symbolic links and special files cannot be packed)"
		if code != exitError || out != "" || !strings.Contains(errs, want) {
			t.Errorf("validate: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		_, packMsg, _ := strings.Cut(packErr, "error: pack: ")
		if packMsg == "" || !strings.Contains(errs, strings.TrimSpace(packMsg)) {
			t.Errorf("validate says %q, pack says %q", errs, packErr)
		}
	})
}

// TestPack_DoesNotOverwrite (P33): an existing output that is not a package zip is kept unless
// --force (never inside the package), a read-only one likewise, and a replaced one keeps its mode.
func TestPack_DoesNotOverwrite(t *testing.T) {
	pkg := examplePackageDir(t)
	os.WriteFile(filepath.Join(pkg, "main.go"), []byte("package main\n"), 0o644)
	out := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(out, name)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chmod(p, mode)
		return p
	}
	earlier := filepath.Join(out, "earlier.zip")
	if code, _, errs := runFunction(t, "pack", pkg, "-o", earlier); code != 0 {
		t.Fatal(errs)
	}
	earlierBytes, _ := os.ReadFile(earlier)
	readOnlyZip := write("ro.zip", string(earlierBytes), 0o444)
	tests := []struct {
		name, out string
		force     bool
		code      int
		say       string
		replaced  bool
		mode      os.FileMode
	}{
		{"source file in the package", filepath.Join(pkg, "main.go"), false, exitUsage, "exists inside the package directory and is not a package zip", false, 0o644},
		{"source file in the package, forced", filepath.Join(pkg, "main.go"), true, exitUsage, "exists inside the package directory", false, 0o644},
		{"other file", write("notes.txt", "keep me", 0o644), false, exitUsage, "exists and is not a package zip; pass --force", false, 0o644},
		{"read-only other file", write("ro.txt", "keep me", 0o444), false, exitUsage, "is not a package zip", false, 0o444},
		{"read-only package zip", readOnlyZip, false, exitUsage, "is read-only; pass --force", false, 0o444},
		{"read-only package zip, forced", readOnlyZip, true, 0, "", true, 0o444},
		{"other file, forced", write("forced.txt", "replace me", 0o640), true, 0, "", true, 0o640},
		{"an earlier pack", earlier, false, 0, "", true, 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.Stat(tt.out)
			args := []string{"pack", pkg, "-o", tt.out}
			if tt.force {
				args = append(args, "--force")
			}
			code, _, errs := runFunction(t, args...)
			if code != tt.code || !strings.Contains(errs, tt.say) {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, errs, tt.code, tt.say)
			}
			// pack renames a new file into place, so a replaced output is another file.
			after, _ := os.Stat(tt.out)
			if replaced := !os.SameFile(before, after); replaced != tt.replaced {
				t.Errorf("replaced %v, want %v", replaced, tt.replaced)
			}
			if fi, err := os.Stat(tt.out); err != nil || fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, %v; want %v", fi.Mode().Perm(), err, tt.mode)
			}
		})
	}
}

// TestFunction_ValidateManifest (P18, P30): manifest mistakes read as such, and unknown members
// are warned about, not silently dropped.
func TestFunction_ValidateManifest(t *testing.T) {
	tests := []struct {
		name, manifest string
		code           int
		say            string
	}{
		{"array", `[{"abi":1,"name":"x"}]`, exitError, "subako-package.json must be a JSON object, not an array"},
		{"bom", "\xef\xbb\xbf" + `{"abi":1,"name":"x"}`, exitError, "byte order mark"},
		{"slash in name", `{"abi":1,"name":"a/b"}`, exitError, `"name" "a/b": a name is 1 to 64 characters of a-z, 0-9, _ and -`},
		{"dot-dot name", `{"abi":1,"name":"../../etc"}`, exitError, `"name" "../../etc": a name is`},
		{"duplicate key", `{"abi":1,"name":"x","name":"y"}`, exitError, `gives the member "name" twice`},
		{"unknown member", `{"abi":1,"name":"x","descripton":"typo"}`, 0, `warning: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := examplePackageDir(t)
			os.WriteFile(filepath.Join(dir, "subako-package.json"), []byte(tt.manifest), 0o644)
			code, _, errs := runFunction(t, "validate", dir)
			if code != tt.code || !strings.Contains(errs, tt.say) || strings.Contains(errs, "Go value") || strings.Contains(errs, "'ï'") {
				t.Errorf("exit %d, stderr %q; want %d saying %q", code, errs, tt.code, tt.say)
			}
			if tt.code == 0 && !strings.Contains(errs, `unknown member "descripton" is ignored`) {
				t.Errorf("stderr %q lacks the unknown member", errs)
			}
		})
	}
	t.Run("module symlink leading outside", func(t *testing.T) {
		dir := examplePackageDir(t)
		mod := filepath.Join(dir, "module.wasm")
		outside := filepath.Join(t.TempDir(), "m.wasm")
		b, _ := os.ReadFile(mod)
		os.WriteFile(outside, b, 0o644)
		os.Remove(mod)
		if err := os.Symlink(outside, mod); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		code, _, errs := runFunction(t, "validate", dir)
		if code != exitError || !strings.Contains(errs, "module.wasm is a symbolic link to "+outside+", which leads outside the package") || strings.Contains(errs, "escapes from parent") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}

// TestWording (P28, P32, P35): top-level help lists every plugin subcommand; small messages say what
// was wrong; nothing to run is a usage mistake (exit 2) for a core module and a component alike.
func TestWording(t *testing.T) {
	pluginIsolate(t)
	keyDir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stream string // "stdout" or "stderr"
		say    string
	}{
		{"help lists plugin call and shell", []string{"help"}, 0, "stdout", "keygen, sign, call, shell)"},
		{"remove an empty name", []string{"plugin", "remove", "", "--plugins-dir", t.TempDir()}, exitUsage, "stderr", "a plugin NAME is required, not an empty string"},
		{"keygen into a directory", []string{"plugin", "keygen", "--out", keyDir}, exitError, "stderr", keyDir + " is a directory; give the path of the key file to create"},
		{"version with an unknown flag", []string{"version", "--bogus"}, exitUsage, "stderr", "error: unknown flag --bogus"},
		{"version with an argument", []string{"version", "x"}, exitUsage, "stderr", `unexpected argument "x"`},
		{"version help", []string{"version", "-h"}, 0, "stdout", "Usage: kobako version\n"},
		{"core module without _start", []string{"run", "../../engine/testdata/fib.wasm"}, exitUsage, "stderr", "exports no _start"},
		{"component without wasi:cli/run", []string{"run", realGoPlugin}, exitUsage, "stderr", "does not export wasi:cli/run"},
		// P35: a CIDR range is not taken for a URL.
		{"function call --allow-host CIDR", []string{"function", "call", "--allow-host", "127.0.0.0/8", "example", "greet"}, exitUsage, "stderr", `"127.0.0.0/8" is a CIDR range, and ranges are not patterns`},
		{"run --allow-host CIDR", []string{"run", "--allow-host", "127.0.0.0/8"}, exitUsage, "stderr", `"127.0.0.0/8" is a CIDR range`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tt.args...)
			got := map[string]string{"stdout": out, "stderr": errs}[tt.stream]
			if code != tt.code || !strings.Contains(got, tt.say) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d with %s saying %q", code, out, errs, tt.code, tt.stream, tt.say)
			}
		})
	}
	// Every help text ends its last line.
	for _, args := range [][]string{{"inspect", "-h"}, {"run", "-h"}, {"version", "-h"}, {"help"}, {"function", "pack", "-h"}} {
		if _, out, _ := runCLI(t, args...); !strings.HasSuffix(out, "\n") {
			t.Errorf("%q: help does not end in a newline: %q", args, out[max(0, len(out)-20):])
		}
	}
}

// TestPluginLogFormat (P34): plugin log records leave unset fields out of text lines, and a
// refused wasi:http request is logged in slog's format, as run and mcp log it.
func TestPluginLogFormat(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf strings.Builder
		h, err := logHandler(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		slog.New(h).Warn("hello", "plugin", "p", "outcome", nil, "duration_ms", nil, "raw", nil)
		got := buf.String()
		switch {
		case format == "text" && (strings.Contains(got, "<nil>") || strings.Contains(got, "duration_ms") || !strings.Contains(got, "plugin=p")):
			t.Errorf("text: %q", got)
		case format == "json" && !strings.Contains(got, `"duration_ms":null`):
			t.Errorf("json keeps a fixed set of keys: %q", got)
		}
	}
	if testing.Short() {
		t.Skip("compiles a 12 MB component")
	}
	cfg := pluginRunSetup(t, "")
	dir := filepath.Dir(cfg[1])
	wasm, err := os.ReadFile(filepath.Join("..", "..", "wasi", "preview2", "testdata", "http", "fetch-tool.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	pluginWriteFile(t, filepath.Join(dir, "plugins", "http-fetch", "manifest.toml"),
		"name = \"http-fetch\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\npermissions = [\"http_client\"]\n")
	os.WriteFile(filepath.Join(dir, "plugins", "http-fetch", "plugin.wasm"), wasm, 0o644)
	r := runPluginCLI(t, append([]string{"call", "http-fetch", `{"url":"https://example.org/x"}`}, cfg...)...)
	if !strings.Contains(r.stderr, "level=WARN") || !strings.Contains(r.stderr, "error-code=HTTP-request-denied") ||
		regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d `).MatchString(r.stderr) {
		t.Errorf("exit %d, stderr %q; want slog's time=… level=WARN", r.code, r.stderr)
	}
}

// TestExampleGuest_Wording (P37): the example guest does not tell a user already running with
// --stats to try --stats, and the README says what running out of fuel exits with.
func TestExampleGuest_Wording(t *testing.T) {
	code, out, _ := runCLI(t, "run", "--stats")
	if code != 0 || strings.Contains(out, "Try `kobako run --stats`") {
		t.Errorf("exit %d; under --stats the guest says:\n%s", code, out)
	}
	code, _, errs := runCLI(t, "run", "--fuel", "1000")
	if code != exitTrap || !strings.Contains(errs, "error: example: fuel exhausted in function ") {
		t.Errorf("--fuel 1000: exit %d, stderr %q", code, errs)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`error: example: fuel exhausted in function …`", "exits\nwith 134", "`exit status 134`", "`go run` itself exits 1"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README does not say %q", want)
		}
	}
}
