package kobako

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// readmeSnippet is a ```go block of README.md and the Example it must match.
type readmeSnippet struct {
	line          int    // of the opening fence
	dir, example  string // from the marker line before the fence
	file          string // or, for a whole program, the file it must equal
	code          string
	markerMissing bool
}

var exampleMarker = regexp.MustCompile(`^<!-- example: (\S+) (Example\w*) -->$`)

// fileMarker names the file a whole program of the README is (a walkthrough's main.go), which
// TestReadmePrograms builds.
var fileMarker = regexp.MustCompile(`^<!-- file: (\S+\.go) -->$`)

// readmeSnippets returns every Go code block of a README, with the example marker that must
// directly precede it: <!-- example: <package dir> <Example function> -->.
func readmeSnippets(readme []byte) ([]readmeSnippet, error) {
	var out []readmeSnippet
	var prev string
	var cur *readmeSnippet
	var code []string
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```go":
			cur = &readmeSnippet{line: n}
			if m := exampleMarker.FindStringSubmatch(prev); m != nil {
				cur.dir, cur.example = m[1], m[2]
			} else if m := fileMarker.FindStringSubmatch(prev); m != nil {
				cur.file = m[1]
			} else {
				cur.markerMissing = true
			}
			code = nil
		case cur != nil && line == "```":
			cur.code = strings.Join(code, "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code = append(code, line)
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("README.md:%d: the go block is not closed", cur.line)
	}
	return out, sc.Err()
}

// exampleBody returns the source of the body of the Example function name in the test files of
// dir, one level of indentation removed and its "// Output:" comment cut off. It fails when the
// Example has no Output comment, since go test would then compile it without running it.
func exampleBody(dir, name string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		af, err := parser.ParseFile(fset, f, src, parser.ParseComments)
		if err != nil {
			return "", err
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != name {
				continue
			}
			tf := fset.File(fd.Pos())
			body := string(src[tf.Offset(fd.Body.Lbrace)+1 : tf.Offset(fd.Body.Rbrace)])
			before, _, found := strings.Cut(body, "\t// Output:")
			if !found {
				return "", fmt.Errorf("%s in %s has no // Output: comment, so go test does not run it", name, dir)
			}
			var lines []string
			for _, l := range strings.Split(strings.Trim(before, "\n"), "\n") {
				lines = append(lines, strings.TrimPrefix(l, "\t"))
			}
			return strings.Join(lines, "\n"), nil
		}
	}
	return "", fmt.Errorf("no function %s in %s/*_test.go", name, dir)
}

// TestReadme fails when a Go snippet of README.md is not, line for line, the body of the runnable
// Example its marker names, so the README's code compiles and runs wherever the tests do.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := readmeSnippets(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(snippets) == 0 {
		t.Fatal("README.md has no Go snippet; the embedding example is expected")
	}
	for _, s := range snippets {
		if s.markerMissing {
			t.Errorf("README.md:%d: a go block without a preceding <!-- example: DIR ExampleName --> or <!-- file: PATH.go --> line", s.line)
			continue
		}
		if s.file != "" {
			b, err := os.ReadFile(s.file)
			if err != nil {
				t.Errorf("README.md:%d: %v", s.line, err)
			} else if got := strings.TrimSuffix(string(b), "\n"); got != s.code {
				t.Errorf("README.md:%d differs from %s:\n%s", s.line, s.file, lineDiff(s.code, got))
			}
			continue
		}
		body, err := exampleBody(s.dir, s.example)
		if err != nil {
			t.Errorf("README.md:%d: %v", s.line, err)
			continue
		}
		if body != s.code {
			t.Errorf("README.md:%d differs from %s.%s:\n%s", s.line, s.dir, s.example, lineDiff(s.code, body))
		}
	}
}

// lineDiff names the first line where the README and the Example differ.
func lineDiff(readme, example string) string {
	a, b := strings.Split(readme, "\n"), strings.Split(example, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d of the snippet:\n  README:  %q\n  Example: %q", i+1, x, y)
		}
	}
	return "(same lines)"
}

func TestReadme_Drift(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc Example_x() {\n\ta := 1\n\tprintln(a)\n\t// Output:\n}\n\nfunc Example_silent() {\n\tprintln(2)\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	body, err := exampleBody(dir, "Example_x")
	if err != nil || body != "a := 1\nprintln(a)" {
		t.Fatalf("exampleBody = %q, %v", body, err)
	}
	if _, err := exampleBody(dir, "Example_silent"); err == nil || !strings.Contains(err.Error(), "Output") {
		t.Errorf("an Example without output: %v", err)
	}
	if _, err := exampleBody(dir, "Example_missing"); err == nil {
		t.Error("a missing Example was found")
	}
	readme := "text\n\n<!-- example: d Example_x -->\n```go\na := 2\n```\n\n```go\nb\n```\n"
	snippets, err := readmeSnippets([]byte(readme))
	if err != nil || len(snippets) != 2 {
		t.Fatalf("readmeSnippets = %+v, %v", snippets, err)
	}
	if s := snippets[0]; s.dir != "d" || s.example != "Example_x" || s.code != "a := 2" || s.markerMissing {
		t.Errorf("first snippet = %+v", s)
	}
	if !snippets[1].markerMissing {
		t.Error("the second snippet has no marker but was not reported")
	}
	if _, err := readmeSnippets([]byte("```go\nx\n")); err == nil {
		t.Error("an unclosed block was accepted")
	}
}

// TestReadmePrograms builds every whole program the README shows (its <!-- file: --> blocks)
// natively and for wasip1, as the walkthroughs tell a reader to.
func TestReadmePrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs; skipped with -short")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := readmeSnippets(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snippets {
		if s.file == "" {
			continue
		}
		for _, goos := range []string{"", "wasip1"} {
			cmd := exec.Command("go", "build", "-o", os.DevNull, "./"+filepath.Dir(s.file))
			cmd.Env = os.Environ()
			if goos != "" {
				cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH=wasm")
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("README.md:%d: go build %s (GOOS=%s): %v\n%s", s.line, s.file, goos, err, out)
			}
		}
	}
}

// installSize is the README's statement of the binary's size, in the form the test reads.
var installSize = regexp.MustCompile(`CGO_ENABLED=0 go install \./cmd/kobako +# one static binary: (\d+\.\d) MB on (\w+)/(\w+) with (go[\d.]+)`)

// TestReadme_BinarySize builds kobako as Install does and checks the size the README states,
// within 5% (a few commits change it a little; a new dependency changes it a lot).
func TestReadme_BinarySize(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := installSize.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README's Install does not state the size as %s", installSize)
	}
	if testing.Short() {
		t.Skip("builds the kobako binary")
	}
	if goos, goarch := string(m[2]), string(m[3]); runtime.GOOS != goos || runtime.GOARCH != goarch {
		t.Skipf("the README states the size on %s/%s", goos, goarch)
	}
	var stated float64
	fmt.Sscan(string(m[1]), &stated)
	bin := filepath.Join(t.TempDir(), "kobako")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kobako")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	real := float64(fi.Size()) / 1e6
	if real < stated*0.95 || real > stated*1.05 {
		t.Errorf("README says %.1f MB, the binary is %.1f MB (%d bytes) with %s", stated, real, fi.Size(), runtime.Version())
	}
}

// TestReadme_EmbeddingWithAGoGuest runs the README's embedding snippet, as a reader would paste
// it, on a Go guest: Go programs end with proc_exit(0), which the snippet must not print as an
// error ("error: exit status 0").
func TestReadme_EmbeddingWithAGoGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := readmeSnippets(readme)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, s := range snippets {
		if s.example == "Example_embedding" {
			body = s.code
		}
	}
	if body == "" {
		t.Fatal("README has no Example_embedding snippet")
	}
	guest, err := filepath.Abs("cmd/kobako/example/hello.wasm")
	if err != nil {
		t.Fatal(err)
	}
	body = strings.Replace(body, `"testdata/hello.wasm"`, strconv.Quote(guest), 1)
	src := "package main\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"os\"\n\n\t\"github.com/kobako/kobako/engine\"\n\t\"github.com/kobako/kobako/wasi/preview1\"\n)\n\nvar _ = errors.New // whether the snippet uses it or not\n\nfunc main() {\n" + body + "\n}\n"
	// An overlay places the program inside the module (so that it imports kobako as a reader's
	// program would through its replace) without writing into the checkout.
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	virtual, err := filepath.Abs(filepath.Join("internal", "readmeembed", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{virtual: filepath.Join(tmp, "main.go")}})
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "run", "-overlay", filepath.Join(tmp, "overlay.json"), "./internal/readmeembed").CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^error: <nil> fuel: \d+$`).Match(out) {
		t.Errorf("the snippet on a Go guest printed:\n%s", out)
	}
}
