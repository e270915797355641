package wasm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"pgregory.net/rapid"
)

// fuelModuleWasm is (module (global (export "remaining") (mut i64) (i64.const 0))).
var fuelModuleWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x06, 0x06, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b,
	0x07, 0x0d, 0x01, 0x09, 'r', 'e', 'm', 'a', 'i', 'n', 'i', 'n', 'g', 0x03, 0x00,
}

var testOpts = InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 10_000}

// hookOpts instruments with a fuel hook: the checks call kobako:fuel.exhausted instead of trapping.
var hookOpts = InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted", MaxTableElements: 10_000}

// fuelHookWasm is
//
//	(module
//	  (import "kobako:fuel-host" "exhausted" (func $h))
//	  (global (export "remaining") (mut i64) (i64.const 0))
//	  (export "exhausted" (func $h)))
//
// wazero resolves all the imports from one module name in one instance, so this module puts the
// host's hook next to the fuel global under the name kobako:fuel.
var fuelHookWasm = module(
	sec(secType, 0x01, 0x60, 0x00, 0x00),
	sec(secImport, append(append(appendName([]byte{0x01}, "kobako:fuel-host"), appendName(nil, "exhausted")...), 0x00, 0x00)...),
	sec(secGlobal, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b),
	sec(secExport, append(append(appendName([]byte{0x02}, "remaining"), 0x03, 0x00), append(appendName(nil, "exhausted"), 0x00, 0x00)...)...),
)

// errFuelExhausted is the hook's trap when a call has used more than its budget.
var errFuelExhausted = errors.New("fuel exhausted")

// fuelMode is one way of instrumenting: trapping checks, or checks that call a hook which hands
// out the budget in slices.
type fuelMode struct {
	name  string
	opts  InstrumentOptions
	slice int64 // hook mode: the fuel the hook hands out at a time
}

var fuelModes = []fuelMode{{"trap", testOpts, 0}, {"hook", hookOpts, 7}}

func (fm fuelMode) hook() bool { return fm.opts.FuelHook != "" }

func (fm fuelMode) sandbox(t testing.TB) *sandbox {
	if fm.hook() {
		return newHookSandbox(t, fm.slice)
	}
	return newSandbox(t)
}

func (fm fuelMode) instrument(t testing.TB, b []byte) []byte {
	t.Helper()
	out, err := Instrument(mustDecode(t, b), fm.opts)
	if err != nil {
		t.Fatalf("Instrument (%s): %v", fm.name, err)
	}
	return out
}

// exhausted reports whether err is the mode's fuel exhaustion: the trap of the injected check, or
// the hook's.
func (fm fuelMode) exhausted(err error) bool {
	if err == nil {
		return false
	}
	if fm.hook() {
		return errors.Is(err, errFuelExhausted)
	}
	cause := errors.Unwrap(err)
	return cause != nil && strings.Contains(cause.Error(), "unreachable")
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustDecode(t testing.TB, b []byte) *Module {
	t.Helper()
	m, err := Decode(b, Limits{})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return m
}

func mustInstrument(t testing.TB, b []byte) []byte {
	t.Helper()
	out, err := Instrument(mustDecode(t, b), testOpts)
	if err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	return out
}

// sandbox runs modules in a wazero interpreter runtime with a fuel module named kobako:fuel.
type sandbox struct {
	t    testing.TB
	ctx  context.Context
	r    wazero.Runtime
	fuel api.MutableGlobal

	// Hook mode: the fuel module also exports the hook, which refills the counter by slice.
	hooked    bool
	slice     int64
	budget    int64 // the fuel of the current call
	handed    int64 // the part of budget handed out so far
	hookCalls int
	bulkCalls int    // hook calls with fuel left: the checks after long bulk instructions
	onHook    func() // called on every hook call before the refill
}

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { _ = r.Close(ctx) })
	fc, err := r.CompileModule(ctx, fuelModuleWasm)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := r.InstantiateModule(ctx, fc, wazero.NewModuleConfig().WithName("kobako:fuel"))
	if err != nil {
		t.Fatal(err)
	}
	return &sandbox{t: t, ctx: ctx, r: r, fuel: fi.ExportedGlobal("remaining").(api.MutableGlobal)}
}

func (s *sandbox) instantiate(b []byte, imports ...string) api.Module {
	s.t.Helper()
	c, err := s.r.CompileModule(s.ctx, b)
	if err != nil {
		s.t.Fatalf("compile: %v", err)
	}
	m, err := s.r.InstantiateModule(s.ctx, c, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		s.t.Fatalf("instantiate: %v", err)
	}
	return m
}

// newHookSandbox is newSandbox for modules instrumented with hookOpts: the counter starts at one
// slice of the budget, and the hook adds the next slice whenever a check finds it negative.
func newHookSandbox(t testing.TB, slice int64) *sandbox {
	t.Helper()
	if slice <= 0 {
		t.Fatalf("slice %d", slice)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { _ = r.Close(ctx) })
	s := &sandbox{t: t, ctx: ctx, r: r, hooked: true, slice: slice}
	_, err := r.NewHostModuleBuilder("kobako:fuel-host").NewFunctionBuilder().
		WithFunc(func(context.Context) { s.refill() }).Export("exhausted").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := r.CompileModule(ctx, fuelHookWasm)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := r.InstantiateModule(ctx, fc, wazero.NewModuleConfig().WithName("kobako:fuel"))
	if err != nil {
		t.Fatal(err)
	}
	s.fuel = fi.ExportedGlobal("remaining").(api.MutableGlobal)
	return s
}

// refill is the fuel hook. The fuel used so far is what was handed out minus the counter; it is
// fuel the call uses if it returns normally, so once it exceeds the budget the call is over.
// Otherwise the counter is brought back to at least zero and given one more slice.
func (s *sandbox) refill() {
	s.hookCalls++
	if s.onHook != nil {
		s.onHook()
	}
	c := int64(s.fuel.Get())
	if c >= 0 {
		// Only the check after a long bulk instruction calls the hook with fuel left; it must
		// leave the counter alone.
		s.bulkCalls++
		return
	}
	if s.handed-c > s.budget {
		panic(errFuelExhausted)
	}
	give := min(s.budget-s.handed, s.slice-c)
	s.handed += give
	s.fuel.Set(uint64(c + give))
}

// setFuel gives the next call n fuel: all of it, or in hook mode a first slice of it.
func (s *sandbox) setFuel(n int64) {
	if !s.hooked {
		s.fuel.Set(uint64(n))
		return
	}
	s.budget, s.hookCalls, s.bulkCalls = n, 0, 0
	s.handed = max(0, min(n, s.slice))
	s.fuel.Set(uint64(s.handed))
}

// remaining returns the fuel left of what setFuel gave, negative when more was used.
func (s *sandbox) remaining() int64 {
	if !s.hooked {
		return int64(s.fuel.Get())
	}
	return s.budget - (s.handed - int64(s.fuel.Get()))
}

// call runs fn with fuel and returns its results, the fuel it consumed and its error.
func (s *sandbox) call(m api.Module, fuel int64, fn string, args ...uint64) ([]uint64, int64, error) {
	s.t.Helper()
	f := m.ExportedFunction(fn)
	if f == nil {
		s.t.Fatalf("no export %q", fn)
	}
	s.setFuel(fuel)
	res, err := f.Call(s.ctx, args...)
	return res, fuel - s.remaining(), err
}

// instantiateNamed instantiates b under a name other modules can import from.
func (s *sandbox) instantiateNamed(b []byte, name string) api.Module {
	s.t.Helper()
	c, err := s.r.CompileModule(s.ctx, b)
	if err != nil {
		s.t.Fatalf("compile: %v", err)
	}
	m, err := s.r.InstantiateModule(s.ctx, c, wazero.NewModuleConfig().WithName(name))
	if err != nil {
		s.t.Fatalf("instantiate: %v", err)
	}
	return m
}

func (s *sandbox) instantiateT(t *rapid.T, b []byte) api.Module {
	c, err := s.r.CompileModule(s.ctx, b)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	m, err := s.r.InstantiateModule(s.ctx, c, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return m
}
