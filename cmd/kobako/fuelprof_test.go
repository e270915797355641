package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func readProfile(t *testing.T, path string) (total int64, funcs map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	funcs = map[string]bool{}
	for _, s := range p.Sample {
		total += s.Value[0]
		for _, l := range s.Location {
			funcs[l.Line[0].Function.Name] = true
		}
	}
	return total, funcs
}

// TestFuelProfileFlag: --fuel-profile writes a pprof profile whose fuel is the run's (run, and the
// call of function call), naming the guest's functions; an existing file is never overwritten.
func TestFuelProfileFlag(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	out := filepath.Join(dir, "run.pprof")
	var stdout, stderr bytes.Buffer
	if code := kobako(ctx, []string{"run", "--deterministic", "--stats", "--fuel-profile", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var st runStats
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil {
		t.Fatal(err)
	}
	total, funcs := readProfile(t, out)
	if uint64(total) != st.FuelConsumed || !funcs["main.fib"] {
		t.Fatalf("the profile holds %d fuel (the run used %d) in %d functions, main.fib %v", total, st.FuelConsumed, len(funcs), funcs["main.fib"])
	}

	// A second run must not overwrite the profile.
	before, _ := os.ReadFile(out)
	stderr.Reset()
	if code := kobako(ctx, []string{"run", "--fuel-profile", out}, strings.NewReader(""), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "the file exists") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Fatal("an existing profile was changed")
	}

	// function call profiles the call, not the discovery before it.
	out = filepath.Join(dir, "call.pprof")
	stderr.Reset()
	stdout.Reset()
	if code := kobako(ctx, []string{"function", "call", "--fuel-profile", out, "example", "greet", `{"name":"Ada"}`}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	total, funcs = readProfile(t, out)
	if total <= 0 || len(funcs) < 10 {
		t.Fatalf("function call profile: %d fuel in %d functions", total, len(funcs))
	}
	if code := kobako(ctx, []string{"run", "--fuel-profile", filepath.Join(dir, "nodir", "x.pprof")}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Fatalf("a profile in a missing directory: exit %d", code)
	}
}
