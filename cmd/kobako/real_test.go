package main

import (
	"bytes"
	"context"
	"github.com/kobako/kobako/internal/race"
	"slices"
	"strings"
	"testing"
)

// Components from real toolchains (../../component/testdata/real): a Go wasip1 command and a Go
// and a componentize-js tool-plugin, all through the preview 1 adapter or none.
const (
	realDir      = "../../component/testdata/real/"
	realGoCmd    = realDir + "gocmd.wasm"
	realGoPlugin = realDir + "goplugin.wasm"
	realJSPlugin = realDir + "js.wasm"
)

// TestRunRealGoCommand runs the Go command component with `kobako run`: arguments, --env, stdin,
// stdout, stderr and the exit status.
func TestRunRealGoCommand(t *testing.T) {
	tests := []struct {
		name                    string
		args                    []string
		stdin, wantOut, wantErr string
		wantCode                int
	}{
		{"prints and reads stdin", []string{"run", "--env", "GREETING=hey", realGoCmd, "a", "b"}, "one\ntwo\n",
			"args=[\"a\" \"b\"] greeting=\"hey\"\nONE\nTWO\n", "2 lines\n", 0},
		// wasi:cli/exit@0.2.0 carries only ok or err, so the adapter's proc_exit(5) becomes
		// status 1 under every WASI 0.2 host (`jco run` exits 1 as well).
		{"failure status", []string{"run", "--env", "EXIT_CODE=5", realGoCmd}, "x",
			"args=[] greeting=\"\"\nX\n", "1 lines\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := kobako(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if code != tt.wantCode || out.String() != tt.wantOut || errb.String() != tt.wantErr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q",
					code, out.String(), errb.String(), tt.wantCode, tt.wantOut, tt.wantErr)
			}
		})
	}
}

// TestInvokeRealPlugins calls the Go and the JavaScript tool-plugin with `kobako run --invoke`.
// component/real_test.go compares every call with node; this checks the CLI's path to them.
func TestInvokeRealPlugins(t *testing.T) {
	tests := []struct {
		file, expr, want string
	}{
		{realGoPlugin, "test:plugin/tool#name()", "\"go-plugin\"\n"},
		{realGoPlugin, "test:plugin/tool#execute(\"hi\")", "ok(\"HI\")\n"},
		{realGoPlugin, "test:plugin/tool#execute(\"fail x\")", "err(\"error: fail x\")\n"},
		{realJSPlugin, "test:plugin/tool#name()", "\"js-plugin\"\n"},
		{realJSPlugin, "test:plugin/tool#execute(\"hi\")", "ok(\"HI\")\n"},
		{realJSPlugin, "test:plugin/tool#execute(\"fail x\")", "err(\"error: fail x\")\n"},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.expr, func(t *testing.T) {
			if tt.file == realJSPlugin {
				skipHeavyJS(t)
			}
			code, out, errs := runCLI(t, "run", "--invoke", tt.expr, tt.file)
			if code != 0 || out != tt.want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errs, tt.want)
			}
		})
	}
}

const realJSFull = realDir + "js-full.wasm" // js.wasm's source with wasi:http imported too

// TestRunTrapUnknownImports checks --trap-unknown-imports: with the flag a component runs as long
// as it does not call an import kobako does not provide, and a call of one traps naming it. The
// full componentize-js plugin imports wasi:http, which kobako run provides (every request denied
// without --allow-host), so it runs without the flag too.
func TestRunTrapUnknownImports(t *testing.T) {
	const hostFixture = "../../component/testdata/runtime/host.wasm" // imports docs:host/api@0.2.1
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  []string
	}{
		{"js-full name", []string{"run", "--trap-unknown-imports", "--invoke", "test:plugin/tool#name()", realJSFull},
			0, "\"js-plugin\"\n", nil},
		{"js-full execute", []string{"run", "--trap-unknown-imports", "--invoke", "test:plugin/tool#execute(\"hi\")", realJSFull},
			0, "ok(\"HI\")\n", nil},
		{"js-full without the flag", []string{"run", "--invoke", "test:plugin/tool#name()", realJSFull},
			0, "\"js-plugin\"\n", nil},
		{"js-full execute without the flag", []string{"run", "--invoke", "test:plugin/tool#execute(\"hi\")", realJSFull},
			0, "ok(\"HI\")\n", nil},
		{"unknown import called", []string{"run", "--trap-unknown-imports", "--invoke", "run(1)", hostFixture},
			exitTrap, "", []string{"unknown import called: docs:host/api@0.2.1#log"}},
		{"run path, nothing unknown", []string{"run", "--trap-unknown-imports", "--env", "EXIT_CODE=5", realGoCmd},
			1, "args=[] greeting=\"\"\n", nil},
		{"run path, no run export", []string{"run", "--trap-unknown-imports", realJSFull},
			exitUsage, "", []string{"wasi:cli/run"}},
		{"core module", []string{"run", "--trap-unknown-imports"},
			exitUsage, "", []string{"--trap-unknown-imports applies to components only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if slices.Contains(tt.args, realJSFull) {
				skipHeavyJS(t)
			}
			code, out, errs := runCLI(t, tt.args...)
			if code != tt.wantCode || out != tt.wantOut {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", code, out, errs, tt.wantCode, tt.wantOut)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// skipHeavyJS skips a case that compiles and runs a 12 MB componentize-js component under the
// race detector or in -short mode (CI's emulated platforms use it): there it takes minutes, the
// plain run covers it, and the Go components keep the CLI's component path covered everywhere.
func skipHeavyJS(t *testing.T) {
	t.Helper()
	if race.Enabled || testing.Short() {
		t.Skip("runs a 12 MB componentize-js component; covered by the run without -race and -short")
	}
}
