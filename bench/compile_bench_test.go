package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/component"
	cbinary "github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// compileGuests are the plugins of BenchmarkCompileMemory: real components as people ship them
// and the 2.5 MB Go core module of BenchmarkCompile.
var compileGuests = []struct{ name, path string }{
	{"js", "../component/testdata/real/js.wasm"},       // componentize-js, 11.5 MB
	{"go", "../component/testdata/real/goplugin.wasm"}, // Go through the preview 1 adapter
	{"c", "../component/testdata/hello.wasm"},          // C, wit-component
	{"go-module", "testdata/hello/hello.wasm"},         // a core module
}

// coreModules returns the core modules a component embeds (nested components included), or the
// module itself for a core module. It walks the binary's sections rather than decoding the
// component, so the bare baseline does none of kobako's work.
func coreModules(b []byte) ([][]byte, error) {
	if !cbinary.IsComponent(b) {
		return [][]byte{b}, nil
	}
	var out [][]byte
	var walk func(b []byte) error
	walk = func(b []byte) error {
		if len(b) < 8 {
			return fmt.Errorf("short component")
		}
		for p := 8; p < len(b); {
			id := b[p]
			size, n := binary.Uvarint(b[p+1:])
			if n <= 0 || uint64(len(b)-p-1-n) < size {
				return fmt.Errorf("bad section at %d", p)
			}
			body := b[p+1+n : p+1+n+int(size)]
			switch id {
			case 1: // core module
				out = append(out, body)
			case 4: // nested component
				if err := walk(body); err != nil {
					return err
				}
			}
			p += 1 + n + int(size)
		}
		return nil
	}
	return out, walk(b)
}

// compileMemoryFuncs compile a guest on a fresh engine and keep the result alive until release:
// bare compiles each core module with wazero's interpreter, kobako compiles the component (or
// module) through package component (or engine).
var compileMemoryFuncs = map[engineKind]compileFunc{
	bare: func(ctx context.Context, b []byte) (func(), error) {
		mods, err := coreModules(b)
		if err != nil {
			return nil, err
		}
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
		var keep []wazero.CompiledModule
		for _, m := range mods {
			cm, err := r.CompileModule(ctx, m)
			if err != nil {
				_ = r.Close(ctx)
				return nil, err
			}
			keep = append(keep, cm)
		}
		return func() { _ = keep; _ = r.Close(ctx) }, nil
	},
	kobako: func(ctx context.Context, b []byte) (func(), error) {
		e, err := engine.New(ctx, engine.Config{})
		if err != nil {
			return nil, err
		}
		var keep any
		if cbinary.IsComponent(b) {
			keep, err = component.Compile(ctx, e, b)
		} else {
			keep, err = e.Compile(ctx, b)
		}
		if err != nil {
			_ = e.Close(ctx)
			return nil, err
		}
		return func() { _ = keep; _ = e.Close(ctx) }, nil
	},
}

// BenchmarkCompileMemory compiles each guest on a fresh engine per iteration and reports, beside
// CPU time, retained-B/op: the Go heap the compiled result keeps alive after a full collection,
// measured once, with the input bytes given as a fresh copy that only the compiled result could
// keep. This is what an embedder pays to hold a compiled plugin.
func BenchmarkCompileMemory(b *testing.B) {
	ctx := context.Background()
	for _, g := range compileGuests {
		wasmBytes, err := os.ReadFile(g.path)
		if err != nil {
			b.Fatal(err)
		}
		for _, kind := range []engineKind{bare, kobako} {
			b.Run("guest="+g.name+"/engine="+string(kind), func(b *testing.B) {
				compile := compileMemoryFuncs[kind]
				input := bytes.Clone(wasmBytes)
				before := heapAfterGC()
				release, err := compile(ctx, input)
				if err != nil {
					b.Fatalf("compile %s on %s: %v", g.name, kind, err)
				}
				input = nil
				retained := int64(heapAfterGC()) - int64(before)
				release()

				b.ReportAllocs()
				cpu := newCPUMeter()
				defer cpu.report(b)
				b.ResetTimer()
				for b.Loop() {
					cpu.begin()
					release, err := compile(ctx, wasmBytes)
					cpu.end()
					if err != nil {
						b.Fatalf("compile %s on %s: %v", g.name, kind, err)
					}
					b.StopTimer()
					release()
					b.StartTimer()
				}
				b.ReportMetric(float64(retained), "retained-B/op")
			})
		}
	}
}
