package wasm

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDecodeFixtures(t *testing.T) {
	m := mustDecode(t, readTestdata(t, "globals.wasm"))
	if len(m.Imports) != 3 || m.NumImportedGlobals != 2 || m.NumImportedFuncs != 1 {
		t.Fatalf("imports: %+v", m.Imports)
	}
	if im := m.Imports[2]; im.Kind != ExternFunc || len(im.Func.Params) != 1 || im.Func.Params[0] != I32 || im.Func.Results[0] != I32 {
		t.Fatalf("import 2: %+v", im)
	}
	if !m.Imports[1].Global.Mutable || m.Imports[1].Global.ValType != I64 {
		t.Fatalf("import 1: %+v", m.Imports[1])
	}
	if len(m.Globals) != 6 || m.Globals[2].Type != (GlobalType{I32, true}) {
		t.Fatalf("globals: %+v", m.Globals)
	}
	if len(m.Tables) != 3 || m.Tables[1] != (TableType{ElemType: byte(FuncRef), Min: 4, Max: 20, HasMax: true}) ||
		m.Tables[2].ElemType != byte(ExternRef) || m.Tables[0].HasMax {
		t.Fatalf("tables: %+v", m.Tables)
	}
	if len(m.Memories) != 1 || m.Memories[0].Min != 1 || m.Memories[0].HasMax {
		t.Fatalf("memories: %+v", m.Memories)
	}
	if len(m.Elements) != 8 {
		t.Fatalf("%d element segments", len(m.Elements))
	}
	modes := []ElemMode{ModeActive, ModePassive, ModeActive, ModeDeclarative, ModeActive, ModePassive, ModeActive, ModeDeclarative}
	for i, s := range m.Elements {
		if s.Flags != uint32(i) || s.Mode != modes[i] {
			t.Errorf("element %d: flags %d mode %d", i, s.Flags, s.Mode)
		}
	}
	if got := m.Elements[1].FuncIndices(); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("element 1 functions %v", got)
	}
	if got := m.Elements[4].Exprs(); len(got) != 2 || got[0][0] != opRefFunc || got[1][0] != opRefNull {
		t.Errorf("element 4 exprs %x", got)
	}
	if m.Elements[2].Table != 1 || m.Elements[6].Table != 2 || m.Elements[6].ElemType != byte(ExternRef) {
		t.Errorf("element tables: %+v", m.Elements)
	}
	if len(m.Data) != 3 || m.Data[1].Mode != ModePassive || string(m.Data[2].Data) != "xyz" {
		t.Fatalf("data: %+v", m.Data)
	}
	if m.DataCount == nil || *m.DataCount != 3 {
		t.Fatalf("data count %v", m.DataCount)
	}
	if m.FuncName(1) != "get" || m.FuncName(2) != "bump" || m.FuncName(99) != "" {
		t.Fatalf("function names: %q %q", m.FuncName(1), m.FuncName(2))
	}
	if names := m.CustomSectionNames(); len(names) != 1 || names[0] != "name" {
		t.Fatalf("custom sections %v", names)
	}
	var exp []string
	for _, e := range m.Exports {
		exp = append(exp, e.Kind.String()+":"+e.Name)
	}
	if got := strings.Join(exp, ","); !strings.HasPrefix(got, "global:g0,global:g1,global:g2,global:base,memory:mem,table:t0,func:get") {
		t.Fatalf("exports %s", got)
	}
	if ft, ok := m.FuncType(2); !ok || len(ft.Params) != 1 || len(ft.Results) != 1 {
		t.Fatalf("FuncType(2) = %v %v", ft, ok)
	}

	c := mustDecode(t, readTestdata(t, "control.wasm"))
	if c.StartFunc != nil || len(c.Types) == 0 || len(c.Types[0].Results) != 2 {
		t.Fatalf("control: start %v types %v", c.StartFunc, c.Types)
	}
	if _, ok := c.UsesFeature(FeatureMultiValue); !ok {
		t.Fatal("control.wasm uses multi-value")
	}
}

// TestDecodeAllOpcodes checks the opcode table against wabt: allops.wasm exports one function
// per instruction, named after it, so the decoded names must include the export's name.
func TestDecodeAllOpcodes(t *testing.T) {
	m := mustDecode(t, readTestdata(t, "allops.wasm"))
	if err := m.CheckEngineFeatures(); err != nil {
		t.Fatal(err)
	}
	simd := map[uint32]bool{}
	for _, e := range m.Exports {
		if e.Kind != ExternFunc {
			continue
		}
		body := m.Code[e.Index-m.NumImportedFuncs].Body
		r := newReader(body, 0)
		var in instr
		found := false
		want := strings.TrimSuffix(e.Name, "_t")
		for !r.Done() {
			if err := readInstr(r, &in); err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			if lookupOp(in.op).name == want {
				found = true
			}
			if in.op>>16 == prefixSIMD {
				simd[in.op] = true
			}
		}
		if !found {
			t.Errorf("export %q: no instruction of that name decoded", e.Name)
		}
	}
	n := 0
	for _, s := range simdNames {
		if s != "" {
			n++
		}
	}
	if len(simd) != n || n != 236 {
		t.Errorf("allops has %d distinct SIMD opcodes, the table %d, the proposal 236", len(simd), n)
	}
	var feats []string
	for _, f := range []string{FeatureSIMD, FeatureBulkMemory, FeatureReferenceTypes, FeatureSignExtension, FeatureNonTrappingF2I} {
		if _, ok := m.UsesFeature(f); !ok {
			feats = append(feats, f)
		}
	}
	if len(feats) > 0 {
		t.Errorf("features not detected: %v", feats)
	}
}

// TestDecodeTruncated decodes every prefix of every fixture: none may panic, and only prefixes
// that end at a section boundary may decode.
func TestDecodeTruncated(t *testing.T) {
	for _, name := range append(fixtures, featureFixtures...) {
		b := readTestdata(t, name)
		full := mustDecode(t, b)
		boundary := map[int]bool{8: true}
		for _, s := range full.sections {
			boundary[s.end] = true
		}
		for n := 0; n < len(b); n++ {
			m, err := Decode(b[:n], Limits{})
			if err == nil {
				if !boundary[n] {
					t.Fatalf("%s: prefix of %d bytes decoded", name, n)
				}
				_ = m
				continue
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s[:%d]: %v does not wrap ErrMalformed", name, n, err)
			}
		}
	}
}

var featureFixtures = []string{"features/threads.wasm", "features/tailcall.wasm", "features/exceptions.wasm",
	"features/memory64.wasm", "features/multimemory.wasm", "features/extconst.wasm", "features/relaxedsimd.wasm"}

// module assembles a core module from sections given as id, payload pairs.
func module(sections ...[]byte) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	for _, s := range sections {
		b = appendSection(b, s[0], s[1:])
	}
	return b
}

func sec(id byte, payload ...byte) []byte { return append([]byte{id}, payload...) }

// funcModule is a module with one function of type () -> () whose body (locals included) is
// given.
func funcModule(body ...byte) []byte {
	return module(
		sec(secType, 0x01, 0x60, 0x00, 0x00),
		sec(secFunction, 0x01, 0x00),
		sec(secCode, append(appendU32([]byte{0x01}, uint32(len(body))), body...)...),
	)
}

func TestDecode_Errors(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrMalformed, "truncated header"},
		{"short magic", []byte{0x00, 0x61, 0x73}, ErrMalformed, "truncated header"},
		{"not wasm", []byte("hello world!"), ErrMalformed, "not a WebAssembly binary"},
		{"version 2", []byte{0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00}, ErrMalformed, "unknown binary version"},
		{"component", []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}, ErrNotCoreModule, "this is a component, not a core module"},
		{"section size past end", module(sec(secType, 0x01))[:9], ErrMalformed, "unexpected end"},
		{"section size too long", append(module(), 0x01, 0x05, 0x00), ErrMalformed, "declares 5 bytes"},
		{"overlong leb", append(module(), 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00), ErrMalformed, "too long"},
		{"leb unused bits", append(module(), 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f), ErrMalformed, "too large"},
		{"unknown section", module(sec(14)), ErrMalformed, "unknown section id 14"},
		{"out of order", module(sec(secFunction, 0x00), sec(secType, 0x00)), ErrMalformed, "out of order"},
		{"duplicate", module(sec(secType, 0x00), sec(secType, 0x00)), ErrMalformed, "duplicate type section"},
		{"tag before global ok, data count after code", module(sec(secCode, 0x00), sec(secDataCount, 0x00)), ErrMalformed, "out of order"},
		{"trailing bytes in section", module(sec(secType, 0x00, 0x00)), ErrMalformed, "unread bytes"},
		{"hostile type count", module(sec(secType, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrLimit, "types, over the limit"},
		{"type count past end", module(sec(secType, 0xff, 0xff, 0x03)), ErrMalformed, "need at least"},
		{"hostile import count", module(sec(secImport, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrLimit, "imports"},
		{"hostile function count", module(sec(secFunction, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrMalformed, "need at least"},
		{"hostile code count", module(sec(secCode, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrMalformed, "need at least"},
		{"hostile data count", module(sec(secData, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrLimit, "data segments"},
		{"hostile element count", module(sec(secElement, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrLimit, "element segments"},
		{"hostile params", module(sec(secType, 0x01, 0x60, 0xff, 0xff, 0xff, 0xff, 0x0f)), ErrLimit, "params"},
		{"hostile results", module(sec(secType, 0x01, 0x60, 0x00, 0xe9, 0x07)), ErrLimit, "results"},
		{"gc type", module(sec(secType, 0x01, 0x5f, 0x00, 0x00)), ErrUnsupportedFeature, "gc"},
		{"unknown type form", module(sec(secType, 0x01, 0x40, 0x00, 0x00)), ErrMalformed, "unknown type form"},
		{"bad value type", module(sec(secType, 0x01, 0x60, 0x01, 0x55, 0x00)), ErrMalformed, "unknown value type"},
		{"function without code", module(sec(secType, 0x01, 0x60, 0x00, 0x00), sec(secFunction, 0x01, 0x00)), ErrMalformed, "code section has 0 bodies"},
		{"unknown type index", module(sec(secType, 0x00), sec(secFunction, 0x01, 0x00)), ErrMalformed, "unknown type 0"},
		{"data count mismatch", module(sec(secDataCount, 0x01)), ErrMalformed, "data count section says 1"},
		{"memory too big", module(sec(secMemory, 0x01, 0x00, 0x81, 0x80, 0x04)), ErrLimit, "memory pages"},
		{"memory max too big", module(sec(secMemory, 0x01, 0x01, 0x00, 0x81, 0x80, 0x04)), ErrMalformed, "exceeds 65536"},
		{"min above max", module(sec(secMemory, 0x01, 0x01, 0x02, 0x01)), ErrMalformed, "greater than its maximum"},
		{"table too big", module(sec(secTable, 0x01, 0x70, 0x00, 0x81, 0xad, 0xe2, 0x04)), ErrLimit, "table elements"},
		{"bad limits flags", module(sec(secMemory, 0x01, 0x08, 0x00)), ErrMalformed, "limits flags"},
		{"duplicate export", module(sec(secMemory, 0x01, 0x00, 0x00), sec(secExport, 0x02, 0x01, 'm', 0x02, 0x00, 0x01, 'm', 0x02, 0x00)), ErrMalformed, "duplicate export name"},
		{"export unknown", module(sec(secExport, 0x01, 0x01, 'f', 0x00, 0x00)), ErrMalformed, "unknown func 0"},
		{"start unknown", module(sec(secStart, 0x00)), ErrMalformed, "unknown start function"},
		{"invalid utf8 name", module(sec(secCustom, 0x02, 0xff, 0xfe)), ErrMalformed, "UTF-8"},
		{"const expr not constant", module(sec(secGlobal, 0x01, 0x7f, 0x00, 0x41, 0x00, 0x41, 0x00, 0x6b, 0x0b)), nil, ""},
		{"const expr call", module(sec(secGlobal, 0x01, 0x7f, 0x00, 0x10, 0x00, 0x0b)), ErrMalformed, "call is not allowed in a constant expression"},
		{"global.get unknown in init", module(sec(secGlobal, 0x01, 0x7f, 0x00, 0x23, 0x00, 0x0b)), ErrMalformed, "unknown global 0"},
		{"unknown opcode", funcModule(0x00, 0xff, 0x0b), ErrMalformed, "unknown opcode 0xff"},
		{"unknown misc opcode", funcModule(0x00, 0xfc, 0x63, 0x0b), ErrMalformed, "unknown opcode 0xfc 0x63"},
		{"unknown simd opcode", funcModule(0x00, 0xfd, 0x9a, 0x01, 0x0b), ErrMalformed, "unknown opcode 0xfd 0x9a"},
		{"missing end", funcModule(0x00, 0x01), ErrMalformed, "unclosed"},
		{"code after end", funcModule(0x00, 0x0b, 0x01), ErrMalformed, "after the function's final end"},
		{"else without if", funcModule(0x00, 0x05, 0x0b), ErrMalformed, "else without"},
		{"bad label", funcModule(0x00, 0x0c, 0x01, 0x0b), ErrMalformed, "unknown label 1"},
		{"bad br_table label", funcModule(0x00, 0x41, 0x00, 0x0e, 0x01, 0x00, 0x05, 0x0b), ErrMalformed, "br_table to unknown label 5"},
		{"unknown global", funcModule(0x00, 0x23, 0x00, 0x1a, 0x0b), ErrMalformed, "unknown global 0"},
		{"unknown function", funcModule(0x00, 0x10, 0x05, 0x0b), ErrMalformed, "unknown function 5"},
		{"i32.const too long", funcModule(0x00, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1a, 0x0b), ErrMalformed, "too long"},
		{"i32.const unused bits", funcModule(0x00, 0x41, 0xff, 0xff, 0xff, 0xff, 0x4f, 0x1a, 0x0b), ErrMalformed, "too large"},
		{"i64.const unused bits", funcModule(0x00, 0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x41, 0x1a, 0x0b), ErrMalformed, "too large"},
		{"hostile br_table", funcModule(0x00, 0x0e, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b), ErrMalformed, "need at least"},
		{"hostile local decls", funcModule(0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b), ErrLimit, "local declarations"},
		{"too many locals", funcModule(0x02, 0xb0, 0xea, 0x01, 0x7f, 0xb0, 0xea, 0x01, 0x7e, 0x0b), ErrLimit, "function 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Decode(c.b, Limits{})
			if c.want == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				_ = m
				return
			}
			if err == nil {
				t.Fatal("decoded")
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v does not wrap %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "wasm: decode: ") {
				t.Fatalf("error %q does not mention %q", err, c.msg)
			}
		})
	}
}

// hostileLocals is a 36-byte module whose only function declares ten million i32 locals; wazero
// v1.12 allocates about 3.9 GiB compiling it.
var hostileLocals = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: (func)
	0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
	0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00, // export "f"
	0x0a, 0x09, 0x01, 0x07, 0x01, 0x80, 0xad, 0xe2, 0x04, 0x7f, 0x0b, // code: 10,000,000 x i32; end
}

func TestDecodeHostileLocals(t *testing.T) {
	if len(hostileLocals) != 36 {
		t.Fatalf("fixture is %d bytes", len(hostileLocals))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Decode(hostileLocals, Limits{})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "function 0") || !strings.Contains(err.Error(), "10000000 locals") {
		t.Fatalf("error %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("Decode allocated %d bytes", alloc)
	}
	_ = elapsed // timing is for benchmarks, not tests

	// The total across functions is limited too.
	lim := Limits{TotalLocals: 100}
	body := []byte{0x01, 0x3c, 0x7f, 0x0b} // 60 locals
	b := module(
		sec(secType, 0x01, 0x60, 0x00, 0x00),
		sec(secFunction, 0x02, 0x00, 0x00),
		sec(secCode, append(append([]byte{0x02, byte(len(body))}, body...), append([]byte{byte(len(body))}, body...)...)...),
	)
	if _, err := Decode(b, lim); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "function 1") {
		t.Fatalf("total locals: %v", err)
	}
	if _, err := Decode(b, Limits{}); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeHostileCounts checks that a huge count in a tiny input fails without allocating.
func TestDecodeHostileCounts(t *testing.T) {
	inputs := [][]byte{
		module(sec(secType, 0xff, 0xff, 0xff, 0xff, 0x0f)),
		module(sec(secCustom, 0x04, 'n', 'a', 'm', 'e', 0x01, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f)),
		funcModule(0x00, 0x0e, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b),
		funcModule(0x00, 0x1c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b),
		module(sec(secData, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f)),
	}
	lim := Limits{Types: ^uint32(0), DataSegments: ^uint32(0)}
	for i, b := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _ = Decode(b, lim)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Errorf("input %d: Decode allocated %d bytes", i, alloc)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	b := readTestdata(t, "control.wasm")
	m := mustDecode(t, b)
	big := 0
	for _, c := range m.Code {
		if len(c.full) > big {
			big = len(c.full)
		}
	}
	cases := []struct {
		lim Limits
		msg string
	}{
		{Limits{ModuleSize: 100}, "over the limit of 100"},
		{Limits{Types: 1}, "types"},
		{Limits{Functions: 3}, "functions"},
		{Limits{Exports: 2}, "exports"},
		{Limits{FunctionBodySize: uint32(big - 1)}, "bytes of function body"},
		{Limits{LocalsPerFunction: 3}, "locals"},
		{Limits{TableElements: 1}, "table elements"},
		{Limits{Tables: 0, Memories: 0, MemoryPages: 0}, ""},
	}
	for _, c := range cases {
		_, err := Decode(b, c.lim)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.lim, err)
			}
			continue
		}
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want ErrLimit mentioning %q", c.lim, err, c.msg)
		}
	}
}

func TestDecodeNameSectionTolerant(t *testing.T) {
	// A function-name map that breaks off after one entry keeps that entry and still decodes.
	names := []byte{0x04, 'n', 'a', 'm', 'e', 0x01, 0x07, 0x02, 0x00, 0x02, 'h', 'i', 0x01, 0x09}
	b := append(funcModule(0x00, 0x0b), appendSection(nil, secCustom, names)...)
	m := mustDecode(t, b)
	if m.FuncName(0) != "hi" {
		t.Fatalf("FuncName(0) = %q", m.FuncName(0))
	}
	out := mustInstrument(t, b)
	if m2 := mustDecode(t, out); m2.FuncName(0) != "hi" {
		t.Fatalf("after instrumenting: %q", m2.FuncName(0))
	}
}

func TestFuncTypeString(t *testing.T) {
	ft := FuncType{Params: []ValType{I32, I32}, Results: []ValType{I64}}
	if got := ft.String(); got != "(i32, i32) -> (i64)" {
		t.Fatal(got)
	}
	if got := (FuncType{}).String(); got != "() -> ()" {
		t.Fatal(got)
	}
}

func TestDecodeCustomSectionLimit(t *testing.T) {
	var secs [][]byte
	for i := 0; i < 5; i++ {
		secs = append(secs, sec(secCustom, 0x01, 'a'+byte(i)))
	}
	b := module(secs...)
	if _, err := Decode(b, Limits{CustomSections: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(b, Limits{CustomSections: 4}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "custom sections") {
		t.Fatalf("error %v", err)
	}
}

// TestDecodeNameMapBounded checks that names of functions that do not exist are not kept.
func TestDecodeNameMapBounded(t *testing.T) {
	names := []byte{0x04, 'n', 'a', 'm', 'e', 0x01}
	var sub []byte
	sub = appendU32(sub, 1000)
	for i := uint32(0); i < 1000; i++ {
		sub = appendU32(sub, i)
		sub = appendName(sub, "f")
	}
	names = appendU32(names, uint32(len(sub)))
	names = append(names, sub...)
	b := append(funcModule(0x00, 0x0b), appendSection(nil, secCustom, names)...)
	m := mustDecode(t, b)
	if len(m.funcNames) != 1 || m.FuncName(0) != "f" {
		t.Fatalf("%d names kept", len(m.funcNames))
	}
	// Runs of zero locals are dropped.
	m = mustDecode(t, funcModule(0x03, 0x00, 0x7f, 0x02, 0x7e, 0x00, 0x7d, 0x0b))
	if len(m.Code[0].Locals) != 1 || m.Code[0].NumLocals != 2 || m.Code[0].Locals[0] != (LocalDecl{2, I64}) {
		t.Fatalf("locals %+v", m.Code[0])
	}
}

// TestCheck: Check accepts every fixture Decode accepts and refuses what it refuses, with its
// message, without keeping the recorded bodies.
func TestCheck(t *testing.T) {
	huge := []byte("\x00asm\x01\x00\x00\x00\x02\x05\x80\x88\x8c\x28\x00") // 84 million imports in 5 bytes
	files, _ := filepath.Glob(filepath.Join("testdata", "*.wasm"))
	inputs := [][]byte{huge}
	for _, f := range files {
		inputs = append(inputs, readTestdata(t, filepath.Base(f)))
	}
	for i, b := range inputs {
		_, derr := Decode(b, Limits{})
		cerr := Check(b, Limits{})
		if (derr == nil) != (cerr == nil) || derr != nil && derr.Error() != cerr.Error() {
			t.Errorf("input %d: Check says %v, Decode %v", i, cerr, derr)
		}
	}
	if err := Check(huge, Limits{}); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit) {
		t.Errorf("Check of a huge import count: %v", err)
	}
	// What Check decodes keeps no recorded body; what Decode decodes does.
	code := readTestdata(t, "allops.wasm")
	recorded := func(check bool) (n int) {
		m, err := decode(code, Limits{}, check)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Code {
			if c.code != nil {
				n++
			}
		}
		return n
	}
	if dec, chk := recorded(false), recorded(true); dec == 0 || chk != 0 {
		t.Errorf("bodies recorded: %d by Decode's pass, %d by Check's; want some and none", dec, chk)
	}
}
