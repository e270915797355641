package wasm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

var fixtures = []string{"allops.wasm", "control.wasm", "env.wasm", "exhaust.wasm", "fib.wasm", "globals.wasm", "hook.wasm"}

// TestInstrumentCompiles checks that wazero accepts every fixture after instrumentation, and that
// the output decodes again with the fuel import last and, in hook mode, the hook right after the
// original function imports.
func TestInstrumentCompiles(t *testing.T) {
	for _, fm := range fuelModes {
		for _, name := range fixtures {
			t.Run(fm.name+"/"+name, func(t *testing.T) {
				b := readTestdata(t, name)
				out := fm.instrument(t, b)
				ctx := context.Background()
				r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(api.CoreFeaturesV2))
				defer r.Close(ctx)
				if _, err := r.CompileModule(ctx, out); err != nil {
					t.Fatalf("wazero rejects the instrumented module: %v", err)
				}
				m2 := mustDecode(t, out)
				last := m2.Imports[len(m2.Imports)-1]
				if last.Module != testOpts.FuelModule || last.Name != testOpts.FuelGlobal || last.Kind != ExternGlobal ||
					last.Global != (GlobalType{ValType: I64, Mutable: true}) {
					t.Fatalf("last import = %+v", last)
				}
				m1 := mustDecode(t, b)
				added := 0
				if fm.hook() {
					added = 1
					checkHookImport(t, m1, m2)
				}
				if m2.NumImportedGlobals != m1.NumImportedGlobals+1 || len(m2.Globals) != len(m1.Globals) ||
					m2.NumImportedFuncs != m1.NumImportedFuncs+uint32(added) || len(m2.Imports) != len(m1.Imports)+1+added ||
					len(m2.Code) < len(m1.Code) || len(m2.Code) > len(m1.Code)+len(m1.Exports)+1 || len(m2.Exports) != len(m1.Exports) {
					t.Fatal("instrumented module has a different shape")
				}
				if !equalStrings(m1.CustomSectionNames(), m2.CustomSectionNames()) {
					t.Fatalf("custom sections %v, want %v", m2.CustomSectionNames(), m1.CustomSectionNames())
				}
			})
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInstrumentPreservesSemantics runs every export of control.wasm on the original and on the
// instrumented module and compares results and traps.
func TestInstrumentPreservesSemantics(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testPreservesSemantics(t, fm) })
	}
}

func testPreservesSemantics(t *testing.T, fm fuelMode) {
	b := readTestdata(t, "control.wasm")
	out := fm.instrument(t, b)
	s := fm.sandbox(t)
	orig, inst := s.instantiate(b), s.instantiate(out)
	cases := []struct {
		fn   string
		args [][]uint64
	}{
		{"straight", [][]uint64{{}}},
		{"sum", [][]uint64{{0}, {1}, {10}, {1000}}},
		{"countdown", [][]uint64{{1}, {5}, {100}}},
		{"ifelse", [][]uint64{{0}, {1}}},
		{"ifnoelse", [][]uint64{{0}, {1}}},
		{"switch", [][]uint64{{0}, {1}, {2}, {3}, {4}, {1 << 31}}},
		{"nested", [][]uint64{{0}, {1}, {2}, {3}, {4}, {5}}},
		{"multi", [][]uint64{{0}, {7}}},
		{"callmulti", [][]uint64{{0}, {9}}},
		{"plainloop", [][]uint64{{}}},
		{"nestedloops", [][]uint64{{0}, {1}, {7}}},
		{"mem", [][]uint64{{0}, {1}, {77}}},
		{"early", [][]uint64{{0}, {1}}},
		{"trap", [][]uint64{{}}},
		{"indirect", [][]uint64{{0, 5}, {1, 5}, {2, 5}}},
	}
	for _, c := range cases {
		for _, args := range c.args {
			want, _, werr := s.call(orig, 0, c.fn, args...)
			got, _, gerr := s.call(inst, 1<<40, c.fn, args...)
			if (werr == nil) != (gerr == nil) || werr != nil && errors.Unwrap(werr).Error() != errors.Unwrap(gerr).Error() {
				t.Errorf("%s%v: error %v, want %v", c.fn, args, gerr, werr)
				continue
			}
			if len(want) != len(got) || len(want) > 0 && want[0] != got[0] {
				t.Errorf("%s%v = %v, want %v", c.fn, args, got, want)
			}
		}
	}
}

// TestInstrumentGlobals checks that every use of a defined global still reaches the same global
// after the fuel import shifts their indices, in code, constant expressions and exports.
func TestInstrumentGlobals(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testGlobals(t, fm) })
	}
}

func testGlobals(t *testing.T, fm fuelMode) {
	b := readTestdata(t, "globals.wasm")
	out := fm.instrument(t, b)
	run := func(bin []byte) (res []uint64, g0, g2 uint64, mem []byte) {
		s := fm.sandbox(t)
		s.instantiateNamed(readTestdata(t, "env.wasm"), "env")
		m := s.instantiate(bin)
		for _, fn := range []string{"bump", "bump"} {
			if _, _, err := s.call(m, 1<<40, fn, 5); err != nil {
				t.Fatal(err)
			}
		}
		r1, _, err := s.call(m, 1<<40, "sum")
		if err != nil {
			t.Fatal(err)
		}
		r2, _, err := s.call(m, 1<<40, "bulk")
		if err != nil {
			t.Fatal(err)
		}
		r3, _, err := s.call(m, 1<<40, "viaelem")
		if err != nil {
			t.Fatal(err)
		}
		r4, _, err := s.call(m, 1<<40, "callf", 7)
		if err != nil {
			t.Fatal(err)
		}
		mm, _ := m.Memory().Read(0, 400)
		return []uint64{r1[0], r2[0], r3[0], r4[0]}, m.ExportedGlobal("g0").Get(), m.ExportedGlobal("g2").Get(), bytes.Clone(mm)
	}
	wr, wg0, wg2, wm := run(b)
	gr, gg0, gg2, gm := run(out)
	if !equalU64(wr, gr) || wg0 != gg0 || wg2 != gg2 || !bytes.Equal(wm, gm) {
		t.Fatalf("instrumented: results %v g0 %d g2 %d; original: results %v g0 %d g2 %d (memory equal %v)", gr, gg0, gg2, wr, wg0, wg2, bytes.Equal(wm, gm))
	}
	// The name section's global names moved with the globals.
	m2 := mustDecode(t, out)
	names := globalNames(t, m2)
	if names[m2.NumImportedGlobals] != "g0" || names[1] != "counter" || names[0] != "base" {
		t.Fatalf("global names after instrumentation: %v", names)
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func globalNames(t *testing.T, m *Module) map[uint32]string {
	t.Helper()
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
			if id != nameGlobals {
				continue
			}
			sr := newReader(sub, 0)
			n, _ := sr.U32()
			out := map[uint32]string{}
			for i := uint32(0); i < n; i++ {
				idx, _ := sr.U32()
				name, err := sr.Name()
				if err != nil {
					t.Fatal(err)
				}
				out[idx] = name
			}
			return out
		}
	}
	t.Fatal("no global names")
	return nil
}

// TestInstrumentGoProgram instruments a Go program compiled for wasip1 and checks that it prints
// the same output under WASI, and that it runs out of fuel when given too little.
func TestInstrumentGoProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	wasmPath := filepath.Join(t.TempDir(), "gohello.wasm")
	cmd := exec.Command(gobin, "build", "-trimpath", "-o", wasmPath, "./testdata/gohello")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	m := mustDecode(t, b)
	if err := m.CheckEngineFeatures(); err != nil {
		t.Fatal(err)
	}
	// The hook hands out the fuel 4096 at a time: the run goes through hundreds of refills.
	var fuel []int64
	for _, fm := range []fuelMode{fuelModes[0], {"hook", hookOpts, 4096}} {
		t.Run(fm.name, func(t *testing.T) {
			fuel = append(fuel, testGoProgram(t, fm, b))
		})
	}
	if len(fuel) == 2 && fuel[0] != fuel[1] {
		t.Fatalf("the Go program used %d fuel with trapping checks and %d with the hook", fuel[0], fuel[1])
	}
}

// testGoProgram runs gohello (the binary b) instrumented in mode fm and returns the fuel it used.
func testGoProgram(t *testing.T, fm fuelMode, b []byte) int64 {
	out, err := Instrument(mustDecode(t, b), fm.opts)
	if err != nil {
		t.Fatal(err)
	}
	hookCalls := 0
	runGo := func(bin []byte, fuel int64) (string, int64, error) {
		s := fm.sandbox(t)
		wasi_snapshot_preview1.MustInstantiate(s.ctx, s.r)
		var stdout bytes.Buffer
		c, err := s.r.CompileModule(s.ctx, bin)
		if err != nil {
			t.Fatal(err)
		}
		s.setFuel(fuel)
		_, err = s.r.InstantiateModule(s.ctx, c, wazero.NewModuleConfig().WithName("").WithStdout(&stdout).WithArgs("gohello"))
		hookCalls = s.hookCalls
		return stdout.String(), fuel - s.remaining(), err
	}
	want, _, err := runGo(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, used, err := runGo(out, 1<<50)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || !strings.Contains(got, "brown") {
		t.Fatalf("instrumented output %q, want %q", got, want)
	}
	again, used2, err := runGo(out, 1<<50)
	if err != nil || again != want || used2 != used {
		t.Fatalf("second run: %q %d %v, want %q %d", again, used2, err, want, used)
	}
	t.Logf("Go program used %d fuel", used)
	// Exactly enough fuel succeeds; one less fails with the counter negative.
	if _, _, err := runGo(out, used); err != nil {
		t.Fatalf("with exactly %d fuel: %v", used, err)
	}
	if fm.hook() && hookCalls < int(used/fm.slice/2) {
		t.Fatalf("%d fuel in slices of %d took only %d hook calls", used, fm.slice, hookCalls)
	}
	_, consumed, err := runGo(out, used-1)
	if err == nil && consumed <= used-1 {
		t.Fatalf("with %d fuel the program succeeded", used-1)
	}
	if consumed < used {
		t.Fatalf("with %d fuel the counter ended at %d, want it negative", used-1, used-1-consumed)
	}
	if err != nil && !fm.exhausted(err) {
		t.Fatalf("with %d fuel: %v, want exhaustion", used-1, err)
	}
	return used
}

func TestInstrumentTables(t *testing.T) {
	b := readTestdata(t, "globals.wasm") // tables: 10 (no max), 4..20, 3 (no max)
	m := mustDecode(t, b)
	out, err := Instrument(m, InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 12})
	if err != nil {
		t.Fatal(err)
	}
	want := []TableType{
		{ElemType: byte(FuncRef), Min: 10, Max: 12, HasMax: true},
		{ElemType: byte(FuncRef), Min: 4, Max: 12, HasMax: true},
		{ElemType: byte(ExternRef), Min: 3, Max: 12, HasMax: true},
	}
	m2 := mustDecode(t, out)
	for i := range want {
		if m2.Tables[i] != want[i] || m.Tables[i] != want[i] {
			t.Errorf("table %d: output %+v, recorded %+v, want %+v", i, m2.Tables[i], m.Tables[i], want[i])
		}
	}
	if m.DeclaredTables[0].HasMax || m.DeclaredTables[1].Max != 20 {
		t.Errorf("declared tables changed: %+v", m.DeclaredTables)
	}
	// A later call with a larger limit starts from the declared tables, not the clamped ones.
	if _, err := Instrument(m, InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 100}); err != nil {
		t.Fatal(err)
	}
	if m.Tables[1].Max != 20 || m.Tables[0].Max != 100 {
		t.Errorf("tables after second call: %+v", m.Tables)
	}
	// The clamped maximum holds at run time: table.grow past it fails.
	s := newSandbox(t)
	s.instantiateNamed(readTestdata(t, "env.wasm"), "env")
	inst := s.instantiate(out)
	_ = inst

	_, err = Instrument(m, InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 9})
	if !errors.Is(err, ErrTableLimit) || !strings.Contains(err.Error(), "table 0 declares a minimum of 10") {
		t.Fatalf("error %v", err)
	}
}

func TestInstrumentTableGrowClamped(t *testing.T) {
	b := readTestdata(t, "allops.wasm") // (table 4 funcref), exports "table.grow"
	m := mustDecode(t, b)
	out, err := Instrument(m, InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", MaxTableElements: 6})
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t)
	inst := s.instantiate(out)
	res, _, err := s.call(inst, 1000, "table.grow", 0, 2)
	if err != nil || int32(res[0]) != 4 {
		t.Fatalf("grow by 2: %v %v", res, err)
	}
	res, _, err = s.call(inst, 1000, "table.grow", 0, 1)
	if err != nil || int32(res[0]) != -1 {
		t.Fatalf("grow past the limit: %v %v", res, err)
	}
}

func TestInstrument_Errors(t *testing.T) {
	fib := readTestdata(t, "fib.wasm")
	cases := []struct {
		name string
		b    []byte
		opt  InstrumentOptions
		want error
		msg  string
	}{
		{"no fuel name", fib, InstrumentOptions{FuelGlobal: "remaining"}, ErrInstrument, "needs a module"},
		{"already imports fuel", module(sec(secImport, 0x01, 0x0b, 'k', 'o', 'b', 'a', 'k', 'o', ':', 'f', 'u', 'e', 'l', 0x01, 'x', 0x03, 0x7e, 0x01)),
			testOpts, ErrInstrument, `already uses the fuel module name "kobako:fuel"`},
		{"unsupported feature", readTestdata(t, "features/threads.wasm"), testOpts, ErrUnsupportedFeature, "threads"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Instrument(mustDecode(t, c.b), c.opt)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "wasm: instrument: ") {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestInstrumentShapes covers modules without an import section, with only custom sections, and
// the data segment encoding wat2wasm never writes (2, explicit memory 0).
func TestInstrumentShapes(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", module()},
		{"data encoding 2, imported global", module(sec(secImport, 0x01, 0x01, 'e', 0x01, 'g', 0x03, 0x7f, 0x00), sec(secMemory, 0x01, 0x00, 0x01),
			sec(secData, 0x01, 0x02, 0x00, 0x23, 0x00, 0x0b, 0x02, 'h', 'i'))},
		{"only custom", module(sec(secCustom, 0x01, 'x', 0xaa))},
		{"custom before type", module(sec(secCustom, 0x01, 'x'), sec(secType, 0x01, 0x60, 0x00, 0x00), sec(secFunction, 0x01, 0x00),
			sec(secCode, 0x01, 0x02, 0x00, 0x0b), sec(secCustom, 0x01, 'y', 0x00))},
		{"data encoding 2, defined global", module(sec(secMemory, 0x01, 0x00, 0x01), sec(secGlobal, 0x01, 0x7f, 0x00, 0x41, 0x04, 0x0b),
			sec(secData, 0x01, 0x02, 0x00, 0x23, 0x00, 0x0b, 0x02, 'h', 'i'))},
	}
	for _, fm := range fuelModes {
		for _, c := range cases {
			t.Run(fm.name+"/"+c.name, func(t *testing.T) { testShape(t, fm, c.name, c.b) })
		}
		// The data segment's offset global moved from 0 to 1.
		out := fm.instrument(t, cases[len(cases)-1].b)
		m := mustDecode(t, out)
		if d := m.Data[0]; d.Flags != 2 || d.Offset[0] != opGlobalGet || d.Offset[1] != 1 {
			t.Fatalf("data segment %+v", d)
		}
	}
}

func testShape(t *testing.T, fm fuelMode, name string, b []byte) {
	out := fm.instrument(t, b)
	m := mustDecode(t, out)
	if last := m.Imports[len(m.Imports)-1]; last.Module != "kobako:fuel" {
		t.Fatalf("imports %+v", m.Imports)
	}
	if fm.hook() {
		checkHookImport(t, mustDecode(t, b), m)
	}
	if !equalStrings(m.CustomSectionNames(), mustDecode(t, b).CustomSectionNames()) {
		t.Fatalf("custom sections %v", m.CustomSectionNames())
	}
	if strings.Contains(name, "defined global") {
		return // not valid WebAssembly 2.0: only the shift is checked by the caller
	}
	s := fm.sandbox(t)
	if len(m.Imports) > 1 {
		s.instantiateNamed(module(sec(secGlobal, 0x01, 0x7f, 0x00, 0x41, 0x04, 0x0b), sec(secExport, 0x01, 0x01, 'g', 0x03, 0x00)), "e")
	}
	if _, err := s.r.CompileModule(s.ctx, out); err != nil {
		t.Fatal(err)
	}
}

// TestInstrumentDeterministic instruments every fixture twice from separate decodes.
func TestInstrumentDeterministic(t *testing.T) {
	for _, fm := range fuelModes {
		for _, name := range fixtures {
			b := readTestdata(t, name)
			a, c := fm.instrument(t, b), fm.instrument(t, bytes.Clone(b))
			if !bytes.Equal(a, c) {
				t.Fatalf("%s/%s: outputs differ", fm.name, name)
			}
		}
	}
}

// TestInstrumentWrappers checks caller-charged entries: exports and the start function go
// through wrappers that charge the entry block, functions in tables charge themselves, and the
// fuel is the same whichever way a function is entered.
func TestInstrumentWrappers(t *testing.T) {
	b := readTestdata(t, "control.wasm")
	m := mustDecode(t, b)
	out := mustInstrument(t, b)
	m2 := mustDecode(t, out)
	// Every export of a defined function with a non-empty entry block now names a wrapper, except
	// for table members (indirect targets charge themselves).
	wrapped := 0
	for i, e := range m2.Exports {
		if e.Kind != ExternFunc {
			continue
		}
		if e.Index >= m.NumFuncs() {
			wrapped++
			body := m2.Code[e.Index-m2.NumImportedFuncs].Body
			if body[len(body)-1] != opEnd || !bytes.Contains(body, []byte{opCall}) {
				t.Errorf("wrapper of %q: % x", e.Name, body)
			}
		} else if e.Index != m.Exports[i].Index {
			t.Errorf("export %q moved from %d to %d", e.Name, m.Exports[i].Index, e.Index)
		}
	}
	if wrapped == 0 || len(m2.Code) != len(m.Code)+wrapped {
		t.Fatalf("%d wrappers, %d functions before, %d after", wrapped, len(m.Code), len(m2.Code))
	}

	// Start function: the fuel of instantiation is the start function's instructions.
	// i32.const 5; i32.const 6; i32.add; global.set 0: 4 fuel
	start := module(
		sec(secType, 0x01, 0x60, 0x00, 0x00),
		sec(secFunction, 0x01, 0x00),
		sec(secGlobal, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b),
		sec(secExport, 0x01, 0x01, 'g', 0x03, 0x00),
		sec(secStart, 0x00),
		sec(secCode, 0x01, 0x09, 0x00, 0x41, 0x05, 0x41, 0x06, 0x6a, 0x24, 0x00, 0x0b),
	)
	for _, fm := range fuelModes {
		sout := fm.instrument(t, start)
		sm := mustDecode(t, sout)
		// With the hook, it is function 0 and the start function moves to 1, its wrapper to 2.
		want := uint32(1)
		if fm.hook() {
			want = 2
		}
		if *sm.StartFunc != want {
			t.Fatalf("%s: start function %d, want the wrapper %d", fm.name, *sm.StartFunc, want)
		}
		if body := sm.Code[*sm.StartFunc-sm.NumImportedFuncs].Body; !bytes.HasSuffix(body, []byte{opCall, byte(want - 1), opEnd}) {
			t.Fatalf("%s: start wrapper % x does not call the start function", fm.name, body)
		}
		s := fm.sandbox(t)
		s.setFuel(100)
		inst := s.instantiate(sout)
		if got := inst.ExportedGlobal("g").Get(); got != 11 || s.remaining() != 96 {
			t.Fatalf("%s: g = %d, remaining %d, want 11 and 96", fm.name, got, s.remaining())
		}
	}
}

// TestInstrumentWrapperNames checks that stack traces still name exported functions.
func TestInstrumentWrapperNames(t *testing.T) {
	for _, fm := range fuelModes {
		for _, c := range []struct {
			file, export string
			wrapped      bool // else it is in a table and charges its own entry
		}{{"globals.wasm", "bump", false}, {"hook.wasm", "plain", true}, {"hook.wasm", "plain2", true}} {
			b := readTestdata(t, c.file)
			m1 := mustDecode(t, b)
			m2 := mustDecode(t, fm.instrument(t, b))
			found := false
			for _, e := range m2.Exports {
				if e.Kind != ExternFunc || e.Name != c.export {
					continue
				}
				found = true
				first := m1.NumFuncs() // the first wrapper's index
				if fm.hook() {
					first++
				}
				if wrapped := e.Index >= first; wrapped != c.wrapped {
					t.Fatalf("%s: export %s wrapped %v, want %v", fm.name, c.export, wrapped, c.wrapped)
				}
				if got := m2.FuncName(e.Index); got != m1.FuncName(exportIndex(t, m1, c.export)) {
					t.Fatalf("%s: export %s names function %d %q", fm.name, c.export, e.Index, got)
				}
			}
			if !found {
				t.Fatalf("no export %s", c.export)
			}
		}
	}
}

func exportIndex(t *testing.T, m *Module, name string) uint32 {
	t.Helper()
	for _, e := range m.Exports {
		if e.Name == name {
			return e.Index
		}
	}
	t.Fatalf("no export %q", name)
	return 0
}

// TestInstrumentAllOpcodesRun calls every export of allops.wasm with small arguments on the
// original and the metered module, each in a fresh instance, and compares results and traps.
func TestInstrumentAllOpcodesRun(t *testing.T) {
	for _, fm := range fuelModes {
		t.Run(fm.name, func(t *testing.T) { testAllOpcodesRun(t, fm) })
	}
}

func testAllOpcodesRun(t *testing.T, fm fuelMode) {
	b := readTestdata(t, "allops.wasm")
	out := fm.instrument(t, b)
	s := fm.sandbox(t)
	co, err := s.r.CompileModule(s.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := s.r.CompileModule(s.ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for name, def := range co.ExportedFunctions() {
		args := make([]uint64, 0, 8)
		v128 := false
		for _, r := range def.ResultTypes() {
			// v128 cannot cross wazero's API, and references are host pointers that differ
			// between instances.
			v128 = v128 || r == 0x7b || r == 0x70 || r == api.ValueTypeExternref
		}
		for i, p := range def.ParamTypes() {
			switch p {
			case 0x7b: // v128 cannot cross wazero's API; wazero compiled these above
				v128 = true
			case api.ValueTypeF32:
				args = append(args, uint64(api.EncodeF32(float32(i)+1.5)))
			case api.ValueTypeF64:
				args = append(args, api.EncodeF64(float64(i)+2.25))
			default:
				args = append(args, uint64(i+1))
			}
		}
		if v128 {
			continue
		}
		run := func(c wazero.CompiledModule) ([]uint64, string) {
			m, err := s.r.InstantiateModule(s.ctx, c, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(s.ctx)
			s.setFuel(1 << 40)
			res, err := m.ExportedFunction(name).Call(s.ctx, args...)
			if err != nil {
				return nil, errors.Unwrap(err).Error()
			}
			return res, ""
		}
		want, werr := run(co)
		got, gerr := run(ci)
		if werr != gerr || !equalU64(want, got) {
			t.Errorf("%s%v: metered %v %q, original %v %q", name, args, got, gerr, want, werr)
		}
		ran++
	}
	if ran < 150 {
		t.Fatalf("only %d functions ran", ran)
	}
}
