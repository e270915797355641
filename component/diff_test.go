package component_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// diffExpected holds the calls of the differential check and what node returned for them through
// `jco transpile` (written by testdata/diff/calls.mjs; .ci/difftest regenerates it under node and
// fails if it differs from the committed file, then runs every call through `kobako run --invoke`).
const (
	diffWasm     = "testdata/diff/diff.wasm"
	diffExpected = "testdata/diff/expected.txt"
)

// TestDifferentialJco makes every call node made and compares kobako's result, printed in WAVE,
// with node's. Each call gets a fresh instance, as under `kobako run --invoke`.
func TestDifferentialJco(t *testing.T) {
	ctx := context.Background()
	f, err := os.Open(diffExpected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cc := compileFixture(t, diffWasm)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		expr, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s line %d: no tab between call and result", diffExpected, n+1)
		}
		n++
		t.Run(expr, func(t *testing.T) {
			got, err := diffCall(ctx, t, cc, expr)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("kobako: %s\nnode:   %s", got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Fatalf("%s has %d calls; the check needs all of them", diffExpected, n)
	}
}

// diffCall runs expr on a fresh instance and returns its result in WAVE, or "trap" if the guest
// trapped, which is how calls.mjs writes a WebAssembly.RuntimeError.
func diffCall(ctx context.Context, t *testing.T, cc *component.Component, expr string) (string, error) {
	call, err := wave.ParseCall(expr)
	if err != nil {
		return "", err
	}
	in, err := component.NewLinker().Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
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
		var trap *engine.Trap
		if errors.As(err, &trap) {
			return "trap", nil
		}
		return "", err
	}
	return wave.FormatResults(ft.Results(), res), nil
}
