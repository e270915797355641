package bindgen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ParseArgs parses kobako-bindgen's command line into a Config (its sources not loaded yet:
// see LoadSources) and the output file ("" for standard output). Usage text and flag errors go
// to stderr.
//
// -wit and -world may repeat; each -world belongs to the -wit before it:
//
//	-wit PATH         a WIT package (directory or .wit file) or a component (.wasm)
//	-world NAME[=GO]  a world of the last -wit, optionally with the Go name prefix to give it
//	-pkg NAME         the Go package name (default: the base name of -o's directory)
//	-o FILE           the output file (default: standard output)
//	-caller           imported interfaces' methods take a *component.Caller (default true)
func ParseArgs(args []string, stderr io.Writer) (Config, string, error) {
	fs := flag.NewFlagSet("kobako-bindgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	fs.Func("wit", "a WIT package (directory or .wit file) or a component (.wasm); repeatable", func(path string) error {
		cfg.Sources = append(cfg.Sources, Source{Label: filepath.ToSlash(path)})
		return nil
	})
	fs.Func("world", "NAME[=GONAME]: a world of the last -wit, and optionally its Go name; repeatable", func(v string) error {
		if len(cfg.Sources) == 0 {
			return errors.New("-world before any -wit")
		}
		name, goName, _ := strings.Cut(v, "=")
		src := &cfg.Sources[len(cfg.Sources)-1]
		src.Worlds = append(src.Worlds, World{Name: name, GoName: goName})
		return nil
	})
	fs.StringVar(&cfg.Package, "pkg", "", "the Go package name (default: the base name of -o's directory)")
	out := fs.String("o", "", "the output file (default: standard output)")
	fs.BoolVar(&cfg.Caller, "caller", true, "imported interfaces' methods take a *component.Caller after their context")
	if err := fs.Parse(args); err != nil {
		return Config{}, "", err
	}
	if fs.NArg() > 0 {
		return Config{}, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if len(cfg.Sources) == 0 {
		return Config{}, "", errors.New("no -wit given")
	}
	if cfg.Package == "" {
		if *out == "" {
			return Config{}, "", errors.New("-pkg is needed when writing to standard output")
		}
		abs, err := filepath.Abs(*out)
		if err != nil {
			return Config{}, "", err
		}
		cfg.Package = filepath.Base(filepath.Dir(abs))
	}
	cfg.Command = "kobako-bindgen " + strings.Join(args, " ")
	return cfg, *out, nil
}

// LoadSources loads every source of cfg from its Label (see Load).
func LoadSources(cfg *Config) error {
	for i := range cfg.Sources {
		r, err := Load(cfg.Sources[i].Label)
		if err != nil {
			return err
		}
		cfg.Sources[i].Resolve = r
	}
	return nil
}

// Main runs kobako-bindgen with args: the generated Go goes to the -o file, or stdout.
func Main(args []string, stdout, stderr io.Writer) error {
	cfg, out, err := ParseArgs(args, stderr)
	if err != nil {
		return err
	}
	if err := LoadSources(&cfg); err != nil {
		return err
	}
	src, err := Generate(cfg)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = stdout.Write(src)
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// ErrStale reports generated bindings that differ from what their go:generate line makes now.
var ErrStale = errors.New("generated bindings are stale")

// CheckGenerated regenerates, in memory, the file that the kobako-bindgen go:generate line of
// doc.go in the current directory writes, and compares it with the file on disk: the CI's drift
// check for checked-in bindings, run by a test of their package (go test runs in the package's
// directory, as go generate does). It returns an error wrapping ErrStale naming the file when
// they differ.
func CheckGenerated() error {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		return fmt.Errorf("bindgen: %w", err)
	}
	var args []string
	for _, line := range strings.Split(string(doc), "\n") {
		if cmd, ok := strings.CutPrefix(line, "//go:generate "); ok {
			if f := strings.Fields(cmd); len(f) > 3 && f[0] == "go" && strings.HasSuffix(f[2], "kobako-bindgen") {
				args = f[3:]
			}
		}
	}
	if args == nil {
		return errors.New("bindgen: doc.go has no go:generate line running kobako-bindgen")
	}
	cfg, out, err := ParseArgs(args, io.Discard)
	if err != nil {
		return fmt.Errorf("bindgen: doc.go: %w", err)
	}
	if err := LoadSources(&cfg); err != nil {
		return err
	}
	got, err := Generate(cfg)
	if err != nil {
		return err
	}
	want, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("bindgen: %w", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("bindgen: %w: %s differs from what go generate makes now; run it", ErrStale, out)
	}
	return nil
}
