package binary

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies enforces the layering rule: the binary format imports abi, internal packages
// and the standard library only, never the runtime (engine, wazero).
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		switch {
		case p == "github.com/kobako/kobako/component/binary", p == "github.com/kobako/kobako/abi",
			strings.HasPrefix(p, "github.com/kobako/kobako/internal/"):
		default:
			t.Errorf("component/binary depends on %s", p)
		}
	}
}
