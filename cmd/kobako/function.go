package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/subako/example"
)

// exitCrash is the status of `kobako function` when the module crashed, so that scripts can
// tell a crash (the function's fault) from a usage or load error.
const exitCrash = 3

const functionUsage = `Usage:
  kobako function validate [--json] PKG            run the upload checks and discovery
  kobako function tools PKG                        print the tools array (all pages) as JSON
  kobako function call [flags] PKG TOOL [ARGS]     call TOOL with ARGS (a JSON object, default {})
  kobako function pack DIR -o PKG.zip              check a package directory and zip it
  kobako function push PKG oci://REGISTRY/REPO:TAG push a package to an OCI registry, print its digest

PKG is a package directory (subako-package.json and module.wasm, optionally assets/), a zip of
one, or "example" for the embedded example package (tool greet, e.g.
kobako function call example greet '{"name":"Ada"}'), or an oci://REGISTRY/REPOSITORY[:TAG|@DIGEST]
reference to a package function push pushed (pulled once, cached by digest under the user cache
directory). ARGS may be "-" to read the object from stdin, or @FILE to read it from FILE.

Exit status: 0 on success (a tool's isError result included), 1 when the package does not load or
meet ABI 1, 2 for a usage mistake (an unknown tool, malformed ARGS), 3 when the module crashed,
130 when interrupted.
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
		return functionCall(ctx, args[1:], stdin, stdout, stderr)
	case "pack":
		return functionPack(ctx, args[1:], stdout, stderr)
	case "push":
		return functionPush(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, functionUsage)
		return 0
	}
	fmt.Fprintf(stderr, "error: unknown function subcommand %q\nRun 'kobako function -h' for usage.\n", args[0])
	return exitUsage
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

// functionExit is the exit status for an error of loading, discovering or calling a package.
func functionExit(ctx context.Context, err error) int {
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case errors.Is(err, subako.ErrCrash):
		return exitCrash
	case errors.Is(err, subako.ErrOptions), errors.Is(err, subako.ErrUnknownTool):
		return exitUsage
	}
	return exitError
}

// reportRunError prints err once, then the end of the module's stderr when it crashed.
func reportRunError(ctx context.Context, stderr io.Writer, pkg string, err error) int {
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "error: %s: interrupted\n", pkg)
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
	var crash *subako.CrashError
	if errors.As(err, &crash) && crash.Stderr != "" {
		fmt.Fprintf(stderr, "last stderr output of the module:\n%s\n", strings.TrimRight(crash.Stderr, "\n"))
	}
	return functionExit(ctx, err)
}

// packageRuntime is a subako runtime with the engine the command made for it, closed with it.
type packageRuntime struct {
	*subako.Runtime
	eng *engine.Engine
}

func (r *packageRuntime) Close(ctx context.Context) error {
	err := r.Runtime.Close(ctx)
	if cerr := r.eng.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// openPackage loads and discovers PKG. It returns the exit status to return now on failure
// (having reported it), -1 on success. Discovery runs under discovery (the zero value: subako's
// defaults, as an upload gets); profile (true) gives the runtime an engine that reports fuel per
// function, for --fuel-profile.
func openPackage(ctx context.Context, pkg string, stderr io.Writer, discovery engine.Limits, profile ...bool) (*packageRuntime, *subako.Package, []subako.Tool, int) {
	cfg := subako.Config{DiscoveryLimits: discovery}
	// The command's own engine: one that reports fuel per function for --fuel-profile, with
	// the cache of --cache-dir.
	e, err := engine.New(ctx, engineConfig(ctx, len(profile) > 0 && profile[0]))
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return nil, nil, nil, exitError
	}
	cfg.Engine = e
	srt, err := subako.New(ctx, cfg)
	if err != nil {
		e.Close(ctx)
		fmt.Fprintf(stderr, "error: %v\n", err)
		return nil, nil, nil, exitError
	}
	rt := &packageRuntime{Runtime: srt, eng: e}
	p, err := loadPackage(ctx, rt.Runtime, pkg)
	if err != nil {
		rt.Close(ctx)
		fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
		return nil, nil, nil, exitError
	}
	tools, err := p.Discover(ctx)
	if err != nil {
		p.Close()
		rt.Close(ctx)
		return nil, nil, nil, reportRunError(ctx, stderr, pkg, err)
	}
	return rt, p, tools, -1
}

// openedPackage is the one PKG a command such as validate or tools names, opened and discovered.
type openedPackage struct {
	ctx   context.Context
	arg   string // PKG as resolved: a registry reference names its download
	rt    *packageRuntime
	pkg   *subako.Package
	tools []subako.Tool
}

// Close closes the package, then its runtime.
func (o *openedPackage) Close() {
	o.pkg.Close()
	o.rt.Close(o.ctx)
}

// openPackageArg parses args, which must name one PKG, resolves PKG and opens and discovers it
// under subako's default limits, as an upload gets. It returns the exit status to return now
// (having reported it), or -1 with the package open.
func openPackageArg(ctx context.Context, c *command, args []string, reg *registryFlags, cache *cacheFlags, stderr io.Writer) (*openedPackage, int) {
	pos, code := c.parse(args, true)
	if code >= 0 {
		return nil, code
	}
	ctx = cache.context(ctx)
	if len(pos) != 1 {
		return nil, c.usageErr("want one PKG, got %d arguments", len(pos))
	}
	pkg, code := resolvePackageArg(ctx, pos[0], reg, stderr)
	if code >= 0 {
		return nil, code
	}
	rt, p, tools, code := openPackage(ctx, pkg, stderr, engine.Limits{})
	if code >= 0 {
		return nil, code
	}
	return &openedPackage{ctx: ctx, arg: pkg, rt: rt, pkg: p, tools: tools}, -1
}

func functionValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("kobako function validate", "Usage: kobako function validate [flags] PKG\n\nRuns the upload checks and discovery (server/discover, tools/list) on PKG.\n", stdout, stderr)
	asJSON := c.Bool("json", false, "print the result as one JSON object")
	reg := addRegistryFlags(c.FlagSet)
	cache := addCacheFlags(c.FlagSet)
	o, code := openPackageArg(ctx, c, args, reg, cache, stderr)
	if code >= 0 {
		return code
	}
	defer o.Close()
	pkg, p, tools := o.arg, o.pkg, o.tools
	// An upload is a zip, which cannot hold what pack refuses (a symbolic link under assets/), so
	// validate refuses it too, in pack's words.
	if _, err := os.Stat(filepath.Join(pkg, subako.ManifestFile)); err == nil {
		if _, err := packageFiles(pkg); err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
			return exitError
		}
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(stderr, "warning: %s: %s\n", pkg, w)
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	if *asJSON {
		warns := p.Warnings
		if warns == nil {
			warns = []string{}
		}
		b, _ := json.Marshal(map[string]any{"ok": true, "name": p.Manifest.Name, "abi": p.Manifest.ABI, "tools": names, "warnings": warns})
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "ok: %s (ABI %d): %d tools: %s\n", p.Manifest.Name, p.Manifest.ABI, len(tools), strings.Join(names, ", "))
	return 0
}

func functionTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("kobako function tools", "Usage: kobako function tools [flags] PKG\n\nPrints the package's tools (all pages of tools/list) as a JSON array.\n", stdout, stderr)
	reg := addRegistryFlags(c.FlagSet)
	cache := addCacheFlags(c.FlagSet)
	o, code := openPackageArg(ctx, c, args, reg, cache, stderr)
	if code >= 0 {
		return code
	}
	defer o.Close()
	b, err := json.MarshalIndent(o.tools, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

const functionCallUsage = `Usage: kobako function call [flags] PKG TOOL [ARGS]

Calls TOOL in a fresh instance and prints its CallToolResult as one JSON line. ARGS is a JSON
object (default {}), "-" to read it from stdin, or @FILE to read it from FILE.
Exit status: 0 when the call completed (isError included), 2 for an unknown TOOL or malformed
ARGS, 3 when the module crashed.
`

func functionCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("kobako function call", functionCallUsage, stdout, stderr)
	limits := subako.DefaultCallLimits()
	timeout := c.Duration("timeout", limits.Deadline, "wall-clock deadline of the call, a `DURATION` such as 30s")
	fuel := c.Uint64("fuel", limits.Fuel, "fuel for the call: `N` wasm instructions")
	fuelProfile := c.String("fuel-profile", "", "write where the call's fuel went, by wasm function and call stack, to `FILE` (pprof format: go tool pprof -http :8080 FILE)")
	maxMem := sizeFlag(limits.MemoryBytes)
	c.Var(&maxMem, "max-memory", "largest size of the module's memory, a `SIZE` such as 256MiB")
	budget := sizeFlag(subako.DefaultWriteBudget)
	c.Var(&budget, "write-budget", "bytes the call may write to files, a `SIZE` such as 64MiB")
	volume := c.String("volume", "", "host `DIR` mounted at /volume/tmp (default: a fresh temporary directory)")
	data := c.String("data", "", "host `DIR` mounted at /volume/data (default: none)")
	var skills, hosts listFlag
	c.Var(&skills, "skill", "mount host directory DIR read-only at /skills/NAME, given as `NAME=DIR` (repeatable)")
	c.Var(&hosts, "allow-host", "let subako_http reach hosts matching `PATTERN`: api.example.com, *.example.com, * (repeatable)")
	reg := addRegistryFlags(c.FlagSet)
	cache := addCacheFlags(c.FlagSet)
	pos, code := c.parse(args, true)
	if code >= 0 {
		return code
	}
	ctx = cache.context(ctx)
	if len(pos) < 2 || len(pos) > 3 {
		return c.usageErr("want PKG TOOL [ARGS], got %d arguments", len(pos))
	}
	limits.Deadline, limits.Fuel, limits.MemoryBytes = *timeout, *fuel, uint64(maxMem)
	if msg := zeroLimitFlag(limits); msg != "" {
		return c.usageErr("%s", msg)
	}
	if err := limits.Validate(); err != nil {
		return c.usageErr("%v", err)
	}
	opts := subako.CallOptions{Limits: limits, Volume: *volume, Data: *data, WriteBudget: int64(budget)}
	for _, s := range skills {
		name, dir, ok := strings.Cut(s, "=")
		if !ok || name == "" || dir == "" {
			return c.usageErr("--skill %q: want NAME=DIR", s)
		}
		opts.Skills = append(opts.Skills, subako.Skill{Name: name, Dir: dir})
	}
	for _, h := range hosts {
		// A CIDR range has a '/' too, but is no URL: egress.NewPolicy names it below.
		if _, err := netip.ParsePrefix(h); err != nil && (strings.Contains(h, "://") || strings.ContainsAny(h, "/?#")) {
			return c.usageErr("--allow-host %q: give a host name pattern (api.example.com, *.example.com), not a URL; subako_http always uses https", h)
		}
	}
	if len(hosts) > 0 {
		pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: hosts})
		if err != nil {
			return c.usageErr("--allow-host: %v", err)
		}
		opts.Network = pol
	}
	var callArgs json.RawMessage
	if len(pos) == 3 {
		b, err := readArgs(ctx, pos[2], stdin)
		switch {
		case ctx.Err() != nil:
			fmt.Fprintf(stderr, "error: interrupted\n")
			return exitInterrupted
		case err != nil:
			return c.usageErr("%v", err)
		}
		callArgs = b
	}
	// The discovery run that finds the tool table answers to the same limits as the call, its
	// deadline capped at the upload's: a --timeout of 200ms must not wait 10 s for a module that
	// spins before it answers tools/list.
	discovery := limits
	discovery.Deadline = min(limits.Deadline, subako.DiscoveryDeadline)
	var prof *engine.FuelProfile
	if *fuelProfile != "" {
		if err := checkProfilePath(*fuelProfile); err != nil {
			return c.usageErr("%v", err)
		}
		prof = engine.NewFuelProfile()
	}
	if pos[0], code = resolvePackageArg(ctx, pos[0], reg, stderr); code >= 0 {
		return code
	}
	rt, p, tools, code := openPackage(ctx, pos[0], stderr, discovery, prof != nil)
	if code >= 0 {
		return code
	}
	defer rt.Close(ctx)
	defer p.Close()
	names := make([]string, len(tools))
	found := false
	for i, t := range tools {
		names[i] = t.Name
		found = found || t.Name == pos[1]
	}
	if !found {
		fmt.Fprintf(stderr, "error: %s: unknown tool %q; the package's tools: %s\n", pos[0], pos[1], listOrNone(names))
		return exitUsage
	}
	callCtx := ctx
	if prof != nil {
		callCtx = withFuelProfile(ctx, prof) // the call only: discovery's fuel is not the tool's
	}
	res, err := p.Call(callCtx, pos[1], callArgs, opts)
	if prof != nil {
		if perr := writeFuelProfile(prof, *fuelProfile); perr != nil {
			fmt.Fprintf(stderr, "error: %v\n", perr)
		}
	}
	if err != nil {
		return reportRunError(ctx, stderr, pos[0], err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "an object"
}

// lineCol turns a byte offset (as json.SyntaxError gives it: bytes read so far) into a 1-based
// line and column (in bytes) of the byte that failed.
func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off > 0 {
		off-- // the offending byte is the last one read
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

const functionPackUsage = `Usage: kobako function pack DIR -o PKG.zip

Checks the package in DIR (manifest and module) and writes subako-package.json, module.wasm and
assets/ to a zip. The zip is written next to PKG.zip under a temporary name and renamed into place
once it loads, so a failed pack leaves PKG.zip as it was; an output that is one of the package's
own files, or inside its assets/, is refused. An existing PKG.zip is replaced only when it is a
package zip (an earlier pack) and writable, and keeps its mode; --force replaces any other file,
except one inside DIR.
`

func functionPack(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("kobako function pack", functionPackUsage, stdout, stderr)
	out := c.String("o", "", "the zip `FILE` to write")
	force := c.Bool("force", false, "replace an existing -o FILE even when it is not a package zip or is read-only (never a file inside DIR)")
	pos, code := c.parse(args, true)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.usageErr("want one DIR, got %d arguments", len(pos))
	}
	if *out == "" {
		return c.usageErr("-o PKG.zip is required")
	}
	dir := pos[0]
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return c.usageErr("%s is not a directory: pack zips a package directory (kobako function validate checks a zip)", dir)
	}
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
	n, err := packDir(ctx, rt, dir, *out, *force)
	if err != nil {
		fmt.Fprintf(stderr, "error: pack: %v\n", err)
		if errors.Is(err, errPackOutput) {
			return exitUsage
		}
		return exitError
	}
	fmt.Fprintf(stdout, "packed %s (%d files) into %s\n", p.Manifest.Name, n, *out)
	return 0
}

// errPackOutput marks an output path that would overwrite or nest the package's own files.
var errPackOutput = errors.New("the output would overwrite the package")

// packDir zips the package dir into out: into a temporary file beside out, checked by loading it,
// then renamed over out. out must not resolve (through symbolic links, "..", or a hard link) to a
// file the zip reads, nor lie inside dir's assets/ (the next pack would nest it), nor be an
// existing file checkPackOutput protects. Only the temporary file is ever removed, and a replaced
// out keeps its mode.
func packDir(ctx context.Context, rt *subako.Runtime, dir, out string, force bool) (int, error) {
	names, err := packageFiles(dir)
	if err != nil {
		return 0, err
	}
	if err := checkPackOutput(dir, names, out, force); err != nil {
		return 0, err
	}
	mode := os.FileMode(0o644) // CreateTemp makes 0600; a new zip is as readable as any file
	if fi, err := os.Stat(out); err == nil {
		mode = fi.Mode().Perm()
	}
	// A pack killed before its rename left a temporary file named after out; this pack of the same
	// out removes it, as only pack makes names of that shape.
	tmpPrefix := ".kobako-pack-" + filepath.Base(out) + "."
	cleanPackTemps(filepath.Dir(out), tmpPrefix)
	tmp, err := packCreate(filepath.Dir(out), tmpPrefix)
	if err != nil {
		return 0, fmt.Errorf("cannot create %s: directory %s: %v", out, filepath.Dir(out), errCause(err))
	}
	tmpName := tmp.Name()
	done := false
	defer func() {
		if !done {
			os.Remove(tmpName)
		}
	}()
	// The temporary name means nothing to the user: errors about it name out instead.
	hide := func(err error) error {
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe) && pe.Path == tmpName:
			return fmt.Errorf("cannot write %s: %v", out, pe.Err)
		case !errors.As(err, &pe):
			return fmt.Errorf("cannot write %s: %w", out, err)
		}
		return err
	}
	err = packStep("pack: write")
	if err == nil {
		err = writePackageZip(dir, names, tmp)
	}
	if err == nil {
		err = packStep("pack: sync")
	}
	if err == nil {
		// Flushed before the rename: otherwise a power loss could leave out naming an empty file.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, hide(err)
	}
	f, err := os.Open(tmpName)
	if err != nil {
		return 0, hide(err)
	}
	fi, err := f.Stat()
	if err == nil {
		var zp *subako.Package
		zp, err = rt.LoadZip(ctx, f, fi.Size())
		if err == nil {
			zp.Close()
		}
	}
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("the written zip does not load: %w", err)
	}
	if err := os.Chmod(tmpName, mode); err != nil {
		return 0, hide(err)
	}
	err = packStep("pack: commit rename")
	if err == nil {
		err = os.Rename(tmpName, out)
	}
	if err != nil {
		return 0, fmt.Errorf("cannot write %s: %v", out, errCause(err))
	}
	done = true
	packStep("pack: sync dir")
	// The zip is in place; a failed flush of its directory cannot undo that.
	syncDir(filepath.Dir(out))
	return len(names), nil
}

// packStep is nil outside tests, which set it to see the files between the steps of a pack, as a
// process killed there would leave them, or to fail a step as a full disk would.
var packStep = func(string) error { return nil }

// packCreate creates pack's temporary file in dir: prefix and a random number.
func packCreate(dir, prefix string) (*os.File, error) {
	if err := packStep("pack: create temp"); err != nil {
		return nil, err
	}
	return os.CreateTemp(dir, prefix+"*")
}

// cleanPackTemps removes the regular files in dir named prefix and digits, the temporary files of
// packs killed before their rename.
func cleanPackTemps(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if rest, ok := strings.CutPrefix(n, prefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// syncDir flushes a directory's entries, so that a file renamed into it survives a power loss.
// Windows cannot open a directory for that, and makes renames durable itself.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errCause is the reason of a file system error without the path it carries, for a message that
// names a better one.
func errCause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// checkPackOutput refuses an output path that is one of the files names lists (relative to dir)
// or lies inside dir's assets/, however the paths are spelled. An existing out that is not a
// package zip, or is read-only, is refused unless force; inside dir, force does not help: a file
// of the package's source (main.go) is never replaced by a zip.
func checkPackOutput(dir string, names []string, out string, force bool) error {
	outAbs, err := resolvePath(out)
	if err != nil {
		return err
	}
	outInfo, statErr := os.Stat(out)
	if statErr == nil && outInfo.IsDir() {
		return fmt.Errorf("%w: %s is a directory", errPackOutput, out)
	}
	assets, err := resolvePath(filepath.Join(dir, subako.AssetsDir))
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(assets, outAbs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: %s is inside the package's %s/ (the next pack would pack the zip into itself)", errPackOutput, out, subako.AssetsDir)
	}
	for _, name := range names {
		in := filepath.Join(dir, filepath.FromSlash(name))
		inAbs, err := resolvePath(in)
		if err != nil {
			return err
		}
		same := inAbs == outAbs
		if !same && statErr == nil {
			if inInfo, err := os.Stat(in); err == nil {
				same = os.SameFile(inInfo, outInfo) // a hard link
			}
		}
		if same {
			return fmt.Errorf("%w: %s is the package's own %s", errPackOutput, out, name)
		}
	}
	if statErr != nil {
		return nil
	}
	if !outInfo.Mode().IsRegular() {
		return fmt.Errorf("%w: %s exists and is a %s, not a file", errPackOutput, out, boundedfile.Kind(outInfo.Mode()))
	}
	dirAbs, err := resolvePath(dir)
	if err != nil {
		return err
	}
	inside := false
	if rel, err := filepath.Rel(dirAbs, outAbs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		inside = true
	}
	switch {
	case !isPackageZip(out) && inside:
		return fmt.Errorf("%w: %s exists inside the package directory and is not a package zip; pack does not replace it", errPackOutput, out)
	case !isPackageZip(out) && !force:
		return fmt.Errorf("%w: %s exists and is not a package zip; pass --force to replace it", errPackOutput, out)
	case outInfo.Mode().Perm()&0o200 == 0 && !force:
		return fmt.Errorf("%w: %s is read-only; pass --force to replace it", errPackOutput, out)
	}
	return nil
}

// isPackageZip reports whether the file at p is a zip holding a package manifest at its root or
// in its single top-level directory, as pack writes and Load reads: what an earlier pack left.
func isPackageZip(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return false
	}
	for _, e := range zr.File {
		if dir, base := path.Split(e.Name); base == subako.ManifestFile && strings.Count(dir, "/") <= 1 {
			return true
		}
	}
	return false
}

// resolvePath is p made absolute with every symbolic link resolved, as far as p exists: a path
// whose last elements do not exist yet resolves its existing parent.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var missing []string
	for {
		r, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return filepath.Join(append([]string{r}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(append([]string{abs}, missing...)...), nil
		}
		missing = append([]string{filepath.Base(abs)}, missing...)
		abs = parent
	}
}

// packageFiles lists the package files of dir, slash-separated and relative to it: the manifest,
// the module, then assets/ in sorted order. Symbolic links and special files under assets/ are
// refused, since a package zip cannot hold them.
func packageFiles(dir string) ([]string, error) {
	names := []string{subako.ManifestFile, subako.ModuleFile}
	assets := filepath.Join(dir, subako.AssetsDir)
	if fi, err := os.Lstat(assets); err == nil {
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", assets)
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
			return nil, err
		}
	}
	sort.Strings(names[2:])
	return names, nil
}

// writePackageZip writes the files names lists (relative to dir) to a zip on f, with fixed times
// so that the same directory gives the same bytes.
func writePackageZip(dir string, names []string, f io.Writer) error {
	zw := zip.NewWriter(f)
	fixed := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range names {
		src, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fixed})
		if err == nil {
			_, err = io.Copy(w, src)
		}
		src.Close()
		if err != nil {
			return err
		}
	}
	return zw.Close()
}
