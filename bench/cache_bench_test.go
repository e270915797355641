package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// BenchmarkCompileCache: compiling a component in a fresh engine, as every CLI call does, per
// iteration: cache=none without Config.CacheDir; cache=cold with an empty cache directory (the
// module is prepared and its entry written); cache=warm with the directory a cold compile filled
// (the entries are read instead); and engine=bare, wazero's interpreter compiling the same core
// modules untouched, which is the floor of a warm compile (wazero's work, which no cache of
// kobako's can skip). proc-cpu-ns/op is the CPU time of the whole process (the GC's included).
func BenchmarkCompileCache(b *testing.B) {
	ctx := context.Background()
	for _, g := range compileGuests[:2] { // js and go: the C component has no module worth caching
		wasmBytes, err := os.ReadFile(g.path)
		if err != nil {
			b.Fatal(err)
		}
		warmDir := b.TempDir()
		for _, mode := range []string{"none", "cold", "warm", "bare"} {
			name := "guest=" + g.name + "/cache=" + mode
			if mode == "bare" {
				name = "guest=" + g.name + "/engine=bare"
			}
			b.Run(name, func(b *testing.B) {
				if mode == "warm" {
					compileCached(b, ctx, wasmBytes, warmDir, "")
				}
				var cpu time.Duration
				for b.Loop() {
					var dir string
					switch mode {
					case "cold":
						b.StopTimer()
						dir = b.TempDir()
						b.StartTimer()
					case "warm":
						dir = warmDir
					}
					t0, ok := processCPU()
					if mode == "bare" {
						compileBare(b, ctx, wasmBytes)
					} else {
						compileCached(b, ctx, wasmBytes, dir, mode)
					}
					if t1, _ := processCPU(); ok {
						cpu += t1 - t0
					}
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "proc-cpu-ns/op")
			})
		}
	}
}

// checkStats checks an engine's cache counters after a compile in mode ("" for the compile that
// fills the warm directory, which checks nothing: the framework may run a benchmark twice).
func checkStats(b *testing.B, mode string, got engine.CacheStats) {
	var ok bool
	switch mode {
	case "":
		ok = true
	case "none":
		ok = got.Prepared > 0 && got.Hits+got.Misses+got.Stored == 0
	case "cold":
		ok = got.Prepared > 0 && got.Misses > 0 && got.Stored > 0 && got.Hits == 0
	case "warm": // modules under the size worth caching are still prepared
		ok = got.Hits > 0 && got.Misses+got.Stored+got.Rejected == 0
	}
	if !ok {
		b.Fatalf("cache=%s: %+v", mode, got)
	}
}

// compileCached compiles wasmBytes as a component in a fresh engine on dir ("" for none) and
// checks the engine's cache counters (checkStats).
func compileCached(b *testing.B, ctx context.Context, wasmBytes []byte, dir, mode string) {
	e, err := engine.New(ctx, engine.Config{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	cc, err := component.Compile(ctx, e, wasmBytes)
	if err != nil {
		b.Fatal(err)
	}
	_ = cc.Close(ctx)
	checkStats(b, mode, e.CacheStats())
}

// compileBare compiles the core modules of wasmBytes with wazero's interpreter, untouched.
func compileBare(b *testing.B, ctx context.Context, wasmBytes []byte) {
	mods, err := coreModules(wasmBytes)
	if err != nil {
		b.Fatal(err)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	for _, m := range mods {
		if _, err := r.CompileModule(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}
