package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/wasm"
)

// engineKind names one way of running a module: the "engine=" part of every benchmark name (see the
// package documentation).
type engineKind string

const (
	bare         engineKind = "bare"
	kobako       engineKind = "kobako"
	unmetered    engineKind = "unmetered"
	fuelOnly     engineKind = "fuel-only"
	deadlineOnly engineKind = "deadline-only"
	compiler     engineKind = "compiler"
	// wazyEngine is wazy v0.8.0's interpreter (wazy_test.go): the wazero fork issue 24 compares with.
	wazyEngine engineKind = "wazy"
)

// workloadEngines run the warm-instance workloads; the first is the baseline benchstat compares to.
var workloadEngines = []engineKind{bare, kobako, unmetered, fuelOnly, deadlineOnly, compiler, wazyEngine}

// lifecycleEngines run the compile and instantiate benchmarks, where the split of kobako's cost into
// metering and deadline does not apply.
var lifecycleEngines = []engineKind{bare, kobako, compiler}

// compilerSupported mirrors wazero's own check: its compiler targets amd64 and arm64 only.
func compilerSupported() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "windows":
		return runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"
	}
	return false
}

const (
	// benchFuelModule and benchFuelGlobal are the import the fuel-only engine's rewrite reads its
	// counter from; testdata/wat/fuel.wasm provides it.
	benchFuelModule = "bench:fuel"
	benchFuelGlobal = "remaining"
	// benchDeadline is kobako's default per-call deadline, which deadline-only applies too.
	benchDeadline = engine.DefaultDeadline
)

// benchLimits are kobako's default limits with as much fuel as a call may have, so that no workload
// runs out: the benchmarks measure the cost of counting, not of stopping.
func benchLimits() engine.Limits {
	l := engine.DefaultLimits()
	l.Fuel = engine.MaxFuel
	return l
}

var (
	fixtureMu    sync.Mutex
	fixtureCache = map[string][]byte{}
)

// fixture returns testdata/<name>.wasm, e.g. "wat/fib" or "reactor/reactor".
func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if b, ok := fixtureCache[name]; ok {
		return b
	}
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)+".wasm"))
	if err != nil {
		tb.Fatalf("fixture %s: %v (rebuild with testdata/build.sh)", name, err)
	}
	fixtureCache[name] = b
	return b
}

// callFunc calls one exported function of a warm guest.
type callFunc func(ctx context.Context, params ...uint64) ([]uint64, error)

// guest is a warm instance of a module under one engine: instantiated, initialized, ready to call.
type guest struct {
	kind engineKind
	// fn looks up an export.
	fn func(name string) (callFunc, error)
	// read copies guest memory.
	read func(offset, n uint32) ([]byte, bool)
	// fuel returns the fuel the last call used; nil for engines that do not meter.
	fuel  func() uint64
	close func()
}

// readCopy reads n bytes at offset, or fails with an error naming the range.
func (g *guest) readCopy(offset, n uint32) ([]byte, error) {
	b, ok := g.read(offset, n)
	if !ok {
		return nil, fmt.Errorf("%s: guest memory [%d, %d) out of range", g.kind, offset, uint64(offset)+uint64(n))
	}
	return bytes.Clone(b), nil
}

type guestKey struct {
	kind    engineKind
	fixture string
}

var (
	guestsMu sync.Mutex
	guests   = map[guestKey]*guest{}
)

// warmGuest returns the process-wide warm instance of fixture under kind, creating it on first use:
// -count repeats a benchmark by calling it again, and compiling a 3.5 MB module each time would
// dominate the run.
func warmGuest(tb testing.TB, kind engineKind, name string) *guest {
	tb.Helper()
	if kind == compiler && !compilerSupported() {
		tb.Skipf("wazero's compiler does not support %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	guestsMu.Lock()
	defer guestsMu.Unlock()
	key := guestKey{kind, name}
	if g, ok := guests[key]; ok {
		return g
	}
	g, err := newGuest(context.Background(), kind, fixture(tb, name))
	if err != nil {
		tb.Fatalf("%s on %s: %v", name, kind, err)
	}
	guests[key] = g
	return g
}

// closeGuests releases every warm instance.
func closeGuests() {
	guestsMu.Lock()
	defer guestsMu.Unlock()
	for k, g := range guests {
		g.close()
		delete(guests, k)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	closeGuests()
	closeStarters()
	os.Exit(code)
}

// newGuest instantiates wasmBytes under kind and runs its initialization: _initialize for a
// reactor, then setup when the module has one.
func newGuest(ctx context.Context, kind engineKind, wasmBytes []byte) (*guest, error) {
	var g *guest
	var err error
	switch kind {
	case kobako, unmetered:
		g, err = newKobakoGuest(ctx, kind, wasmBytes)
	case wazyEngine:
		g, err = newWazyGuest(ctx, wasmBytes)
	default:
		g, err = newWazeroGuest(ctx, kind, wasmBytes)
	}
	if err != nil {
		return nil, err
	}
	for _, init := range []string{"_initialize", "setup"} {
		f, err := g.fn(init)
		if err != nil {
			continue // a module without that export
		}
		if _, err := f(ctx); err != nil {
			g.close()
			return nil, fmt.Errorf("%s: %w", init, err)
		}
	}
	return g, nil
}

// newRuntime returns a wazero runtime configured for kind, with WASI preview 1 instantiated.
func newRuntime(ctx context.Context, kind engineKind) (wazero.Runtime, error) {
	var rc wazero.RuntimeConfig
	switch kind {
	case bare, fuelOnly:
		rc = wazero.NewRuntimeConfigInterpreter()
	case deadlineOnly:
		// wazero's own interruption, which kobako's engine used until it moved deadline checks
		// into its refuel hook.
		rc = wazero.NewRuntimeConfigInterpreter().WithCloseOnContextDone(true)
	case compiler:
		rc = wazero.NewRuntimeConfigCompiler()
	default:
		return nil, fmt.Errorf("engine %q does not run on a plain wazero runtime", kind)
	}
	r := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("wasi: %w", err)
	}
	return r, nil
}

// moduleConfig is the wazero module configuration every plain-wazero guest gets: no start
// functions (each engine calls _initialize or _start itself), and the real clocks and random
// source that kobako's WASI gives guests by default, rather than wazero's deterministic fakes, so
// that the Go runtime behaves the same under both.
func moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().WithStartFunctions().
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().WithRandSource(rand.Reader)
}

// rewrite returns the module as kobako's engine would run it: decoded, checked and rewritten for
// fuel metering, with the counter imported from benchFuelModule.
func rewrite(wasmBytes []byte) ([]byte, error) {
	m, err := wasm.Decode(wasmBytes, wasm.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	out, err := wasm.Instrument(m, wasm.InstrumentOptions{
		FuelModule:       benchFuelModule,
		FuelGlobal:       benchFuelGlobal,
		MaxTableElements: engine.DefaultTableElements,
	})
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	return out, nil
}

// newWazeroGuest runs wasmBytes on a plain wazero runtime: bare, deadline-only and compiler run it
// as it is; fuel-only runs kobako's rewrite of it against a counter refilled before every call.
func newWazeroGuest(ctx context.Context, kind engineKind, wasmBytes []byte) (*guest, error) {
	r, err := newRuntime(ctx, kind)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*guest, error) {
		_ = r.Close(ctx)
		return nil, err
	}
	var counter api.MutableGlobal
	if kind == fuelOnly {
		if wasmBytes, err = rewrite(wasmBytes); err != nil {
			return fail(err)
		}
		fuelWasm, err := os.ReadFile(filepath.Join("testdata", "wat", "fuel.wasm"))
		if err != nil {
			return fail(fmt.Errorf("fuel module: %w", err))
		}
		fm, err := r.InstantiateWithConfig(ctx, fuelWasm, wazero.NewModuleConfig().WithName(benchFuelModule))
		if err != nil {
			return fail(fmt.Errorf("fuel module: %w", err))
		}
		counter = fm.ExportedGlobal(benchFuelGlobal).(api.MutableGlobal)
	}
	cm, err := r.CompileModule(ctx, wasmBytes)
	if err != nil {
		return fail(fmt.Errorf("compile: %w", err))
	}
	mod, err := r.InstantiateModule(ctx, cm, moduleConfig().WithName("guest"))
	if err != nil {
		return fail(fmt.Errorf("instantiate: %w", err))
	}
	g := &guest{
		kind: kind,
		read: func(offset, n uint32) ([]byte, bool) {
			if mod.Memory() == nil {
				return nil, false
			}
			return mod.Memory().Read(offset, n)
		},
		close: func() { _ = r.Close(ctx) },
	}
	g.fn = func(name string) (callFunc, error) {
		f := mod.ExportedFunction(name)
		if f == nil {
			return nil, fmt.Errorf("no export %q", name)
		}
		switch kind {
		case deadlineOnly:
			return func(ctx context.Context, params ...uint64) ([]uint64, error) {
				ctx, cancel := context.WithTimeout(ctx, benchDeadline)
				defer cancel()
				return f.Call(ctx, params...)
			}, nil
		case fuelOnly:
			return func(ctx context.Context, params ...uint64) ([]uint64, error) {
				counter.Set(engine.MaxFuel)
				res, err := f.Call(ctx, params...)
				if err == nil && int64(counter.Get()) < 0 {
					err = errors.New("fuel overdrawn")
				}
				return res, err
			}, nil
		}
		return f.Call, nil
	}
	if counter != nil {
		g.fuel = func() uint64 { return uint64(engine.MaxFuel - int64(counter.Get())) }
	}
	return g, nil
}

// exitedOK reports whether err is a guest's successful exit: nil, or proc_exit(0) as wazero or
// kobako report it.
func exitedOK(err error) bool {
	if err == nil {
		return true
	}
	var se *sys.ExitError
	if errors.As(err, &se) {
		return se.ExitCode() == 0
	}
	var ee *engine.ExitError
	if errors.As(err, &ee) {
		return ee.Code == 0
	}
	return false
}

// guestKinds filters kinds to those that run here.
func guestKinds(kinds []engineKind) []engineKind {
	out := make([]engineKind, 0, len(kinds))
	for _, k := range kinds {
		if k == compiler && !compilerSupported() {
			continue
		}
		out = append(out, k)
	}
	return out
}
