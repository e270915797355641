package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/inspect")

// TestInspectGolden compares `kobako inspect` of components and a core module with golden files.
func TestInspectGolden(t *testing.T) {
	tests := []struct{ name, file string }{
		{"fixture", "../../component/testdata/fixture.wasm"},
		{"hello-component", "../../component/testdata/hello.wasm"},
		{"plugin", "../../component/testdata/plugin.wasm"},
		{"types", "../../component/testdata/types.wasm"},
		{"core-module", "example/hello.wasm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "inspect", tt.file)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errs)
			}
			golden := filepath.Join("testdata", "inspect", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (run with -update after checking):\n%s", golden, out)
			}
		})
	}
}

// TestInspectFixtureContents spot-checks the fixture's WIT against its source,
// component/testdata/wit/fixture.wit, independently of the golden file.
func TestInspectFixtureContents(t *testing.T) {
	code, out, errs := runCLI(t, "inspect", "../../component/testdata/fixture.wasm")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"import kobako:fixture/host@0.1.0;",
		"import now: func() -> u64;",
		"export kobako:fixture/api@0.1.0;",
		"export use-logger: func(l: borrow<logger>) -> u32;",
		"use kobako:fixture/host@0.1.0.{logger};",
		"package kobako:fixture@0.1.0 {",
		"constructor(name: string);",
		"merge: static func(a: borrow<counter>, b: borrow<counter>) -> counter;",
		"compound: func(p: point, s: shape, c: color, f: perms, l: list<point>, t: tuple<u8, string>, o: option<u32>, r: result<u32>) -> result<shape, string>;",
		"nested: func(o: option<option<s8>>, r: result<_, string>, e: result) -> option<char>;",
		"flags perms {",
		"variant shape {",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.wasm")
	if err := os.WriteFile(garbage, []byte("not wasm at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../component/testdata/fixture.wasm")
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.wasm")
	if err := os.WriteFile(truncated, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"inspect"}, exitUsage, "Run 'kobako inspect -h' for usage."},
		{"two files", []string{"inspect", "a.wasm", "b.wasm"}, exitUsage, "Run 'kobako inspect -h' for usage."},
		{"bad flag", []string{"inspect", "-x", "a.wasm"}, exitUsage, "error: unknown flag --x"},
		{"missing", []string{"inspect", filepath.Join(dir, "missing.wasm")}, exitError, "missing.wasm"},
		{"garbage", []string{"inspect", garbage}, exitError, "error: " + garbage + ": "},
		{"truncated component", []string{"inspect", truncated}, exitError, "component"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errs)
			}
			if out != "" {
				t.Errorf("stdout not empty: %s", out)
			}
			if !strings.Contains(errs, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, errs)
			}
		})
	}
	if code, out, errs := runCLI(t, "inspect", "-h"); code != 0 || !strings.HasPrefix(out, "Usage: kobako inspect [--json] FILE.wasm") || errs != "" {
		t.Errorf("inspect -h: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestUsageListsInspect(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != 0 || !strings.Contains(out, "kobako inspect FILE.wasm") {
		t.Fatalf("usage lacks inspect:\n%s", out)
	}
}
