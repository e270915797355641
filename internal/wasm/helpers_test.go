package wasm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// fuelModuleWasm is (module (global (export "remaining") (mut i64) (i64.const 0))).
var fuelModuleWasm = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x06, 0x06, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b,
	0x07, 0x0d, 0x01, 0x09, 'r', 'e', 'm', 'a', 'i', 'n', 'i', 'n', 'g', 0x03, 0x00,
}

var testOpts = InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 10_000}

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

func (s *sandbox) setFuel(n int64) { s.fuel.Set(uint64(n)) }
func (s *sandbox) remaining() int64 { return int64(s.fuel.Get()) }

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
