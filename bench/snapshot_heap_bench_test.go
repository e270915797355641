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
// (component.SnapshotOptions.Release, what zeroclaw/runner's Options.Snapshot sets). Run with
// -benchtime 1x: each iteration compiles the component in an engine of its own.
func BenchmarkSnapshotHeap(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct{ name, fixture string }{
		{"c", "memory.wasm"},
		{"go", "gotool.wasm"},
		{"js", "configecho.wasm"},
	} {
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

// compiledModules is the number of compiled modules e holds (not part of engine's API).
func compiledModules(e *engine.Engine) int {
	return enginehook.Get[*engine.Engine, *engine.Module, *engine.Instance, *engine.Store]().CompiledModules(e)
}
