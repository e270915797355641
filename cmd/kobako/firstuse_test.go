package main

// Tests of what a newcomer meets first (issue 15): each test names the stumble it guards.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packDir writes a package directory around the embedded example's module.
func examplePackageDir(t *testing.T) string {
	t.Helper()
	return fixturePackage(t, "tiny", nil)
}

func TestPack_RefusesOutputsThatAreInputs(t *testing.T) {
	dir := examplePackageDir(t)
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "assets", "a.txt"), []byte("asset"), 0o644)
	outside := t.TempDir()
	// Platforms without links (some js/wasm and Windows setups) skip the cases that need them.
	symErr := os.Symlink(filepath.Join(dir, "module.wasm"), filepath.Join(outside, "link.zip"))
	if symErr == nil {
		symErr = os.Symlink(dir, filepath.Join(outside, "pkgdir"))
	}
	hardErr := os.Link(filepath.Join(dir, "subako-package.json"), filepath.Join(outside, "hard.zip"))
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	before := snapshot()
	tests := []struct {
		name, out, say string
	}{
		{"module.wasm", filepath.Join(dir, "module.wasm"), "is the package's own module.wasm"},
		{"manifest", filepath.Join(dir, "subako-package.json"), "is the package's own subako-package.json"},
		{"dot-dot", filepath.Join(dir, "assets", "..", "module.wasm"), "is the package's own module.wasm"},
		{"asset", filepath.Join(dir, "assets", "a.txt"), "inside the package's assets/"},
		{"new file in assets", filepath.Join(dir, "assets", "out.zip"), "inside the package's assets/"},
		{"symlink to the module", filepath.Join(outside, "link.zip"), "is the package's own module.wasm"},
		{"hard link to the manifest", filepath.Join(outside, "hard.zip"), "is the package's own subako-package.json"},
		{"through a symlinked dir", filepath.Join(outside, "pkgdir", "module.wasm"), "is the package's own module.wasm"},
		{"a directory", outside, "is a directory"},
	}
	for _, tt := range tests {
		if (symErr != nil && strings.Contains(tt.name, "symlink")) || (hardErr != nil && strings.Contains(tt.name, "hard link")) {
			t.Logf("%s: skipped, no links here: %v %v", tt.name, symErr, hardErr)
			continue
		}
		code, _, errOut := runFunction(t, "pack", dir, "-o", tt.out)
		if code != exitUsage || !strings.Contains(errOut, tt.say) {
			t.Errorf("%s: exit %d, stderr %q; want %d saying %q", tt.name, code, errOut, exitUsage, tt.say)
		}
	}
	after := snapshot()
	if len(after) != len(before) {
		t.Errorf("files changed: %d before, %d after", len(before), len(after))
	}
	for p, b := range before {
		if after[p] != b {
			t.Errorf("%s changed", p)
		}
	}
	if fi, err := os.Lstat(filepath.Join(outside, "link.zip")); symErr == nil && (err != nil || fi.Mode()&os.ModeSymlink == 0) {
		t.Error("the symbolic link was replaced")
	}
}

func TestPack_FailureKeepsTheExistingOutput(t *testing.T) {
	dir := fixturePackage(t, "validate/no_memory", nil)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "pkg.zip")
	os.WriteFile(out, []byte("an earlier, good zip"), 0o644)
	code, _, _ := runFunction(t, "pack", dir, "-o", out)
	if b, err := os.ReadFile(out); code != exitError || err != nil || string(b) != "an earlier, good zip" {
		t.Errorf("exit %d; the existing output is now %q, %v", code, b, err)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestPack_OutputBesideTheAssetsDoesNotNest(t *testing.T) {
	dir := examplePackageDir(t)
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "assets", "a.txt"), []byte("asset"), 0o644)
	out := filepath.Join(dir, "pkg.zip") // in the package directory, but not a package file
	for i := 0; i < 2; i++ {
		code, stdout, errOut := runFunction(t, "pack", dir, "-o", out)
		if code != 0 || !strings.Contains(stdout, "(3 files)") {
			t.Fatalf("pack %d: exit %d, %q, %q", i, code, stdout, errOut)
		}
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("output mode: %v %v", fi, err)
	}
}

func TestRun_EnvLastValueWins(t *testing.T) {
	const printenv = "testdata/printenv/printenv.wasm"
	code, out, errs := runCLI(t, "run", "--env", "A=1", "--env", "B=2", "--env", "A=3", printenv)
	if code != 0 || out != "A=3\nB=2\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	t.Setenv("KOBAKO_TEST_VAR", "inherited")
	code, out, _ = runCLI(t, "run", "--inherit-env", "--env", "KOBAKO_TEST_VAR=flag", printenv)
	if code != 0 || !strings.Contains(out, "\nKOBAKO_TEST_VAR=flag\n") && !strings.HasPrefix(out, "KOBAKO_TEST_VAR=flag\n") || strings.Contains(out, "inherited") {
		t.Errorf("--env does not override --inherit-env: %q", out)
	}
	code, _, errs = runCLI(t, "run", "--env", "=x", printenv)
	if code != exitUsage || !strings.Contains(errs, `--env "=x": want K=V with a non-empty K`) {
		t.Errorf("--env =x: exit %d, %q", code, errs)
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "A=3", "C=", "B=4"})
	if strings.Join(got, " ") != "A=3 B=4 C=" {
		t.Errorf("mergeEnv = %q", got)
	}
}

func TestRun_DirErrors(t *testing.T) {
	for _, d := range []string{"::/x", "x::", "::"} {
		code, _, errs := runCLI(t, "run", "--dir", d)
		if code != exitUsage || !strings.Contains(errs, "want HOST or HOST::GUEST, both non-empty") || strings.Contains(errs, "HostDir") {
			t.Errorf("--dir %s: exit %d, %q", d, code, errs)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !regexp.MustCompile(`^kobako \S+ .*go1\.\d+`).MatchString(out) {
		t.Errorf("version: exit %d, %q", code, out)
	}
	code, out, errs := runCLI(t, "help", "run")
	if code != 0 || !strings.HasPrefix(out, "Usage: kobako run [flags] [FILE.wasm [ARGS...]]") || errs != "" {
		t.Errorf("help run: exit %d, %q, %q", code, out, errs)
	}
	// Every help goes to stdout and exits 0.
	for _, args := range [][]string{{"help"}, {"run", "-h"}, {"inspect", "--help"}, {"function", "help"}, {"function", "call", "-h"},
		{"function", "validate", "-h"}, {"function", "pack", "-h"}, {"plugin", "help"}, {"plugin", "install", "-h"}, {"help", "plugin"}} {
		code, out, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "Usage") || errs != "" {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q", args, code, len(out), errs)
		}
		for i, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, " ") && strings.HasPrefix(strings.TrimSpace(line), "Usage") {
				t.Errorf("%q: usage line %d ends in a space: %q", args, i, line)
			}
		}
	}
}

func TestHelp_FlagPlaceholders(t *testing.T) {
	_, out, _ := runCLI(t, "run", "-h")
	for _, want := range []string{"-dir HOST[::GUEST]", "-env K=V", "-max-memory SIZE", "(default 256MiB)", "-fuel N", "-timeout DURATION", "-invoke EXPR"} {
		if !strings.Contains(out, want) {
			t.Errorf("run -h lacks %q", want)
		}
	}
	if strings.Contains(out, "268435456") || strings.Contains(out, " value\n") {
		t.Errorf("run -h has a raw default or a 'value' placeholder:\n%s", out)
	}
	_, out, _ = runCLI(t, "function", "call", "-h")
	for _, want := range []string{"-max-memory SIZE", "(default 256MiB)", "-write-budget SIZE", "-skill NAME=DIR", "-allow-host PATTERN", "-volume DIR"} {
		if !strings.Contains(out, want) {
			t.Errorf("function call -h lacks %q", want)
		}
	}
	if formatSize(256<<20) != "256MiB" || formatSize(64<<10) != "64KiB" || formatSize(1<<30) != "1GiB" || formatSize(1000) != "1000" {
		t.Error("formatSize")
	}
}

func TestFlagErrors_OneLineAndAHint(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus"}, "error: unknown flag --bogus\nRun 'kobako run -h' for usage.\n"},
		{[]string{"run", "--fuel"}, "error: flag --fuel needs a value\nRun 'kobako run -h' for usage.\n"},
		{[]string{"run", "--fuel", "x"}, "error: invalid value \"x\" for --fuel\nRun 'kobako run -h' for usage.\n"},
		{[]string{"function", "call", "--nope", "example", "greet"}, "error: unknown flag --nope\nRun 'kobako function call -h' for usage.\n"},
		{[]string{"inspect", "--nope", "x.wasm"}, "error: unknown flag --nope\nRun 'kobako inspect -h' for usage.\n"},
		{[]string{"plugin", "list", "--nope"}, "error: unknown flag --nope\nRun 'kobako plugin list -h' for usage.\n"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != exitUsage || errs != tt.want || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", tt.args, code, out, errs, tt.want)
		}
	}
}

func TestErrorPrefixes(t *testing.T) {
	for _, args := range [][]string{{"nonsense"}, {"function", "nonsense"}, {"plugin", "nonsense"}, {"help", "nonsense"},
		{"run", "missing.wasm"}, {"inspect", "missing.wasm"}, {"function", "validate", "missing"}, {"plugin", "search"}} {
		code, _, errs := runCLI(t, args...)
		if code == 0 || !strings.HasPrefix(errs, "error: ") {
			t.Errorf("%q: exit %d, stderr %q does not start with 'error: '", args, code, errs)
		}
	}
}

func TestRun_MaxMemoryBelowDeclaredMinimum(t *testing.T) {
	code, _, errs := runCLI(t, "run", "--max-memory", "64KiB")
	if code != exitTrap || !strings.Contains(errs, "declares a minimum of 39 pages (2555904 bytes), over the limit of 65536 bytes") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

func TestRun_NoStartHintsInvoke(t *testing.T) {
	code, _, errs := runCLI(t, "run", "../../engine/testdata/fib.wasm")
	if code != exitUsage || !strings.Contains(errs, "--invoke 'NAME(ARGS)' (exported functions: fib, sumsq)") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

func TestInterruptExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as Ctrl-C does through signal.NotifyContext
	for _, args := range [][]string{{"run"}, {"function", "call", "example", "greet", `{"name":"x"}`}} {
		var out, errb bytes.Buffer
		code := kobako(ctx, args, strings.NewReader(""), &out, &errb)
		if code != exitInterrupted || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

func TestFunction_BareWasmIsNotAPackage(t *testing.T) {
	for file, kind := range map[string]string{"example/hello.wasm": "core module", "../../component/testdata/hello.wasm": "component"} {
		for _, verb := range []string{"validate", "tools", "call"} {
			args := []string{verb, file}
			if verb == "call" {
				args = append(args, "greet")
			}
			code, _, errs := runFunction(t, args...)
			if code != exitError || !strings.Contains(errs, "is a WebAssembly "+kind+", not a function package: a package is a directory (or a zip of one) holding subako-package.json and module.wasm") {
				t.Errorf("%s %s: exit %d, %q", verb, file, code, errs)
			}
		}
	}
}

func TestFunction_UnknownToolExits2NamingTheTools(t *testing.T) {
	code, out, errs := runFunction(t, "call", "example", "nope", "{}")
	if code != exitUsage || out != "" || errs != "error: example: unknown tool \"nope\"; the package's tools: greet\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runFunction(t, "call", fixturePackage(t, "everything", nil), "nope")
	if code != exitUsage || !strings.Contains(errs, "unknown tool \"nope\"; the package's tools: ") {
		t.Errorf("a real package: exit %d, %q", code, errs)
	}
}

func TestFunction_ArgsErrorsAndSources(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{`{"name": }`, "error: ARGS: invalid JSON at line 1, column 10: invalid character '}' looking for beginning of value"},
		{"{\n  \"name\": \"a\",\n}", "error: ARGS: invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{`[1]`, "error: ARGS: arguments must be a JSON object, not an array"},
		{`"x"`, "error: ARGS: arguments must be a JSON object, not a string"},
		{`@/does/not/exist.json`, "error: ARGS @/does/not/exist.json: open /does/not/exist.json: "}, // the OS words the rest
	}
	for _, tt := range tests {
		code, _, errs := runFunction(t, "call", "example", "greet", tt.args)
		if code != exitUsage || !strings.HasPrefix(errs, tt.want) || strings.Count(errs, "\n") != 2 {
			t.Errorf("%q: exit %d, %q; want %q", tt.args, code, errs, tt.want)
		}
	}
	file := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(file, []byte(`{"name":"File"}`), 0o644)
	code, out, errs := runFunction(t, "call", "example", "greet", "@"+file)
	if code != 0 || !strings.Contains(out, "Hello, File!") {
		t.Errorf("@file: exit %d, %q, %q", code, out, errs)
	}
	var stdout, stderr bytes.Buffer
	code = kobako(context.Background(), []string{"function", "call", "example", "greet", "-"}, strings.NewReader(`{"name":"Stdin"}`), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "Hello, Stdin!") {
		t.Errorf("-: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
}

func TestFunction_CrashCauseOnceAndExit3(t *testing.T) {
	pkg := fixturePackage(t, "rpc_error", nil)
	for _, verb := range []string{"validate", "tools", "call"} {
		args := []string{verb, pkg}
		if verb == "call" {
			// rpc_error fails discovery, so call reports the crash there too.
			args = append(args, "greet")
		}
		code, _, errs := runFunction(t, args...)
		if code != exitCrash {
			t.Errorf("%s: exit %d, want %d: %q", verb, code, exitCrash, errs)
		}
		if n := strings.Count(errs, "answered with a JSON-RPC error"); n != 1 {
			t.Errorf("%s: the cause is printed %d times:\n%s", verb, n, errs)
		}
		if !strings.Contains(errs, "last stderr output of the module:\nrpc_error: giving up") {
			t.Errorf("%s: no stderr tail:\n%s", verb, errs)
		}
	}
}

func TestFunction_ValidateJSON(t *testing.T) {
	code, out, _ := runFunction(t, "validate", "--json", "example")
	var v struct {
		OK    bool     `json:"ok"`
		Name  string   `json:"name"`
		ABI   int      `json:"abi"`
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || !v.OK || v.Name != "hello" || v.ABI != 1 || len(v.Tools) != 1 || v.Tools[0] != "greet" {
		t.Errorf("exit %d, %q, %v", code, out, err)
	}
}

func TestInspect_JSON(t *testing.T) {
	code, out, _ := runCLI(t, "inspect", "--json", "../../engine/testdata/fib.wasm")
	var core struct {
		Kind    string
		Exports []struct{ Kind, Name, Type string }
	}
	if err := json.Unmarshal([]byte(out), &core); code != 0 || err != nil || core.Kind != "core module" || len(core.Exports) == 0 {
		t.Fatalf("core: exit %d, %q, %v", code, out, err)
	}
	code, out, _ = runCLI(t, "inspect", "--json", "../../component/testdata/runtime/calc.wasm")
	var comp struct {
		Kind      string
		Functions []string
		WIT       string `json:"wit"`
	}
	if err := json.Unmarshal([]byte(out), &comp); code != 0 || err != nil || comp.Kind != "component" || !strings.Contains(strings.Join(comp.Functions, " "), "#add") || !strings.Contains(comp.WIT, "world") {
		t.Errorf("component: exit %d, %q, %v", code, out, err)
	}
}

func TestFunction_AllowHostURL(t *testing.T) {
	code, _, errs := runFunction(t, "call", "--allow-host", "http://x", "example", "greet")
	if code != exitUsage || !strings.Contains(errs, `--allow-host "http://x": give a host name pattern (api.example.com, *.example.com), not a URL`) || strings.Contains(errs, "port") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// pluginRegistry writes a signed-free registry with calc 1.0.0 and 1.1.0 and returns its path.
func pluginRegistry(t *testing.T, work string) string {
	t.Helper()
	var entries []string
	for _, v := range []string{"1.0.0", "1.1.0"} {
		src := filepath.Join(work, "calc-"+v)
		pluginWriteFile(t, filepath.Join(src, "manifest.toml"), "name = \"calc\"\nversion = \""+v+"\"\nwasm_path = \"calc.wasm\"\ncapabilities = [\"tool\"]\n")
		pluginWriteFile(t, filepath.Join(src, "calc.wasm"), pluginToolWasm(t))
		archive := pluginZipDir(t, src, "calc")
		pluginWriteFile(t, filepath.Join(work, "registry", "calc-"+v+".zip"), string(archive))
		sum := sha256.Sum256(archive)
		entries = append(entries, fmt.Sprintf(`{"name":"calc","version":"%s","url":"calc-%s.zip","sha256":"%s"}`, v, v, hex.EncodeToString(sum[:])))
	}
	reg := filepath.Join(work, "registry", "index.json")
	pluginWriteFile(t, reg, `{"plugins":[`+strings.Join(entries, ",")+`]}`)
	return reg
}

func TestPlugin_InstallMissingVersionListsVersions(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	reg := pluginRegistry(t, work)
	r := runPluginCLI(t, "install", "calc@2.0.0", "--registry", reg, "--plugins-dir", filepath.Join(work, "plugins"))
	if r.code != 1 || !strings.Contains(r.stderr, "error: plugin 'calc' not found in registry at version 2.0.0; its versions there: 1.0.0, 1.1.0") {
		t.Errorf("%+v", r)
	}
}

func TestPlugin_LocalZipInstall(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	pluginRegistry(t, work)
	plugins := filepath.Join(work, "plugins")
	r := runPluginCLI(t, "install", filepath.Join(work, "registry", "calc-1.1.0.zip"), "--plugins-dir", plugins)
	if r.code != 0 || !strings.Contains(r.stdout, "Installed calc v1.1.0") {
		t.Fatalf("%+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(plugins, "calc", "calc.wasm")); err != nil || string(b) != pluginToolWasm(t) {
		t.Errorf("installed wasm: %v", err)
	}
	// A zip with an entry escaping the directory goes through the same refusal as a registry's.
	var buf bytes.Buffer
	zipWrite(t, &buf, map[string]string{"../evil/manifest.toml": "name = \"evil\""})
	evil := filepath.Join(work, "evil.zip")
	os.WriteFile(evil, buf.Bytes(), 0o644)
	r = runPluginCLI(t, "install", evil, "--plugins-dir", plugins)
	if r.code != 1 || strings.Contains(r.stderr, "UTF-8") || !strings.Contains(r.stderr, "evil.zip") {
		t.Errorf("unsafe zip: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(work, "evil")); err == nil {
		t.Error("the unsafe entry was written")
	}
}

func TestPlugin_WasmIsChecked(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	tests := []struct {
		name, manifest, wasm, say string
	}{
		{"not wasm", "capabilities = [\"tool\"]\n", "hello", "no WebAssembly header"},
		{"core module", "capabilities = [\"tool\"]\n", "\x00asm\x01\x00\x00\x00", "it is a core module"},
		{"wrong world", "capabilities = [\"channel\"]\n", pluginToolWasm(t), "does not export zeroclaw:plugin/channel@0.1.0"},
		{"pin mismatch", "capabilities = [\"tool\"]\nwasm_sha256 = \"" + strings.Repeat("0", 64) + "\"\n", pluginToolWasm(t), "but the manifest's wasm_sha256 pins 0000"},
	}
	for _, tt := range tests {
		src := filepath.Join(work, strings.ReplaceAll(tt.name, " ", "-"))
		pluginWriteFile(t, filepath.Join(src, "manifest.toml"), "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\n"+tt.manifest)
		pluginWriteFile(t, filepath.Join(src, "p.wasm"), tt.wasm)
		r := runPluginCLI(t, "install", src, "--plugins-dir", plugins)
		if r.code != 1 || !strings.Contains(r.stderr, tt.say) || strings.Contains(r.stdout, "Installed") {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
	sum := sha256.Sum256([]byte(pluginToolWasm(t)))
	src := filepath.Join(work, "pinned")
	pluginWriteFile(t, filepath.Join(src, "manifest.toml"), "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\nwasm_sha256 = \"sha256:"+hex.EncodeToString(sum[:])+"\"\n")
	pluginWriteFile(t, filepath.Join(src, "p.wasm"), pluginToolWasm(t))
	if r := runPluginCLI(t, "install", src, "--plugins-dir", plugins); r.code != 0 {
		t.Fatalf("pinned install: %+v", r)
	}
	// Discovery checks too: a wasm replaced after install makes the plugin skipped.
	pluginWriteFile(t, filepath.Join(plugins, "p", "p.wasm"), "not a component")
	r := runPluginCLI(t, "list", "--plugins-dir", plugins, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"plugins": []`) || !strings.Contains(r.stdout, "p.wasm: sha256 ") {
		t.Errorf("list after the wasm changed: %+v", r)
	}
}

func TestPlugin_ListJSONWarningsEmptyArray(t *testing.T) {
	pluginIsolate(t)
	r := runPluginCLI(t, "list", "--json", "--plugins-dir", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, `"warnings": []`) || strings.Contains(r.stdout, "null") {
		t.Errorf("%+v", r)
	}
}

func TestPlugin_SearchNetworkErrorNamesTheURLOnce(t *testing.T) {
	pluginIsolate(t)
	const url = "http://127.0.0.1:1/index.json"
	r := runPluginCLI(t, "search", "x", "--registry", url)
	if r.code != 1 || strings.Count(r.stderr, url) != 1 {
		t.Errorf("%+v", r)
	}
}

func TestPlugin_ConfigMustExist(t *testing.T) {
	pluginIsolate(t)
	missing := filepath.Join(t.TempDir(), "typo.toml")
	r := runPluginCLI(t, "list", "--config", missing)
	if r.code != 1 || !strings.Contains(r.stderr, "error: config file "+missing+" does not exist") {
		t.Errorf("--config: %+v", r)
	}
	t.Setenv("KOBAKO_CONFIG", missing)
	if r := runPluginCLI(t, "list"); r.code != 1 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("$KOBAKO_CONFIG: %+v", r)
	}
}

func TestPlugin_TOMLErrorsNameTheFile(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	cfg := filepath.Join(work, "config.toml")
	pluginWriteFile(t, cfg, "[plugins\n")
	if r := runPluginCLI(t, "list", "--config", cfg); r.code != 1 || !strings.Contains(r.stderr, cfg+":") {
		t.Errorf("config: %+v", r)
	}
	src := filepath.Join(work, "src")
	pluginWriteFile(t, filepath.Join(src, "manifest.toml"), "name = \n")
	if r := runPluginCLI(t, "info", src, "--plugins-dir", filepath.Join(work, "plugins")); r.code != 1 || !strings.Contains(r.stderr, filepath.Join(src, "manifest.toml")+":") {
		t.Errorf("manifest: %+v", r)
	}
}

func TestPlugin_SeededRowIsATemplate(t *testing.T) {
	pluginIsolate(t)
	work := t.TempDir()
	src := filepath.Join(work, "src")
	pluginWriteFile(t, filepath.Join(src, "manifest.toml"), pluginCalendarManifest)
	pluginWriteFile(t, filepath.Join(src, "team_calendar.wasm"), pluginToolWasm(t))
	cfg := filepath.Join(work, "config.toml")
	pluginWriteFile(t, cfg, "")
	if r := runPluginCLI(t, "install", src, "--plugins-dir", filepath.Join(work, "plugins"), "--config", cfg); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(cfg)
	for _, want := range []string{"# [plugins.entries.config]", "# api_token = \"\"  # string, secret\n", "# calendar_id = \"\"  # string\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("seeded row lacks %q:\n%s", want, b)
		}
	}
}

// TestREADME_MatchesExampleGuest keeps the README and the embedded example guest's suggestions
// in the same words: every `kobako run ...` the guest prints is a command the README shows.
func TestREADME_MatchesExampleGuest(t *testing.T) {
	src, err := os.ReadFile("example/hello/main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flags := regexp.MustCompile("--[a-z-]+(?: [0-9]+)?").FindAllString(string(src), -1)
	if len(flags) == 0 {
		t.Fatal("the guest suggests no flags")
	}
	for _, f := range flags {
		if !strings.Contains(string(readme), "kobako run "+f) && !strings.Contains(string(readme), " "+f+" ") {
			t.Errorf("the example guest suggests %q, which the README does not show", f)
		}
	}
}

// zipWrite writes a zip of files (name → content) to w, names as given, unchecked.
func zipWrite(t *testing.T, w *bytes.Buffer, files map[string]string) {
	t.Helper()
	zw := zip.NewWriter(w)
	for name, body := range files {
		f, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestREADME_Headline keeps the README's opening true: its first command is the deterministic run
// whose fuel the README quotes, and that figure is the one TestSmokeDeterministicFuel checks.
func TestREADME_Headline(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "```sh\n")
	first, _, _ := strings.Cut(rest, "\n")
	if !strings.HasPrefix(first, "go run ./cmd/kobako run --deterministic --stats ") {
		t.Errorf("the README's first command is %q", first)
	}
	if want := fmt.Sprintf(`{"fuel_consumed":%d,`, exampleFuel); !strings.Contains(string(readme), want) {
		t.Errorf("the README does not quote %s", want)
	}
}

// TestSkipMessagesStayInTheRepository: a test's skip message tells a newcomer what to do, so it
// must not send them to a path outside the repository (a developer's shared/ directory).
func TestSkipMessagesStayInTheRepository(t *testing.T) {
	skip := regexp.MustCompile(`t\.Skipf?\((.*)\)`)
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range skip.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "shared/") || strings.Contains(m[1], "/work/") {
				t.Errorf("%s: skip message points outside the repository: %s", p, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
