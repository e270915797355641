package component_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/kobako/kobako/internal/race"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
)

// snapshotGo prepares the real Go component (Go's wasip1 runtime initialized by the preview 1
// reactor adapter at instantiation) with its module bytes kept, as a snapshot needs.
func snapshotGo(t testing.TB) (*engine.Engine, *component.InstancePre) {
	t.Helper()
	b, err := os.ReadFile("testdata/real/goplugin.wasm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := binary.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	e := testEngine(t)
	cc, err := component.CompileDecoded(context.Background(), e, c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		t.Fatal(err)
	}
	return e, pre
}

// deterministicStore binds WASI with a fake clock and seeded randomness, so that the Go runtime's
// initialization (which reads both) consumes the same fuel in every store.
func deterministicStore(t testing.TB, e *engine.Engine, lim engine.Limits) *engine.Store {
	t.Helper()
	s, err := e.NewStore(context.Background(), lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	cfg := preview2.Config{Args: []string{"plugin"}, Clock: wasi.NewFakeClock(time.Unix(0, 0), time.Millisecond), Random: rand.NewChaCha8([32]byte{1})}
	if _, err := preview2.Bind(s, cfg); err != nil {
		t.Fatal(err)
	}
	return s
}

func stdio(iface, name string) bool {
	return strings.HasPrefix(iface, "wasi:cli/std") && strings.HasPrefix(name, "get-std")
}

func TestSnapshotComponent_Errors(t *testing.T) {
	ctx := context.Background()
	e, pre := snapshotGo(t)
	for _, tc := range []struct {
		name     string
		opts     component.SnapshotOptions
		contains string
	}{
		{"no replay", component.SnapshotOptions{}, "initialization left 3 resource handles"},
		{"random is stateful", component.SnapshotOptions{Replay: stdio, Stateful: func(iface, _ string) bool { return strings.HasPrefix(iface, "wasi:random/") }}, "which is marked stateful"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pre.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), tc.opts)
			if !errors.Is(err, component.ErrSnapshot) || !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("got %v, want ErrSnapshot containing %q", err, tc.contains)
			}
		})
	}
	// Compile releases the module bytes a snapshot needs.
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	p2, err := l.Prepare(compileFixture(t, "testdata/real/goplugin.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), component.SnapshotOptions{Replay: stdio}); !errors.Is(err, component.ErrSnapshot) || !strings.Contains(err.Error(), "use CompileDecoded") {
		t.Fatalf("after Compile: %v", err)
	}
}

// TestSnapshotComponentDifferential runs random call sequences on a normal instance and on a
// snapshot instance of the Go component, both with deterministic WASI inputs, and compares every
// result and fuel count, instantiation included.
func TestSnapshotComponentDifferential(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("instantiates the Go component dozens of times")
	}
	ctx := context.Background()
	e, pre := snapshotGo(t)
	sn, err := pre.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), component.SnapshotOptions{Replay: stdio})
	if err != nil {
		t.Fatal(err)
	}
	if sn.Fuel() == 0 {
		t.Fatal("the Go component's initialization consumed no fuel")
	}
	inputs := []string{"hi", "", "fail now", "log this", "kobako 小箱 é", "quote\" \\ tab\t"}
	rapid.Check(t, func(rt *rapid.T) {
		lim := engine.DefaultLimits()
		if rapid.Bool().Draw(rt, "tight") {
			lim.Fuel = rapid.Uint64Range(sn.Fuel()-1000, sn.Fuel()+200_000).Draw(rt, "fuel")
		}
		ns := deterministicStore(t, e, lim)
		nin, errN := pre.Instantiate(ctx, ns)
		ss := deterministicStore(t, e, lim)
		sin, errS := sn.Instantiate(ctx, ss)
		if (errN == nil) != (errS == nil) {
			rt.Fatalf("instantiation: normal %v, snapshot %v", errN, errS)
		}
		if errN != nil {
			var tn, ts *engine.Trap
			if !errors.As(errN, &tn) || !errors.As(errS, &ts) || tn.Kind != engine.TrapFuelExhausted || ts.Kind != tn.Kind {
				rt.Fatalf("instantiation: normal %v, snapshot %v", errN, errS)
			}
			return
		}
		if ns.FuelConsumed() != ss.FuelConsumed() {
			rt.Fatalf("instantiation fuel: normal %d, snapshot %d", ns.FuelConsumed(), ss.FuelConsumed())
		}
		n := rapid.IntRange(1, 6).Draw(rt, "calls")
		for i := range n {
			var fn string
			var args []abi.Value
			if rapid.IntRange(0, 4).Draw(rt, "op") == 0 {
				fn = realTool + "name"
			} else {
				fn = realTool + "execute"
				in := rapid.OneOf(rapid.SampledFrom(inputs), rapid.String()).Draw(rt, "input")
				args = []abi.Value{abi.StringValue(in)}
			}
			a, errA := nin.Call(ctx, fn, args...)
			b, errB := sin.Call(ctx, fn, args...)
			if sa, sb := fmtValues(a, errA), fmtValues(b, errB); sa != sb || ns.FuelConsumed() != ss.FuelConsumed() {
				rt.Fatalf("call %d %s%v: normal %s fuel %d, snapshot %s fuel %d", i, fn, args, sa, ns.FuelConsumed(), sb, ss.FuelConsumed())
			}
		}
	})
}

func fmtValues(vs []abi.Value, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String())
		b.WriteByte(' ')
	}
	return b.String()
}

// Take a snapshot of a Go component after its instantiation (the Go runtime's initialization,
// run by the WASI preview 1 adapter) and call it from fresh instances that skip it.
func ExampleInstancePre_Snapshot() {
	ctx := context.Background()
	e, _ := engine.New(ctx, engine.Config{})
	defer e.Close(ctx)
	b, _ := os.ReadFile("testdata/real/goplugin.wasm")
	c, _ := binary.Decode(b)
	cc, _ := component.CompileDecoded(ctx, e, c) // keeps the module bytes a snapshot reads
	l, _ := preview2.Linker()
	pre, _ := l.Prepare(cc)
	newStore := func() *engine.Store {
		s, _ := e.NewStore(ctx, engine.DefaultLimits())
		_, _ = preview2.Bind(s, preview2.Config{})
		return s
	}
	capture := newStore()
	sn, err := pre.Snapshot(ctx, capture, component.SnapshotOptions{
		// The adapter takes the stdio streams when it starts: recreate them per instance.
		Replay: func(iface, name string) bool {
			return strings.HasPrefix(iface, "wasi:cli/std") && strings.HasPrefix(name, "get-std")
		},
	})
	capture.Close(ctx)
	if err != nil {
		panic(err)
	}
	for _, arg := range []string{"hi", "snapshot"} {
		s := newStore()
		in, err := sn.Instantiate(ctx, s)
		if err != nil {
			panic(err)
		}
		res, err := in.Call(ctx, "test:plugin/tool#execute", abi.StringValue(arg))
		if err != nil {
			panic(err)
		}
		fmt.Println(res[0])
		s.Close(ctx)
	}
	// Output:
	// ok("HI")
	// ok("SNAPSHOT")
}
