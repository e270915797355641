//go:build !wasip1

package examples_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

// maxCallFuelRatio is the most a tools/call of the hello example may consume relative to
// testdata/jsonline, a Go program that decodes the same request with encoding/json and writes the
// answer with no SDK. Measured 1.08 (2,045,312 against 1,899,036).
const maxCallFuelRatio = 1.3

// fuelOf runs wasm once as an ABI 1 host starts a package, with a fake clock and seeded
// randomness so that the count is reproducible, and returns the fuel its _start consumed.
func fuelOf(t *testing.T, wasm []byte, stdin string) (uint64, string) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	var stdout bytes.Buffer
	h, err := preview1.Bind(s, preview1.Config{
		Args:   []string{"pkg"},
		Stdin:  strings.NewReader(stdin),
		Stdout: &stdout,
		Stderr: os.Stderr,
		Clock:  wasi.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond),
		Random: rand.NewChaCha8([32]byte{'k', 'o', 'b', 'a', 'k', 'o'}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module, "subako_http": testHTTP})
	if err != nil {
		t.Fatal(err)
	}
	_, err = inst.Call(ctx, "_start")
	var exit *engine.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == 0) {
		t.Fatalf("_start: %v", err)
	}
	return s.FuelConsumed(), stdout.String()
}

// TestToolsCallFuel pins what one tools/call of an SDK package costs against the floor of a Go
// program answering the same line. Fuel counts instructions, so this is not a timed test.
func TestToolsCallFuel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two Go modules")
	}
	dir := t.TempDir()
	build := exec.Command("sh", filepath.Join("testdata", "build.sh"), dir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("testdata/build.sh: %v\n%s", err, out)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	line := call("1", "greet", `{"name":"Ada"}`) + "\n"
	hello, out := fuelOf(t, read(filepath.Join("hello", "module.wasm")), line)
	if !strings.Contains(out, `"text":"Hello, Ada!"`) {
		t.Fatalf("hello answered %q", out)
	}
	floor, out := fuelOf(t, read(filepath.Join(dir, "jsonline.wasm")), line)
	if !strings.Contains(out, `"text":"Hello, Ada!"`) {
		t.Fatalf("jsonline answered %q", out)
	}
	plain, _ := fuelOf(t, read(filepath.Join(dir, "readline.wasm")), line)
	ratio := float64(hello) / float64(floor)
	t.Logf("tools/call fuel: hello %d, jsonline %d (%.2fx), readline %d", hello, floor, ratio, plain)
	if ratio > maxCallFuelRatio {
		t.Errorf("a tools/call of hello consumes %.2fx the fuel of the encoding/json floor, over %.1fx", ratio, maxCallFuelRatio)
	}
}
