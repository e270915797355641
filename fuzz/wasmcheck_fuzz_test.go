package fuzz

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/zeroclaw/wasmcheck"
)

// FuzzWasmcheckExports feeds arbitrary bytes to the structural component check that plugin
// install and discovery run, seeded with the component fixtures. It must never panic; every
// failure wraps exactly one of its sentinels; what it accepts it accepts again with the same
// exports, and every export name stays within MaxNameLength.
func FuzzWasmcheckExports(f *testing.F) {
	for _, pattern := range []string{"../zeroclaw/wasmcheck/testdata/*.wasm", "../component/testdata/*.wasm", "../component/testdata/runtime/*.wasm"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 1<<20 {
				f.Add(b)
			}
		}
	}
	f.Add(append(append([]byte{}, wasmcheck.Header...), 0x0b, 0x07, 0x01, 0x00, 0x01, 'a', 0x05, 0x00, 0x00))
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		exps, err := wasmcheck.Exports(b)
		if err != nil {
			n := 0
			for _, s := range []error{wasmcheck.ErrNotComponent, wasmcheck.ErrMalformed} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %v wraps %d sentinels", err, n)
			}
			return
		}
		again, err := wasmcheck.Exports(b)
		if err != nil || len(again) != len(exps) {
			t.Fatalf("second read: %v, %d exports, first %d", err, len(again), len(exps))
		}
		for i, e := range exps {
			if len(e.Name) > wasmcheck.MaxNameLength || e.Sort == "" || again[i] != e {
				t.Fatalf("export %d: %+v / %+v", i, e, again[i])
			}
		}
		if err := wasmcheck.Require(b, []string{"zeroclaw:plugin/tool@0.1.0"}); err != nil && !errors.Is(err, wasmcheck.ErrMissingExport) {
			t.Fatalf("Require on accepted bytes: %v", err)
		}
	})
}
