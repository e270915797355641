package component_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"github.com/kobako/kobako/internal/race"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
)

// Components built by real toolchains (testdata/real/build.sh and build-js.sh): Go's wasip1 port
// with the WASI preview 1 adapter, and componentize-js. Their expected.txt files are what node
// returned through `jco transpile` (testdata/real/run.mjs).
//
// js-full.wasm is the same JavaScript built without componentize-js's -d flags: it imports
// wasi:http too, which kobako does not provide, so it runs with those imports as traps (trap).
var realPlugins = []struct {
	name, wasm, expected string
	trap                 bool
}{
	{"go", "testdata/real/goplugin.wasm", "testdata/real/goplugin.expected.txt", false},
	{"js", "testdata/real/js.wasm", "testdata/real/js.expected.txt", false},
	{"js-full", "testdata/real/js-full.wasm", "testdata/real/js.expected.txt", true},
}

const realTool = "test:plugin/tool#"

// realInstance instantiates a compiled tool-plugin with the WASI 0.2 host, stderr going to errOut,
// and with trap, every other import trapping when called.
func realInstance(t testing.TB, cc *component.Component, errOut *bytes.Buffer, trap bool) *component.Instance {
	return realInstanceLimits(t, cc, errOut, engine.DefaultLimits(), trap)
}

func realInstanceLimits(t testing.TB, cc *component.Component, errOut *bytes.Buffer, lim engine.Limits, trap bool) *component.Instance {
	t.Helper()
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	if trap {
		if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(t, lim)
	if _, err := preview2.Bind(s, preview2.Config{Args: []string{"plugin"}, Stderr: errOut}); err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(context.Background(), s, cc)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return in
}

// callWAVE makes the call expr names on in and returns its result in WAVE.
func callWAVE(ctx context.Context, in *component.Instance, expr string) (string, error) {
	call, err := wave.ParseCall(expr)
	if err != nil {
		return "", err
	}
	fn, err := in.Func(call.Func)
	if err != nil {
		return "", err
	}
	ft := fn.Type()
	types := make([]abi.Type, len(ft.Params()))
	for i, p := range ft.Params() {
		types[i] = p.Type
	}
	args, err := wave.ParseArgs(types, call)
	if err != nil {
		return "", err
	}
	res, err := fn.Call(ctx, args...)
	if err != nil {
		return "", err
	}
	return wave.FormatResults(ft.Results(), res), nil
}

// readExpected returns the "EXPR<TAB>RESULT" lines run.mjs wrote.
func readExpected(t *testing.T, path string) [][2]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		expr, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s line %d: no tab between call and result", path, len(lines)+1)
		}
		lines = append(lines, [2]string{expr, want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 5 {
		t.Fatalf("%s has %d calls; want name() and the execute cases", path, len(lines))
	}
	return lines
}

// TestRealPluginsMatchNode makes every call node made, each on a fresh instance as under
// `kobako run --invoke`, and compares kobako's result with node's.
func TestRealPluginsMatchNode(t *testing.T) {
	ctx := context.Background()
	for _, p := range realPlugins {
		t.Run(p.name, func(t *testing.T) {
			start := time.Now()
			cc := compileFixture(t, p.wasm)
			t.Logf("%s: compiled in %v", p.wasm, time.Since(start))
			for _, line := range readExpected(t, p.expected) {
				expr, want := line[0], line[1]
				var errOut bytes.Buffer
				start := time.Now()
				got, err := callWAVE(ctx, realInstance(t, cc, &errOut, p.trap), expr)
				if err != nil {
					t.Fatalf("%s: %v", expr, err)
				}
				t.Logf("%s: instantiated and called in %v", expr, time.Since(start))
				if got != want {
					t.Errorf("%s\nkobako: %s\nnode:   %s", expr, got, want)
				}
			}
		})
	}
}

// TestRealPluginsExpectedIsNode regenerates each expected.txt under node (jco transpile + run.mjs)
// and fails if node now answers differently from the committed file. Skipped without node and jco
// ($KOBAKO_NPM, default ~/.cache/kobako-toolchain/npm), and in -short mode (it takes seconds).
func TestRealPluginsExpectedIsNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node; skipped in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	npm := os.Getenv("KOBAKO_NPM")
	if npm == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Skip("no home directory to find jco in")
		}
		npm = filepath.Join(home, ".cache", "kobako-toolchain", "npm")
	}
	jco := filepath.Join(npm, "node_modules", ".bin", "jco")
	if _, err := os.Stat(jco); err != nil {
		t.Skipf("jco not found at %s", jco)
	}
	runner, err := filepath.Abs("testdata/real/run.mjs")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range realPlugins {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			// run.mjs imports jco's preview2-shim, so it runs from a directory beside node_modules.
			if err := os.Symlink(filepath.Join(npm, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(runner)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "run.mjs"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(jco, "transpile", mustAbs(t, p.wasm), "-o", filepath.Join(dir, "out"), "--name", "plugin")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("jco transpile: %v\n%s", err, out)
			}
			cmd = exec.Command(node, "run.mjs", filepath.Join(dir, "out", "plugin.js"))
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("node run.mjs: %v\n%s", err, stderr.Bytes())
			}
			want, err := os.ReadFile(p.expected)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("node now prints\n%s\n%s has\n%s", got, p.expected, want)
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	a, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRealPluginsOneInstance keeps one instance for many calls, as a plugin host does: 100 calls
// of growing size, errors in between, WASI writes (the Go plugin logs args starting with "log"),
// and a 1 MiB string each way. The fuel is unlimited: componentize-js runs JavaScript in an
// interpreter (StarlingMonkey) on wazero's interpreter, and upper-casing 1 MiB there takes more
// than the default 10^9 instructions.
func TestRealPluginsOneInstance(t *testing.T) {
	ctx := context.Background()
	for _, p := range realPlugins {
		t.Run(p.name, func(t *testing.T) {
			if p.name != "go" && race.Enabled {
				t.Skip("100 calls take over a minute on the JavaScript engine with -race")
			}
			if p.name == "js-full" && testing.Short() {
				t.Skip("the same JavaScript engine as js, 25 s more; skipped in -short mode")
			}
			var errOut bytes.Buffer
			lim := engine.DefaultLimits()
			lim.Fuel, lim.Deadline = engine.MaxFuel, 10*time.Minute
			in := realInstanceLimits(t, compileFixture(t, p.wasm), &errOut, lim, p.trap)
			execute, err := in.Func(realTool + "execute")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for i := range 100 {
				arg := strings.Repeat("x", i*37)
				want := strings.ToUpper(arg)
				if i%10 == 3 {
					arg = "fail " + arg
					want = "error: " + arg
				}
				if i%10 == 5 {
					arg = "log " + arg
					want = strings.ToUpper(arg)
				}
				res, err := execute.Call(ctx, abi.StringValue(arg))
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got := res[0]; got.IsErr() != (i%10 == 3) || got.Payload().Str() != want {
					t.Fatalf("call %d: got %v, want payload of %d bytes (err %v)", i, got, len(want), i%10 == 3)
				}
			}
			t.Logf("100 calls in %v", time.Since(start))

			if p.name == "js" && testing.Short() {
				t.Skip("the 1 MiB call takes about 20 s and more than the default fuel on the JavaScript engine; skipped in -short mode")
			}
			if race.Enabled {
				t.Skip("the 1 MiB call takes about a minute with -race")
			}
			big := strings.Repeat("kobako 小箱 ", (1<<20)/len("kobako 小箱 ")+1)[:1<<20]
			start = time.Now()
			res, err := execute.Call(ctx, abi.StringValue(big))
			if err != nil {
				t.Fatalf("1 MiB call: %v", err)
			}
			if got := res[0]; got.IsErr() || got.Payload().Str() != strings.ToUpper(big) {
				t.Fatalf("1 MiB call: wrong result (err %v, %d bytes)", got.IsErr(), len(got.Payload().Str()))
			}
			t.Logf("1 MiB round trip in %v", time.Since(start))

			name, err := in.Call(ctx, realTool+"name")
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSuffix(p.name, "-full") + "-plugin"; name[0].Str() != want {
				t.Errorf("name() = %q after the calls, want %q", name[0].Str(), want)
			}
			if p.name == "go" && strings.Count(errOut.String(), "log from go: ") != 10 {
				t.Errorf("stderr has %q; want 10 log lines", errOut.String())
			}
		})
	}
}

// TestRealGoCommand runs the Go command component (GOOS=wasip1, the preview 1 command adapter)
// as wasi:cli/run: arguments, environment, stdin, stdout, stderr and the exit status.
func TestRealGoCommand(t *testing.T) {
	cc := compileFixture(t, "testdata/real/gocmd.wasm")
	tests := []struct {
		name             string
		args, env        []string
		stdin            string
		wantOut, wantErr string
		wantCode         uint32
	}{
		{"stdin to stdout", []string{"gocmd", "a", "b c"}, []string{"GREETING=hey"}, "one\ntwo\n",
			"args=[\"a\" \"b c\"] greeting=\"hey\"\nONE\nTWO\n", "2 lines\n", 0},
		{"empty stdin", []string{"gocmd"}, nil, "",
			"args=[] greeting=\"\"\n", "0 lines\n", 0},
		// WASI 0.2's wasi:cli/exit.exit takes result<_, _>: the adapter turns proc_exit(5) into
		// exit(err), which every host reports as status 1 (jco run exits 1 too).
		{"failure status", []string{"gocmd"}, []string{"EXIT_CODE=5"}, "last line without newline",
			"args=[] greeting=\"\"\nLAST LINE WITHOUT NEWLINE\n", "1 lines\n", 1},
		{"large stdin", []string{"gocmd"}, nil, strings.Repeat(strings.Repeat("z", 999)+"\n", 300),
			"args=[] greeting=\"\"\n" + strings.Repeat(strings.Repeat("Z", 999)+"\n", 300), "300 lines\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cfg := preview2.Config{Args: tt.args, Env: tt.env, Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errOut}
			code, err := preview2.RunComponent(context.Background(), newStore(t, engine.DefaultLimits()), cc, cfg)
			if err != nil {
				t.Fatalf("run: %v (stderr %q)", err, errOut.String())
			}
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d", code, tt.wantCode)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
			if errOut.String() != tt.wantErr {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

// TestRealPluginWithoutWASI shows what a host without WASI gets from the Go plugin: a clear
// missing-import error naming a WASI interface, not a trap later.
func TestRealPluginWithoutWASI(t *testing.T) {
	cc := compileFixture(t, "testdata/real/goplugin.wasm")
	_, err := component.NewLinker().Instantiate(context.Background(), newStore(t, engine.DefaultLimits()), cc)
	if !errors.Is(err, component.ErrMissingImport) || !strings.Contains(err.Error(), "wasi:") {
		t.Fatalf("instantiate without WASI: %v; want ErrMissingImport naming a wasi: interface", err)
	}
}
