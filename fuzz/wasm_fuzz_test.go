package fuzz

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobako/kobako/internal/leb128"
	"github.com/kobako/kobako/internal/wasm"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// fuzzOpts instruments with trapping checks and with a fuel hook, which also renumbers functions.
var fuzzOpts = []wasm.InstrumentOptions{
	{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 10_000},
	{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted", MaxTableElements: 10_000},
	// The engine's options: a hook (so bulk instructions get their deadline checks) and direct
	// exports.
	{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted", MaxTableElements: 10_000, DirectPrefix: "kobako:direct/"},
}

// FuzzDecode feeds arbitrary bytes to the decoder. Decode must never panic and must fail with one
// of the package's sentinels; a module it accepts must instrument without panicking in both fuel
// modes, and the instrumented binary must decode again, with the fuel imports added and nothing
// else changed in shape, and be the same on every run.
func FuzzDecode(f *testing.F) {
	for _, pattern := range []string{"*.wasm", "features/*.wasm"} {
		files, _ := filepath.Glob(filepath.Join("..", "internal", "wasm", "testdata", pattern))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := wasm.Decode(b, wasm.Limits{})
		// Check (the prepared cache's guard) refuses exactly what Decode refuses, for the same reason.
		if cerr := wasm.Check(b, wasm.Limits{}); (cerr == nil) != (err == nil) || err != nil && cerr.Error() != err.Error() {
			t.Fatalf("Check says %v where Decode says %v", cerr, err)
		}
		if err != nil {
			if !errors.Is(err, wasm.ErrMalformed) && !errors.Is(err, wasm.ErrLimit) &&
				!errors.Is(err, wasm.ErrNotCoreModule) && !errors.Is(err, wasm.ErrUnsupportedFeature) {
				t.Fatalf("Decode error wraps no sentinel: %v", err)
			}
			return
		}
		_ = m.Features()
		_ = m.CheckEngineFeatures()
		for _, opts := range fuzzOpts {
			checkInstrument(t, m, b, opts)
		}
	})
}

func checkInstrument(t *testing.T, m *wasm.Module, b []byte, opts wasm.InstrumentOptions) {
	out, err := wasm.Instrument(m, opts)
	if err != nil {
		if !errors.Is(err, wasm.ErrUnsupportedFeature) && !errors.Is(err, wasm.ErrInstrument) && !errors.Is(err, wasm.ErrTableLimit) {
			t.Fatalf("Instrument error wraps no sentinel: %v", err)
		}
		return
	}
	m2, err := wasm.Decode(out, wasm.Limits{})
	if err != nil {
		t.Fatalf("instrumented module (hook %q) does not decode: %v", opts.FuelHook, err)
	}
	hooks := uint32(0)
	if opts.FuelHook != "" {
		hooks = 1
	}
	if m2.NumImportedGlobals != m.NumImportedGlobals+1 || m2.NumImportedFuncs != m.NumImportedFuncs+hooks ||
		len(m2.Globals) != len(m.Globals) || len(m2.Exports) != len(m.Exports)+len(m.EntryCharges) || len(m2.Code) < len(m.Code) {
		t.Fatalf("instrumented module (hook %q) changed shape", opts.FuelHook)
	}
	m3, err := wasm.Decode(b, wasm.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := wasm.Instrument(m3, opts)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("instrumentation (hook %q) is not deterministic (%v)", opts.FuelHook, err)
	}
	// What wazero accepts it must accept as the engine instruments it: the rewrite (charges,
	// checks, bulk checks with their scratch local, wrappers, names) must keep the module valid.
	// (Trap mode, used only by tests, copies malformed name subsections as they are.)
	if opts.FuelHook == "" {
		return
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(api.CoreFeaturesV2))
	defer r.Close(ctx)
	// The original goes to wazero without its custom sections: wazero allocates for a name
	// subsection's declared counts before it finds the bytes missing (3 GiB for one 16-byte
	// section, a campaign's find), and the rewrite's output must be accepted whenever the rest
	// of the module is, its name section being the rewrite's own (malformed subsections dropped).
	if orig, err := r.CompileModule(ctx, withoutCustomSections(b)); err == nil {
		orig.Close(ctx)
		if inst, err := r.CompileModule(ctx, out); err != nil {
			t.Fatalf("wazero accepts the module but not its instrumented form (hook %q): %v", opts.FuelHook, err)
		} else {
			inst.Close(ctx)
		}
	}
}

// withoutCustomSections returns b, a module that decodes, without its custom sections.
func withoutCustomSections(b []byte) []byte {
	out := append([]byte(nil), b[:8]...)
	for p := 8; p < len(b); {
		id := b[p]
		size, n, err := leb128.U32(b[p+1:])
		end := p + 1 + n + int(size)
		if err != nil || end > len(b) {
			return b
		}
		if id != 0 {
			out = append(out, b[p:end]...)
		}
		p = end
	}
	return out
}
