package bench

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/enginehook"
)

// BenchmarkSnapshotHeap: the Go heap a compiled, prepared component keeps after a collection,
// without a snapshot and with one (instantiated once either way, as a plugin's first call
// would), per fixture: the compiled code is most of it. via=snapshot keeps the component's own
// modules beside the restored ones; via=snapshot-release gives them back
// (component.SnapshotOptions.Release, what zeroclaw/runner's Options.Snapshot sets); via=wazy is
// the same component compiled on wazy v0.8.0's interpreter (wazyHeap). Run with -benchtime 1x:
// each iteration compiles the component in an engine of its own.
func BenchmarkSnapshotHeap(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct{ name, fixture string }{
		{"c", "memory.wasm"},
		{"go", "gotool.wasm"},
		{"js", "configecho.wasm"},
	} {
		b.Run("tool="+tc.name+"/via=wazy", func(b *testing.B) { wazyHeap(b, tc.fixture) })
		for _, via := range []string{"compiled", "snapshot", "snapshot-release"} {
			b.Run("tool="+tc.name+"/via="+via, func(b *testing.B) {
				var heap, modules float64
				for b.Loop() {
					e := benchEngine(b)
					base := heapAfterGC()
					pre := zcPrepare(b, compileDecodedComponent(b, e, filepath.Join(zcFixtures, tc.fixture)))
					var keep any = pre
					s := zcStore(b, ctx, e)
					if via == "compiled" {
						if _, err := pre.Instantiate(ctx, s); err != nil {
							b.Fatal(err)
						}
					} else {
						sn, err := pre.Snapshot(ctx, s, component.SnapshotOptions{Release: via == "snapshot-release",
							Replay: func(iface, name string) bool {
								return strings.HasPrefix(iface, "wasi:cli/std") && strings.HasPrefix(name, "get-std")
							}})
						if err != nil {
							b.Fatal(err)
						}
						_ = s.Close(ctx)
						s = zcStore(b, ctx, e)
						if _, err := sn.Instantiate(ctx, s); err != nil {
							b.Fatal(err)
						}
						keep = sn
					}
					_ = s.Close(ctx)
					heap += float64(int64(heapAfterGC())-int64(base)) / (1 << 20)
					modules += float64(compiledModules(e))
					runtime.KeepAlive(keep)
					runtime.KeepAlive(pre)
					_ = pre.Component().Close(ctx)
					_ = e.Close(ctx)
				}
				b.ReportMetric(heap/float64(b.N), "heap-MiB")
				b.ReportMetric(modules/float64(b.N), "modules")
			})
		}
	}
}

// wazyHeap is via=compiled on wazy v0.8.0's interpreter (issue 24's comparison): the Go heap
// kept by one interpreter runtime holding the component's core modules compiled (in the
// CompileCache wazy compiles a component into, the first instantiation filling it), after that
// instance is closed. wazy has no snapshot. modules is the number of core modules that
// instantiation ran.
func wazyHeap(b *testing.B, fixture string) {
	ctx := context.Background()
	var heap, modules float64
	for b.Loop() {
		base := heapAfterGC()
		tool, err := newWazyTool(ctx, fixture)
		if err != nil {
			b.Fatal(err)
		}
		in, err := tool.instantiate(ctx)
		if err != nil {
			b.Fatal(err)
		}
		modules += float64(in.CoreModuleCount())
		_ = in.Close(ctx)
		heap += float64(int64(heapAfterGC())-int64(base)) / (1 << 20)
		runtime.KeepAlive(tool)
		tool.close(ctx)
	}
	b.ReportMetric(heap/float64(b.N), "heap-MiB")
	b.ReportMetric(modules/float64(b.N), "modules")
}

// compiledModules is the number of compiled modules e holds (not part of engine's API).
func compiledModules(e *engine.Engine) int {
	return enginehook.Get[*engine.Engine, *engine.Module, *engine.Instance, *engine.Store]().CompiledModules(e)
}
