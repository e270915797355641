package kobako

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layerRule is one line of layering.txt.
type layerRule struct {
	pkg     string // module-relative, "." for the root, may end in "/..."
	allowed []string
	line    int
}

// parseLayering reads layering.txt's rules.
func parseLayering(b []byte) ([]layerRule, error) {
	var rules []layerRule
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pkg, rest, ok := strings.Cut(line, ":")
		pkg = strings.TrimSpace(pkg)
		if !ok || pkg == "" || strings.ContainsAny(pkg, " \t") {
			return nil, fmt.Errorf("layering.txt:%d: want \"<package>: <allowed>...\", found %q", n, line)
		}
		if seen[pkg] {
			return nil, fmt.Errorf("layering.txt:%d: a second rule for %s", n, pkg)
		}
		seen[pkg] = true
		rules = append(rules, layerRule{pkg: pkg, allowed: strings.Fields(rest), line: n})
	}
	return rules, sc.Err()
}

// matches reports whether the module-relative or external path p is pattern or, for "x/...",
// x or beneath it.
func matches(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// ruleFor returns the most specific rule covering the module-relative package rel.
func ruleFor(rules []layerRule, rel string) (layerRule, bool) {
	best, found := layerRule{}, false
	for _, r := range rules {
		if !matches(r.pkg, rel) {
			continue
		}
		// An exact rule beats a tree; a deeper tree beats a shallower one.
		score := func(x layerRule) int {
			if !strings.HasSuffix(x.pkg, "/...") {
				return 1 << 20
			}
			return len(x.pkg)
		}
		if !found || score(r) > score(best) {
			best, found = r, true
		}
	}
	return best, found
}

// allowedImport reports whether rule r admits the import path imp, standard says whether imp is
// a standard-library package.
func allowedImport(r layerRule, imp string, standard bool) bool {
	rel, inModule := strings.CutPrefix(imp, module+"/")
	if imp == module {
		rel, inModule = ".", true
	}
	for _, a := range r.allowed {
		switch {
		case a == "*":
			return true
		case a == "std":
			if standard {
				return true
			}
		case inModule && matches(a, rel):
			return true
		case !inModule && matches(a, imp):
			return true
		}
	}
	return false
}

// TestLayering checks every package's non-test imports against layering.txt, and the rules that
// are not about imports: no cgo anywhere, wazero's compiler only in bench/, and wazy (the fork
// bench/ compares kobako with) imported by bench/ only, test files included.
func TestLayering(t *testing.T) {
	b, err := os.ReadFile("layering.txt")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := parseLayering(b)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := goList(t, "./...")
	std := map[string]bool{}
	for _, p := range goList(t, "std") {
		std[p.ImportPath] = true
	}
	for _, p := range pkgs {
		rel, _ := strings.CutPrefix(p.ImportPath, module+"/")
		if p.ImportPath == module {
			rel = "."
		}
		r, ok := ruleFor(rules, rel)
		if !ok {
			t.Errorf("%s has no rule in layering.txt; add its row (and the README's)", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !allowedImport(r, imp, std[imp]) {
				t.Errorf("%s imports %s, outside its layer (layering.txt:%d allows %s)", rel, imp, r.line, strings.Join(r.allowed, " "))
			}
		}
		if len(p.CgoFiles) > 0 {
			t.Errorf("%s uses cgo (%s)", rel, strings.Join(p.CgoFiles, ", "))
		}
		if rel == "bench" {
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if matches(wazyModule+"/...", imp) {
				t.Errorf("%s imports %s: wazy is a dependency of bench/ only", rel, imp)
			}
		}
		for _, f := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			// Spelled in pieces so that this file does not match itself.
			for _, banned := range []string{"NewRuntimeConfig" + "Compiler", "wazero.NewRuntime" + "(", "wazero.NewRuntimeConfig" + "()"} {
				if bytes.Contains(src, []byte(banned)) {
					t.Errorf("%s/%s uses %s: wazero's compiler (or its platform default) belongs in bench/ only", rel, f, banned)
				}
			}
		}
	}
}

// wazyModule is the wazero fork bench/ measures kobako against (issue 24); nothing else may
// import it.
const wazyModule = "github.com/samyfodil/wazy"

// TestLayering_Rules keeps the checker honest on a small table.
func TestLayering_Rules(t *testing.T) {
	rules, err := parseLayering([]byte(`
# comment
abi: std
engine: std internal/... github.com/tetratelabs/wazero/...
zeroclaw/...: std zeroclaw/...
zeroclaw/runner: std zeroclaw/... component
cmd/kobako: *
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		pkg, imp string
		std, ok  bool
	}{
		{"abi", "fmt", true, true},
		{"abi", module + "/engine", false, false},
		{"abi", "github.com/tetratelabs/wazero", false, false},
		{"engine", module + "/internal/wasm", false, true},
		{"engine", "github.com/tetratelabs/wazero", false, true},
		{"engine", "github.com/tetratelabs/wazero/api", false, true},
		{"engine", "github.com/tetratelabs/wazerox", false, false},
		{"engine", module + "/component", false, false},
		{"zeroclaw/manifest", module + "/zeroclaw/internal/sjson", false, true},
		{"zeroclaw/manifest", module + "/component", false, false},
		{"zeroclaw/runner", module + "/component", false, true},
		{"zeroclaw", module + "/component", false, false},
		{"cmd/kobako", module + "/internal/wasm", false, true},
	} {
		r, ok := ruleFor(rules, tt.pkg)
		if !ok {
			t.Fatalf("no rule for %s", tt.pkg)
		}
		if got := allowedImport(r, tt.imp, tt.std); got != tt.ok {
			t.Errorf("%s importing %s: allowed = %v, want %v", tt.pkg, tt.imp, got, tt.ok)
		}
	}
	if _, ok := ruleFor(rules, "subako"); ok {
		t.Error("subako matched a rule it has not")
	}
	for _, bad := range []string{"abi std", "abi: std\nabi: fmt", ": std"} {
		if _, err := parseLayering([]byte(bad)); err == nil {
			t.Errorf("parseLayering(%q) accepted it", bad)
		}
	}
}
