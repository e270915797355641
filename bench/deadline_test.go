package bench

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"

	"github.com/kobako/kobako/engine"
)

// spinDeadline is the deadline BenchmarkDeadline gives each spinning call: long enough that the
// call is well under way when it passes, short enough for hundreds of samples per run.
const spinDeadline = 5 * time.Millisecond

// deadlineEngines are the engines that can stop a spinning guest; bare wazero and fuel-only cannot.
var deadlineEngines = []engineKind{kobako, unmetered, deadlineOnly, wazyEngine}

// spinFunc calls the spin fixture's export on a fresh instance (a stopped instance is spent) with
// the deadline d, and returns how long the call took once it stopped, and why it stopped.
type spinFunc func(ctx context.Context, d time.Duration) (time.Duration, error)

// newSpinner prepares the spin fixture under kind; close releases it.
func newSpinner(tb testing.TB, kind engineKind) (spin spinFunc, close func()) {
	tb.Helper()
	ctx := context.Background()
	if kind == wazyEngine {
		return newWazySpinner(tb)
	}
	wasmBytes := fixture(tb, "wat/spin")
	if kind == deadlineOnly {
		r, err := newRuntime(ctx, kind)
		if err != nil {
			tb.Fatal(err)
		}
		cm, err := r.CompileModule(ctx, wasmBytes)
		if err != nil {
			tb.Fatal(err)
		}
		return func(ctx context.Context, d time.Duration) (time.Duration, error) {
			mod, err := r.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				return 0, err
			}
			defer mod.Close(ctx)
			start := time.Now() // before the deadline is set, so that took >= d
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			_, err = mod.ExportedFunction("spin").Call(ctx)
			return time.Since(start), err
		}, func() { _ = r.Close(ctx) }
	}
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		tb.Fatal(err)
	}
	lim := kobakoLimits(kind)
	return func(ctx context.Context, d time.Duration) (time.Duration, error) {
		lim.Deadline = d
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			return 0, err
		}
		defer s.Close(ctx)
		in, err := s.Instantiate(ctx, m, nil)
		if err != nil {
			return 0, err
		}
		f, err := in.Function("spin")
		if err != nil {
			return 0, err
		}
		start := time.Now()
		err = f.CallStack(ctx, nil)
		return time.Since(start), err
	}, func() { _ = e.Close(ctx) }
}

// stoppedByDeadline reports whether err is the engine's deadline error.
func stoppedByDeadline(kind engineKind, err error) bool {
	switch kind {
	case wazyEngine:
		return wazyStoppedByDeadline(err)
	case deadlineOnly:
		var se *sys.ExitError // wazero closes the module with this exit code
		return errors.As(err, &se) && se.ExitCode() == sys.ExitCodeDeadlineExceeded
	}
	var t *engine.Trap
	return errors.As(err, &t) && t.Kind == engine.TrapDeadlineExceeded
}

// BenchmarkDeadline measures how late each engine stops a guest spinning in a call-free loop
// (`loop br`): every iteration is one call with a spinDeadline deadline on a fresh instance, and
// late-µs-p50 and late-µs-p99 are the median and 99th percentile of the time the call took beyond
// its deadline. cpu-ns/op is the whole iteration (the spin included).
func BenchmarkDeadline(b *testing.B) {
	for _, kind := range deadlineEngines {
		b.Run("engine="+string(kind), func(b *testing.B) {
			spin, done := newSpinner(b, kind)
			defer done()
			ctx := context.Background()
			var late []time.Duration
			for b.Loop() {
				took, err := spin(ctx, spinDeadline)
				if !stoppedByDeadline(kind, err) {
					b.Fatalf("spin on %s stopped with %v, want the deadline", kind, err)
				}
				late = append(late, max(took-spinDeadline, 0))
			}
			p50, p99 := percentiles(late)
			b.ReportMetric(float64(p50.Nanoseconds())/1e3, "late-µs-p50")
			b.ReportMetric(float64(p99.Nanoseconds())/1e3, "late-µs-p99")
		})
	}
}

// percentiles returns the median and the 99th percentile (nearest rank) of ds.
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p int) time.Duration { return s[min(len(s)-1, (len(s)*p+99)/100-1)] }
	return rank(50), rank(99)
}

// TestDeadline checks that every deadline engine stops the spinning guest with its deadline error,
// not sooner than the deadline, so that BenchmarkDeadline measures what it says.
func TestDeadline(t *testing.T) {
	for _, kind := range deadlineEngines {
		t.Run(string(kind), func(t *testing.T) {
			spin, done := newSpinner(t, kind)
			defer done()
			for range 3 {
				took, err := spin(context.Background(), spinDeadline)
				if !stoppedByDeadline(kind, err) {
					t.Fatalf("stopped with %v, want the deadline", err)
				}
				if took < spinDeadline {
					t.Fatalf("stopped after %v (%v), before its deadline of %v", took, err, spinDeadline)
				}
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	if p50, p99 := percentiles(ds); p50 != 50 || p99 != 99 {
		t.Fatalf("percentiles of 1..100 = %d, %d; want 50, 99", p50, p99)
	}
	if p50, p99 := percentiles([]time.Duration{7}); p50 != 7 || p99 != 7 {
		t.Fatalf("percentiles of [7] = %d, %d", p50, p99)
	}
}
