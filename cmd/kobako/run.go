package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
	"github.com/kobako/kobako/wasi/preview2"
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

func (s *sizeFlag) String() string { return strconv.FormatUint(uint64(*s), 10) }
func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// runStats is what --stats prints on stderr at exit.
type runStats struct {
	FuelConsumed    uint64  `json:"fuel_consumed"`
	WallTimeSeconds float64 `json:"wall_time_seconds"`
	PeakMemoryBytes uint64  `json:"peak_memory_bytes"`
	ExitCode        int     `json:"exit_code"`
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kobako run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: kobako run [flags] [FILE.wasm [ARGS...]]\n\nRuns a WASI preview 1 command, or a component exporting wasi:cli/run against WASI 0.2. Without FILE it runs an embedded example.\nWith --invoke it calls one export of a core module or a component instead, printing the result in WAVE.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	limits := engine.DefaultLimits()
	fuel := fs.Uint64("fuel", limits.Fuel, "fuel for the run, in wasm instructions")
	timeout := fs.Duration("timeout", limits.Deadline, "wall-clock deadline for the run")
	maxMem := sizeFlag(limits.MemoryBytes)
	fs.Var(&maxMem, "max-memory", "largest size of each linear memory (e.g. 256MiB, 1GiB)")
	var dirs, envs listFlag
	fs.Var(&dirs, "dir", "preopen host directory HOST, as GUEST if given as HOST::GUEST (repeatable)")
	fs.Var(&envs, "env", "set environment variable K=V for the guest (repeatable)")
	inheritEnv := fs.Bool("inherit-env", false, "pass kobako's whole environment to the guest (before --env)")
	deterministic := fs.Bool("deterministic", false, "give the guest a fake clock (1 ms per reading) and seeded randomness, so its output and fuel are reproducible")
	invokeExpr := fs.String("invoke", "", "call the export `EXPR` names, such as 'add(1, 2)' or 'docs:adder/add@0.1.0#add(1, 2)', with WAVE arguments, and print its result in WAVE")
	trapUnknown := fs.Bool("trap-unknown-imports", false, "components only: satisfy every import the WASI 0.2 host does not provide (such as wasi:http) with functions that trap when called, so the component runs as long as it does not call them")
	stats := fs.Bool("stats", false, "print one JSON object with fuel consumed, wall time and peak memory on stderr at exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	limits.Fuel, limits.Deadline, limits.MemoryBytes = *fuel, *timeout, uint64(maxMem)
	if err := limits.Validate(); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}

	name, wasmBytes := "example", exampleWasm
	guestArgs := []string{"hello"}
	if rest := fs.Args(); len(rest) > 0 {
		b, err := os.ReadFile(rest[0])
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		name, wasmBytes, guestArgs = rest[0], b, rest
	}
	cfg := preview1.Config{Args: guestArgs, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if *deterministic {
		cfg.Clock = wasi.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Millisecond)
		cfg.Random = rand.NewChaCha8([32]byte{'k', 'o', 'b', 'a', 'k', 'o'})
	}
	if *inheritEnv {
		cfg.Env = append(cfg.Env, os.Environ()...)
	}
	for _, kv := range envs {
		if !strings.Contains(kv, "=") {
			fmt.Fprintf(stderr, "error: --env %q: want K=V\n", kv)
			return exitUsage
		}
		cfg.Env = append(cfg.Env, kv)
	}
	for _, d := range dirs {
		host, guest, ok := strings.Cut(d, "::")
		if !ok {
			guest = host
		}
		cfg.Preopens = append(cfg.Preopens, preview1.Preopen{GuestPath: guest, HostDir: host})
	}

	if *trapUnknown && !component.IsComponent(wasmBytes) {
		fmt.Fprintf(stderr, "error: %s: --trap-unknown-imports applies to components only\n", name)
		return exitUsage
	}

	start := time.Now()
	var st runStats
	var err error
	if *invokeExpr != "" {
		st, err = invoke(ctx, wasmBytes, *invokeExpr, cfg, limits, *trapUnknown, stdout)
	} else if component.IsComponent(wasmBytes) {
		st, err = runComponent(ctx, wasmBytes, cfg, limits, *trapUnknown)
	} else {
		st, err = runWASI(ctx, wasmBytes, cfg, limits)
	}
	code := 0
	var exit *engine.ExitError
	switch {
	case errors.As(err, &exit):
		code = int(exit.Code)
	case err != nil:
		var trap *engine.Trap
		var usage *usageError
		var abiErr *abiTrap
		if errors.As(err, &trap) {
			code = exitTrap
			fmt.Fprintf(stderr, "error: %s: %s\n", name, describeTrap(trap))
		} else if errors.As(err, &abiErr) {
			code = exitTrap
			fmt.Fprintf(stderr, "error: %s: %v\n", name, abiErr)
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
func runComponent(ctx context.Context, wasmBytes []byte, cfg preview1.Config, limits engine.Limits, trapUnknown bool) (runStats, error) {
	var st runStats
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return st, err
	}
	defer e.Close(ctx)
	cc, err := component.Compile(ctx, e, wasmBytes)
	if err != nil {
		return st, err
	}
	if _, err := preview2.RunExport(cc.Component()); err != nil {
		return st, fmt.Errorf("%w; call one of its exports with --invoke 'f(...)'", err)
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return st, err
	}
	defer s.Close(ctx)
	var code uint32
	if trapUnknown {
		code, err = runComponentTrapping(ctx, s, cc, preview2Config(cfg))
	} else {
		code, err = preview2.RunComponent(ctx, s, cc, preview2Config(cfg))
	}
	st.FuelConsumed = s.FuelConsumed()
	st.PeakMemoryBytes = s.PeakMemory()
	if err == nil && code != 0 {
		err = &engine.ExitError{Code: code}
	}
	return st, err
}

// runComponentTrapping is preview2.RunComponent with a linker whose unknown imports trap.
func runComponentTrapping(ctx context.Context, s *engine.Store, cc *component.Compiled, cfg preview2.Config) (uint32, error) {
	name, err := preview2.RunExport(cc.Component())
	if err != nil {
		return 0, err
	}
	l, closeHost, err := wasiLinker(cc, cfg, true)
	if err != nil {
		return 0, err
	}
	defer closeHost()
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		return 0, err
	}
	res, err := in.Call(ctx, name)
	var exit *preview2.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.Code, nil
	case err != nil:
		return 0, err
	case len(res) == 1 && res[0].Kind() == abi.KindResult && res[0].IsErr():
		return 1, nil
	}
	return 0, nil
}

// wasiLinker returns a linker holding the WASI 0.2 host for cfg and, with trapUnknown, trapping
// stand-ins for every other import of cc, and the function that closes the host.
func wasiLinker(cc *component.Compiled, cfg preview2.Config, trapUnknown bool) (*component.Linker, func(), error) {
	h, err := preview2.NewHost(cfg)
	if err != nil {
		return nil, nil, err
	}
	l := component.NewLinker()
	if err := h.Define(l); err != nil {
		h.Close()
		return nil, nil, err
	}
	if trapUnknown {
		if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
			h.Close()
			return nil, nil, err
		}
	}
	return l, func() { h.Close() }, nil
}

func preview2Config(c preview1.Config) preview2.Config {
	p := preview2.Config{Args: c.Args, Env: c.Env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Clock: c.Clock, Random: c.Random, WriteBudget: c.WriteBudget, MaxWriteSize: c.MaxWriteSize, Budget: c.Budget}
	for _, d := range c.Preopens {
		p.Preopens = append(p.Preopens, preview2.Preopen{GuestPath: d.GuestPath, HostDir: d.HostDir, FS: d.FS, Dir: d.Dir, ReadOnly: d.ReadOnly})
	}
	return p
}

// describeTrap names the cause first ("fuel exhausted", "deadline exceeded", ...), as scripts grep
// for it, then where it happened.
func describeTrap(t *engine.Trap) string {
	msg := t.Kind.String()
	if t.Function != "" {
		msg += " in function " + t.Function
	}
	if t.Kind == engine.TrapHost && t.Cause != nil {
		msg += ": " + t.Cause.Error()
	}
	return msg
}

func runWASI(ctx context.Context, wasmBytes []byte, cfg preview1.Config, limits engine.Limits) (runStats, error) {
	var st runStats
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return st, err
	}
	defer e.Close(ctx)
	m, err := e.CompileWithTableLimit(ctx, wasmBytes, limits.TableElements)
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
