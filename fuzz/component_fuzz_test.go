package fuzz

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/component/binary"
)

// FuzzDecodeComponent feeds arbitrary bytes to binary.Decode, seeded with the component
// fixtures. Decode must never panic, and every failure must be a *binary.DecodeError that
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
		c, err := binary.Decode(b)
		if err == nil {
			if c == nil || c.Type == nil {
				t.Fatal("Decode returned neither a component nor an error")
			}
			return
		}
		var de *binary.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("error %v (%T) is not a *binary.DecodeError", err, err)
		}
		if de.Offset < 0 || de.Offset > len(b) {
			t.Fatalf("offset %d outside the %d-byte input: %v", de.Offset, len(b), err)
		}
		n := 0
		for _, s := range []error{binary.ErrMalformed, binary.ErrInvalid, binary.ErrUnsupported, binary.ErrLimit, binary.ErrNotComponent} {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("error %v wraps %d sentinels", err, n)
		}
	})
}
