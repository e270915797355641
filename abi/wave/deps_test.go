package wave

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies enforces the layering rule: wave imports the standard library and abi only.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/kobako/kobako/abi" && p != "github.com/kobako/kobako/abi/wave" {
			t.Errorf("wave depends on non-standard package %s", p)
		}
	}
}
