package fuzz

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kobako/kobako/engine"
)

// FuzzMeteredDifferential builds a valid core module from the input with a small generator of its
// own (i32 arithmetic, locals, globals, memory, if/else, bounded loops, calls, traps) and runs its
// export "run" three ways: metered on kobako's engine, bare on wazero's interpreter, and on this
// file's reference evaluator of the generator's program. All three must agree on the result or the
// trap, the globals and the memory; and kobako's fuel must equal the evaluator's count of the
// instructions executed, costed as wasmtime does (nop, drop, block, loop, unreachable, return,
// else and end 0, everything else 1), which it computes without the rewriter.
func FuzzMeteredDifferential(f *testing.F) {
	for _, s := range []string{
		"", "\x01\x02\x03\x04\x05\x06\x07\x08",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0",
		"loop loop loop call call store load global",
		strings.Repeat("\x05\x09\x11", 20),
		strings.Repeat("\x03\x00\x07", 30),
		// a loop of four adding 7 to a global
		"\x00\x0a\x00\x01\x05\x03\x02\x00\x03\x00\x02\x00\x00\x07\x00\x00\x00",
		// two functions, a call, locals, a load
		"\x01\x05\x07\x01\x01\x01\x07\x03\x01\x05\x02\x01\x01\x07\x00\x00\x04\x03\x05\x00\x05\x01\x03\x02\x00\x06\x03\x00\x01\x00\x00\x00\x00\x00\x09\x03\x02\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := genProgram(data)
		mod := p.encode()
		want := p.evaluate()

		ctx := context.Background()
		e := meterEngine(t)
		m, err := e.Compile(ctx, mod)
		if err != nil {
			t.Fatalf("kobako refuses a generated module: %v\n%s", err, p)
		}
		defer m.Close(ctx)
		got, fuel := runKobako(t, m, p, false)
		if got.trap == "" && fuel != want.fuel {
			t.Fatalf("kobako charged %d fuel, the program executed %d instructions\n%s", fuel, want.fuel, p)
		}
		// An unmetered store runs the module without the rewrite: the same outcome, no fuel.
		unmetered, fuel := runKobako(t, m, p, true)
		if fuel != 0 {
			t.Fatalf("an unmetered store counted %d fuel\n%s", fuel, p)
		}
		bare := runBare(t, mod, len(p.globals))
		if !got.same(want) || !bare.same(want) || !unmetered.same(want) {
			t.Fatalf("outcomes differ:\n reference %s\n kobako    %s\n unmetered %s\n bare      %s\n%s", want, got, unmetered, bare, p)
		}
	})
}

// runKobako runs the program's module in a fresh store, metered or unmetered, and returns its
// outcome and the fuel the store reports.
func runKobako(t *testing.T, m *engine.Module, p *program, unmetered bool) (outcome, uint64) {
	ctx := context.Background()
	lim := engine.DefaultLimits()
	lim.Fuel, lim.Deadline = engine.MaxFuel, time.Minute
	if unmetered {
		lim.Fuel = engine.Unmetered
	}
	s, err := meterEng.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	in, err := s.Instantiate(ctx, m, nil)
	if err != nil {
		t.Fatalf("instantiate (unmetered %v): %v\n%s", unmetered, err, p)
	}
	res, err := in.Call(ctx, "run")
	got := outcome{trap: kobakoTrap(err)}
	if err != nil && got.trap == "" {
		t.Fatalf("kobako (unmetered %v): %v\n%s", unmetered, err, p)
	}
	if err == nil {
		got.result = uint32(res[0])
		for i := range p.globals {
			v, _ := in.Global(fmt.Sprintf("g%d", i))
			got.globals = append(got.globals, uint32(v))
		}
		b, _ := in.Memory("memory").Read(0, memBytes)
		got.mem = sha256.Sum256(b)
	}
	return got, s.FuelConsumed()
}

var (
	meterOnce sync.Once
	meterEng  *engine.Engine
	meterErr  error
)

func meterEngine(t *testing.T) *engine.Engine {
	meterOnce.Do(func() { meterEng, meterErr = engine.New(context.Background(), engine.Config{}) })
	if meterErr != nil {
		t.Fatal(meterErr)
	}
	return meterEng
}

const memBytes = 65536

type outcome struct {
	trap    string // "" when the call returned
	result  uint32
	globals []uint32
	mem     [32]byte
	fuel    uint64
}

func (o outcome) same(w outcome) bool {
	if o.trap != "" || w.trap != "" {
		return o.trap == w.trap
	}
	if o.result != w.result || o.mem != w.mem || len(o.globals) != len(w.globals) {
		return false
	}
	for i := range o.globals {
		if o.globals[i] != w.globals[i] {
			return false
		}
	}
	return true
}

func (o outcome) String() string {
	if o.trap != "" {
		return "trap " + o.trap
	}
	return fmt.Sprintf("result %d, globals %v, memory %x…", int32(o.result), o.globals, o.mem[:4])
}

func kobakoTrap(err error) string {
	var tr *engine.Trap
	if !errors.As(err, &tr) {
		return ""
	}
	switch tr.Kind {
	case engine.TrapDivideByZero:
		return "divide by zero"
	case engine.TrapIntegerOverflow:
		return "integer overflow"
	case engine.TrapMemoryOutOfBounds:
		return "out of bounds"
	case engine.TrapUnreachable:
		return "unreachable"
	}
	return tr.Kind.String()
}

// runBare runs the module on wazero's interpreter as it is, without kobako.
func runBare(t *testing.T, mod []byte, globals int) outcome {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	in, err := r.Instantiate(ctx, mod)
	if err != nil {
		t.Fatalf("wazero refuses a generated module: %v", err)
	}
	res, err := in.ExportedFunction("run").Call(ctx)
	if err != nil {
		msg := err.Error()
		for _, k := range []string{"divide by zero", "integer overflow", "out of bounds", "unreachable"} {
			if strings.Contains(msg, k) {
				return outcome{trap: k}
			}
		}
		t.Fatalf("wazero: %v", err)
	}
	o := outcome{result: uint32(res[0])}
	for i := range globals {
		o.globals = append(o.globals, uint32(in.ExportedGlobal(fmt.Sprintf("g%d", i)).Get()))
	}
	b, _ := in.ExportedMemory("memory").Read(0, memBytes)
	o.mem = sha256.Sum256(b)
	return o
}

// The generator's program: i32 only. Function i calls only functions after it, and every loop
// runs a fixed number of times, so every program ends.

type expr interface{}

type (
	eConst  struct{ v int32 }
	eLocal  struct{ i int }
	eGlobal struct{ i int }
	eBin    struct {
		op   byte
		a, b expr
	}
	eUn struct {
		op byte // eqz
		a  expr
	}
	eLoad struct {
		addr expr
		off  uint32
	}
	eCall struct {
		f    int
		args []expr
	}
	eSelect struct{ a, b, c expr }
)

type stmt interface{}

type (
	sSetLocal struct {
		i int
		e expr
	}
	sSetGlobal struct {
		i int
		e expr
	}
	sStore struct {
		addr, val expr
		off       uint32
	}
	sIf struct {
		cond      expr
		then, els []stmt
	}
	sLoop struct {
		counter int // a local no other statement writes
		n       int32
		body    []stmt
	}
	sDrop   struct{ e expr }
	sTrapIf struct{ cond expr }
)

type function struct {
	params, locals int // locals after the params; the counters of loops come after them
	counters       int
	body           []stmt
	ret            expr
}

type program struct {
	globals []int32
	funcs   []function
}

// gen reads choices from the fuzzer's bytes; past their end every choice is 0, which ends lists.
type gen struct {
	data  []byte
	steps int // bounds the program's size
}

func (g *gen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *gen) n(k int) int { return int(g.byte()) % k }

var binOps = []byte{0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x46, 0x47, 0x48, 0x4b}

func genProgram(data []byte) *program {
	g := &gen{data: data}
	p := &program{}
	for range 1 + g.n(3) {
		p.globals = append(p.globals, int32(g.byte())-64)
	}
	nf := 1 + g.n(4)
	p.funcs = make([]function, nf)
	for i := nf - 1; i >= 0; i-- { // callees first, so a body knows their arity
		fn := &p.funcs[i]
		if i > 0 {
			fn.params = g.n(3)
		}
		fn.locals = g.n(3)
		fn.body = g.stmts(p, i, fn, 0)
		fn.ret = g.expr(p, i, fn, 0)
	}
	return p
}

func (g *gen) stmts(p *program, fi int, fn *function, depth int) []stmt {
	var out []stmt
	for g.steps < 200 {
		k := g.n(9)
		if k == 0 {
			break
		}
		g.steps++
		vars := fn.params + fn.locals
		switch k {
		case 1:
			if vars > 0 {
				out = append(out, sSetLocal{g.n(vars), g.expr(p, fi, fn, depth)})
			}
		case 2:
			out = append(out, sSetGlobal{g.n(len(p.globals)), g.expr(p, fi, fn, depth)})
		case 3:
			out = append(out, sStore{g.addr(p, fi, fn, depth), g.expr(p, fi, fn, depth), uint32(g.n(3)) * 4})
		case 4:
			if depth < 3 {
				out = append(out, sIf{g.expr(p, fi, fn, depth), g.stmts(p, fi, fn, depth+1), g.stmts(p, fi, fn, depth+1)})
			}
		case 5:
			if depth < 3 {
				c := fn.counters
				fn.counters++
				out = append(out, sLoop{c, int32(1 + g.n(6)), g.stmts(p, fi, fn, depth+1)})
			}
		case 6:
			out = append(out, sDrop{g.expr(p, fi, fn, depth)})
		case 7:
			if g.n(4) == 0 {
				out = append(out, sTrapIf{g.expr(p, fi, fn, depth)})
			}
		case 8:
			out = append(out, sStore{eConst{int32(g.n(16) * 4)}, g.expr(p, fi, fn, depth), 0})
		}
	}
	return out
}

func (g *gen) addr(p *program, fi int, fn *function, depth int) expr {
	if g.n(8) == 0 { // now and then an address that may be out of bounds
		return g.expr(p, fi, fn, depth)
	}
	return eBin{0x71, g.expr(p, fi, fn, depth), eConst{0xfff0}} // and: within the page
}

func (g *gen) expr(p *program, fi int, fn *function, depth int) expr {
	g.steps++
	if depth > 4 || g.steps > 400 {
		return eConst{int32(g.byte())}
	}
	vars := fn.params + fn.locals
	switch g.n(9) {
	case 0:
		return eConst{int32(binary.LittleEndian.Uint32([]byte{g.byte(), g.byte(), g.byte(), g.byte()}))}
	case 1:
		if vars > 0 {
			return eLocal{g.n(vars)}
		}
		return eConst{int32(g.byte())}
	case 2:
		return eGlobal{g.n(len(p.globals))}
	case 3, 4:
		return eBin{binOps[g.n(len(binOps))], g.expr(p, fi, fn, depth+1), g.expr(p, fi, fn, depth+1)}
	case 5:
		return eUn{0x45, g.expr(p, fi, fn, depth+1)}
	case 6:
		return eLoad{g.addr(p, fi, fn, depth+1), uint32(g.n(3)) * 4}
	case 7:
		if fi+1 < len(p.funcs) {
			callee := fi + 1 + g.n(len(p.funcs)-fi-1)
			c := eCall{f: callee}
			for range p.funcs[callee].params {
				c.args = append(c.args, g.expr(p, fi, fn, depth+1))
			}
			return c
		}
		return eConst{7}
	default:
		return eSelect{g.expr(p, fi, fn, depth+1), g.expr(p, fi, fn, depth+1), g.expr(p, fi, fn, depth+1)}
	}
}

// encode writes the program as a core module: one memory and the globals exported, func 0 exported
// as "run".
func (p *program) encode() []byte {
	var types, funcs, code []byte
	types = uleb(types, uint64(len(p.funcs)))
	funcs = uleb(funcs, uint64(len(p.funcs)))
	code = uleb(code, uint64(len(p.funcs)))
	for i, fn := range p.funcs {
		types = append(types, 0x60)
		types = uleb(types, uint64(fn.params))
		for range fn.params {
			types = append(types, 0x7f)
		}
		types = append(types, 1, 0x7f)
		funcs = uleb(funcs, uint64(i))
		var body []byte
		if n := fn.locals + fn.counters; n > 0 {
			body = append(body, 1)
			body = uleb(body, uint64(n))
			body = append(body, 0x7f)
		} else {
			body = append(body, 0)
		}
		w := &writer{b: body, fn: &p.funcs[i]}
		for _, s := range fn.body {
			w.stmt(s)
		}
		w.expr(fn.ret)
		w.b = append(w.b, 0x0b)
		code = uleb(code, uint64(len(w.b)))
		code = append(code, w.b...)
	}
	var globals []byte
	globals = uleb(globals, uint64(len(p.globals)))
	for _, v := range p.globals {
		globals = append(globals, 0x7f, 1, 0x41)
		globals = sleb(globals, int64(v))
		globals = append(globals, 0x0b)
	}
	var exports []byte
	exports = uleb(exports, uint64(2+len(p.globals)))
	exports = name(exports, "run")
	exports = append(exports, 0, 0)
	exports = name(exports, "memory")
	exports = append(exports, 2, 0)
	for i := range p.globals {
		exports = name(exports, fmt.Sprintf("g%d", i))
		exports = append(exports, 3)
		exports = uleb(exports, uint64(i))
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = section(out, 1, types)
	out = section(out, 3, funcs)
	out = section(out, 5, []byte{1, 0, 1})
	out = section(out, 6, globals)
	out = section(out, 7, exports)
	return section(out, 10, code)
}

type writer struct {
	b  []byte
	fn *function
}

func (w *writer) counterIndex(c int) uint64 { return uint64(w.fn.params + w.fn.locals + c) }

func (w *writer) stmt(s stmt) {
	switch s := s.(type) {
	case sSetLocal:
		w.expr(s.e)
		w.b = append(w.b, 0x21)
		w.b = uleb(w.b, uint64(s.i))
	case sSetGlobal:
		w.expr(s.e)
		w.b = append(w.b, 0x24)
		w.b = uleb(w.b, uint64(s.i))
	case sStore:
		w.expr(s.addr)
		w.expr(s.val)
		w.b = append(w.b, 0x36, 2)
		w.b = uleb(w.b, uint64(s.off))
	case sIf:
		w.expr(s.cond)
		w.b = append(w.b, 0x04, 0x40)
		for _, x := range s.then {
			w.stmt(x)
		}
		if len(s.els) > 0 {
			w.b = append(w.b, 0x05)
			for _, x := range s.els {
				w.stmt(x)
			}
		}
		w.b = append(w.b, 0x0b)
	case sLoop:
		w.b = append(w.b, 0x41)
		w.b = sleb(w.b, int64(s.n))
		w.b = append(w.b, 0x21)
		w.b = uleb(w.b, w.counterIndex(s.counter))
		w.b = append(w.b, 0x03, 0x40)
		for _, x := range s.body {
			w.stmt(x)
		}
		w.b = append(w.b, 0x20)
		w.b = uleb(w.b, w.counterIndex(s.counter))
		w.b = append(w.b, 0x41, 1, 0x6b, 0x22)
		w.b = uleb(w.b, w.counterIndex(s.counter))
		w.b = append(w.b, 0x0d, 0, 0x0b)
	case sDrop:
		w.expr(s.e)
		w.b = append(w.b, 0x1a)
	case sTrapIf:
		w.expr(s.cond)
		w.b = append(w.b, 0x04, 0x40, 0x00, 0x0b)
	}
}

func (w *writer) expr(e expr) {
	switch e := e.(type) {
	case eConst:
		w.b = append(w.b, 0x41)
		w.b = sleb(w.b, int64(e.v))
	case eLocal:
		w.b = append(w.b, 0x20)
		w.b = uleb(w.b, uint64(e.i))
	case eGlobal:
		w.b = append(w.b, 0x23)
		w.b = uleb(w.b, uint64(e.i))
	case eBin:
		w.expr(e.a)
		w.expr(e.b)
		w.b = append(w.b, e.op)
	case eUn:
		w.expr(e.a)
		w.b = append(w.b, e.op)
	case eLoad:
		w.expr(e.addr)
		w.b = append(w.b, 0x28, 2)
		w.b = uleb(w.b, uint64(e.off))
	case eCall:
		for _, a := range e.args {
			w.expr(a)
		}
		w.b = append(w.b, 0x10)
		w.b = uleb(w.b, uint64(e.f))
	case eSelect:
		w.expr(e.a)
		w.expr(e.b)
		w.expr(e.c)
		w.b = append(w.b, 0x1b)
	}
}

func uleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func sleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func name(b []byte, s string) []byte { return append(uleb(b, uint64(len(s))), s...) }

func section(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = uleb(out, uint64(len(body)))
	return append(out, body...)
}

// The reference evaluator: runs the program as its AST and counts the instructions it executes,
// each at its wasmtime cost, as the encoder above writes them.

type trapError string

type evaluator struct {
	p       *program
	globals []uint32
	mem     []byte
	fuel    uint64
}

func (p *program) evaluate() (o outcome) {
	ev := &evaluator{p: p, mem: make([]byte, memBytes)}
	for _, v := range p.globals {
		ev.globals = append(ev.globals, uint32(v))
	}
	defer func() {
		if r := recover(); r != nil {
			te, ok := r.(trapError)
			if !ok {
				panic(r)
			}
			o = outcome{trap: string(te)}
		}
	}()
	res := ev.call(0, nil)
	o = outcome{result: res, globals: ev.globals, mem: sha256.Sum256(ev.mem), fuel: ev.fuel}
	return o
}

func (ev *evaluator) call(fi int, args []uint32) uint32 {
	fn := &ev.p.funcs[fi]
	locals := make([]uint32, fn.params+fn.locals+fn.counters)
	copy(locals, args)
	for _, s := range fn.body {
		ev.stmt(fn, locals, s)
	}
	return ev.expr(locals, fn.ret) // the function's end costs 0
}

func (ev *evaluator) stmt(fn *function, locals []uint32, s stmt) {
	switch s := s.(type) {
	case sSetLocal:
		locals[s.i] = ev.expr(locals, s.e)
		ev.fuel++
	case sSetGlobal:
		ev.globals[s.i] = ev.expr(locals, s.e)
		ev.fuel++
	case sStore:
		a := ev.expr(locals, s.addr)
		v := ev.expr(locals, s.val)
		ev.fuel++
		ea := uint64(a) + uint64(s.off)
		if ea+4 > memBytes {
			panic(trapError("out of bounds"))
		}
		binary.LittleEndian.PutUint32(ev.mem[ea:], v)
	case sIf:
		c := ev.expr(locals, s.cond)
		ev.fuel++ // if; else and end cost 0
		body := s.els
		if c != 0 {
			body = s.then
		}
		for _, x := range body {
			ev.stmt(fn, locals, x)
		}
	case sLoop:
		ci := fn.params + fn.locals + s.counter
		ev.fuel += 2 // i32.const n; local.set
		locals[ci] = uint32(s.n)
		for {
			for _, x := range s.body {
				ev.stmt(fn, locals, x)
			}
			ev.fuel += 5 // local.get; i32.const 1; i32.sub; local.tee; br_if (loop and end 0)
			locals[ci]--
			if locals[ci] == 0 {
				break
			}
		}
	case sDrop:
		ev.expr(locals, s.e) // drop costs 0
	case sTrapIf:
		c := ev.expr(locals, s.cond)
		ev.fuel++ // if
		if c != 0 {
			panic(trapError("unreachable")) // unreachable costs 0
		}
	}
}

func (ev *evaluator) expr(locals []uint32, e expr) uint32 {
	ev.fuel++ // every expression is one instruction of cost 1, besides its operands
	switch e := e.(type) {
	case eConst:
		return uint32(e.v)
	case eLocal:
		return locals[e.i]
	case eGlobal:
		return ev.globals[e.i]
	case eBin:
		a, b := ev.expr(locals, e.a), ev.expr(locals, e.b)
		return binop(e.op, a, b)
	case eUn:
		if ev.expr(locals, e.a) == 0 {
			return 1
		}
		return 0
	case eLoad:
		a := ev.expr(locals, e.addr)
		ea := uint64(a) + uint64(e.off)
		if ea+4 > memBytes {
			panic(trapError("out of bounds"))
		}
		return binary.LittleEndian.Uint32(ev.mem[ea:])
	case eCall:
		args := make([]uint32, len(e.args))
		for i, a := range e.args {
			args[i] = ev.expr(locals, a)
		}
		return ev.call(e.f, args)
	case eSelect:
		a, b, c := ev.expr(locals, e.a), ev.expr(locals, e.b), ev.expr(locals, e.c)
		if c != 0 {
			return a
		}
		return b
	}
	panic(fmt.Sprintf("unknown expression %T", e))
}

func binop(op byte, a, b uint32) uint32 {
	sa, sb := int32(a), int32(b)
	bool32 := func(v bool) uint32 {
		if v {
			return 1
		}
		return 0
	}
	switch op {
	case 0x6a:
		return a + b
	case 0x6b:
		return a - b
	case 0x6c:
		return a * b
	case 0x6d, 0x6f: // div_s, rem_s
		if b == 0 {
			panic(trapError("divide by zero"))
		}
		if op == 0x6d {
			if sa == math.MinInt32 && sb == -1 {
				panic(trapError("integer overflow"))
			}
			return uint32(sa / sb)
		}
		if sb == -1 {
			return 0
		}
		return uint32(sa % sb)
	case 0x6e, 0x70: // div_u, rem_u
		if b == 0 {
			panic(trapError("divide by zero"))
		}
		if op == 0x6e {
			return a / b
		}
		return a % b
	case 0x71:
		return a & b
	case 0x72:
		return a | b
	case 0x73:
		return a ^ b
	case 0x74:
		return a << (b & 31)
	case 0x75:
		return uint32(sa >> (b & 31))
	case 0x76:
		return a >> (b & 31)
	case 0x77:
		s := b & 31
		return a<<s | a>>((32-s)&31)
	case 0x46:
		return bool32(a == b)
	case 0x47:
		return bool32(a != b)
	case 0x48:
		return bool32(sa < sb)
	case 0x4b:
		return bool32(a > b)
	}
	panic(fmt.Sprintf("unknown op %#x", op))
}

// String prints the program for a failure report.
func (p *program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "globals %v\n", p.globals)
	for i, fn := range p.funcs {
		fmt.Fprintf(&b, "func %d (params %d, locals %d, counters %d):\n", i, fn.params, fn.locals, fn.counters)
		for _, s := range fn.body {
			fmt.Fprintf(&b, "  %#v\n", s)
		}
		fmt.Fprintf(&b, "  return %#v\n", fn.ret)
	}
	return b.String()
}
