package wasm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fib returns the fuel of fib.wat's fib(n): 5 for n < 2 (local.get, i32.const, i32.lt_s, if,
// local.get), else 13 + fib(n-1) + fib(n-2) (the same 4 head instructions and 9 in the else arm).
func fibFuel(n int64) int64 {
	if n < 2 {
		return 5
	}
	return 13 + fibFuel(n-1) + fibFuel(n-2)
}

// TestFuelExact checks hand-counted fuel for small functions: the fuel a call consumes is the
// number of executed instructions other than nop, drop, block, loop, unreachable, return, else
// and end. Each call is also run with exactly that much fuel (it must succeed and leave 0) and
// with one less (the counter must end negative, with or without a trap). In hook mode the fuel
// arrives in slices of 7, so most calls go through several refills, and must count the same.
func TestFuelExact(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testFuelExact(t, fm) })
	}
}

func testFuelExact(t *testing.T, fm fuelMode) {
	cases := []struct {
		file, fn string
		args     []uint64
		want     int64
	}{
		{"control.wasm", "straight", nil, 3},
		{"control.wasm", "sum", []uint64{0}, 4},
		{"control.wasm", "sum", []uint64{1}, 16},
		{"control.wasm", "sum", []uint64{100}, 12*100 + 4},
		{"control.wasm", "countdown", []uint64{1}, 10},
		{"control.wasm", "countdown", []uint64{1000}, 9*1000 + 1},
		{"control.wasm", "ifelse", []uint64{1}, 3},
		{"control.wasm", "ifelse", []uint64{0}, 5},
		{"control.wasm", "ifnoelse", []uint64{1}, 5},
		{"control.wasm", "ifnoelse", []uint64{0}, 3},
		{"control.wasm", "switch", []uint64{0}, 3},
		{"control.wasm", "switch", []uint64{2}, 3},
		{"control.wasm", "switch", []uint64{9}, 3},
		{"control.wasm", "nested", []uint64{4}, 5},
		{"control.wasm", "nested", []uint64{1}, 11},
		{"control.wasm", "nested", []uint64{2}, 12},
		{"control.wasm", "multi", []uint64{3}, 5},
		{"control.wasm", "callmulti", []uint64{3}, 9},
		{"control.wasm", "plainloop", nil, 1},
		{"control.wasm", "nestedloops", []uint64{0}, 5},
		{"control.wasm", "nestedloops", []uint64{1}, 27},
		{"control.wasm", "nestedloops", []uint64{7}, 7*(11+11*7) + 5},
		{"control.wasm", "mem", []uint64{5}, 9},
		{"control.wasm", "early", []uint64{1}, 3},
		{"control.wasm", "early", []uint64{0}, 3},
		{"control.wasm", "indirect", []uint64{1, 4}, 6},
		{"fib.wasm", "fib", []uint64{0}, fibFuel(0)},
		{"fib.wasm", "fib", []uint64{2}, fibFuel(2)},
		{"fib.wasm", "fib", []uint64{15}, fibFuel(15)},
		{"fib.wasm", "loop", []uint64{10}, 9*10 + 1},
	}
	inst := map[string][]byte{}
	for _, c := range cases {
		out, ok := inst[c.file]
		if !ok {
			out = fm.instrument(t, readTestdata(t, c.file))
			inst[c.file] = out
		}
		s := fm.sandbox(t)
		m := s.instantiate(out)
		_, used, err := s.call(m, 1<<40, c.fn, c.args...)
		if err != nil {
			t.Errorf("%s%v: %v", c.fn, c.args, err)
			continue
		}
		if used != c.want {
			t.Errorf("%s%v used %d fuel, want %d", c.fn, c.args, used, c.want)
		}
		if _, _, err := s.call(m, c.want, c.fn, c.args...); err != nil || s.remaining() != 0 {
			t.Errorf("%s%v with exactly %d fuel: err %v, remaining %d", c.fn, c.args, c.want, err, s.remaining())
		}
		_, _, err = s.call(m, c.want-1, c.fn, c.args...)
		if s.remaining() >= 0 || err != nil && !fm.exhausted(err) {
			t.Errorf("%s%v with %d fuel: err %v, remaining %d, want negative", c.fn, c.args, c.want-1, err, s.remaining())
		}
	}
}

// TestFuelExhaustion checks that call-free infinite loops and unbounded recursion stop with the
// counter negative, and that a guest's own traps leave it non-negative. In hook mode the hook
// stops them, with its own error, once the fuel used exceeds the budget.
func TestFuelExhaustion(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testFuelExhaustion(t, fm) })
	}
}

func testFuelExhaustion(t *testing.T, fm fuelMode) {
	cases := []struct {
		file, fn string
		args     []uint64
		fuel     int64
		trap     string
		negative bool
	}{
		{"exhaust.wasm", "spin", nil, 1000, "unreachable", true},
		{"control.wasm", "spin", nil, 0, "unreachable", true},
		{"control.wasm", "rec", []uint64{0}, 1000, "unreachable", true},
		{"control.wasm", "rec", []uint64{0}, 1 << 40, "stack overflow", false},
		{"control.wasm", "trap", nil, 100, "integer divide by zero", false},
		{"fib.wasm", "fib", []uint64{30}, 10_000, "unreachable", true},
	}
	for _, c := range cases {
		s := fm.sandbox(t)
		m := s.instantiate(fm.instrument(t, readTestdata(t, c.file)))
		_, _, err := s.call(m, c.fuel, c.fn, c.args...)
		if err == nil {
			t.Errorf("%s: no trap", c.fn)
			continue
		}
		if c.negative {
			if !fm.exhausted(err) {
				t.Errorf("%s: trap %v, want exhaustion", c.fn, err)
			}
		} else if cause := errors.Unwrap(err); cause == nil || !strings.Contains(cause.Error(), c.trap) {
			t.Errorf("%s: trap %v, want %q", c.fn, err, c.trap)
		}
		if neg := s.remaining() < 0; neg != c.negative {
			t.Errorf("%s: remaining %d, want negative=%v", c.fn, s.remaining(), c.negative)
		}
		// An exhausted call stops soon: within one block and one function's straight-line code.
		if c.negative && s.remaining() < -100 {
			t.Errorf("%s: overdrawn by %d", c.fn, -s.remaining())
		}
	}
}

// TestMeterPlacement checks where the analysis puts charges and checks on hand-written bodies,
// one case per placement rule: the charge points in body order, as cost and whether they check.
// Exactness of every placement is TestPropertyFuelExact's job; this test pins down that the
// reductions happen (and do not happen where they would be unsafe).
func TestMeterPlacement(t *testing.T) {
	const (
		lget = 0x20
		c1   = opI32Const
	)
	type site struct {
		cost  int64
		check bool
	}
	cases := []struct {
		name string
		body []byte
		want []site
	}{{
		// Go's shape: the calls sit inside a loop whose header is reached from the entry without
		// a call, so the header's check bounds the recursion and the entry needs none. (Two
		// blocks call, which used to put a check at the entry.)
		name: "calls behind a loop header",
		body: []byte{
			c1, 0, opDrop,
			opLoop, 0x40, opCall, 0, opDrop, lget, 0, opIf, 0x40, opCall, 0, opDrop, opEnd, lget, 0, opBrIf, 0, opEnd,
			opEnd},
		want: []site{{1, false}, {3, true}, {1, false}, {2, false}},
	}, {
		name: "call before the loop",
		body: []byte{
			opCall, 0, opDrop,
			opLoop, 0x40, opCall, 0, opDrop, lget, 0, opBrIf, 0, opEnd,
			opEnd},
		want: []site{{1, true}, {3, true}},
	}, {
		name: "a path to a call avoids the loop",
		body: []byte{
			lget, 0, opIf, 0x40, opCall, 0, opDrop, opEnd,
			opLoop, 0x40, opCall, 0, opDrop, lget, 0, opBrIf, 0, opEnd,
			opEnd},
		want: []site{{2, true}, {1, false}, {3, true}},
	}, {
		name: "single calling block keeps its own check",
		body: []byte{lget, 0, opIf, 0x40, opCall, 0, opDrop, opEnd, opEnd},
		want: []site{{2, false}, {1, true}},
	}, {
		// The join's cost moves into both arms, which charge anyway, and the cheaper arm's
		// into the if: two charges where there were three.
		name: "join sunk into the arms",
		body: []byte{
			lget, 0, opIf, 0x40, c1, 1, opDrop, opElse, c1, 2, opDrop, c1, 3, opDrop, opEnd,
			c1, 4, opDrop,
			opEnd},
		want: []site{{4, false}, {1, false}},
	}, {
		name: "join not sunk into an arm that charges nothing",
		body: []byte{
			lget, 0, opIf, 0x40, opElse, c1, 2, opDrop, opEnd,
			c1, 4, opDrop,
			opEnd},
		want: []site{{2, false}, {1, false}, {1, false}},
	}, {
		// The loop header's cost moves into the entry and into the back edge's block; its check
		// stays.
		name: "loop header sunk into its predecessors",
		body: []byte{
			c1, 0, opDrop,
			opLoop, 0x40, lget, 0, opIf, 0x40, c1, 1, opDrop, opBr, 1, opEnd, opEnd,
			opEnd},
		want: []site{{3, false}, {0, true}, {4, false}},
	}, {
		// A block whose successors are entered only from it (the arms of an if) gives them its
		// cost: one charge per run instead of two.
		name: "cost pushed down into the arms",
		body: []byte{
			opBlock, 0x40, lget, 0, opBrIf, 0,
			c1, 0, opDrop, lget, 0, opIf, 0x40, c1, 1, opDrop, opElse, c1, 2, opDrop, c1, 3, opDrop, opEnd,
			opEnd,
			opEnd},
		want: []site{{2, false}, {4, false}, {5, false}},
	}, {
		// Down a chain: the if's cost and the then arm's go to the inner if's arms; the else arm
		// returns and pays for itself.
		name: "cost pushed down a chain",
		body: []byte{
			opBlock, 0x40, lget, 0, opBrIf, 0,
			lget, 0, opIf, 0x40,
			/**/ c1, 1, opDrop, lget, 0, opIf, 0x40, c1, 1, opDrop, opElse, opNop, opEnd,
			opElse, c1, 2, opDrop, opReturn, opEnd,
			opEnd,
			opEnd},
		want: []site{{2, false}, {6, false}, {5, false}, {3, false}},
	}, {
		// A block that calls keeps its cost, and takes its arms' common part.
		name: "a calling block is not pushed down",
		body: []byte{
			opBlock, 0x40, lget, 0, opBrIf, 0,
			opCall, 0, opDrop, lget, 0, opIf, 0x40, c1, 1, opDrop, opElse, c1, 2, opDrop, c1, 3, opDrop, opEnd,
			opEnd,
			opEnd},
		want: []site{{2, false}, {4, true}, {1, false}},
	}, {
		// A br_if back to its own header: the header is its own predecessor and keeps its cost.
		name: "self loop",
		body: []byte{c1, 0, opDrop, opLoop, 0x40, lget, 0, opBrIf, 0, opEnd, opEnd},
		want: []site{{1, false}, {2, true}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mt := &meter{}
			if err := mt.analyze(c.body); err != nil {
				t.Fatal(err)
			}
			var got []site
			for _, b := range mt.blocks[1:] {
				if b.cost != 0 || b.check {
					got = append(got, site{b.cost, b.check})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("charge points %v, want %v", got, c.want)
			}
		})
	}
}
