package bench

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
)

// enginePairs are the engines BenchmarkPaired compares: the second against the first. kobako
// against fuel-only is what the refuel hook (a host call every 10,000 fuel, with the deadline
// check) and the engine's per-call work add to the same metered code. The wazy pairs are issue
// 24's comparison with wazy v0.8.0's interpreter: wazy against bare wazero, and kobako metered and
// unmetered against wazy.
var enginePairs = [][2]engineKind{{bare, kobako}, {bare, unmetered}, {fuelOnly, kobako},
	{bare, wazyEngine}, {wazyEngine, kobako}, {wazyEngine, unmetered}}

// BenchmarkPaired measures engine ratios (kobako/bare, unmetered/bare, kobako/fuel-only, and
// wazy/bare, kobako/wazy, unmetered/wazy) on the workloads on a machine too loaded for
// side-by-side medians to resolve a few percent: every iteration calls the workload once on each
// engine of the pair, back to back on one locked thread (in alternating order), and reports the
// median of the per-pair ratios of thread CPU time as ratio-p50 (and the quartiles as ratio-p25
// and ratio-p75). Load that comes and goes changes both calls of a pair alike, so it cancels in
// the ratio rather than spreading the medians.
func BenchmarkPaired(b *testing.B) {
	for _, w := range []workload{
		fibWorkload("go", "reactor/reactor", fibGoN),
		fibWorkload("wat", "wat/fib", fibWatN),
		loopWorkload("go", "reactor/reactor", loopN),
		loopWorkload("wat", "wat/loop", loopN),
		sha256Workload(sha256Size),
		jsonWorkload(jsonN),
	} {
		for _, pair := range enginePairs {
			b.Run(w.export+"/guest="+w.guest+"/pair="+string(pair[1])+"-vs-"+string(pair[0]), func(b *testing.B) {
				ctx := context.Background()
				calls := make([]callFunc, 2)
				guests := make([]*guest, 2)
				for i, k := range pair {
					guests[i] = warmGuest(b, k, w.fixture)
					f, err := guests[i].fn(w.export)
					if err != nil {
						b.Fatal(err)
					}
					calls[i] = f
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if _, ok := threadCPU(); !ok {
					b.Skip("no thread CPU clock here")
				}
				var ratios []float64
				n := 0
				for b.Loop() {
					var took [2]time.Duration
					for j := range 2 {
						i := (j + n) % 2 // alternate which engine goes first
						start, _ := threadCPU()
						res, err := calls[i](ctx, w.arg)
						end, _ := threadCPU()
						if err != nil {
							b.Fatalf("%s on %s: %v", w.export, guests[i].kind, err)
						}
						if err := w.check(guests[i], res); err != nil {
							b.Fatal(err)
						}
						took[i] = end - start
					}
					n++
					ratios = append(ratios, float64(took[1])/float64(took[0]))
				}
				slices.Sort(ratios)
				q := func(p int) float64 { return ratios[min(len(ratios)-1, len(ratios)*p/100)] }
				b.ReportMetric(q(50), "ratio-p50")
				b.ReportMetric(q(25), "ratio-p25")
				b.ReportMetric(q(75), "ratio-p75")
			})
		}
	}
}
