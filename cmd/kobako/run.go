package main

import (
	"bytes"
	"context"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// exampleWasm is the program `kobako run` runs without FILE: example/hello, a Go GOOS=wasip1 command
// (rebuild with example/build.sh).
//
//go:embed example/hello.wasm
var exampleWasm []byte

// Exit statuses of kobako itself; a guest's own status passes through unchanged.
const (
	exitUsage = 2
	exitError = 1
	// exitTrap is what wasmtime uses for a trap (128 + SIGABRT), so scripts can treat both alike.
	exitTrap = 134
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type sizeFlag uint64

func (s *sizeFlag) String() string { return formatSize(uint64(*s)) }
func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// zeroLimitFlag reports the first limit flag given as 0, or "". The engine reads a zero limit as
// its default, but on the command line the default is what leaving the flag out gives, so a 0
// there is a mistake to point out rather than a request to honour.
func zeroLimitFlag(l engine.Limits) string {
	const hint = " (leave the flag out for the default)"
	switch {
	case l.Fuel == 0:
		return fmt.Sprintf("--fuel 0 out of range 1..%d%s", uint64(engine.MaxFuel), hint)
	case l.Deadline == 0:
		return "--timeout 0s: want a positive duration" + hint
	case l.MemoryBytes == 0:
		return "--max-memory 0: want at least one byte" + hint
	case l.TableElements == 0:
		return "--max-table-elements 0: want at least one table element" + hint
	}
	return ""
}

// runStats is what --stats prints on stderr at exit.
type runStats struct {
	FuelConsumed    uint64  `json:"fuel_consumed"`
	WallTimeSeconds float64 `json:"wall_time_seconds"`
	PeakMemoryBytes uint64  `json:"peak_memory_bytes"`
	ExitCode        int     `json:"exit_code"`
}

const runUsage = `Usage: kobako run [flags] [FILE.wasm [ARGS...]]

Runs a WASI preview 1 command, or a component exporting wasi:cli/run against WASI 0.2. Without FILE
it runs an embedded example. With --invoke it calls one export of a core module or a component
instead, printing the result in WAVE.

Exit status: the guest's own; 1 when kobako cannot load or run it, 2 for a usage mistake (a file
with nothing to run: no _start, no wasi:cli/run), 134 on a trap (as wasmtime), 130 when
interrupted.
`

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newCommand("kobako run", runUsage, stdout, stderr)
	limits := engine.DefaultLimits()
	fuel := fs.Uint64("fuel", limits.Fuel, "fuel for the run: `N` wasm instructions; 0 runs the module unmetered, bounded by --timeout alone")
	timeout := fs.Duration("timeout", limits.Deadline, "wall-clock deadline for the run, a `DURATION` such as 30s or 2m")
	maxMem := sizeFlag(limits.MemoryBytes)
	fs.Var(&maxMem, "max-memory", "largest size of each linear memory, a `SIZE` such as 256MiB or 1GiB")
	maxTable := fs.Uint("max-table-elements", uint(limits.TableElements), "largest number of elements of each table, `N` (wasmtime's -W max-table-elements)")
	var dirs, envs listFlag
	fs.Var(&dirs, "dir", "preopen host directory HOST, as GUEST when given as `HOST[::GUEST]` (repeatable)")
	fs.Var(&envs, "env", "set the guest environment variable `K=V` (repeatable; the last value of K wins)")
	inheritEnv := fs.Bool("inherit-env", false, "pass kobako's whole environment to the guest (--env overrides it)")
	deterministic := fs.Bool("deterministic", false, "give the guest a fake clock (1 ms per reading) and seeded randomness, so its output and fuel are reproducible")
	invokeExpr := fs.String("invoke", "", "call the export `EXPR` names, such as 'add(1, 2)' or 'docs:adder/add@0.1.0#add(1, 2)', with WAVE arguments, and print its result in WAVE")
	trapUnknown := fs.Bool("trap-unknown-imports", false, "components only: satisfy every import the WASI 0.2 host does not provide with functions that trap when called, so the component runs as long as it does not call them")
	var allowHosts listFlag
	fs.Var(&allowHosts, "allow-host", "components: let wasi:http reach hosts matching `PATTERN`: api.example.com, *.example.com, * (repeatable); without it every request answers HTTP-request-denied")
	allowPrivate := fs.Bool("allow-private", false, "components: let wasi:http reach loopback, private and other reserved addresses (for local testing)")
	httpCA := fs.String("http-ca", "", "components: PEM `FILE` of the certificate authorities wasi:http trusts instead of the system's (for local testing)")
	stats := fs.Bool("stats", false, "print one JSON object with fuel consumed, wall time and peak memory on stderr at exit")
	fuelProfile := fs.String("fuel-profile", "", "write where the fuel went, by wasm function and call stack, to `FILE` (pprof format: go tool pprof -http :8080 FILE)")
	cache := addCacheFlags(fs.FlagSet)
	rest, code := fs.parse(args, false)
	if code >= 0 {
		return code
	}
	ctx = cache.context(ctx)
	limits.Fuel, limits.Deadline, limits.MemoryBytes = *fuel, *timeout, uint64(maxMem)
	if *fuel == 0 {
		// Unlike the other limits, and unlike --fuel of the commands that call packages, a 0
		// here asks for something: a run without fuel (engine.Unmetered).
		if *fuelProfile != "" {
			return fs.usageErr("--fuel-profile needs fuel: an unmetered run (--fuel 0) counts none")
		}
		limits.Fuel = engine.Unmetered
	}
	if *maxTable > math.MaxUint32 {
		return fs.usageErr("--max-table-elements %d: more than %d", *maxTable, uint32(math.MaxUint32))
	}
	limits.TableElements = uint32(*maxTable)
	if msg := zeroLimitFlag(limits); msg != "" {
		return fs.usageErr("%s", msg)
	}
	if err := limits.Validate(); err != nil {
		return fs.usageErr("%v", err)
	}

	name, wasmBytes := "example", exampleWasm
	guestArgs := []string{"hello"}
	if len(rest) > 0 {
		b, err := readWasmFile(rest[0])
		if err != nil {
			fmt.Fprintf(stderr, "error: %v%s\n", err, packageHint(rest[0], nil))
			return exitError
		}
		if hint := packageHint(rest[0], b); hint != "" {
			fmt.Fprintf(stderr, "error: %s is not a WebAssembly module or component%s\n", rest[0], hint)
			return exitError
		}
		name, wasmBytes, guestArgs = rest[0], b, rest
	}
	cfg := wasi.Config{Args: guestArgs, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if *deterministic {
		cfg.Clock = wasi.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond)
		cfg.Random = rand.NewChaCha8([32]byte{'k', 'o', 'b', 'a', 'k', 'o'})
	}
	var env []string
	if *inheritEnv {
		env = os.Environ()
	}
	for _, kv := range envs {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fs.usageErr("--env %q: want K=V with a non-empty K", kv)
		}
	}
	cfg.Env = mergeEnv(append(env, envs...))
	for _, d := range dirs {
		host, guest, ok := strings.Cut(d, "::")
		if !ok {
			guest = host
		}
		if host == "" || guest == "" {
			return fs.usageErr("--dir %q: want HOST or HOST::GUEST, both non-empty", d)
		}
		cfg.Preopens = append(cfg.Preopens, wasi.Preopen{GuestPath: guest, HostDir: host})
	}

	if *trapUnknown && !binary.IsComponent(wasmBytes) {
		fmt.Fprintf(stderr, "error: %s: --trap-unknown-imports applies to components only\n", name)
		return exitUsage
	}

	hc, err := httpConfig(allowHosts, *allowPrivate, *httpCA, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}

	var prof *engine.FuelProfile
	if *fuelProfile != "" {
		if err := checkProfilePath(*fuelProfile); err != nil {
			return fs.usageErr("%v", err)
		}
		prof = engine.NewFuelProfile()
		ctx = withFuelProfile(ctx, prof)
	}
	start := time.Now()
	var st runStats
	if *invokeExpr != "" {
		st, err = invoke(ctx, wasmBytes, *invokeExpr, cfg, hc, limits, *trapUnknown, stdout)
	} else if binary.IsComponent(wasmBytes) {
		st, err = runComponent(ctx, wasmBytes, cfg, hc, limits, *trapUnknown)
	} else {
		st, err = runWASI(ctx, wasmBytes, cfg, limits)
	}
	if prof != nil {
		// Written whatever the end: a run that trapped or ran out of fuel is what one profiles.
		if perr := writeFuelProfile(prof, *fuelProfile); perr != nil {
			fmt.Fprintf(stderr, "error: %v\n", perr)
		}
	}
	code = 0
	var exit *engine.ExitError
	switch {
	case errors.As(err, &exit):
		code = int(exit.Code)
	case err != nil && ctx.Err() != nil:
		code = exitInterrupted
		fmt.Fprintf(stderr, "error: %s: interrupted\n", name)
	case err != nil:
		var trap *engine.Trap
		var usage *usageError
		if errors.As(err, &trap) {
			code = exitTrap
			fmt.Fprintf(stderr, "error: %s: %s\n", name, describeTrap(trap))
		} else if errors.As(err, &usage) {
			code = exitUsage
			fmt.Fprintf(stderr, "error: %s: %v\n", name, err)
		} else {
			code = exitError
			fmt.Fprintf(stderr, "error: %s: %v\n", name, err)
		}
	}
	if *stats {
		st.WallTimeSeconds = time.Since(start).Seconds()
		st.ExitCode = code
		b, _ := json.Marshal(st)
		fmt.Fprintf(stderr, "%s\n", b)
	}
	return code
}

// runComponent runs a component's wasi:cli/run export against the WASI 0.2 host, given what
// cfg gives a preview 1 command. A non-zero exit status comes back as *engine.ExitError, as for
// core modules. With trapUnknown, imports the WASI host does not provide trap when called
// (component.Linker.DefineUnknownImportsAsTraps).
func runComponent(ctx context.Context, wasmBytes []byte, cfg wasi.Config, hc preview2.HTTPConfig, limits engine.Limits, trapUnknown bool) (runStats, error) {
	var st runStats
	e, err := newEngine(ctx)
	if err != nil {
		return st, err
	}
	defer e.Close(ctx)
	cc, err := component.Compile(ctx, e, wasmBytes)
	if err != nil {
		return st, err
	}
	defer cc.Close(ctx)
	if _, err := preview2.RunExport(cc.Decoded()); err != nil {
		// Nothing to run is a usage mistake, as a core module without _start is.
		return st, &usageError{fmt.Errorf("%w; call one of its exports with --invoke 'f(...)'", err)}
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return st, err
	}
	defer s.Close(ctx)
	var code uint32
	if trapUnknown {
		code, err = runTrapping(ctx, s, cc, cfg, hc)
	} else {
		code, err = preview2.RunComponent(ctx, s, cc, cfg, preview2.WithHTTP(hc))
	}
	st.FuelConsumed = s.FuelConsumed()
	st.PeakMemoryBytes = s.PeakMemory()
	if err == nil && code != 0 {
		err = &engine.ExitError{Code: code}
	}
	return st, err
}

// runTrapping is preview2.RunComponent with a linker whose unknown imports trap.
func runTrapping(ctx context.Context, s *engine.Store, cc *component.Component, cfg wasi.Config, hc preview2.HTTPConfig) (uint32, error) {
	l, err := wasiLinker(cc, true)
	if err != nil {
		return 0, err
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		return 0, err
	}
	return preview2.RunPrepared(ctx, s, pre, cfg, preview2.WithHTTP(hc))
}

// wasiLinker returns a linker defining WASI 0.2 and, with trapUnknown, trapping stand-ins for
// every other import of cc. Each store it instantiates in needs a preview2.Bind first.
func wasiLinker(cc *component.Component, trapUnknown bool) (*component.Linker, error) {
	l, err := preview2.Linker()
	if err != nil {
		return nil, err
	}
	if trapUnknown {
		if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// httpConfig builds the wasi:http sender kobako run gives components: the egress policy with
// the --allow-host patterns (none: every request is denied), private addresses only with
// --allow-private, and the --http-ca roots. Refusals are logged on stderr.
func httpConfig(hosts []string, allowPrivate bool, caFile string, stderr io.Writer) (preview2.HTTPConfig, error) {
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: hosts})
	if err != nil {
		return preview2.HTTPConfig{}, fmt.Errorf("--allow-host: %w", err)
	}
	opts := egress.Options{AllowPrivate: allowPrivate}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return preview2.HTTPConfig{}, fmt.Errorf("--http-ca: %w", err)
		}
		opts.RootCAs = x509.NewCertPool()
		if !opts.RootCAs.AppendCertsFromPEM(pem) {
			return preview2.HTTPConfig{}, fmt.Errorf("--http-ca %s: no PEM certificate in it", caFile)
		}
	}
	s := httpegress.New(httpegress.Config{Policy: pol, Client: egress.NewClient(opts),
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	return preview2.HTTPConfig{Send: s.Send}, nil
}

// packageHint says what to run instead when name is not a module but a package: a zip (b starts
// with a zip's local file header) or, with b nil, a directory. It returns "" otherwise.
func packageHint(name string, b []byte) string {
	if b != nil {
		if bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06")) {
			return fmt.Sprintf("; it is a zip: a function package? try `kobako function call %s TOOL`, or `kobako function tools %s` for its tools", name, name)
		}
		return ""
	}
	if fi, err := os.Stat(name); err != nil || !fi.IsDir() {
		return ""
	}
	if _, err := os.Stat(filepath.Join(name, manifest.FileName)); err == nil {
		return fmt.Sprintf("; it holds %s: a ZeroClaw plugin? try `kobako plugin install %s`", manifest.FileName, name)
	}
	return fmt.Sprintf("; a function package? try `kobako function call %s TOOL`, or `kobako function tools %s` for its tools", name, name)
}

// describeTrap names the cause first ("fuel exhausted", "deadline exceeded", ...), as scripts grep
// for it, then where it happened.
func describeTrap(t *engine.Trap) string {
	msg := t.Kind.String()
	if t.Function != "" {
		msg += " in function " + t.Function
	}
	// A host function's error, a canonical ABI trap's detail, and a declared minimum over a limit
	// (which names both sizes) are the cause itself; other kinds' causes repeat the kind.
	if t.Cause != nil && (t.Kind == engine.TrapHost || t.Kind == engine.TrapCanonicalABI ||
		t.Kind == engine.TrapMemoryLimit && t.Function == "" || t.Kind == engine.TrapTableLimit) {
		msg += ": " + t.Cause.Error()
	}
	return msg
}

func runWASI(ctx context.Context, wasmBytes []byte, cfg wasi.Config, limits engine.Limits) (runStats, error) {
	var st runStats
	e, err := newEngine(ctx)
	if err != nil {
		return st, err
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		return st, err
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return st, err
	}
	defer s.Close(ctx)
	if _, err := preview1.Bind(s, cfg); err != nil { // closed with the store
		return st, err
	}
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module})
	if err != nil {
		return st, err
	}
	if _, ferr := inst.Function("_start"); ferr != nil {
		var funcs []string
		for _, d := range m.Exports() {
			if d.Kind == engine.ExternFunc {
				funcs = append(funcs, d.Name)
			}
		}
		return st, &usageError{fmt.Errorf("the module exports no _start, so it is not a WASI command; call one of its exported functions with --invoke 'NAME(ARGS)' (exported functions: %s)", listOrNone(funcs))}
	}
	_, err = inst.Call(ctx, "_start")
	st.FuelConsumed = s.FuelConsumed()
	st.PeakMemoryBytes = s.PeakMemory()
	var exit *engine.ExitError
	if errors.As(err, &exit) && exit.Code == 0 {
		err = nil
	}
	return st, err
}

// parseSize reads a byte count with an optional unit: 65536, 64KiB, 256MiB, 1GiB, 1.5GB.
func parseSize(v string) (uint64, error) {
	s := strings.TrimSpace(v)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kb": 1e3, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1e6, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1e9, "gib": 1 << 30}[unit]
	if mult == 0 || num == "" {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)", v)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f*mult > 1<<40 {
		return 0, fmt.Errorf("size %q: out of range", v)
	}
	return uint64(f * mult), nil
}

// formatSize writes a byte count the way parseSize reads it back, in the largest binary unit that
// divides it: 268435456 is "256MiB".
func formatSize(n uint64) string {
	for _, u := range []struct {
		name string
		size uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatUint(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatUint(n, 10)
}

// mergeEnv keeps one K=V per K, the last given, at the place K first appeared: WASI guests (Go,
// wasi-libc) read the first of duplicates, so without this a later --env could not override.
func mergeEnv(kvs []string) []string {
	last := map[string]string{}
	var order []string
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = kv
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, last[k])
	}
	return out
}
