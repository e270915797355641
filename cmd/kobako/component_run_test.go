package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunComponent runs a wasi:cli/run component (C, wasi-libc, the preview 1 command adapter)
// through `kobako run` against the WASI 0.2 host.
func TestRunComponent(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantErrSub []string
	}{
		{"stdin and args", []string{"run", "--deterministic", helloComp, "a"}, "kobako\n",
			"hello, kobako\n", []string{"argc=2 home=(unset) time=1767225600\n"}},
		{"env", []string{"run", "--env", "HOME=/h", helloComp}, "x\n",
			"hello, x\n", []string{"argc=1 home=/h time="}},
		{"stats", []string{"run", "--stats", helloComp}, "",
			"", []string{`"fuel_consumed":`, `"exit_code":0`}},
		{"invoke with WASI 0.2", []string{"run", "--invoke", "wasi:cli/run@0.2.12#run()", helloComp}, "gopher\n",
			"hello, gopher\nok\n", []string{"argc=1 "}},
		{"unmetered", []string{"run", "--fuel", "0", "--stats", helloComp}, "u\n",
			"hello, u\n", []string{`"fuel_consumed":0,`, `"exit_code":0`}},
		{"small tables", []string{"run", "--max-table-elements", "1000", helloComp}, "t\n",
			"hello, t\n", nil},
		{"large tables", []string{"run", "--max-table-elements", "1048576", helloComp}, "T\n",
			"hello, T\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "unmetered" && !unmeteredSupported {
				t.Skip("no unmetered stores where nothing preempts a running guest (TestRunUnmetered)")
			}
			var out, errb bytes.Buffer
			code := kobako(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
			for _, w := range tt.wantErrSub {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q lacks %q", errb.String(), w)
				}
			}
		})
	}
}

func TestRunComponentExitStatus(t *testing.T) {
	tests := []struct {
		file string
		want int
	}{
		{"../../wasi/preview2/testdata/exit7.wasm", 7},
		{"../../wasi/preview2/testdata/runerr.wasm", 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errs := runCLI(t, "run", tt.file)
			if code != tt.want || out != "" || errs != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and no output", code, out, errs, tt.want)
			}
		})
	}
}
