package wasm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// checkHookImport checks that m2, instrumented from m1 with hookOpts, imports the hook as
// (func) right after m1's function imports, reusing m1's first [] -> [] type or appending one.
func checkHookImport(t *testing.T, m1, m2 *Module) {
	t.Helper()
	h := m1.NumImportedFuncs
	if m2.NumImportedFuncs != h+1 {
		t.Fatalf("%d imported functions, want %d", m2.NumImportedFuncs, h+1)
	}
	funcs := uint32(0)
	hookAt := -1
	for i, im := range m2.Imports {
		if im.Kind != ExternFunc {
			continue
		}
		if funcs == h {
			hookAt = i
		}
		funcs++
	}
	hook := m2.Imports[hookAt]
	if hook.Module != hookOpts.FuelModule || hook.Name != hookOpts.FuelHook || len(hook.Func.Params) != 0 || len(hook.Func.Results) != 0 {
		t.Fatalf("function import %d is %+v, want the hook", h, hook)
	}
	for i := range m1.Imports {
		if a, b := m1.Imports[i], m2.Imports[i]; a.Module != b.Module || a.Name != b.Name || a.Kind != b.Kind || a.TypeIndex != b.TypeIndex {
			t.Fatalf("import %d changed from %+v to %+v", i, a, b)
		}
	}
	want, add := emptyFuncType(m1.Types)
	if hook.TypeIndex != want || len(m2.Types) != len(m1.Types)+map[bool]int{false: 0, true: 1}[add] {
		t.Fatalf("hook type %d of %d types, want %d of %d types + %v", hook.TypeIndex, len(m2.Types), want, len(m1.Types), add)
	}
}

// funcRef is a call or ref.func instruction and the function it names.
type funcRef struct {
	op  uint32
	idx uint32
}

// refs lists the call and ref.func instructions of a body, in order, leaving out calls to skip.
func refs(t *testing.T, body []byte, skip int64) []funcRef {
	t.Helper()
	var out []funcRef
	r := newReader(body, 0)
	var in instr
	for !r.Done() {
		if err := readInstr(r, &in); err != nil {
			t.Fatal(err)
		}
		if in.op == opCall && int64(in.idx) != skip || in.op == opRefFunc {
			out = append(out, funcRef{in.op, in.idx})
		}
	}
	return out
}

// countCalls counts the calls to f in body.
func countCalls(t *testing.T, body []byte, f uint32) int {
	t.Helper()
	n := 0
	r := newReader(body, 0)
	var in instr
	for !r.Done() {
		if err := readInstr(r, &in); err != nil {
			t.Fatal(err)
		}
		if in.op == opCall && in.idx == f {
			n++
		}
	}
	return n
}

// exprFunc returns the function a one-instruction constant expression names, or -1 for ref.null
// and -2 for anything else.
func exprFunc(t *testing.T, expr []byte) int64 {
	t.Helper()
	r := newReader(expr, 0)
	var in instr
	if err := readInstr(r, &in); err != nil {
		t.Fatal(err)
	}
	switch in.op {
	case opRefFunc:
		return int64(in.idx)
	case opRefNull:
		return -1
	}
	return -2
}

// TestFuelHookIndices instruments hook.wasm, which names functions in every way a module can,
// with the hook, and checks the output both structurally (every reference moved to the same
// function's new index) and by running it against the original: every table slot, the start
// function's effects, direct calls, re-exported imports and the names in a trap's stack trace.
func TestFuelHookIndices(t *testing.T) {
	b := readTestdata(t, "hook.wasm")
	m1 := mustDecode(t, b)
	out := mode(t, "hook").instrument(t, b)
	trapOut := mode(t, "trap").instrument(t, b)
	m2, mt := mustDecode(t, out), mustDecode(t, trapOut)
	checkHookImport(t, m1, m2)
	h := m1.NumImportedFuncs
	shift := func(i uint32) uint32 {
		if i >= h {
			return i + 1
		}
		return i
	}
	shiftRef := func(i int64) int64 {
		if i >= int64(h) {
			return i + 1
		}
		return i
	}
	// orig maps an output function index back to the input function it runs: wrappers (after
	// every other function) run the function they call.
	orig := func(i uint32) int64 {
		switch {
		case i < h:
			return int64(i)
		case i == h:
			return -1 // the hook
		case i > m1.NumFuncs():
			body := m2.Code[i-m2.NumImportedFuncs].Body
			rs := refs(t, body, -1)
			if len(rs) != 1 || rs[0].op != opCall {
				t.Fatalf("wrapper %d: % x", i, body)
			}
			f := rs[0].idx
			if f <= h || f > m1.NumFuncs() {
				t.Fatalf("wrapper %d calls %d", i, f)
			}
			return int64(f - 1)
		}
		return int64(i - 1)
	}

	// Exports: same function, wrapped or not; both exports of $plain share one wrapper.
	wrapped := map[uint32]uint32{}
	for i, e := range m1.Exports {
		e2 := m2.Exports[i]
		if e2.Name != e.Name || e2.Kind != e.Kind {
			t.Fatalf("export %d: %+v, want %+v", i, e2, e)
		}
		if e.Kind != ExternFunc {
			continue
		}
		if got := orig(e2.Index); got != int64(e.Index) {
			t.Errorf("export %q names %d, which runs %d, want %d", e.Name, e2.Index, got, e.Index)
		}
		if e2.Index > m1.NumFuncs() {
			if w, ok := wrapped[e.Index]; ok && w != e2.Index {
				t.Errorf("function %d has two wrappers, %d and %d", e.Index, w, e2.Index)
			}
			wrapped[e.Index] = e2.Index
		} else if e2.Index != shift(e.Index) {
			t.Errorf("export %q: %d, want %d", e.Name, e2.Index, shift(e.Index))
		}
	}
	if len(wrapped) == 0 || exportIndex(t, m2, "f1") != 0 {
		t.Fatalf("wrapped %v; f1 = %d", wrapped, exportIndex(t, m2, "f1"))
	}
	// Start: $init is called only from the start section, so it goes through a wrapper.
	if *m2.StartFunc <= m1.NumFuncs() || orig(*m2.StartFunc) != int64(*m1.StartFunc) {
		t.Fatalf("start %d runs %d, want %d", *m2.StartFunc, orig(*m2.StartFunc), *m1.StartFunc)
	}
	// Element segments of every encoding.
	if len(m2.Elements) != 8 {
		t.Fatalf("%d element segments", len(m2.Elements))
	}
	for i, s1 := range m1.Elements {
		s2 := m2.Elements[i]
		if s2.Flags != s1.Flags || s2.ItemCount != s1.ItemCount || !bytes.Equal(s2.Offset, s1.Offset) {
			t.Fatalf("element segment %d: %+v, want %+v", i, s2, s1)
		}
		if !s1.UsesExprs() {
			f1, f2 := s1.FuncIndices(), s2.FuncIndices()
			for j := range f1 {
				if f2[j] != shift(f1[j]) {
					t.Errorf("element segment %d item %d: %d, want %d", i, j, f2[j], shift(f1[j]))
				}
			}
			continue
		}
		e1, e2 := s1.Exprs(), s2.Exprs()
		for j := range e1 {
			if got, want := exprFunc(t, e2[j]), shiftRef(exprFunc(t, e1[j])); got != want || got == -2 {
				t.Errorf("element segment %d item %d: %d, want %d", i, j, got, want)
			}
		}
	}
	// Globals' ref.func, the imported $f2 included.
	refGlobals := 0
	for i, g := range m1.Globals {
		if f := exprFunc(t, g.Init); f >= 0 {
			refGlobals++
			if got := exprFunc(t, m2.Globals[i].Init); got != shiftRef(f) {
				t.Errorf("global %d: ref.func %d, want %d", i, got, shiftRef(f))
			}
		}
	}
	if refGlobals != 2 {
		t.Fatalf("%d globals with ref.func", refGlobals)
	}
	// Code: call and ref.func moved; a check calls the hook exactly where the trap-mode output
	// has its unreachable check.
	trapCheck := checkCode(mt.NumImportedGlobals-1, indexShift{global: mt.NumImportedGlobals - 1})
	for i, c := range m1.Code {
		want := refs(t, c.Body, -1)
		for j := range want {
			want[j].idx = shift(want[j].idx)
		}
		body2 := m2.Code[i].Body
		if got := refs(t, body2, int64(h)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("function %d: %v, want %v", h+uint32(i), got, want)
		}
		// Bulk instructions add one hook call each, after them, for the deadline.
		if got, want := countCalls(t, body2, h), bytes.Count(mt.Code[i].Body, trapCheck)+countBulk(t, c.Body); got != want {
			t.Errorf("function %d: %d hook calls, want %d checks in trap mode plus bulk instructions", h+uint32(i), got, want)
		}
	}

	// Run both against the original; the fuel must equal the trap-mode count.
	type result struct {
		res  []uint64
		err  string
		fuel int64
	}
	run := func(fm fuelMode, bin []byte) (map[string]result, uint64) {
		s := fm.sandbox(t)
		s.instantiateNamed(readTestdata(t, "env.wasm"), "env")
		s.setFuel(1 << 40)
		m := s.instantiate(bin)
		got := map[string]result{}
		call := func(key, fn string, args ...uint64) {
			res, used, err := s.call(m, 1<<40, fn, args...)
			r := result{res: res, fuel: used}
			if err != nil {
				r.err = errors.Unwrap(err).Error()
				if !strings.Contains(err.Error(), ".deeper") && fn == "trap" {
					t.Errorf("%s: the stack trace does not name $deeper: %v", fm.name, err)
				}
			}
			got[key] = r
		}
		for i := uint64(0); i < 16; i++ {
			call(fmt.Sprint("via ", i), "via", i, 1000)
		}
		for i := uint64(0); i < 4; i++ {
			call(fmt.Sprint("via2 ", i), "via2", i, 1000)
		}
		for _, fn := range []string{"plain", "plain2", "one", "f1", "trap"} {
			call(fn, fn, 1000)
		}
		return got, m.ExportedGlobal("started").Get()
	}
	want, wantStarted := run(fuelModes[0], b)
	trapRes, _ := run(fuelModes[0], trapOut)
	got, gotStarted := run(fuelModes[1], out)
	if wantStarted != 103 || gotStarted != wantStarted {
		t.Errorf("started = %d, want %d (103)", gotStarted, wantStarted)
	}
	// What each table slot holds, as computed for x = 1000 (0 for a null or empty slot), so that
	// the original is checked too: $k gives 1000+k or 1000*k, and env's f gives 3000.
	tables := map[string][]uint64{
		"via":  {1001, 2000, 6000, 0, 3000, 1003, 4000, 8000, 1001, 0, 1007, 10000, 1011, 3000, 12000, 0},
		"via2": {1005, 3000, 1009, 0},
	}
	for fn, slots := range tables {
		for i, v := range slots {
			k := fmt.Sprint(fn, " ", i)
			if w := want[k]; v == 0 && w.err == "" || v != 0 && (w.err != "" || w.res[0] != v) {
				t.Errorf("original %s: %v %q, want %d", k, w.res, w.err, v)
			}
		}
	}
	if w := want["plain"]; w.err != "" || w.res[0] != 3*2*1001+1000 {
		t.Errorf("original plain: %v %q", w.res, w.err)
	}
	for k, w := range want {
		g := got[k]
		if w.err != g.err || !equalU64(w.res, g.res) {
			t.Errorf("%s: %v %q, want %v %q", k, g.res, g.err, w.res, w.err)
		}
		if g.fuel != trapRes[k].fuel {
			t.Errorf("%s: %d fuel with the hook, %d with trapping checks", k, g.fuel, trapRes[k].fuel)
		}
	}

	// Names: every function keeps its name and its locals' names at its new index.
	for i := uint32(0); i < m1.NumFuncs(); i++ {
		if m2.FuncName(shift(i)) != m1.FuncName(i) {
			t.Errorf("function %d is named %q, function %d was %q", shift(i), m2.FuncName(shift(i)), i, m1.FuncName(i))
		}
	}
	if m2.FuncName(h) != "" {
		t.Errorf("the hook is named %q", m2.FuncName(h))
	}
	l1, l2 := indirectNames(t, m1, nameLocals), indirectNames(t, m2, nameLocals)
	if len(l1) < 10 || len(l2) != len(l1) {
		t.Fatalf("local names of %d functions, then %d", len(l1), len(l2))
	}
	for f, names := range l1 {
		if fmt.Sprint(l2[shift(f)]) != fmt.Sprint(names) {
			t.Errorf("locals of function %d: %v, want %v", shift(f), l2[shift(f)], names)
		}
	}
	// wazero reads the same names: the debug names in stack traces and the parameter names.
	s := newHookSandbox(t, 100)
	c, err := s.r.CompileModule(s.ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defs := c.ExportedFunctions()
	for _, want := range []struct{ export, debug, param string }{{"one", ".one", "x"}, {"f1", ".f1", ""}, {"plain", ".plain", ""}} {
		d := defs[want.export]
		if d.DebugName() != want.debug || want.param != "" && (len(d.ParamNames()) == 0 || d.ParamNames()[0] != want.param) {
			t.Errorf("export %s: %s %v, want %s (%s)", want.export, d.DebugName(), d.ParamNames(), want.debug, want.param)
		}
	}
	var hookDef api.FunctionDefinition
	for _, d := range c.ImportedFunctions() {
		if mod, name, _ := d.Import(); mod == "kobako:fuel" && name == "exhausted" {
			hookDef = d
		}
	}
	if hookDef == nil || hookDef.Index() != h {
		t.Fatalf("hook import %v", hookDef)
	}
}

// mode returns the fuel mode called name.
func mode(t *testing.T, name string) fuelMode {
	for _, m := range fuelModes {
		if m.name == name {
			return m
		}
	}
	t.Fatalf("no fuel mode %q", name)
	return fuelMode{}
}

// nameSubsections returns the payloads of the name section's subsections by id.
func nameSubsections(t *testing.T, m *Module) map[byte][]byte {
	t.Helper()
	out := map[byte][]byte{}
	for _, c := range m.CustomSections {
		if c.Name != "name" {
			continue
		}
		r := newReader(c.Data, 0)
		for !r.Done() {
			id, _ := r.Byte()
			size, _ := r.U32()
			sub, err := r.Bytes(uint64(size))
			if err != nil {
				t.Fatal(err)
			}
			out[id] = sub
		}
	}
	return out
}

// indirectNames decodes an indirect name map subsection (local or label names).
func indirectNames(t *testing.T, m *Module, id byte) map[uint32]map[uint32]string {
	t.Helper()
	sub, ok := nameSubsections(t, m)[id]
	if !ok {
		return nil
	}
	r := newReader(sub, 0)
	n, _ := r.U32()
	out := map[uint32]map[uint32]string{}
	for i := uint32(0); i < n; i++ {
		f, _ := r.U32()
		k, _ := r.U32()
		out[f] = map[uint32]string{}
		for j := uint32(0); j < k; j++ {
			idx, _ := r.U32()
			name, err := r.Name()
			if err != nil {
				t.Fatal(err)
			}
			out[f][idx] = name
		}
	}
	if !r.Done() {
		t.Fatalf("subsection %d: trailing bytes", id)
	}
	return out
}

// nameMap encodes a name map, or an indirect one when the values are maps.
func nameMap(entries ...any) []byte {
	b := appendU32(nil, uint32(len(entries)/2))
	for i := 0; i < len(entries); i += 2 {
		b = appendU32(b, uint32(entries[i].(int)))
		switch v := entries[i+1].(type) {
		case string:
			b = appendName(b, v)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

func subsection(id byte, payload []byte) []byte {
	return append(appendU32([]byte{id}, uint32(len(payload))), payload...)
}

// TestFuelHookNameSection checks the name section of a hand-assembled module with function,
// local, label, type and module names: with the hook, the maps keyed by function index move to
// the new indices, the others are copied, and a map that cannot be read is dropped rather than
// left to name the wrong functions. Without the hook, nothing changes.
func TestFuelHookNameSection(t *testing.T) {
	funcNames := nameMap(0, "imp", 1, "a", 2, "b")
	localNames := nameMap(1, nameMap(0, "x"), 2, nameMap(0, "y"))
	labelNames := nameMap(2, nameMap(0, "lbl"))
	typeNames := nameMap(0, "t")
	build := func(subs ...[]byte) []byte {
		name := appendName(nil, "name")
		for _, s := range subs {
			name = append(name, s...)
		}
		return module(
			sec(secType, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f),
			sec(secImport, 0x01, 0x03, 'e', 'n', 'v', 0x01, 'f', 0x00, 0x00),
			sec(secFunction, 0x02, 0x00, 0x00),
			sec(secExport, 0x02, 0x01, 'a', 0x00, 0x01, 0x01, 'b', 0x00, 0x02),
			// Declared for ref.func, so not wrapped: wazero then shows their parameter names.
			sec(secElement, 0x01, 0x03, 0x00, 0x02, 0x01, 0x02),
			sec(secCode, 0x02, 0x04, 0x00, 0x20, 0x00, 0x0b, 0x09, 0x00, 0x02, 0x7f, 0x20, 0x00, 0x10, 0x00, 0x0b, 0x0b),
			sec(secCustom, name...),
		)
	}
	good := [][]byte{subsection(0, appendName(nil, "m")), subsection(1, funcNames), subsection(2, localNames),
		subsection(3, labelNames), subsection(4, typeNames)}
	cases := []struct {
		name string
		subs [][]byte
		want map[byte][]byte // hook mode; nil means the subsection is dropped
	}{
		{"well formed", good, map[byte][]byte{
			0: appendName(nil, "m"),
			1: nameMap(0, "imp", 2, "a", 3, "b"),
			2: nameMap(2, nameMap(0, "x"), 3, nameMap(0, "y")),
			3: nameMap(3, nameMap(0, "lbl")),
			4: typeNames,
		}},
		{"bad function names", [][]byte{subsection(1, funcNames[:len(funcNames)-1]), subsection(2, localNames)}, map[byte][]byte{
			1: nil,
			2: nameMap(2, nameMap(0, "x"), 3, nameMap(0, "y")),
		}},
		{"bad local names", [][]byte{subsection(1, funcNames), subsection(2, append(localNames, 0x00)), subsection(3, labelNames)}, map[byte][]byte{
			1: nameMap(0, "imp", 2, "a", 3, "b"),
			2: nil,
			3: nameMap(3, nameMap(0, "lbl")),
		}},
		{"bad label names", [][]byte{subsection(3, nameMap(2, nameMap(0, "lbl", 1, "more"))[:9])}, map[byte][]byte{3: nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := build(c.subs...)
			m1 := mustDecode(t, b)
			before := nameSubsections(t, m1)
			trap := nameSubsections(t, mustDecode(t, mode(t, "trap").instrument(t, b)))
			for id, sub := range before {
				if !bytes.Equal(trap[id], sub) {
					t.Errorf("trap mode changed subsection %d: % x, want % x", id, trap[id], sub)
				}
			}
			out := mode(t, "hook").instrument(t, b)
			hooked := nameSubsections(t, mustDecode(t, out))
			dropped := 0
			for _, want := range c.want {
				if want == nil {
					dropped++
				}
			}
			if len(hooked) != len(before)-dropped {
				t.Errorf("%d subsections, %d before, %d dropped", len(hooked), len(before), dropped)
			}
			for id, want := range c.want {
				got, ok := hooked[id]
				if want == nil && ok || want != nil && !bytes.Equal(got, want) {
					t.Errorf("subsection %d: % x (present %v), want % x", id, got, ok, want)
				}
			}
			if c.name != "well formed" {
				return
			}
			s := newHookSandbox(t, 100)
			cm, err := s.r.CompileModule(s.ctx, out)
			if err != nil {
				t.Fatal(err)
			}
			for export, want := range map[string][2]string{"a": {"m.a", "x"}, "b": {"m.b", "y"}} {
				d := cm.ExportedFunctions()[export]
				if d.DebugName() != want[0] || len(d.ParamNames()) != 1 || d.ParamNames()[0] != want[1] {
					t.Errorf("export %s: %s %v, want %s [%s]", export, d.DebugName(), d.ParamNames(), want[0], want[1])
				}
			}
			for _, d := range cm.ImportedFunctions() {
				want := map[uint32]string{0: "m.imp", 1: "m.$1"}[d.Index()]
				if d.DebugName() != want {
					t.Errorf("import %d: %s, want %s", d.Index(), d.DebugName(), want)
				}
			}
		})
	}
}

// TestFuelHookRefills checks the hook protocol: a call that costs exactly N uses exactly N however
// the budget is sliced, succeeds with N and fails with N-1; a call-free infinite loop keeps
// calling the hook until the budget is spent; a hook that stops the call (as a deadline would)
// stops a loop that has fuel to spare; and the hook is not called while fuel remains.
func TestFuelHookRefills(t *testing.T) {
	fib := mode(t, "hook").instrument(t, readTestdata(t, "fib.wasm"))
	n := fibFuel(15)
	for _, slice := range []int64{1, 10, 97, n - 1, n, 1 << 40} {
		s := newHookSandbox(t, slice)
		m := s.instantiate(fib)
		res, used, err := s.call(m, 1<<40, "fib", 15)
		if err != nil || res[0] != 610 || used != n {
			t.Fatalf("slice %d: fib(15) = %v, %d fuel, %v; want 610, %d fuel", slice, res, used, err, n)
		}
		// fib checks once per call that recurses, after charging at least 9: with slices of 1
		// every such check finds the counter negative. With a slice of n, it never is.
		want := -1
		switch {
		case slice == 1:
			want = fibCalls(15)
		case slice >= n:
			want = 0
		}
		if want >= 0 && s.hookCalls != want || want < 0 && s.hookCalls == 0 {
			t.Fatalf("slice %d: %d hook calls, want %d", slice, s.hookCalls, want)
		}
		if _, _, err := s.call(m, n, "fib", 15); err != nil || s.remaining() != 0 {
			t.Fatalf("slice %d: with exactly %d fuel: %v, %d left", slice, n, err, s.remaining())
		}
		_, _, err = s.call(m, n-1, "fib", 15)
		if s.remaining() >= 0 || err != nil && !errors.Is(err, errFuelExhausted) {
			t.Fatalf("slice %d: with %d fuel: %v, %d left", slice, n-1, err, s.remaining())
		}
	}

	// (loop br 0) charges 1 per iteration and checks each time: the hook runs every slice+1
	// iterations until the budget is gone, and stops the loop exactly one past it.
	spin := mode(t, "hook").instrument(t, readTestdata(t, "exhaust.wasm"))
	s := newHookSandbox(t, 100)
	m := s.instantiate(spin)
	_, used, err := s.call(m, 10_000, "spin")
	if !errors.Is(err, errFuelExhausted) || used != 10_001 || s.hookCalls != 100 {
		t.Fatalf("spin: %v after %d fuel and %d hook calls, want exhaustion after 10001 and 100", err, used, s.hookCalls)
	}

	// A hook that gives up after 50 calls, like a deadline check, ends the loop however much fuel
	// is left.
	errDeadline := errors.New("deadline exceeded")
	s.onHook = func() {
		if s.hookCalls == 50 {
			panic(errDeadline)
		}
	}
	_, used, err = s.call(m, 1<<62, "spin")
	if !errors.Is(err, errDeadline) || used != 50*101 {
		t.Fatalf("spin with a deadline: %v after %d fuel", err, used)
	}
}

// fibCalls returns the number of calls to fib.wat's fib that recurse in computing fib(n).
func fibCalls(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + fibCalls(n-1) + fibCalls(n-2)
}

// TestFuelHookShapes instruments small modules with the hook: no imports at all, only function
// imports, function and global imports, a [] -> [] type to reuse, no type section, and a custom
// section ahead of the sections Instrument creates. Each must compile, and those with an export
// "f" must give the original's results using the trap mode's fuel.
func TestFuelHookShapes(t *testing.T) {
	un := sec(secType, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f)
	envF := []byte{0x03, 'e', 'n', 'v', 0x01, 'f', 0x00, 0x00}
	cases := []struct {
		name string
		b    []byte
		arg  uint64
		want uint64
	}{
		{"no imports", module(un, sec(secFunction, 0x02, 0x00, 0x00), sec(secExport, 0x01, 0x01, 'f', 0x00, 0x01),
			sec(secCode, 0x02, 0x07, 0x00, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x0b, 0x08, 0x00, 0x20, 0x00, 0x10, 0x00, 0x10, 0x00, 0x0b)), 5, 7},
		{"only function imports", module(un, sec(secImport, append([]byte{0x01}, envF...)...), sec(secFunction, 0x01, 0x00),
			sec(secExport, 0x01, 0x01, 'f', 0x00, 0x01), sec(secCode, 0x01, 0x09, 0x00, 0x20, 0x00, 0x10, 0x00, 0x41, 0x01, 0x6a, 0x0b)), 5, 16},
		{"function and global imports", module(un,
			sec(secImport, append(append([]byte{0x03}, envF...), 0x03, 'e', 'n', 'v', 0x04, 'b', 'a', 's', 'e', 0x03, 0x7f, 0x00,
				0x03, 'e', 'n', 'v', 0x07, 'c', 'o', 'u', 'n', 't', 'e', 'r', 0x03, 0x7e, 0x01)...),
			sec(secFunction, 0x01, 0x00), sec(secGlobal, 0x01, 0x7f, 0x01, 0x23, 0x00, 0x0b),
			sec(secExport, 0x02, 0x01, 'f', 0x00, 0x01, 0x01, 'v', 0x03, 0x02),
			sec(secCode, 0x01, 0x0d, 0x00, 0x20, 0x00, 0x10, 0x00, 0x23, 0x02, 0x6a, 0x24, 0x02, 0x23, 0x02, 0x0b)), 5, 18},
		{"reused empty type", module(sec(secType, 0x02, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x00), sec(secFunction, 0x02, 0x00, 0x01),
			sec(secExport, 0x01, 0x01, 'f', 0x00, 0x00), sec(secCode, 0x02, 0x06, 0x00, 0x20, 0x00, 0x10, 0x01, 0x0b, 0x02, 0x00, 0x0b)), 5, 5},
		{"no type section", module(sec(secMemory, 0x01, 0x00, 0x01), sec(secExport, 0x01, 0x01, 'm', 0x02, 0x00)), 0, 0},
		{"custom first", module(sec(secCustom, 0x01, 'x', 0xaa), sec(secImport, 0x01, 0x03, 'e', 'n', 'v', 0x04, 'b', 'a', 's', 'e', 0x03, 0x7f, 0x00),
			sec(secCustom, 0x01, 'y', 0x00)), 0, 0},
		{"empty", module(), 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m1 := mustDecode(t, c.b)
			out := mode(t, "hook").instrument(t, c.b)
			m2 := mustDecode(t, out)
			checkHookImport(t, m1, m2)
			if !equalStrings(m2.CustomSectionNames(), m1.CustomSectionNames()) {
				t.Fatalf("custom sections %v", m2.CustomSectionNames())
			}
			var res [3][]uint64
			var fuel [3]int64
			for i, bin := range [][]byte{c.b, mode(t, "trap").instrument(t, c.b), out} {
				sandboxMode := fuelModes[max(i-1, 0)] // trap, trap, hook
				s := sandboxMode.sandbox(t)
				s.instantiateNamed(readTestdata(t, "env.wasm"), "env")
				m := s.instantiate(bin)
				if m.ExportedFunction("f") == nil {
					return
				}
				var err error
				if res[i], fuel[i], err = s.call(m, 1000, "f", c.arg); err != nil {
					t.Fatal(err)
				}
			}
			if res[0][0] != c.want || res[1][0] != c.want || res[2][0] != c.want || fuel[1] != fuel[2] || fuel[1] <= 0 {
				t.Fatalf("results %v, fuel %v, want %d", res, fuel, c.want)
			}
		})
	}
}

// TestFuelHookErrors checks the options the hook adds.
func TestFuelHookErrors(t *testing.T) {
	opt := hookOpts
	opt.FuelHook = opt.FuelGlobal
	_, err := Instrument(mustDecode(t, readTestdata(t, "fib.wasm")), opt)
	if !errors.Is(err, ErrInstrument) || !strings.Contains(err.Error(), "both named") {
		t.Fatalf("error %v", err)
	}
}

// countBulk counts the bulk memory and table instructions of a body.
func countBulk(t *testing.T, body []byte) int {
	t.Helper()
	r := newReader(body, 0)
	var in instr
	n := 0
	for !r.Done() {
		if err := readInstr(r, &in); err != nil {
			t.Fatal(err)
		}
		if isBulk(in.op) {
			n++
		}
	}
	return n
}
