package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = kobako(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestSmoke runs the embedded example the README's first command runs.
func TestSmoke(t *testing.T) {
	code, out, errs := runCLI(t, "run", "--stats")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	for _, want := range []string{"Hello from a WebAssembly guest", "fib(20) = 6765", `sha256("kobako") = `} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	var st runStats
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil {
		t.Fatalf("--stats line %q: %v", lines[len(lines)-1], err)
	}
	if st.FuelConsumed == 0 || st.PeakMemoryBytes == 0 || st.ExitCode != 0 {
		t.Errorf("stats %+v", st)
	}
}

// exampleFuel is the fuel the embedded example uses with --deterministic. The guest is a Go program
// whose runtime reads clocks and random numbers, so only with those fixed is its run a pure function
// of its inputs; then every platform (CI: amd64, arm64, riscv64, armv6, js/wasm, wasip1/wasm) must
// count exactly this.
const exampleFuel = 2376047

// TestRunUnmetered: --fuel 0 runs the example without fuel: the same output, no fuel counted.
func TestRunUnmetered(t *testing.T) {
	if !unmeteredSupported {
		// Nothing there preempts a spinning guest, so the deadline needs fuel: refused, clearly.
		code, _, errs := runCLI(t, "run", "--fuel", "0", "--deterministic")
		if code == 0 || !strings.Contains(errs, "unmetered stores are not supported") {
			t.Fatalf("--fuel 0 on %s: exit %d, stderr %q", runtime.GOOS, code, errs)
		}
		return
	}
	code, out, errs := runCLI(t, "run", "--fuel", "0", "--deterministic", "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, metered, _ := runCLI(t, "run", "--deterministic")
	if out != metered || out == "" {
		t.Errorf("stdout %q, metered %q", out, metered)
	}
	var st runStats
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil {
		t.Fatal(err)
	}
	if st.FuelConsumed != 0 || st.ExitCode != 0 || st.PeakMemoryBytes == 0 {
		t.Errorf("stats %+v", st)
	}
	code, out, _ = runCLI(t, "run", "--fuel", "0", "--invoke", "fib(20)", "../../engine/testdata/fib.wasm")
	if code != 0 || strings.TrimSpace(out) != "6765" {
		t.Errorf("--invoke fib(20): exit %d, stdout %q", code, out)
	}
}

func TestSmokeDeterministicFuel(t *testing.T) {
	var fuel []uint64
	for i := 0; i < 2; i++ {
		code, _, errs := runCLI(t, "run", "--deterministic", "--stats")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var st runStats
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil {
			t.Fatal(err)
		}
		fuel = append(fuel, st.FuelConsumed)
	}
	if fuel[0] != fuel[1] || fuel[0] != exampleFuel {
		t.Errorf("fuel %v, want %d both times", fuel, exampleFuel)
	}
}

func TestRunLimits_Errors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--fuel", "1000"}, exitTrap, "error: example: fuel exhausted"},
		{[]string{"run", "--timeout", "1ms", "--fuel", "9000000000000000000"}, exitTrap, "deadline exceeded"},
		{[]string{"run", "--max-memory", "64KiB"}, exitTrap, "memory limit exceeded"},
		{[]string{"run", "--max-memory", "lots"}, exitUsage, "error: invalid value \"lots\" for --max-memory: size \"lots\": want a number"},
		{[]string{"run", "--max-table-elements", "0"}, exitUsage, "table"},
		{[]string{"run", "--max-table-elements", "99999999999"}, exitUsage, "max-table-elements"},
		{[]string{"run", "--fuel", "0", "--fuel-profile", "x.pprof"}, exitUsage, "--fuel-profile needs fuel"},
		{[]string{"run", "--fuel", "0", "--timeout", "100ms", "--invoke", "spin()", "../../engine/testdata/spin.wasm"}, exitTrap, "deadline exceeded"},
		{[]string{"run", "--fuel", "0", "--timeout", "100ms", "--invoke", "fib(60)", "../../engine/testdata/fib.wasm"}, exitTrap, "deadline exceeded"},
		{[]string{"run", "--timeout", "0"}, exitUsage, "--timeout 0s: want a positive duration"},
		{[]string{"run", "--timeout", "-1s"}, exitUsage, "deadline -1s must be positive"},
		{[]string{"run", "--max-memory", "0"}, exitUsage, "--max-memory 0: want at least one byte"},
		{[]string{"run", "--env", "NOEQUALS"}, exitUsage, "want K=V"},
		{[]string{"run", "does-not-exist.wasm"}, exitError, "does-not-exist.wasm"},
		{[]string{"run", "../../engine/testdata/traps.wasm"}, exitUsage, "exports no _start, so it is not a WASI command; call one of its exported functions with --invoke 'NAME(ARGS)' (exported functions: unreachable, div_zero,"},
		{[]string{"run", "--max-memory", "1MiB"}, exitTrap, "memory limit exceeded: memory 0 declares a minimum of 39 pages (2555904 bytes), over the limit of 1048576 bytes"},
		{[]string{"nonsense"}, exitUsage, "unknown command"},
	}
	for _, tt := range tests {
		if !unmeteredSupported && slices.Contains(tt.args, "--invoke") && tt.args[1] == "--fuel" && tt.args[2] == "0" {
			continue // TestRunUnmetered checks the refusal there
		}
		code, _, errs := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
		if tt.code == exitTrap && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: want exactly one error line, got %q", tt.args, errs)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"65536", 65536, true}, {"64KiB", 64 << 10, true}, {"256MiB", 256 << 20, true},
		{"1GiB", 1 << 30, true}, {"1.5GiB", 3 << 29, true}, {"2MB", 2e6, true}, {"4G", 4 << 30, true},
		{"", 0, false}, {"MiB", 0, false}, {"12XB", 0, false}, {"-1", 0, false}, {"99999GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v", tt.in, got, err)
		}
	}
}

// unmeteredSupported says whether this platform runs unmetered stores (engine.Unmetered): not
// where Go's scheduler never preempts a running guest.
const unmeteredSupported = runtime.GOOS != "js" && runtime.GOOS != "wasip1"
