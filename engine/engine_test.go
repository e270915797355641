package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newEngine(t testing.TB, cfg engine.Config) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// instantiate compiles a fixture and instantiates it in a fresh store with the given limits.
func instantiate(t testing.TB, e *engine.Engine, name string, lim engine.Limits, imports engine.Imports) (*engine.Store, *engine.Instance) {
	t.Helper()
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	in, err := s.Instantiate(ctx, m, imports)
	if err != nil {
		t.Fatal(err)
	}
	return s, in
}

func trapKind(t *testing.T, err error) engine.TrapKind {
	t.Helper()
	var trap *engine.Trap
	if !errors.As(err, &trap) {
		t.Fatalf("want *engine.Trap, got %T: %v", err, err)
	}
	return trap.Kind
}

func TestTraps(t *testing.T) {
	e := newEngine(t, engine.Config{})
	tests := []struct {
		export string
		kind   engine.TrapKind
		err    error
	}{
		{"unreachable", engine.TrapUnreachable, engine.ErrUnreachable},
		{"div_zero", engine.TrapDivideByZero, engine.ErrDivideByZero},
		{"overflow", engine.TrapIntegerOverflow, engine.ErrIntegerOverflow},
		{"conversion", engine.TrapInvalidConversion, engine.ErrInvalidConversion},
		{"oob", engine.TrapMemoryOutOfBounds, engine.ErrMemoryOutOfBounds},
		{"indirect_mismatch", engine.TrapIndirectCallMismatch, engine.ErrIndirectCallMismatch},
		{"table_oob", engine.TrapTableOutOfBounds, engine.ErrTableOutOfBounds},
		{"recurse", engine.TrapStackOverflow, engine.ErrStackOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			s, in := instantiate(t, e, "traps", engine.DefaultLimits(), nil)
			_, err := in.Call(context.Background(), tt.export)
			if got := trapKind(t, err); got != tt.kind {
				t.Fatalf("kind = %v, want %v (%v)", got, tt.kind, err)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.err)
			}
			var trap *engine.Trap
			errors.As(err, &trap)
			if trap.Function == "" {
				t.Errorf("trap %v names no function", err)
			}
			// A trapped store is discarded.
			if _, err := in.Call(context.Background(), "unreachable"); !errors.Is(err, engine.ErrInstanceUnavailable) {
				t.Errorf("call after trap: %v, want ErrInstanceUnavailable", err)
			}
			_ = s
		})
	}
}

func TestFuelStopsCallFreeLoop(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.Fuel = 1_000_000
	s, in := instantiate(t, e, "spin", lim, nil)
	_, err := in.Call(context.Background(), "spin")
	if got := trapKind(t, err); got != engine.TrapFuelExhausted {
		t.Fatalf("kind = %v, want fuel exhausted: %v", got, err)
	}
	if !errors.Is(err, engine.ErrFuelExhausted) || errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("fuel trap must be distinguishable from unreachable: %v", err)
	}
	if s.Fuel() >= 0 {
		t.Errorf("remaining fuel %d after exhaustion, want < 0", s.Fuel())
	}
	var trap *engine.Trap
	if errors.As(err, &trap); trap.Function == "" || strings.Contains(trap.Function, "refuel") {
		t.Errorf("trap names %q, want the guest function that ran out, not the engine's hook", trap.Function)
	}
}

func TestDeadlineStopsCallFreeLoop(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.Fuel = engine.MaxFuel
	lim.Deadline = 50 * time.Millisecond
	_, in := instantiate(t, e, "spin", lim, nil)
	_, err := in.Call(context.Background(), "spin")
	if got := trapKind(t, err); got != engine.TrapDeadlineExceeded {
		t.Fatalf("kind = %v, want deadline exceeded: %v", got, err)
	}
	// An interrupted instance is discarded, never reused.
	if _, err := in.Call(context.Background(), "spin"); !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Fatalf("call after deadline: %v", err)
	}
}

// Bulk instructions cost 1 fuel whatever their length, so a loop of long ones would reach the
// refuel hook's deadline check only every slice of fuel; the check after each long one stops it
// at the deadline.
func TestDeadlineStopsBulkLoop(t *testing.T) {
	e := newEngine(t, engine.Config{})
	for _, fn := range []string{"fill", "copy", "tablefill"} {
		t.Run(fn, func(t *testing.T) {
			lim := engine.DefaultLimits()
			lim.Fuel = engine.MaxFuel
			lim.Deadline = 50 * time.Millisecond
			_, in := instantiate(t, e, "bulkspin", lim, nil)
			_, err := in.Call(context.Background(), fn)
			if got := trapKind(t, err); got != engine.TrapDeadlineExceeded {
				t.Fatalf("kind = %v, want deadline exceeded: %v", got, err)
			}
		})
	}
	// The checks cost no fuel: 1,000 rounds of a short fill cost what their instructions do.
	_, in := instantiate(t, e, "bulkspin", engine.DefaultLimits(), nil)
	if _, err := in.Call(context.Background(), "short", 1000); err != nil {
		t.Fatal(err)
	}
	// Per round: 3 consts, memory.fill, local.get, const, sub, local.tee, br_if = 9; loop and end
	// are free.
	if got := in.Store().FuelConsumed(); got != 9*1000 {
		t.Fatalf("fuel %d, want %d", got, 9*1000)
	}
}

func TestCancelStopsCallFreeLoop(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.Fuel = engine.MaxFuel
	_, in := instantiate(t, e, "spin", lim, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := in.Call(ctx, "spin")
	if got := trapKind(t, err); got != engine.TrapCanceled {
		t.Fatalf("kind = %v, want canceled: %v", got, err)
	}
}

func TestStartFunctionIsMetered(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "start_spin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		lim  func(*engine.Limits)
		kind engine.TrapKind
	}{
		{"fuel", func(l *engine.Limits) { l.Fuel = 10_000 }, engine.TrapFuelExhausted},
		{"deadline", func(l *engine.Limits) { l.Fuel = engine.MaxFuel; l.Deadline = 30 * time.Millisecond }, engine.TrapDeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := engine.DefaultLimits()
			tc.lim(&lim)
			s, err := e.NewStore(ctx, lim)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(ctx)
			_, err = s.Instantiate(ctx, m, nil)
			if got := trapKind(t, err); got != tc.kind {
				t.Fatalf("kind = %v, want %v: %v", got, tc.kind, err)
			}
		})
	}
}

// fibCost is the fuel recursive fib(n) uses under wasmtime's costs: 5 per leaf call (n < 2) and 13
// per inner call (see testdata/fib.wat).
func fibCost(n int) uint64 {
	f := []uint64{0, 1}
	for i := 2; i <= n+1; i++ {
		f = append(f, f[i-1]+f[i-2])
	}
	leaves := f[n+1]
	return 5*leaves + 13*(leaves-1)
}

// TestFuelExact asserts exact instruction counts. The same numbers must come out on every platform
// (CI runs this test under qemu for arm64, riscv64 and armv6, under node for js/wasm, and under
// kobako itself for wasip1).
func TestFuelExact(t *testing.T) {
	e := newEngine(t, engine.Config{})
	tests := []struct {
		export string
		arg    uint64
		want   uint64
		result uint64
	}{
		{"sumsq", 0, 5, 0},
		{"sumsq", 1, 21, 0},
		{"sumsq", 1000, 16*1000 + 5, 332833500},
		{"fib", 0, 5, 0},
		{"fib", 1, 5, 1},
		{"fib", 2, fibCost(2), 1},
		{"fib", 20, fibCost(20), 6765},
	}
	for _, tt := range tests {
		s, in := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
		res, err := in.Call(context.Background(), tt.export, tt.arg)
		if err != nil {
			t.Fatalf("%s(%d): %v", tt.export, tt.arg, err)
		}
		if res[0] != tt.result {
			t.Errorf("%s(%d) = %d, want %d", tt.export, tt.arg, res[0], tt.result)
		}
		if got := s.FuelConsumed(); got != tt.want {
			t.Errorf("%s(%d) used %d fuel, want %d", tt.export, tt.arg, got, tt.want)
		}
	}
	// The fixed workload, spelled out: this number is what every platform must agree on.
	if fibCost(20) != 197015 {
		t.Fatalf("fibCost(20) = %d", fibCost(20))
	}
}

// TestFuelBoundary: a call succeeds exactly when its cost fits in the fuel it was given.
func TestFuelBoundary(t *testing.T) {
	e := newEngine(t, engine.Config{})
	cost := uint64(16*100 + 5)
	for _, fuel := range []uint64{cost - 1, cost, cost + 1} {
		lim := engine.DefaultLimits()
		lim.Fuel = fuel
		_, in := instantiate(t, e, "fib", lim, nil)
		_, err := in.Call(context.Background(), "sumsq", 100)
		if fuel < cost {
			if got := trapKind(t, err); got != engine.TrapFuelExhausted {
				t.Errorf("fuel %d: kind %v, want fuel exhausted", fuel, got)
			}
		} else if err != nil {
			t.Errorf("fuel %d: %v", fuel, err)
		}
	}
}

func TestRefuelBeforeEachCall(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.Fuel = 20_000
	s, in := instantiate(t, e, "fib", lim, nil)
	for i := 0; i < 5; i++ { // each call alone fits; together they would not
		if _, err := in.Call(context.Background(), "sumsq", 1000); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := s.FuelConsumed(); got != 16005 {
			t.Fatalf("call %d used %d", i, got)
		}
	}
}

type recorder struct {
	mu    sync.Mutex
	calls map[string]uint64
	funcs map[string]uint64
}

func (r *recorder) CallDone(export string, consumed uint64, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[export] += consumed
}

func (r *recorder) FunctionDone(fn string, consumed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.funcs[fn] += consumed
}

func TestFuelListener(t *testing.T) {
	for _, profile := range []bool{false, true} {
		e := newEngine(t, engine.Config{ProfileFunctions: profile})
		s, in := instantiate(t, e, "fib", engine.DefaultLimits(), nil)
		r := &recorder{calls: map[string]uint64{}, funcs: map[string]uint64{}}
		ctx := engine.WithFuelListener(context.Background(), r)
		if _, err := in.Call(ctx, "sumsq", 10); err != nil {
			t.Fatal(err)
		}
		// Listening must not change the count.
		if got := s.FuelConsumed(); got != 165 {
			t.Errorf("profile=%v: consumed %d, want 165", profile, got)
		}
		if r.calls["sumsq"] != 165 {
			t.Errorf("profile=%v: CallDone saw %v", profile, r.calls)
		}
		if profile {
			if len(r.funcs) == 0 {
				t.Errorf("no per-function report")
			}
			for fn, n := range r.funcs {
				if n != 165 {
					t.Errorf("function %s: %d, want 165", fn, n)
				}
			}
		} else if len(r.funcs) != 0 {
			t.Errorf("per-function reports without ProfileFunctions: %v", r.funcs)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	e := newEngine(t, engine.Config{})
	lim := engine.DefaultLimits()
	lim.MemoryBytes = 2 * 65536
	s, in := instantiate(t, e, "traps", lim, nil)
	ctx := context.Background()
	for _, tc := range []struct{ delta, want uint64 }{{1, 1}, {1, 0xffffffff}, {0, 2}} {
		res, err := in.Call(ctx, "grow", tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if res[0] != tc.want {
			t.Errorf("memory.grow(%d) = %d, want %d", tc.delta, int32(res[0]), int32(tc.want))
		}
	}
	if s.PeakMemory() != 2*65536 {
		t.Errorf("peak memory %d", s.PeakMemory())
	}

	// A declared minimum over the limit fails at instantiation with a limit trap.
	m, err := e.Compile(ctx, fixture(t, "bigmem"))
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s2.Close(ctx)
	_, err = s2.Instantiate(ctx, m, nil)
	if got := trapKind(t, err); got != engine.TrapMemoryLimit {
		t.Fatalf("kind %v: %v", got, err)
	}
}

func TestTableLimit(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	lim := engine.DefaultLimits()
	lim.TableElements = 1000
	_, in := instantiate(t, e, "tables", lim, nil)
	for _, tc := range []struct {
		fn          string
		delta, want uint64
	}{
		{"grow_unbounded", 998, 1},
		{"grow_unbounded", 2, 0xffffffff}, // would reach 1001 > 1000
		{"grow_unbounded", 1, 999},
		{"grow_bounded", 9, 1},
		{"grow_bounded", 1, 0xffffffff}, // declared max 10 still holds
	} {
		res, err := in.Call(ctx, tc.fn, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(res[0]) != uint32(tc.want) {
			t.Errorf("%s(%d) = %d, want %d", tc.fn, tc.delta, int32(res[0]), int32(tc.want))
		}
	}
	// A table whose minimum is over the store's limit: the module compiles (another store may
	// allow it), and instantiating it in this store is the trap.
	big, err := e.Compile(ctx, fixture(t, "bigtable"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)
	_, err = s.Instantiate(ctx, big, nil)
	if got := trapKind(t, err); got != engine.TrapTableLimit {
		t.Fatalf("kind %v: %v", got, err)
	}
	lim.TableElements = 300_000
	s2, _ := e.NewStore(ctx, lim)
	defer s2.Close(ctx)
	if _, err := s2.Instantiate(ctx, big, nil); err != nil {
		t.Fatalf("instantiate in a store allowing 300,000 elements: %v", err)
	}
}

// TestTableLimitVariants instantiates one compiled module in stores of different table limits:
// each store's limit holds, whatever limit was compiled first.
func TestTableLimitVariants(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "tables"))
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []uint32{1000, 100_000, 1 << 20, 1000} {
		lim := engine.DefaultLimits()
		lim.TableElements = limit
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.Instantiate(ctx, m, nil)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		// The table starts with 1 element: growing to the limit succeeds, one more fails.
		for _, tc := range []struct{ delta, want uint64 }{{uint64(limit) - 1, 1}, {1, 0xffffffff}} {
			res, err := in.Call(ctx, "grow_unbounded", tc.delta)
			if err != nil || uint32(res[0]) != uint32(tc.want) {
				t.Fatalf("limit %d: grow_unbounded(%d) = %v, %v; want %d", limit, tc.delta, res, err, int32(tc.want))
			}
		}
		_ = s.Close(ctx)
	}
}

func TestInstanceLimit(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	lim := engine.DefaultLimits()
	lim.Instances = 2
	m, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewStore(ctx, lim)
	defer s.Close(ctx)
	for i := 0; i < 2; i++ {
		if _, err := s.Instantiate(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = s.Instantiate(ctx, m, nil)
	if got := trapKind(t, err); got != engine.TrapInstanceLimit {
		t.Fatalf("kind %v: %v", got, err)
	}
}

func TestLimitsValidate_Errors(t *testing.T) {
	for name, mut := range map[string]func(*engine.Limits){
		"fuel":      func(l *engine.Limits) { l.Fuel = engine.MaxFuel + 1 },
		"deadline":  func(l *engine.Limits) { l.Deadline = -time.Second },
		"memory4g":  func(l *engine.Limits) { l.MemoryBytes = 1<<32 + 1 },
		"instances": func(l *engine.Limits) { l.Instances = -1 },
	} {
		l := engine.DefaultLimits()
		mut(&l)
		if l.Validate() == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := newEngine(t, engine.Config{}).NewStore(context.Background(), l); err == nil {
			t.Errorf("%s: NewStore accepted %+v", name, l)
		}
	}
}

// TestLimits_ZeroMeansDefault checks that each zero field takes its DefaultLimits value, in
// Validate and in the store NewStore makes, and that set fields are kept.
func TestLimits_ZeroMeansDefault(t *testing.T) {
	d := engine.DefaultLimits()
	tests := []struct {
		name       string
		give, want engine.Limits
	}{
		{"all zero", engine.Limits{}, d},
		{"fuel only", engine.Limits{Fuel: 7}, engine.Limits{Fuel: 7, Deadline: d.Deadline, MemoryBytes: d.MemoryBytes, TableElements: d.TableElements, Instances: d.Instances}},
		{"deadline only", engine.Limits{Deadline: time.Minute}, engine.Limits{Fuel: d.Fuel, Deadline: time.Minute, MemoryBytes: d.MemoryBytes, TableElements: d.TableElements, Instances: d.Instances}},
		{"memory only", engine.Limits{MemoryBytes: 1 << 20}, engine.Limits{Fuel: d.Fuel, Deadline: d.Deadline, MemoryBytes: 1 << 20, TableElements: d.TableElements, Instances: d.Instances}},
		{"table only", engine.Limits{TableElements: 9}, engine.Limits{Fuel: d.Fuel, Deadline: d.Deadline, MemoryBytes: d.MemoryBytes, TableElements: 9, Instances: d.Instances}},
		{"instances only", engine.Limits{Instances: 2}, engine.Limits{Fuel: d.Fuel, Deadline: d.Deadline, MemoryBytes: d.MemoryBytes, TableElements: d.TableElements, Instances: 2}},
		{"all set", engine.Limits{Fuel: 1, Deadline: 1, MemoryBytes: 1, TableElements: 1, Instances: 1}, engine.Limits{Fuel: 1, Deadline: 1, MemoryBytes: 1, TableElements: 1, Instances: 1}},
	}
	e := newEngine(t, engine.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.give.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			s, err := e.NewStore(context.Background(), tt.give)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			if got := s.Limits(); got != tt.want {
				t.Errorf("store limits = %+v, want %+v", got, tt.want)
			}
			if got := s.Fuel(); got != int64(tt.want.Fuel) {
				t.Errorf("store fuel = %d, want %d", got, tt.want.Fuel)
			}
		})
	}
}

var errHostFailed = errors.New("the host said no")

var hostModule = &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
	{Name: "block", Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
		<-ctx.Done() // a well-behaved blocking host call: it honours ctx
	}},
	{Name: "fail", Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
		panic(errHostFailed)
	}},
	{Name: "exit", Params: []engine.ValueType{engine.I32}, Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
		c.Exit(ctx, uint32(stack[0]))
	}},
}}

func TestHostFunctions(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	imports := engine.Imports{"host": hostModule}

	lim := engine.DefaultLimits()
	lim.Deadline = 30 * time.Millisecond
	_, in := instantiate(t, e, "hostcall", lim, imports)
	_, err := in.Call(ctx, "block")
	if got := trapKind(t, err); got != engine.TrapDeadlineExceeded {
		t.Errorf("blocked host call: kind %v: %v", got, err)
	}

	_, in = instantiate(t, e, "hostcall", engine.DefaultLimits(), imports)
	_, err = in.Call(ctx, "fail")
	if got := trapKind(t, err); got != engine.TrapHost || !errors.Is(err, errHostFailed) {
		t.Errorf("failing host call: kind %v: %v", got, err)
	}

	_, in = instantiate(t, e, "hostcall", engine.DefaultLimits(), imports)
	_, err = in.Call(ctx, "exit", 3)
	var exit *engine.ExitError
	if !errors.As(err, &exit) || exit.Code != 3 {
		t.Errorf("exit: %v", err)
	}

	// Missing imports are a link error naming the module.
	m, _ := e.Compile(ctx, fixture(t, "hostcall"))
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)
	if _, err := s.Instantiate(ctx, m, nil); !errors.Is(err, engine.ErrLink) {
		t.Errorf("missing import: %v", err)
	}
}

// TestReentryIsBounded: guest → host → guest without end must be a trap, not a Go stack overflow
// that kills the process.
func TestReentryIsBounded(t *testing.T) {
	e := newEngine(t, engine.Config{MaxReentry: 50})
	depth := 0
	host := &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{{Name: "callback",
		Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
			depth++
			if _, err := c.Instance().Call(ctx, "enter"); err != nil {
				panic(err)
			}
		}}}}
	_, in := instantiate(t, e, "reenter", engine.DefaultLimits(), engine.Imports{"host": host})
	_, err := in.Call(context.Background(), "enter")
	if got := trapKind(t, err); got != engine.TrapStackOverflow {
		t.Fatalf("kind %v: %v", got, err)
	}
	if depth != 50 { // the top-level call and 49 nested ones ran; the 50th nested call was refused
		t.Errorf("host re-entered %d times, want 50", depth)
	}
}

func TestHostileModules_Errors(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	// 10 million i32 locals in a 30-byte module: wazero would allocate gigabytes compiling it.
	manyLocals := []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: func () -> ()
		0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
		0x0a, 0x09, 0x01, 0x07, 0x01, 0x80, 0xad, 0xe2, 0x04, 0x7f, 0x0b, // code: 1 body, 1 local decl: 10,000,000 x i32
	}
	tests := map[string][]byte{
		"many locals":     manyLocals,
		"empty":           {},
		"bad magic":       []byte("\x00asn\x01\x00\x00\x00"),
		"component":       {0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00},
		"truncated":       manyLocals[:20],
		"huge count":      {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"fuel import":     fixture(t, "fuel_import"),
		"threads feature": fixture(t, "shared_memory"),
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := e.Compile(ctx, b)
			if !errors.Is(err, engine.ErrInvalidModule) {
				t.Fatalf("err = %v, want ErrInvalidModule", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestCompileCache(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	b := fixture(t, "fib")
	var wg sync.WaitGroup
	mods := make([]*engine.Module, 16)
	for i := range mods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := e.Compile(ctx, b)
			if err != nil {
				t.Error(err)
				return
			}
			mods[i] = m
			s, err := e.NewStore(ctx, engine.DefaultLimits())
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close(ctx)
			in, err := s.Instantiate(ctx, m, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if res, err := in.Call(ctx, "fib", 15); err != nil || res[0] != 610 {
				t.Errorf("fib(15) = %v, %v", res, err)
			}
		}()
	}
	wg.Wait()
	for _, m := range mods[1:] {
		if m != mods[0] {
			t.Fatal("same bytes compiled twice")
		}
	}
}

func TestModuleClose(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m1, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)
	in, err := s.Instantiate(ctx, m1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Live instances keep working; compiling again gives a fresh module.
	if res, err := in.Call(ctx, "fib", 10); err != nil || res[0] != 55 {
		t.Fatalf("fib(10) after Close = %v, %v", res, err)
	}
	m2, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	if m2 == m1 {
		t.Fatal("closed module still cached")
	}
}

func TestLink_Errors(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "hostcall"))
	if err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, *engine.Caller, []uint64) {}
	tests := map[string]struct {
		imports engine.Imports
		want    string
	}{
		"missing module": {nil, `nothing provides import module "host"`},
		"missing function": {engine.Imports{"host": &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
			{Name: "block", Fn: noop}, {Name: "fail", Fn: noop}}}}, `"host" provides no func`},
		"wrong signature": {engine.Imports{"host": &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
			{Name: "block", Fn: noop}, {Name: "fail", Fn: noop}, {Name: "exit", Params: []engine.ValueType{engine.I64}, Fn: noop}}}},
			"expected func (i32) -> (), found func (i64) -> ()"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := e.NewStore(ctx, engine.DefaultLimits())
			defer s.Close(ctx)
			_, err := s.Instantiate(ctx, m, tt.imports)
			if !errors.Is(err, engine.ErrLink) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrLink with %q", err, tt.want)
			}
			var trap *engine.Trap
			if errors.As(err, &trap) {
				t.Fatalf("link error reported as a trap: %v", err)
			}
		})
	}
}

func TestStoreOnClose(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	var order []int
	s.OnClose(func() { order = append(order, 1) })
	s.OnClose(func() { order = append(order, 2) })
	s.Close(ctx)
	s.Close(ctx)
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Fatalf("OnClose ran %v, want [2 1] once", order)
	}
}

// TestFuelSharedAcrossInstances: the core instances of one store (a component has several) draw
// on one budget, even when they call each other directly.
func TestFuelSharedAcrossInstances(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	lib, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	app, err := e.Compile(ctx, fixture(t, "callfib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fuel := range []uint64{2 + fibCost(15), 1 + fibCost(15)} {
		lim := engine.DefaultLimits()
		lim.Fuel = fuel
		s, _ := e.NewStore(ctx, lim)
		libInst, err := s.Instantiate(ctx, lib, nil)
		if err != nil {
			t.Fatal(err)
		}
		appInst, err := s.Instantiate(ctx, app, engine.Imports{"lib": libInst})
		if err != nil {
			t.Fatal(err)
		}
		res, err := appInst.Call(ctx, "run", 15)
		if fuel == 2+fibCost(15) {
			// local.get and call in "run", then fib(15) in the other instance.
			if err != nil || res[0] != 610 || s.FuelConsumed() != fuel {
				t.Errorf("fuel %d: %v, %v, consumed %d", fuel, res, err, s.FuelConsumed())
			}
		} else if got := trapKind(t, err); got != engine.TrapFuelExhausted {
			t.Errorf("fuel %d: kind %v", fuel, got)
		}
		s.Close(ctx)
	}
}

// TestDirectExportsNotImportable: host calls use an unwrapped export of each function whose
// callers charge its entry block; a guest importing it would skip that charge, so linking refuses.
func TestDirectExportsNotImportable(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	lib, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range lib.Exports() {
		if strings.HasPrefix(ex.Name, "kobako:") {
			t.Errorf("Exports lists the internal export %q", ex.Name)
		}
	}
	app, err := e.Compile(ctx, fixture(t, "direct_import"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewStore(ctx, engine.DefaultLimits())
	defer s.Close(ctx)
	libInst, err := s.Instantiate(ctx, lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Instantiate(ctx, app, engine.Imports{"lib": libInst}); !errors.Is(err, engine.ErrLink) {
		t.Fatalf("importing the direct export: %v, want ErrLink", err)
	}
}

// TestFuelReusedAcrossStores checks that a store's fuel counter, which the engine reuses once the
// store is closed, carries nothing from one store to the next, and that a closed store still
// reports its own last call.
func TestFuelReusedAcrossStores(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fuel uint64
		n    uint64
		trap bool
	}{
		{"runs out", 1000, 1000, true},
		{"fits", 20_000, 1000, false},
		{"tiny budget", 5, 0, false},
		{"runs out again", 16_004, 1000, true},
		{"exact", 16_005, 1000, false},
	}
	var closed []*engine.Store
	var want []int64
	for _, tt := range tests {
		lim := engine.DefaultLimits()
		lim.Fuel = tt.fuel
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Fuel(); got != int64(tt.fuel) {
			t.Errorf("%s: new store has %d fuel, want %d", tt.name, got, tt.fuel)
		}
		in, err := s.Instantiate(ctx, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = in.Call(ctx, "sumsq", tt.n)
		if tt.trap {
			if got := trapKind(t, err); got != engine.TrapFuelExhausted {
				t.Errorf("%s: kind %v", tt.name, got)
			}
		} else if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		want = append(want, s.Fuel())
		s.Close(ctx)
		if got := s.Fuel(); got != want[len(want)-1] {
			t.Errorf("%s: fuel after close %d, want %d", tt.name, got, want[len(want)-1])
		}
		s.SetFuel(7) // must not reach the counter the next store gets
		closed = append(closed, s)
	}
	for i, s := range closed {
		if got := s.Fuel(); got != 7 {
			t.Errorf("%s: closed store reads %d, want its own 7 (was %d)", tests[i].name, got, want[i])
		}
	}
}

// TestCloseDuringCall closes the store from a host function. Its fuel counter may still be
// touched by the guest before wazero stops it, so it must not serve the next store.
func TestCloseDuringCall(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	noop := func(context.Context, *engine.Caller, []uint64) {}
	host := &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
		{Name: "block", Fn: func(ctx context.Context, c *engine.Caller, _ []uint64) { c.Store().Close(ctx) }},
		{Name: "fail", Fn: noop},
		{Name: "exit", Params: []engine.ValueType{engine.I32}, Fn: noop},
	}}
	_, in := instantiate(t, e, "hostcall", engine.DefaultLimits(), engine.Imports{"host": host})
	if _, err := in.Call(ctx, "block"); err == nil {
		t.Error("call that closed its store reported success")
	}
	if _, err := in.Call(ctx, "block"); !errors.Is(err, engine.ErrClosed) && !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Errorf("call after close: %v", err)
	}
	lim := engine.DefaultLimits()
	lim.Fuel = 20_000
	s2, in2 := instantiate(t, e, "fib", lim, nil)
	if _, err := in2.Call(ctx, "sumsq", 1000); err != nil || s2.FuelConsumed() != 16005 {
		t.Errorf("next store: %v, consumed %d", err, s2.FuelConsumed())
	}
}

// TestStoresInParallel runs stores on several goroutines at once, so that fuel counters handed
// from a closed store to a new one cross goroutines (run with -race), and checks every count.
func TestStoresInParallel(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "fib"))
	if err != nil {
		t.Fatal(err)
	}
	lim := engine.DefaultLimits()
	lim.Fuel = 20_000
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				s, err := e.NewStore(ctx, lim)
				if err != nil {
					errs <- err
					return
				}
				in, err := s.Instantiate(ctx, m, nil)
				if err == nil {
					_, err = in.Call(ctx, "sumsq", 1000)
				}
				if err == nil && s.FuelConsumed() != 16005 {
					err = fmt.Errorf("consumed %d, want 16005", s.FuelConsumed())
				}
				s.Close(ctx)
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestEnterFrame: calls inside one frame share one fuel budget; the frame reports exhaustion.
func TestEnterFrame(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	lim := engine.DefaultLimits()
	lim.Fuel = 2*fibCost(10) + 1
	s, in := instantiate(t, e, "fib", lim, nil)
	fctx, exit, err := s.Enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // two calls that fit together
		if _, err := in.Call(fctx, "fib", 10); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if err := exit(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if got := s.FuelConsumed(); got != 2*fibCost(10) {
		t.Errorf("frame used %d, want %d", got, 2*fibCost(10))
	}

	// Three do not: the third call runs out, as one call of the same cost would.
	fctx, exit, _ = s.Enter(ctx)
	var last error
	for i := 0; i < 3 && last == nil; i++ {
		_, last = in.Call(fctx, "fib", 10)
	}
	ferr := exit()
	if trapKind(t, last) != engine.TrapFuelExhausted || trapKind(t, ferr) != engine.TrapFuelExhausted {
		t.Fatalf("third call: %v; exit: %v", last, ferr)
	}
	if _, _, err := s.Enter(ctx); !errors.Is(err, engine.ErrInstanceUnavailable) {
		t.Errorf("Enter after an exhausted frame: %v", err)
	}
}

// The store reuses the Caller it hands host functions while the calling instance stays the same;
// calls from another instance of the store get a Caller of their own, each naming its instance.
func TestCallerPerInstance(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	var seen []*engine.Caller
	var insts []*engine.Instance
	host := &engine.HostModule{Name: "host", Funcs: []engine.HostFunc{
		{Name: "block", Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
			seen = append(seen, c)
			insts = append(insts, c.Instance())
		}},
		{Name: "fail", Fn: func(context.Context, *engine.Caller, []uint64) {}},
		{Name: "exit", Params: []engine.ValueType{engine.I32}, Fn: func(context.Context, *engine.Caller, []uint64) {}},
	}}
	m, err := e.Compile(ctx, fixture(t, "hostcall"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	a, err := s.Instantiate(ctx, m, engine.Imports{"host": host})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Instantiate(ctx, m, engine.Imports{"host": host})
	if err != nil {
		t.Fatal(err)
	}
	order := []*engine.Instance{a, a, b, a, b, b}
	for _, in := range order {
		if _, err := in.Call(ctx, "block"); err != nil {
			t.Fatal(err)
		}
	}
	for i, in := range order {
		if insts[i] != in || seen[i].Store() != s {
			t.Errorf("call %d: Caller names instance %p of store %p, want %p of %p", i, insts[i], seen[i].Store(), in, s)
		}
	}
	if seen[0] != seen[1] || seen[4] != seen[5] {
		t.Error("consecutive calls from one instance got different Callers")
	}
	if seen[1] == seen[2] {
		t.Error("calls from two instances shared a Caller")
	}
}
