package bindgen_test

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kobako/kobako/internal/bindgen"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func generate(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cfg, _, err := bindgen.ParseArgs(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := bindgen.LoadSources(&cfg); err != nil {
		return nil, err
	}
	return bindgen.Generate(cfg)
}

// TestGenerate_Golden generates testdata/all.wit, which uses every WIT type the generator maps,
// and compares it with testdata/all.go.golden (-update rewrites it). Generating twice must give
// the same bytes.
func TestGenerate_Golden(t *testing.T) {
	args := []string{"-wit", "testdata/all.wit", "-world", "all", "-pkg", "all"}
	got, err := generate(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	again, err := generate(t, args...)
	if err != nil || !bytes.Equal(got, again) {
		t.Fatalf("a second run differs (%v)", err)
	}
	const golden = "testdata/all.go.golden"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update after checking it)", golden)
	}
	for _, s := range []string{
		"type Point struct {", "X int32 `wit:\"x\"`",
		"Circle *uint32 `wit:\"circle\"`", "None   bool", // variant cases
		"type Color uint8", "ColorBlue",
		"type Perms uint8", "PermsExec  Perms = 1 << 2",
		"type Points = []Point", "type Maybe = abi.Option[*uint8]", "type Pair = struct {",
		"func (Counter) ResourceName() string { return \"counter\" }",
		"DropCounter(ctx context.Context, c *component.Caller, rep uint32) error",
		"NewCounter(ctx context.Context, c *component.Caller, init uint32) (abi.Own[Counter], error)",
		"CounterInc(ctx context.Context, c *component.Caller, self abi.Borrow[Counter]) (uint32, error)",
		"Paint(ctx context.Context, c *component.Caller, c_ Color, p Perms, pts Points, m Maybe, pr Pair, type_ bool) error",
		"l.DefineResource(\"docs:all/shapes@1.0.0\", \"counter\", impl.DropCounter)",
		"type AllImports interface", "l.DefineFunc(\"\", \"log\", impl.Log)",
		"func NewAllPre(pre *component.InstancePre) (*AllPre, error)",
		"component.PrepareFunc[struct{}, string](pre, \"version\")",
		"func (x *AllPre) Version(ctx context.Context, in *component.Instance) (string, error)",
		"Mix(ctx context.Context, in *component.Instance, a Color, b Color) (abi.Result[Color, struct{}], error)",
		"// A point.",
	} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("output lacks %q", s)
		}
	}
}

func TestGenerate_Errors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want error
		says string
	}{
		{"stream", []string{"-wit", "testdata/refuse/stream.wit", "-world", "stream-world", "-pkg", "p"}, bindgen.ErrUnsupported, "stream"},
		{"flags over 32", []string{"-wit", "testdata/refuse/flags.wit", "-world", "flags-world", "-pkg", "p"}, bindgen.ErrUnsupported, "33 labels"},
		{"no such world", []string{"-wit", "testdata/all.wit", "-world", "nope", "-pkg", "p"}, bindgen.ErrWorld, "nope"},
		{"no world named", []string{"-wit", "testdata/all.wit", "-pkg", "p"}, bindgen.ErrWorld, "no world"},
		{"same world twice, one Go name", []string{"-wit", "testdata/all.wit", "-world", "all", "-world", "all", "-pkg", "p"}, nil, ""},
		{"world given two Go names", []string{"-wit", "testdata/all.wit", "-world", "all", "-world", "all=other", "-pkg", "p"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := generate(t, tt.args...)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.want, tt.says)
			}
		})
	}
}

func TestParseArgs_Errors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-world", "w"},
		{"-wit", "x.wit"},
		{"-wit", "x.wit", "-pkg", "p", "extra"},
	} {
		if _, _, err := bindgen.ParseArgs(args, io.Discard); err == nil {
			t.Errorf("ParseArgs(%q) succeeded", args)
		}
	}
	if _, _, err := bindgen.ParseArgs([]string{"-wit", "x.wit", "-pkg", "1x"}, io.Discard); err != nil {
		t.Fatal(err) // the package name is checked by Generate
	}
	if _, err := bindgen.Generate(bindgen.Config{Package: "1x"}); err == nil {
		t.Fatal("Generate accepted package name 1x")
	}
}

// TestGenerate_QualifiedNames: WIT names that would make one Go name are told apart by their
// interface, then their package, and a type shared through `use` keeps its one name.
func TestGenerate_QualifiedNames(t *testing.T) {
	got, err := generate(t, "-wit", "testdata/clash.wit", "-world", "clash", "-pkg", "clash")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"type Error struct{}",         // wasi:io/error's shape: the resource is met first
		"type ClashError interface {", // then its interface, qualified by the package
		"func DefineClashError(l *component.Linker, impl ClashError) error",
		"type ErrorCode uint8",    // files' error-code, met first
		"type NetErrorCode uint8", // net's, qualified by its interface
		"Stat(ctx context.Context, c *component.Caller, path string) (abi.Result[uint64, ErrorCode], error)",
		"CodeOf(ctx context.Context, c *component.Caller, e abi.Borrow[Error]) (*NetErrorCode, error)",
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
