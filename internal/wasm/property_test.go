package wasm

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// naiveAnalyze is the test oracle for fuel placement: it charges every instruction's cost right
// before the instruction, with no blocks, merging, hoisting or checks. It is obviously exact, so
// for a call that returns normally the optimized placement must consume the same fuel.
func naiveAnalyze(mt *meter, body []byte) error {
	if err := mt.decode(body); err != nil {
		return err
	}
	mt.blocks = append(mt.blocks[:0], bblock{at: -1, check: true})
	mt.calls = mt.calls[:0]
	for _, in := range mt.code {
		if c := cost(in.op); c > 0 {
			mt.blocks = append(mt.blocks, bblock{at: int(in.start), cost: c})
		}
	}
	return nil
}

// progGen writes random valid function bodies: structured control flow (blocks, ifs, counted
// loops, br, br_if, br_table, return, dead code after branches), i32 arithmetic on locals, a
// mutable global, memory, multi-value blocks and calls to later functions (so that calls always
// terminate).
type progGen struct {
	t      *rapid.T
	b      []byte
	fn     int // index of the function being written
	nfuncs int
	labels []byte // 'f' function, 'b' block or if, 'l' loop
	loops  int    // counter locals used
	budget int    // statements left
	// unbounded lets calls go to any function, the caller included (recursion), and loops run
	// forever, so that only the fuel checks can stop a call.
	unbounded bool
}

const (
	genParams   = 2
	genLocals   = 4 // locals 2..5
	genCounters = 6 // locals 6..11, one per loop
)

func (g *progGen) draw(lo, hi int, label string) int {
	return rapid.IntRange(lo, hi).Draw(g.t, label)
}

func (g *progGen) op(b ...byte) { g.b = append(g.b, b...) }

func (g *progGen) local() byte { return byte(g.draw(0, genParams+genLocals-1, "local")) }

func (g *progGen) expr(depth int) {
	switch k := g.draw(0, 7, "expr"); {
	case k == 0 || depth > 2:
		g.op(opI32Const)
		g.b = appendS64(g.b, int64(int32(g.draw(-1000, 1000, "const"))))
	case k <= 2:
		g.op(0x20, g.local())
	case k == 3:
		g.op(opGlobalGet, 0)
	case k == 4:
		g.expr(depth + 1)
		g.op(0x45) // i32.eqz
	case k == 5:
		g.expr(depth + 1)
		g.op(opI32Const, 0x3f, 0x71, 0x28, 0x02, 0x00) // i32.const 63; i32.and; i32.load (aligned enough for tests)
	default:
		g.expr(depth + 1)
		g.expr(depth + 1)
		ops := []byte{0x6a, 0x6b, 0x6c, 0x71, 0x72, 0x73, 0x74, 0x76, 0x77, 0x46, 0x48, 0x4b}
		g.op(ops[g.draw(0, len(ops)-1, "binop")])
	}
}

// target returns a label depth of a block or if (not a loop, so branches cannot loop forever), or
// -1 if there is none.
func (g *progGen) target() int {
	var ds []int
	for d := 0; d < len(g.labels); d++ {
		if g.labels[len(g.labels)-1-d] == 'b' {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return -1
	}
	return ds[g.draw(0, len(ds)-1, "target")]
}

func (g *progGen) stmts(depth int) {
	n := g.draw(0, 4, "stmts")
	for i := 0; i < n && g.budget > 0; i++ {
		g.budget--
		g.stmt(depth)
	}
}

// stmt writes one stack-neutral statement. It returns with the rest of the block unreachable
// when it wrote an unconditional branch; the caller's later statements are then dead code.
func (g *progGen) stmt(depth int) {
	switch k := g.draw(0, 15, "stmt"); {
	case k <= 2:
		g.expr(0)
		g.op(0x21, byte(genParams+g.draw(0, genLocals-1, "set")))
	case k == 3:
		g.expr(0)
		g.op(opGlobalSet, 0)
	case k == 4:
		g.expr(0)
		g.op(opI32Const, 0x3c, 0x71) // & 60
		g.expr(0)
		g.op(0x36, 0x02, 0x00) // i32.store
	case k == 5 && depth < 4:
		g.expr(0)
		g.op(opIf, 0x40)
		g.labels = append(g.labels, 'b')
		g.stmts(depth + 1)
		if g.draw(0, 1, "else") == 1 {
			g.op(opElse)
			g.stmts(depth + 1)
		}
		g.labels = g.labels[:len(g.labels)-1]
		g.op(opEnd)
	case k == 6 && depth < 4:
		g.op(opBlock, 0x40)
		g.labels = append(g.labels, 'b')
		g.stmts(depth + 1)
		g.labels = g.labels[:len(g.labels)-1]
		g.op(opEnd)
	case k == 7 && depth < 4 && g.loops < genCounters:
		c := byte(genParams + genLocals + g.loops)
		g.loops++
		g.op(opI32Const, byte(g.draw(1, 5, "iterations")), 0x21, c)
		g.op(opLoop, 0x40)
		g.labels = append(g.labels, 'l')
		g.stmts(depth + 1)
		g.labels = g.labels[:len(g.labels)-1]
		if g.unbounded && g.draw(0, 1, "forever") == 1 {
			g.op(opBr, 0x00, opEnd)
		} else {
			g.op(0x20, c, opI32Const, 0x01, 0x6b, 0x22, c, opBrIf, 0x00, opEnd)
		}
	case k == 8:
		if d := g.target(); d >= 0 {
			g.expr(0)
			g.op(opBrIf, byte(d))
		}
	case k == 9:
		if d := g.target(); d >= 0 {
			g.op(opBr, byte(d))
			g.dead(depth)
		}
	case k == 10:
		if d := g.target(); d >= 0 {
			g.expr(0)
			n := g.draw(0, 3, "br_table size")
			g.op(opBrTable, byte(n))
			for i := 0; i <= n; i++ {
				if t := g.target(); t >= 0 {
					g.op(byte(t))
				}
			}
			g.dead(depth)
		}
	case k == 11:
		g.expr(0)
		g.op(opReturn)
		g.dead(depth)
	case k == 12 && g.unbounded:
		g.expr(0)
		g.expr(0)
		g.op(opCall, byte(g.draw(0, g.nfuncs-1, "callee")))
		g.op(0x21, byte(genParams+g.draw(0, genLocals-1, "set")))
	case k == 12 && g.fn+1 < g.nfuncs:
		g.expr(0)
		g.expr(0)
		g.op(opCall, byte(g.draw(g.fn+1, g.nfuncs-1, "callee")))
		g.op(0x21, byte(genParams+g.draw(0, genLocals-1, "set")))
	case k == 13 && g.fn+1 < g.nfuncs && g.draw(0, 1, "indirect") == 1:
		// The table holds only the last function, which is therefore called indirectly and
		// charges its own entry.
		g.expr(0)
		g.expr(0)
		g.op(opI32Const, 0x00, opCallInd, 0x00, 0x00)
		g.op(0x21, byte(genParams+g.draw(0, genLocals-1, "set")))
	case k == 13:
		g.expr(0)
		g.expr(0)
		g.op(opBlock, 0x00, 0x6a, opEnd) // block (type 0: (i32 i32) -> i32) i32.add end
		g.op(0x21, byte(genParams))
	case k == 14:
		g.expr(0)
		g.expr(0)
		g.expr(0)
		g.op(0x1b, opDrop, opNop) // select; drop; nop
	default:
		g.expr(0)
		if d := len(g.labels) - 1; g.draw(0, 1, "return via br_if") == 1 {
			g.expr(0)
			g.op(opBrIf, byte(d), opDrop) // br_if to the function label carries the result
		} else {
			g.op(opDrop)
		}
	}
}

// dead writes unreachable code after an unconditional branch. It may contain anything valid in
// a polymorphic stack context, including unreachable, and must be charged nothing.
func (g *progGen) dead(depth int) {
	if g.draw(0, 1, "dead") == 1 {
		g.op(opUnreachable)
	}
	g.stmts(depth + 1)
}

// genModule writes a module with nfuncs functions of type (i32 i32) -> i32, exported as f0, f1, ...
func genModule(t *rapid.T) []byte { return genModuleOf(t, false) }

func genModuleOf(t *rapid.T, unbounded bool) []byte {
	nfuncs := rapid.IntRange(1, 4).Draw(t, "functions")
	var code []byte
	for i := 0; i < nfuncs; i++ {
		g := &progGen{t: t, fn: i, nfuncs: nfuncs, labels: []byte{'f'}, budget: 30, unbounded: unbounded}
		g.op(0x01, genLocals+genCounters, byte(I32)) // locals
		g.stmts(0)
		g.op(0x20, genParams, opEnd)
		code = appendU32(code, uint32(len(g.b)))
		code = append(code, g.b...)
	}
	fsec := []byte{byte(nfuncs)}
	esec := []byte{byte(nfuncs)}
	for i := 0; i < nfuncs; i++ {
		fsec = append(fsec, 0x00)
		esec = append(esec, 0x02, 'f', byte('0'+i), 0x00, byte(i))
	}
	return module(
		sec(secType, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f),
		sec(secFunction, fsec...),
		sec(secTable, 0x01, 0x70, 0x00, 0x01),
		sec(secMemory, 0x01, 0x00, 0x01),
		sec(secGlobal, 0x01, 0x7f, 0x01, 0x41, 0x07, 0x0b),
		sec(secExport, esec...),
		sec(secElement, 0x01, 0x00, opI32Const, 0x00, opEnd, 0x01, byte(nfuncs-1)),
		sec(secCode, append(appendU32(nil, uint32(nfuncs)), code...)...),
	)
}

// TestPropertyFuelExact runs random programs three ways: original, metered, and metered by the
// per-instruction oracle. Results must match, the two fuel counts must be equal, and exactly that
// much fuel must be enough while one less must leave the counter negative. In hook mode the fuel
// arrives in slices of random size, so that refills land anywhere in the program.
func TestPropertyFuelExact(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testPropertyFuelExact(t, fm) })
	}
}

func testPropertyFuelExact(t *testing.T, fm fuelMode) {
	s := fm.sandbox(t)
	hookCalls := 0
	rapid.Check(t, func(rt *rapid.T) {
		b := genModule(rt)
		m, err := Decode(b, Limits{})
		if err != nil {
			rt.Fatalf("generated module does not decode: %v", err)
		}
		out, err := Instrument(m, fm.opts)
		if err != nil {
			rt.Fatal(err)
		}
		naive, err := instrument(m, fm.opts, naiveAnalyze)
		if err != nil {
			rt.Fatal(err)
		}
		if s.hooked {
			s.slice = rapid.Int64Range(1, 60).Draw(rt, "slice")
		}
		a0 := uint64(rapid.Uint32().Draw(rt, "a"))
		a1 := uint64(rapid.Uint32Range(0, 20).Draw(rt, "b"))
		// Each run gets a fresh instance: the programs change their global and memory.
		run := func(bin []byte, fuel int64) ([]uint64, int64, error) {
			m := s.instantiateT(rt, bin)
			defer m.Close(s.ctx)
			return s.call(m, fuel, "f0", a0, a1)
		}
		want, _, werr := run(b, 0)
		got, used, gerr := run(out, 1<<40)
		_, wantUsed, oerr := run(naive, 1<<40)
		if werr != nil || gerr != nil || oerr != nil {
			rt.Fatalf("errors: original %v, metered %v, oracle %v", werr, gerr, oerr)
		}
		if want[0] != got[0] {
			rt.Fatalf("result %d, want %d", got[0], want[0])
		}
		if used != wantUsed {
			rt.Fatalf("metered run used %d fuel, the per-instruction oracle %d", used, wantUsed)
		}
		if _, _, err := run(out, used); err != nil || s.remaining() != 0 {
			rt.Fatalf("with exactly %d fuel: %v, remaining %d", used, err, s.remaining())
		}
		hookCalls += s.hookCalls
		if used > 0 {
			_, _, err := run(out, used-1)
			if s.remaining() >= 0 {
				rt.Fatalf("with %d fuel: %v, remaining %d", used-1, err, s.remaining())
			}
			if err != nil && !fm.exhausted(err) {
				rt.Fatalf("with %d fuel: unexpected trap %v", used-1, err)
			}
		}
	})
	if fm.hook() && hookCalls == 0 {
		t.Fatal("no program called the hook")
	}
}

// TestPropertyUnboundedChecked runs random programs that may recurse (directly or through other
// functions) and loop forever, with little fuel: every call must return normally within its fuel
// or stop with fuel exhaustion, never run on until wazero's call stack overflows (its interpreter
// allows 2000 frames, and each call level costs at least 1, so with 1500 fuel a call level without
// a check would be found) or forever. The oracle's fuel count must match whenever the call
// returns.
func TestPropertyUnboundedChecked(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testPropertyUnboundedChecked(t, fm) })
	}
}

func testPropertyUnboundedChecked(t *testing.T, fm fuelMode) {
	const fuel = 1500
	s := fm.sandbox(t)
	exhausted := 0
	rapid.Check(t, func(rt *rapid.T) {
		b := genModuleOf(rt, true)
		m, err := Decode(b, Limits{})
		if err != nil {
			rt.Fatalf("generated module does not decode: %v", err)
		}
		out, err := Instrument(m, fm.opts)
		if err != nil {
			rt.Fatal(err)
		}
		naive, err := instrument(m, fm.opts, naiveAnalyze)
		if err != nil {
			rt.Fatal(err)
		}
		a0 := uint64(rapid.Uint32().Draw(rt, "a"))
		a1 := uint64(rapid.Uint32Range(0, 20).Draw(rt, "b"))
		run := func(bin []byte) (int64, error) {
			m := s.instantiateT(rt, bin)
			defer m.Close(s.ctx)
			_, used, err := s.call(m, fuel, "f0", a0, a1)
			return used, err
		}
		used, err := run(out)
		if err != nil {
			if !fm.exhausted(err) || s.remaining() >= 0 {
				rt.Fatalf("with %d fuel: %v, remaining %d; want a normal return or exhaustion", fuel, err, s.remaining())
			}
			exhausted++
			return
		}
		if used > fuel {
			rt.Fatalf("returned normally after using %d of %d fuel", used, fuel)
		}
		if want, err := run(naive); err != nil || want != used {
			rt.Fatalf("metered run used %d fuel, the per-instruction oracle %d (%v)", used, want, err)
		}
	})
	// About one program in twelve runs out of fuel: the 100 draws of a full run all but surely
	// include one (the check is not vacuous), while -short's 20 (rapid runs a fifth) miss them all
	// about one run in five, so only a full run insists.
	if exhausted == 0 && !testing.Short() {
		t.Fatal("no program ran out of fuel")
	}
}

// TestPropertyDecodeMutations mutates valid modules at random: Decode must not panic, and
// whatever decodes and instruments must decode again, deterministically.
func TestPropertyDecodeMutations(t *testing.T) {
	var seeds [][]byte
	for _, name := range append(fixtures, featureFixtures...) {
		seeds = append(seeds, readTestdata(t, name))
	}
	rapid.Check(t, func(rt *rapid.T) {
		var b []byte
		if rapid.Bool().Draw(rt, "generated") {
			b = genModule(rt)
		} else {
			b = bytes.Clone(seeds[rapid.IntRange(0, len(seeds)-1).Draw(rt, "seed")])
		}
		for n := rapid.IntRange(0, 8).Draw(rt, "mutations"); n > 0; n-- {
			if len(b) == 0 {
				break
			}
			i := rapid.IntRange(0, len(b)-1).Draw(rt, "at")
			switch rapid.IntRange(0, 3).Draw(rt, "how") {
			case 0:
				b[i] = rapid.Byte().Draw(rt, "byte")
			case 1:
				b = append(b[:i], b[i+1:]...)
			case 2:
				b = append(b[:i], append([]byte{rapid.Byte().Draw(rt, "ins")}, b[i:]...)...)
			case 3:
				b = b[:i]
			}
		}
		checkRoundTrip(rt, b, testOpts)
		checkRoundTrip(rt, b, hookOpts)
	})
}

// checkRoundTrip is shared with the fuzz target's logic: it fails on any inconsistency.
func checkRoundTrip(t interface{ Fatalf(string, ...any) }, b []byte, opts InstrumentOptions) {
	m, err := Decode(b, Limits{})
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrNotCoreModule) && !errors.Is(err, ErrUnsupportedFeature) {
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		return
	}
	_ = m.Features()
	out, err := Instrument(m, opts)
	if err != nil {
		if !errors.Is(err, ErrUnsupportedFeature) && !errors.Is(err, ErrInstrument) && !errors.Is(err, ErrTableLimit) {
			t.Fatalf("Instrument error wraps no sentinel: %v", err)
		}
		return
	}
	m2, err := Decode(out, Limits{})
	if err != nil {
		t.Fatalf("instrumented module does not decode: %v", err)
	}
	hooks := uint32(0)
	if opts.FuelHook != "" {
		hooks = 1
	}
	if len(m2.Code) < len(m.Code) || len(m2.Exports) != len(m.Exports) || m2.NumImportedGlobals != m.NumImportedGlobals+1 ||
		m2.NumImportedFuncs != m.NumImportedFuncs+hooks {
		t.Fatalf("instrumented module changed shape")
	}
	m3, err := Decode(b, Limits{})
	if err != nil {
		t.Fatalf("second decode: %v", err)
	}
	again, err := Instrument(m3, opts)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("instrumentation is not deterministic (%v)", err)
	}
}
