package wasm

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

var unmeteredOpts = UnmeteredOptions{MaxTableElements: 10_000, EmptyModule: "kobako:empty"}

func mustUnmetered(t testing.TB, b []byte, opt UnmeteredOptions) []byte {
	t.Helper()
	out, err := Unmetered(mustDecode(t, b), opt)
	if err != nil {
		t.Fatalf("Unmetered: %v", err)
	}
	return out
}

// interruptingRuntime is the runtime unmetered modules are made for: wazero's interpreter with its
// checks for a closed module at loop headers.
func interruptingRuntime(t testing.TB) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().
		WithCoreFeatures(api.CoreFeaturesV2).WithCloseOnContextDone(true))
	t.Cleanup(func() { _ = r.Close(ctx) })
	return r
}

// TestUnmeteredShape checks every fixture: wazero accepts the output, which has the same imports,
// exports, tables' minima, custom sections and functions, and whose bodies are the input's, with
// an empty loop first in exactly those that call.
func TestUnmeteredShape(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			b := readTestdata(t, name)
			out := mustUnmetered(t, b, unmeteredOpts)
			if _, err := interruptingRuntime(t).CompileModule(context.Background(), out); err != nil {
				t.Fatalf("wazero rejects the output: %v", err)
			}
			m1, m2 := mustDecode(t, b), mustDecode(t, out)
			if len(m1.Imports) != len(m2.Imports) || len(m1.Exports) != len(m2.Exports) || len(m1.Code) != len(m2.Code) ||
				len(m1.Globals) != len(m2.Globals) || len(m1.Tables) != len(m2.Tables) {
				t.Fatal("output has a different shape")
			}
			if !equalStrings(m1.CustomSectionNames(), m2.CustomSectionNames()) {
				t.Fatalf("custom sections %v, want %v", m2.CustomSectionNames(), m1.CustomSectionNames())
			}
			for i := range m1.Code {
				if got, orig := m2.Code[i].Body, m1.Code[i].Body; !bytes.Equal(got, orig) && entryLoopAt(got, orig) < 0 {
					t.Errorf("function %d: body changed other than by an entry loop", i)
				}
			}
			// Deterministic, and the same whether Decode's records were used or not.
			m := mustDecode(t, b)
			again, err := Unmetered(m, unmeteredOpts)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("second run differs (%v)", err)
			}
			if again, err = Unmetered(m, unmeteredOpts); err != nil || !bytes.Equal(again, out) {
				t.Fatalf("run without Decode's records differs (%v)", err)
			}
		})
	}
}

// entryLoopAt returns where got is orig with the entry loop inserted, or -1.
func entryLoopAt(got, orig []byte) int {
	if len(got) != len(orig)+len(entryLoop) {
		return -1
	}
	for k := 0; k <= len(orig); k++ {
		if bytes.Equal(got[:k], orig[:k]) && bytes.Equal(got[k:k+len(entryLoop)], entryLoop) && bytes.Equal(got[k+len(entryLoop):], orig[k:]) {
			return k
		}
	}
	return -1
}

// TestUnmeteredEntryLoop checks where the entry loop goes: in the else arm of recursive fib,
// whose calls are all there, at the entry of a function whose calls are in several runs, and
// nowhere in a function that calls nothing.
func TestUnmeteredEntryLoop(t *testing.T) {
	orig := mustDecode(t, readTestdata(t, "fib.wasm"))
	m := mustDecode(t, mustUnmetered(t, readTestdata(t, "fib.wasm"), unmeteredOpts))
	k := entryLoopAt(m.Code[0].Body, orig.Code[0].Body)
	if k <= 0 || orig.Code[0].Body[k-1] != opElse {
		t.Fatalf("fib's entry loop at %d, want right after its else", k)
	}
	if !bytes.Equal(m.Code[1].Body, orig.Code[1].Body) {
		t.Fatal("loop, which calls nothing, changed")
	}
	for _, tc := range []struct {
		code []cinstr
		want int
	}{
		{nil, -1},
		{[]cinstr{{op: opCall, start: 2, end: 4}}, 0},
		{[]cinstr{{op: opIf, end: 3}, {op: opCall, start: 5, end: 7}, {op: opCall, start: 8, end: 10}, {op: opEnd, end: 11}}, 3},
		{[]cinstr{{op: opIf, end: 3}, {op: opCall, start: 5, end: 7}, {op: opElse, end: 8}, {op: opCall, start: 9, end: 11}}, 0},
		{[]cinstr{{op: opBlock, end: 2}, {op: opCallInd, start: 3, end: 6}, {op: opBr, end: 8}, {op: opEnd, end: 9}}, 2},
	} {
		if got := checkAt(tc.code); got != tc.want {
			t.Errorf("checkAt(%v) = %d, want %d", tc.code, got, tc.want)
		}
	}
}

// TestUnmeteredPreservesSemantics runs every export of control.wasm on the original and on the
// output and compares results and traps.
func TestUnmeteredPreservesSemantics(t *testing.T) {
	s := newSandbox(t)
	b := readTestdata(t, "control.wasm")
	orig, out := s.instantiate(b), s.instantiate(mustUnmetered(t, b, unmeteredOpts))
	for _, c := range []struct {
		fn   string
		args [][]uint64
	}{
		{"straight", [][]uint64{{}}},
		{"sum", [][]uint64{{0}, {1}, {10}, {1000}}},
		{"countdown", [][]uint64{{1}, {5}, {100}}},
		{"ifelse", [][]uint64{{0}, {1}}},
		{"switch", [][]uint64{{0}, {1}, {2}, {3}, {4}, {1 << 31}}},
		{"nested", [][]uint64{{0}, {1}, {2}, {3}, {4}, {5}}},
		{"callmulti", [][]uint64{{0}, {9}}},
		{"nestedloops", [][]uint64{{0}, {1}, {7}}},
		{"mem", [][]uint64{{0}, {1}, {77}}},
		{"trap", [][]uint64{{}}},
		{"indirect", [][]uint64{{0, 5}, {1, 5}, {2, 5}}},
	} {
		for _, args := range c.args {
			want, werr := orig.ExportedFunction(c.fn).Call(s.ctx, args...)
			got, gerr := out.ExportedFunction(c.fn).Call(s.ctx, args...)
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

// TestUnmeteredInterrupts checks what the entry loop is for: a recursion with no loop (fib of 60
// runs for years) stops at its context's deadline on a runtime that checks at loop headers.
func TestUnmeteredInterrupts(t *testing.T) {
	ctx := context.Background()
	r := interruptingRuntime(t)
	mod, err := r.Instantiate(ctx, mustUnmetered(t, readTestdata(t, "fib.wasm"), unmeteredOpts))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = mod.ExportedFunction("fib").Call(cctx, 60)
	var se *sys.ExitError
	if !errors.As(err, &se) || se.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("fib(60) ended with %v, want the deadline", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("fib(60) stopped after %v", took)
	}
}

func TestUnmeteredTablesAndImports(t *testing.T) {
	m := mustDecode(t, readTestdata(t, "globals.wasm")) // tables: 10 (no max), 4..20, 3 (no max)
	out, err := Unmetered(m, UnmeteredOptions{MaxTableElements: 12})
	if err != nil {
		t.Fatal(err)
	}
	m2 := mustDecode(t, out)
	for i, want := range []TableType{
		{ElemType: byte(FuncRef), Min: 10, Max: 12, HasMax: true},
		{ElemType: byte(FuncRef), Min: 4, Max: 12, HasMax: true},
		{ElemType: byte(ExternRef), Min: 3, Max: 12, HasMax: true},
	} {
		if m2.Tables[i] != want || m.Tables[i] != want {
			t.Errorf("table %d: output %+v, recorded %+v, want %+v", i, m2.Tables[i], m.Tables[i], want)
		}
	}
	if _, err := Unmetered(m, UnmeteredOptions{MaxTableElements: 9}); !errors.Is(err, ErrTableLimit) || !strings.Contains(err.Error(), "table 0 declares a minimum of 10") {
		t.Fatalf("limit under a minimum: %v", err)
	}

	// An import from the empty module name is renamed; one already named like the stand-in is
	// refused when the empty name is also used.
	emptyImport := module(sec(secType, 0x01, 0x60, 0x00, 0x00),
		sec(secImport, append(appendName(appendName([]byte{0x01}, ""), "f"), 0x00, 0x00)...))
	out, err = Unmetered(mustDecode(t, emptyImport), unmeteredOpts)
	if err != nil {
		t.Fatal(err)
	}
	if im := mustDecode(t, out).Imports; len(im) != 1 || im[0].Module != "kobako:empty" || im[0].Name != "f" {
		t.Fatalf("imports %+v", im)
	}
	both := module(sec(secType, 0x01, 0x60, 0x00, 0x00),
		sec(secImport, append(append(appendName(appendName([]byte{0x02}, ""), "f"), 0x00, 0x00),
			append(appendName(appendName(nil, "kobako:empty"), "g"), 0x00, 0x00)...)...))
	if _, err := Unmetered(mustDecode(t, both), unmeteredOpts); !errors.Is(err, ErrInstrument) {
		t.Fatalf("both names: %v", err)
	}
	if _, err := Unmetered(nil, unmeteredOpts); !errors.Is(err, ErrInstrument) {
		t.Fatalf("nil module: %v", err)
	}
}

// TestUnmeteredMalformedNames: a name section whose subsections declare counts the bytes do not
// hold (a fuzzer's find: wazero allocated 3 GiB reading this one) reaches wazero without them, as
// from Instrument, so the unmetered module compiles as the metered one does; well-formed
// subsections are kept byte for byte.
func TestUnmeteredMalformedNames(t *testing.T) {
	base := funcModule(0x00, 0x0b)
	funcNames := []byte{nameFunctions, 0x04, 0x01, 0x00, 0x01, 'f'}
	tests := []struct {
		name string
		sub  []byte // the name section's subsections
		want []byte // what the output's name section holds after "name"
	}{
		{"huge local count", []byte("\x02\x80\x00\x80\xff\xff00000"), nil},
		{"well-formed kept", funcNames, funcNames},
		{"well-formed, then a malformed size", append(append([]byte{}, funcNames...), 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f), funcNames},
		{"malformed map dropped, later ones kept", append([]byte{nameLocals, 0x02, 0x05, 0x00}, funcNames...), funcNames},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := appendName(nil, "name")
			payload = append(payload, tt.sub...)
			b := append(append([]byte{}, base...), appendSection(nil, secCustom, payload)...)
			out := mustUnmetered(t, b, unmeteredOpts)
			want := append(appendName(nil, "name"), tt.want...)
			if !bytes.Contains(out, appendSection(nil, secCustom, want)) {
				t.Fatalf("output %x holds no name section %x", out, want)
			}
			if _, err := interruptingRuntime(t).CompileModule(context.Background(), out); err != nil {
				t.Fatalf("wazero rejects the output: %v", err)
			}
		})
	}
}

// TestEmptyCustomTail: custom sections without contents at the end of a module leave both rewrites
// and every other custom section stays (found by FuzzDecode: wazero refuses a module whose last
// section is a custom section with no contents, "failed to read custom section name[…]: EOF").
func TestEmptyCustomTail(t *testing.T) {
	base := funcModule(0x00, 0x0b)
	custom := func(name, data string) []byte {
		return appendSection(nil, secCustom, append(appendName(nil, name), data...))
	}
	module := func(sections ...[]byte) []byte {
		b := append([]byte{}, base...)
		for _, s := range sections {
			b = append(b, s...)
		}
		return b
	}
	// A custom section before the function module's own sections.
	leading := append(append([]byte{}, base[:8]...), append(custom("lead", ""), base[8:]...)...)
	tests := []struct {
		name string
		in   []byte
		want []string // the output's custom sections
	}{
		{"one empty at the end", module(custom("000000000", "")), nil},
		{"two empty at the end", module(custom("a", "x"), custom("b", ""), custom("c", "")), []string{"a"}},
		{"empty, then one with contents", module(custom("b", ""), custom("a", "x")), []string{"b", "a"}},
		{"empty before other sections", leading, []string{"lead"}},
		{"empty name section at the end", module(custom("name", "")), []string{"name"}},
		{"empty after a name section", module(custom("name", ""), custom("z", "")), []string{"name"}},
	}
	rewrites := []struct {
		name string
		run  func(*Module) ([]byte, error)
	}{
		{"metered with hook", func(m *Module) ([]byte, error) { return Instrument(m, hookOpts) }},
		{"metered, trapping", func(m *Module) ([]byte, error) { return Instrument(m, testOpts) }},
		{"unmetered", func(m *Module) ([]byte, error) { return Unmetered(m, unmeteredOpts) }},
	}
	for _, tt := range tests {
		for _, rw := range rewrites {
			t.Run(tt.name+"/"+rw.name, func(t *testing.T) {
				out, err := rw.run(mustDecode(t, tt.in))
				if err != nil {
					t.Fatal(err)
				}
				if got := mustDecode(t, out).CustomSectionNames(); !slices.Equal(got, tt.want) {
					t.Errorf("custom sections %q, want %q", got, tt.want)
				}
				if _, err := interruptingRuntime(t).CompileModule(context.Background(), out); err != nil {
					t.Fatalf("wazero rejects the output: %v", err)
				}
			})
		}
	}
}
