package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/internal/egress"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/subako/example"
)

// exitCrash is the status of `kobako function call` when the module crashed, so that scripts
// can tell a crash (the function's fault) from a usage or load error.
const exitCrash = 3

const functionUsage = `Usage:
  kobako function validate PKG                     run the upload checks and discovery
  kobako function tools PKG                        print the tools array (all pages) as JSON
  kobako function call [flags] PKG TOOL [ARGS]     call TOOL with ARGS (a JSON object, default {})
  kobako function pack DIR -o PKG.zip              check a package directory and zip it

PKG is a package directory, a zip of one, or "example" for the embedded example package
(tool greet, e.g. kobako function call example greet '{"name":"Ada"}').
`

// functionCommand runs `kobako function ...`: ABI 1 function packages.
func functionCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, functionUsage)
		return exitUsage
	}
	switch args[0] {
	case "validate":
		return functionValidate(ctx, args[1:], stdout, stderr)
	case "tools":
		return functionTools(ctx, args[1:], stdout, stderr)
	case "call":
		return functionCall(ctx, args[1:], stdout, stderr)
	case "pack":
		return functionPack(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, functionUsage)
		return 0
	}
	fmt.Fprintf(stderr, "error: unknown function subcommand %q\n\n%s", args[0], functionUsage)
	return exitUsage
}

// parseInterspersed parses flags wherever they appear among the positional arguments.
func parseInterspersed(fset *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		rest := fset.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// loadPackage loads PKG: a path, or "example" for the embedded package unless a package of that
// name exists.
func loadPackage(ctx context.Context, rt *subako.Runtime, pkg string) (*subako.Package, error) {
	if pkg == "example" {
		// A real package of that name wins; anything else called "example" (such as a directory
		// without a manifest) does not hide the embedded one.
		fi, err := os.Stat(pkg)
		_, merr := os.Stat(filepath.Join(pkg, subako.ManifestFile))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.IsDir() && merr != nil) {
			return rt.LoadFS(ctx, example.FS())
		}
	}
	return rt.Load(ctx, pkg)
}

func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fset := flag.NewFlagSet(name, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, usage)
		fset.PrintDefaults()
	}
	return fset
}

// onePackage parses a subcommand that takes exactly PKG and loads and discovers it.
func onePackage(ctx context.Context, name string, args []string, stderr io.Writer) (*subako.Runtime, *subako.Package, []subako.Tool, int) {
	fset := newFlagSet("kobako function "+name, "Usage: kobako function "+name+" PKG\n", stderr)
	pos, err := parseInterspersed(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil, 0
		}
		return nil, nil, nil, exitUsage
	}
	if len(pos) != 1 {
		fset.Usage()
		return nil, nil, nil, exitUsage
	}
	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return nil, nil, nil, exitError
	}
	p, err := loadPackage(ctx, rt, pos[0])
	if err != nil {
		rt.Close(ctx)
		fmt.Fprintf(stderr, "error: %s: %v\n", pos[0], err)
		return nil, nil, nil, exitError
	}
	tools, err := p.Discover(ctx)
	if err != nil {
		p.Close()
		rt.Close(ctx)
		reportRunError(stderr, pos[0], err)
		return nil, nil, nil, exitError
	}
	return rt, p, tools, -1
}

func reportRunError(stderr io.Writer, pkg string, err error) {
	var crash *subako.CrashError
	if errors.As(err, &crash) {
		fmt.Fprintf(stderr, "error: %s: %v\n%s\n", pkg, err, crash.Report())
		return
	}
	fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
}

func functionValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rt, p, tools, code := onePackage(ctx, "validate", args, stderr)
	if code >= 0 {
		return code
	}
	defer rt.Close(ctx)
	defer p.Close()
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	fmt.Fprintf(stdout, "ok: %s (ABI %d): %d tools: %s\n", p.Manifest.Name, p.Manifest.ABI, len(tools), strings.Join(names, ", "))
	return 0
}

func functionTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rt, p, tools, code := onePackage(ctx, "tools", args, stderr)
	if code >= 0 {
		return code
	}
	defer rt.Close(ctx)
	defer p.Close()
	b, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

func functionCall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("kobako function call", "Usage: kobako function call [flags] PKG TOOL [ARGS_JSON]\n\nCalls TOOL in a fresh instance and prints its CallToolResult as one JSON line.\nExit status: 0 when the call completed (isError included), 3 when the module crashed.\n\nFlags:\n", stderr)
	limits := subako.DefaultCallLimits()
	timeout := fset.Duration("timeout", limits.Deadline, "wall-clock deadline of the call")
	fuel := fset.Uint64("fuel", limits.Fuel, "fuel for the call, in wasm instructions")
	maxMem := sizeFlag(limits.MemoryBytes)
	fset.Var(&maxMem, "max-memory", "largest size of the module's memory (e.g. 256MiB)")
	budget := sizeFlag(subako.DefaultWriteBudget)
	fset.Var(&budget, "write-budget", "bytes the call may write to files (e.g. 64MiB)")
	volume := fset.String("volume", "", "host directory mounted at /volume/tmp (default: a fresh temporary directory)")
	data := fset.String("data", "", "host directory mounted at /volume/data (default: none)")
	var skills, hosts listFlag
	fset.Var(&skills, "skill", "mount host directory DIR read-only at /skills/NAME, given as NAME=DIR (repeatable)")
	fset.Var(&hosts, "allow-host", "let subako_http reach hosts matching PATTERN: api.example.com, *.example.com, * (repeatable)")
	pos, err := parseInterspersed(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if len(pos) < 2 || len(pos) > 3 {
		fset.Usage()
		return exitUsage
	}
	limits.Deadline, limits.Fuel, limits.MemoryBytes = *timeout, *fuel, uint64(maxMem)
	if err := limits.Validate(); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}
	opts := subako.CallOptions{Limits: limits, Volume: *volume, Data: *data, WriteBudget: int64(budget)}
	for _, s := range skills {
		name, dir, ok := strings.Cut(s, "=")
		if !ok || name == "" || dir == "" {
			fmt.Fprintf(stderr, "error: --skill %q: want NAME=DIR\n", s)
			return exitUsage
		}
		opts.Skills = append(opts.Skills, subako.Skill{Name: name, Dir: dir})
	}
	if len(hosts) > 0 {
		pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: hosts})
		if err != nil {
			fmt.Fprintf(stderr, "error: --allow-host: %v\n", err)
			return exitUsage
		}
		opts.Network = pol
	}
	var callArgs json.RawMessage
	if len(pos) == 3 {
		callArgs = json.RawMessage(pos[2])
	}
	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer rt.Close(ctx)
	p, err := loadPackage(ctx, rt, pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "error: %s: %v\n", pos[0], err)
		return exitError
	}
	defer p.Close()
	res, err := p.Call(ctx, pos[1], callArgs, opts)
	if err != nil {
		reportRunError(stderr, pos[0], err)
		if errors.Is(err, subako.ErrCrash) {
			return exitCrash
		}
		if errors.Is(err, subako.ErrOptions) {
			return exitUsage
		}
		return exitError
	}
	b, err := json.Marshal(res)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

func functionPack(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet("kobako function pack", "Usage: kobako function pack DIR -o PKG.zip\n\nChecks the package in DIR (manifest and module) and writes subako-package.json, module.wasm\nand assets/ to a zip.\n\nFlags:\n", stderr)
	out := fset.String("o", "", "the zip file to write")
	pos, err := parseInterspersed(fset, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if len(pos) != 1 || *out == "" {
		fset.Usage()
		return exitUsage
	}
	dir := pos[0]
	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer rt.Close(ctx)
	p, err := rt.Load(ctx, dir)
	if err != nil {
		fmt.Fprintf(stderr, "error: %s: %v\n", dir, err)
		return exitError
	}
	p.Close()
	n, err := writePackageZip(dir, *out)
	if err != nil {
		os.Remove(*out)
		fmt.Fprintf(stderr, "error: pack: %v\n", err)
		return exitError
	}
	f, err := os.Open(*out)
	if err == nil {
		fi, _ := f.Stat()
		var zp *subako.Package
		zp, err = rt.LoadZip(ctx, f, fi.Size())
		f.Close()
		if err == nil {
			zp.Close()
		}
	}
	if err != nil {
		os.Remove(*out)
		fmt.Fprintf(stderr, "error: pack: the written zip does not load: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "packed %s (%d files) into %s\n", p.Manifest.Name, n, *out)
	return 0
}

// writePackageZip writes the package files of dir (the manifest, the module and assets/) to a
// zip, in sorted order with fixed times so that the same directory gives the same bytes. Symbolic
// links and special files under assets/ are refused, since a package zip cannot hold them.
func writePackageZip(dir, out string) (int, error) {
	names := []string{subako.ManifestFile, subako.ModuleFile}
	assets := filepath.Join(dir, subako.AssetsDir)
	if fi, err := os.Lstat(assets); err == nil {
		if !fi.IsDir() {
			return 0, fmt.Errorf("%s is not a directory", assets)
		}
		err := filepath.WalkDir(assets, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("%s is not a regular file (symbolic links and special files cannot be packed)", p)
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	sort.Strings(names[2:])
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	zw := zip.NewWriter(f)
	fixed := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range names {
		src, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			f.Close()
			return 0, err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fixed})
		if err == nil {
			_, err = io.Copy(w, src)
		}
		src.Close()
		if err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return 0, err
	}
	return len(names), f.Close()
}
