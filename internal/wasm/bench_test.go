package wasm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// BenchmarkFuelOverhead compares original and metered code under wazero's interpreter. Targets:
// metered fib at most 15% slower, the call-free loop at most 30% slower. The hooked variant
// (checks that call a fuel hook) must cost the same as the metered one while fuel remains.
func BenchmarkFuelOverhead(b *testing.B) {
	orig := readTestdata(b, "fib.wasm")
	metered := mustInstrument(b, orig)
	hooked, err := Instrument(mustDecode(b, orig), hookOpts)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name, fn string
		arg      uint64
	}{{"fib20", "fib", 20}, {"loop100k", "loop", 100_000}} {
		for _, v := range []struct {
			name string
			bin  []byte
		}{{"original", orig}, {"metered", metered}, {"hooked", hooked}} {
			b.Run(w.name+"/"+v.name, func(b *testing.B) {
				ctx := context.Background()
				r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCloseOnContextDone(true))
				defer r.Close(ctx)
				fuelModule := fuelModuleWasm
				if v.name == "hooked" {
					fuelModule = fuelHookWasm
					_, err := r.NewHostModuleBuilder("kobako:fuel-host").NewFunctionBuilder().
						WithFunc(func(context.Context) { panic("fuel exhausted") }).Export("exhausted").Instantiate(ctx)
					if err != nil {
						b.Fatal(err)
					}
				}
				fc, err := r.CompileModule(ctx, fuelModule)
				if err != nil {
					b.Fatal(err)
				}
				fi, err := r.InstantiateModule(ctx, fc, wazero.NewModuleConfig().WithName("kobako:fuel"))
				if err != nil {
					b.Fatal(err)
				}
				fuel := fi.ExportedGlobal("remaining").(api.MutableGlobal)
				m, err := r.Instantiate(ctx, v.bin)
				if err != nil {
					b.Fatal(err)
				}
				f := m.ExportedFunction(w.fn)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					fuel.Set(1 << 62)
					if _, err := f.Call(ctx, w.arg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	bin := readTestdata(b, "allops.wasm")
	b.SetBytes(int64(len(bin)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(bin, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstrument times Instrument alone, on a Module fresh from Decode each time (as
// engine.Compile calls it: Instrument uses what Decode recorded of each body, once).
func BenchmarkInstrument(b *testing.B) {
	bin := readTestdata(b, "allops.wasm")
	b.SetBytes(int64(len(bin)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := mustDecode(b, bin)
		b.StartTimer()
		if _, err := Instrument(m, testOpts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstrumentGo decodes and instruments a 2.6 MB Go module with the engine's options, as
// engine.Compile does before wazero compiles the result.
func BenchmarkInstrumentGo(b *testing.B) {
	bin, err := os.ReadFile(filepath.Join("..", "..", "bench", "testdata", "hello", "hello.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(bin)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := Decode(bin, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Instrument(m, InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted",
			MaxTableElements: 10_000, DirectPrefix: "kobako:direct:", EmptyModule: "kobako:empty"}); err != nil {
			b.Fatal(err)
		}
	}
}
