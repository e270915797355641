package fuzz

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/component"
)

// FuzzDecodeComponent feeds arbitrary bytes to component.Decode, seeded with the component
// fixtures. Decode must never panic, and every failure must be a *component.DecodeError that
// wraps exactly one of the package's sentinels with an offset inside the input.
func FuzzDecodeComponent(f *testing.F) {
	for _, pattern := range []string{"*.wasm", "refuse/*.wasm", "invalid/*.wasm"} {
		files, _ := filepath.Glob(filepath.Join("..", "component", "testdata", pattern))
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) <= 1<<14 { // large seeds make mutations less effective
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := component.Decode(b)
		if err == nil {
			if c == nil || c.Type == nil {
				t.Fatal("Decode returned neither a component nor an error")
			}
			return
		}
		var de *component.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("error %v (%T) is not a *component.DecodeError", err, err)
		}
		if de.Offset < 0 || de.Offset > len(b) {
			t.Fatalf("offset %d outside the %d-byte input: %v", de.Offset, len(b), err)
		}
		n := 0
		for _, s := range []error{component.ErrMalformed, component.ErrInvalid, component.ErrUnsupported, component.ErrLimit, component.ErrNotComponent} {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("error %v wraps %d sentinels", err, n)
		}
	})
}
