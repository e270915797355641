package bindings_test

import (
	"testing"

	"github.com/kobako/kobako/internal/bindgen"
)

// TestGenerated_NoDrift regenerates wasi.go from the go:generate line of doc.go and fails on any
// difference: the CI's check that the WIT, the generator and the committed file agree.
func TestGenerated_NoDrift(t *testing.T) {
	if err := bindgen.CheckGenerated(); err != nil {
		t.Fatal(err)
	}
}
