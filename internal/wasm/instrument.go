package wasm

import (
	"fmt"
	"strings"
)

// InstrumentOptions configures Instrument.
type InstrumentOptions struct {
	// FuelModule and FuelGlobal name the import of the shared fuel counter, a mutable i64 global
	// holding the remaining fuel. The engine passes "kobako:fuel" and "remaining".
	FuelModule string
	FuelGlobal string
	// FuelHook, when not empty, names a function that Instrument also imports from FuelModule,
	// (import FuelModule FuelHook (func)), and that the injected checks call when they find the
	// counter negative, instead of trapping. The hook lets a host hand out fuel in slices: it adds
	// the next slice to the counter, or traps when the real budget is spent, and it can check a
	// deadline or yield to the Go scheduler on the way. The fuel count is the same with and
	// without a hook. See the package documentation for what the hook may assume.
	FuelHook string
	// MaxTableElements, when not zero, becomes the declared maximum of every defined table whose
	// maximum is absent or larger, because wazero has no table limit of its own. A defined table
	// whose minimum exceeds it makes Instrument fail with an error wrapping ErrTableLimit.
	// Imported tables are left alone: their exporter declared them.
	MaxTableElements uint32
	// DirectPrefix, when not empty, also exports every function that is exported through an
	// entry-charging wrapper (see prepare) without it, as DirectPrefix+name, and Instrument
	// records the wrapper's charge in m.EntryCharges[name]. A host that calls the direct export
	// subtracts that charge from the counter first, exactly as the wrapper would, and saves a
	// wasm call per host call. A name whose direct name the module already exports gets none.
	// The host must keep other modules from importing the direct exports.
	DirectPrefix string
	// EmptyModule, when not empty, replaces the empty module name of every import that has one:
	// the name is valid core wasm, and the component model's own tests use it throughout, but
	// wazero links no module by it. A module that imports from both "" and EmptyModule is
	// refused, since the two would become one.
	EmptyModule string
	// StatePrefix, when not empty, also exports every defined mutable global and every defined
	// memory under the names SnapshotGlobalExport and SnapshotMemoryExport give (their indices
	// as the module declares them, before the fuel import moves the globals), so that a host can
	// read an instance's state after initialization without compiling a second, capture-ready
	// copy of the module. A module that already exports a name starting with StatePrefix gets
	// none. The host must keep other modules from importing them.
	StatePrefix string
}

// Instrument returns a copy of the module's binary rewritten for fuel metering:
//
//   - one import, (import FuelModule FuelGlobal (global (mut i64))), is appended to the import
//     section (which is created if absent), so it takes global index k = the number of imported
//     globals, and every reference to a defined global (index >= k) moves up by one: global.get
//     and global.set in code, global.get in every constant expression, global exports and the
//     name section's global names;
//   - with InstrumentOptions.FuelHook, one more import, (import FuelModule FuelHook (func)), is
//     placed in the import section after every function import (its type is an existing
//     [] -> [] type, or one appended to the type section), so it takes function index h = the
//     number of imported functions, and every reference to a defined function (index >= h)
//     moves up by one: call and ref.func in code, ref.func in every constant expression, the
//     function indices of element segments, function exports, the start section and the name
//     section's function, local and label names;
//   - every function body charges the fuel its instructions cost and checks the counter, as the
//     package documentation describes;
//   - defined tables get the maximum InstrumentOptions.MaxTableElements asks for.
//
// All other sections, and custom sections other than "name", are copied unchanged, in order.
// Custom sections that locate code by byte offset (DWARF, branch hints) therefore no longer match
// the rewritten bodies: source lines in wazero's DWARF stack traces are unreliable after
// instrumentation. The output depends
// only on the module and opt. Instrument records the table limits it wrote in m.Tables (the
// declared ones stay in m.DeclaredTables) and, with DirectPrefix, the entry charges in
// m.EntryCharges, and lets go of what Decode recorded of the function bodies for it (running
// again on m decodes them, with the same result); it changes nothing else in m, and so must not
// run concurrently with other uses of the same Module.
//
// Instrument refuses modules that use features CheckEngineFeatures rejects (their control flow,
// such as exceptions and tail calls, is outside what the metering handles), modules that
// already import from FuelModule, and a FuelHook named like FuelGlobal.
func Instrument(m *Module, opt InstrumentOptions) ([]byte, error) {
	out, err := instrument(m, opt, nil)
	if err != nil {
		return nil, fmt.Errorf("wasm: instrument: %w", err)
	}
	return out, nil
}

func instrument(m *Module, opt InstrumentOptions, analyze func(*meter, []byte) error) ([]byte, error) {
	if m == nil || len(m.raw) < 8 {
		return nil, fmt.Errorf("%w: the module was not produced by Decode", ErrInstrument)
	}
	if opt.FuelModule == "" || opt.FuelGlobal == "" {
		return nil, fmt.Errorf("%w: the fuel import needs a module and a field name", ErrInstrument)
	}
	if opt.FuelHook == opt.FuelGlobal {
		return nil, fmt.Errorf("%w: the fuel hook and the fuel global are both named %q", ErrInstrument, opt.FuelHook)
	}
	if err := m.CheckEngineFeatures(); err != nil {
		return nil, err
	}
	renameEmpty := false
	for i, im := range m.Imports {
		if im.Module == opt.FuelModule {
			return nil, fmt.Errorf("%w: import %d (%q %q) already uses the fuel module name %q", ErrInstrument, i, im.Module, im.Name, opt.FuelModule)
		}
		renameEmpty = renameEmpty || (im.Module == "" && opt.EmptyModule != "")
	}
	if renameEmpty {
		for i, im := range m.Imports {
			if im.Module == opt.EmptyModule {
				return nil, fmt.Errorf("%w: import %d (%q %q) uses the module name %q, which stands for the empty module name that other imports use", ErrInstrument, i, im.Module, im.Name, opt.EmptyModule)
			}
		}
	}
	tables, err := clampTables(m.DeclaredTables, m.NumImportedTables, opt.MaxTableElements)
	if err != nil {
		return nil, err
	}

	k := m.NumImportedGlobals
	sh := indexShift{global: k}
	if opt.FuelHook != "" {
		sh.fn, sh.hook = m.NumImportedFuncs, true
	}
	w := &rewriter{m: m, sh: sh, opt: opt, tables: tables, analyze: analyze, renameEmpty: renameEmpty}
	if sh.hook {
		w.hookType, w.addType = emptyFuncType(m.Types)
	}
	w.precharge = analyze == nil
	w.mt.sh = sh
	w.mt.checkCode = checkCode(k, sh)
	w.mt.charge = func(dst []byte, c int64) []byte {
		dst = append(dst, opGlobalGet)
		dst = appendU32(dst, k)
		dst = append(dst, opI64Const)
		dst = appendS64(dst, c)
		dst = append(dst, opI64Sub, opGlobalSet)
		return appendU32(dst, k)
	}

	if err := w.prepare(); err != nil {
		return nil, err
	}

	estimate := w.outputSize()
	out := make([]byte, 0, estimate)
	out = append(out, m.raw[:8]...)
	// A type section is created only for the hook's type, and an import section always. With no
	// later section to go before, they go before the trailing custom sections: a name section
	// stays last, where tools (and wazero, which reads a name subsection's declared size past the
	// end of a malformed one) expect it.
	typeDone, importDone := !w.addType, false
	// An export section is created only for state exports.
	exportDone := len(w.stateExports()) == 0
	tail := len(m.sections)
	for tail > 0 && m.sections[tail-1].id == secCustom {
		tail--
	}
	emptyTail := m.emptyCustomTail()
	for i, s := range m.sections {
		later := s.id != secCustom || i == tail
		if !typeDone && later && (i == tail || sectionRank[s.id] > sectionRank[secType]) {
			out = appendSection(out, secType, w.typeSection(nil))
			typeDone = true
		}
		if !importDone && later && (i == tail || sectionRank[s.id] > sectionRank[secImport]) {
			out = appendSection(out, secImport, w.importSection(nil))
			importDone = true
		}
		if !exportDone && later && (i == tail || s.id == secExport || sectionRank[s.id] > sectionRank[secExport]) {
			if s.id != secExport {
				out = appendSection(out, secExport, w.exportSection())
			}
			exportDone = true
		}
		if i >= emptyTail {
			continue
		}
		payload := m.raw[s.payloadStart:s.end]
		var p []byte
		var write func(dst []byte) ([]byte, error) // appends the payload to dst, in place of p
		switch s.id {
		case secType:
			p = w.typeSection(payload)
			typeDone = true
		case secImport:
			p = w.importSection(payload)
			importDone = true
		case secTable:
			p = w.tableSection()
		case secFunction:
			p = w.functionSection(payload)
		case secStart:
			p = appendU32(nil, w.funcRef(*m.StartFunc))
		case secGlobal:
			write = w.globalSection
		case secExport:
			p = w.exportSection()
		case secElement:
			write = w.elementSection
		case secData:
			write = w.dataSection
		case secCode:
			write = w.codeSection
		case secCustom:
			p = w.customSection(payload)
		default:
			p = payload
		}
		if write == nil {
			out = appendSection(out, s.id, p)
			continue
		}
		if out, err = appendSectionFunc(out, s.id, write); err != nil {
			return nil, fmt.Errorf("section %s: %w", sectionNames[s.id], err)
		}
	}
	if !typeDone {
		out = appendSection(out, secType, w.typeSection(nil))
	}
	if !importDone {
		out = appendSection(out, secImport, w.importSection(nil))
	}
	if !exportDone {
		out = appendSection(out, secExport, w.exportSection())
	}
	m.Tables = tables
	if debugOutputSize != nil {
		debugOutputSize(estimate, len(out))
	}
	return out, nil
}

// emptyCustomTail returns the index of the first of the custom sections without contents (a name
// and nothing after it) that end the module, or len(m.sections) when the last section is not one.
// Both rewrites leave them out. The module is valid with them, but wazero (v1.12, which keeps
// custom sections when the engine asks it to) reads a custom section's contents with one Read,
// and a bytes.Reader at the end of its input answers even a zero-byte Read with io.EOF: it
// refuses the module ("failed to read custom section name[…]: EOF"). Such a section holds nothing
// but its name, which only Inspect reports, and Inspect reads the module as it was.
func (m *Module) emptyCustomTail() int {
	i := len(m.sections)
	for i > 0 {
		s := m.sections[i-1]
		if s.id != secCustom {
			break
		}
		r := newReader(m.raw[s.payloadStart:s.end], 0)
		if name, err := r.Name(); err != nil || name == "name" || !r.Done() {
			break
		}
		i--
	}
	return i
}

// emptyFuncType returns the index of the first [] -> [] type, or the index such a type gets when
// appended to the type section, with add set.
func emptyFuncType(types []FuncType) (idx uint32, add bool) {
	for i, t := range types {
		if len(t.Params) == 0 && len(t.Results) == 0 {
			return uint32(i), false
		}
	}
	return uint32(len(types)), true
}

// checkCode is the check at function entries and loop headers:
//
//	block
//	  global.get $fuel
//	  i64.const 0
//	  i64.ge_s
//	  br_if 0
//	  unreachable      ;; with a fuel hook: call $hook
//	end
//
// It traps (or calls the hook) only when the counter is negative. wazero's interpreter runs the
// taken br_if as one jump to the block's continuation; an "if unreachable end" would also run an
// else label, a jump and a continuation label on the fast path. The hook call sits off that
// path, so the hook costs nothing while the counter is non-negative.
func checkCode(k uint32, sh indexShift) []byte {
	b := []byte{opBlock, 0x40, opGlobalGet}
	b = appendU32(b, k)
	b = append(b, opI64Const, 0x00, opI64GeS, opBrIf, 0x00)
	if sh.hook {
		b = append(b, opCall)
		b = appendU32(b, sh.fn)
	} else {
		b = append(b, opUnreachable)
	}
	return append(b, opEnd)
}

func clampTables(declared []TableType, numImported, limit uint32) ([]TableType, error) {
	out := append([]TableType(nil), declared...)
	if limit == 0 {
		return out, nil
	}
	for i := range out {
		t := &out[i]
		if t.Min > limit {
			return nil, fmt.Errorf("table %d declares a minimum of %d elements: %w of %d", numImported+uint32(i), t.Min, ErrTableLimit, limit)
		}
		if !t.HasMax || t.Max > limit {
			t.Max, t.HasMax = limit, true
		}
	}
	return out, nil
}

func appendSection(out []byte, id byte, payload []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(payload)))
	return append(out, payload...)
}

// appendSectionFunc appends a section whose payload write appends to its argument: the payload is
// written in place, after room for the longest size, and moved back once its size is known, which
// copies it within out instead of building it apart and copying it in.
func appendSectionFunc(out []byte, id byte, write func(dst []byte) ([]byte, error)) ([]byte, error) {
	out = append(out, id, 0, 0, 0, 0, 0)
	start := len(out)
	out, err := write(out)
	if err != nil {
		return nil, err
	}
	size := len(out) - start
	var lb [5]byte
	n := len(appendU32(lb[:0], uint32(size)))
	copy(out[start-5:], lb[:n])
	copy(out[start-5+n:], out[start:])
	return out[:start-5+n+size], nil
}

func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

// rewriter re-encodes the sections that refer to globals, functions or tables.
type rewriter struct {
	m      *Module
	sh     indexShift
	opt    InstrumentOptions
	tables []TableType
	mt     meter
	// hookType is the type index of the fuel hook's import; addType says that it is a [] -> []
	// type appended to the type section because the module has none.
	hookType uint32
	addType  bool
	// renameEmpty says that some import has the empty module name, which becomes
	// opt.EmptyModule.
	renameEmpty bool
	// analyze, when not nil, places the charges of one body in place of the meter's analysis:
	// tests set it to a per-instruction oracle.
	analyze func(mt *meter, body []byte) error
	// precharge enables caller-charged entries (see prepare).
	precharge bool
	// entryCost[i] >= 0 says that defined function i has its entry block charged by its direct
	// callers (and by its export wrapper) instead of by itself, and what that costs.
	entryCost []int64
	// plans holds every body's analysis, from prepare to codeSection.
	plans []plan
	// wrappers lists the functions whose exports (or start) go through a wrapper that charges
	// their entry block; wrapperOf maps them (by their index in the input) to the wrapper's
	// function index in the output.
	wrappers  []uint32
	wrapperOf map[uint32]uint32
}

// prepare analyzes every body, keeping what emit needs in w.plans, and decides which functions
// have their entry block charged by their callers. Charging at the call site folds the callee's
// entry charge into the caller's charge for the block holding the call, which costs nothing extra
// at run time, so a call to a small function pays no fuel code of its own. That is possible only
// for functions that are never called indirectly (no ref.func or element segment names them);
// those that are exported or the start function get a wrapper that charges the entry block and
// calls them, and the export (or start) points at the wrapper.
func (w *rewriter) prepare() error {
	m := w.m
	mt := &w.mt
	mt.numImported = m.NumImportedFuncs
	w.entryCost = make([]int64, len(m.Code))
	w.plans = make([]plan, len(m.Code))
	// Real code has a charge point every 10 to 20 bytes of body: small modules get small chunks.
	codeBytes := 0
	for _, c := range m.Code {
		codeBytes += len(c.Body)
	}
	arena := planArena{chunk: min(arenaChunk, max(64, codeBytes/16))}
	for i := range m.Code {
		c := &m.Code[i]
		idx := m.NumImportedFuncs + uint32(i)
		var err error
		switch {
		case w.analyze != nil:
			err = w.analyze(mt, c.Body)
		case c.code != nil:
			// Decode recorded the body's instructions: analyze them without decoding it again,
			// and let them go, so that they are not kept while wazero compiles the output.
			mt.code, mt.labels = c.code, c.labels
			c.code, c.labels = nil, nil
			err = mt.analyzeCode()
		default:
			err = mt.analyze(c.Body)
		}
		if err != nil {
			return fmt.Errorf("section code: function %d: %w", idx, err)
		}
		w.plans[i] = mt.plan(&arena)
		w.entryCost[i] = -1
		if w.precharge && (m.referenced == nil || !m.referenced[idx]) {
			w.entryCost[i] = int64(w.plans[i].blocks[0].cost)
		}
	}
	if !w.precharge {
		return nil
	}
	w.wrapperOf = map[uint32]uint32{}
	next := w.sh.funcIdx(m.NumFuncs()) // the wrappers follow every function, the hook included
	wrap := func(idx uint32) {
		if idx < m.NumImportedFuncs || w.entryCost[idx-m.NumImportedFuncs] <= 0 {
			return
		}
		if _, ok := w.wrapperOf[idx]; ok {
			return
		}
		w.wrapperOf[idx] = next
		w.wrappers = append(w.wrappers, idx)
		next++
	}
	for _, e := range m.Exports {
		if e.Kind == ExternFunc {
			wrap(e.Index)
		}
	}
	if m.StartFunc != nil {
		wrap(*m.StartFunc)
	}
	return nil
}

// debugOutputSize, when set by a test, receives outputSize's estimate and the output's length.
var debugOutputSize func(estimate, size int)

// outputSize returns the capacity to allocate for the output, once prepare has run: at least
// what the code section grows by (its charges, checks, renumbered indices, bulk checks and
// wrappers, which are most of the growth), plus room for the other sections' smaller changes, so
// that the output is usually written without growing.
func (w *rewriter) outputSize() int {
	// A charge's i64.const takes at most 4 bytes for costs below 2^27, which real blocks (with
	// their callees' entry costs) stay under; the slack covers the rest.
	kLen := len(appendU32(nil, w.sh.global))
	charge := 1 + kLen + 1 + 4 + 1 + 1 + kLen
	bulk := 1 + 5 + 1 + 5 + 1 + 3 + 1 + 2 + 1 + 5 + 1 // local.tee ... end
	n := len(w.m.raw) + len(w.m.raw)/128 + 4096
	for _, p := range w.plans {
		n += 2 + len(p.shifts) + len(p.bulks)*bulk
		for _, b := range p.blocks {
			n += charge
			if b.check {
				n += len(w.mt.checkCode)
			}
		}
	}
	for _, f := range w.wrappers {
		n += 5 + 1 + charge + 6*len(w.m.Types[w.m.FuncTypeIndices[f-w.m.NumImportedFuncs]].Params) + 7 +
			2*len(w.m.FuncName(f)) + 10 + len(w.opt.DirectPrefix)
	}
	return n
}

// funcRef returns the function index an export or the start section should name for idx.
func (w *rewriter) funcRef(idx uint32) uint32 {
	if wi, ok := w.wrapperOf[idx]; ok {
		return wi
	}
	return w.sh.funcIdx(idx)
}

// functionSection appends the wrappers' type indices.
func (w *rewriter) functionSection(payload []byte) []byte {
	if len(w.wrappers) == 0 {
		return payload
	}
	r := newReader(payload, 0)
	n, _ := r.U32() // Decode read it already
	p := appendU32(nil, n+uint32(len(w.wrappers)))
	p = append(p, payload[r.Pos:]...)
	for _, f := range w.wrappers {
		p = appendU32(p, w.m.FuncTypeIndices[f-w.m.NumImportedFuncs])
	}
	return p
}

// appendWrapper appends the body of the wrapper of function f: charge f's entry block, pass the
// parameters on, call f. Its own instructions are the instrumenter's, not the guest's, so they
// cost nothing.
func (w *rewriter) appendWrapper(dst []byte, f uint32) []byte {
	i := f - w.m.NumImportedFuncs
	body := []byte{0x00} // no locals
	body = w.mt.charge(body, w.entryCost[i])
	for j := range w.m.Types[w.m.FuncTypeIndices[i]].Params {
		body = append(body, 0x20)
		body = appendU32(body, uint32(j))
	}
	body = append(body, opCall)
	body = appendU32(body, w.sh.funcIdx(f))
	body = append(body, opEnd)
	dst = appendU32(dst, uint32(len(body)))
	return append(dst, body...)
}

// typeSection returns the type section with the fuel hook's type appended when the module has no
// [] -> [] type; payload is the original section's payload, or nil when the module has none.
func (w *rewriter) typeSection(payload []byte) []byte {
	if !w.addType {
		return payload
	}
	var rest []byte
	n := uint32(0)
	if payload != nil {
		r := newReader(payload, 0)
		n, _ = r.U32() // Decode read it already
		rest = payload[r.Pos:]
	}
	p := appendU32(make([]byte, 0, len(payload)+8), n+1)
	p = append(p, rest...)
	return append(p, 0x60, 0x00, 0x00)
}

// importSection returns the import section with the fuel imports appended: the hook, if any, then
// the global. Appending puts the hook after every function import, so it takes the index of the
// first defined function. payload is the original section's payload, or nil when the module has
// none.
func (w *rewriter) importSection(payload []byte) []byte {
	var rest []byte
	n := uint32(0)
	if payload != nil {
		r := newReader(payload, 0)
		n, _ = r.U32() // Decode read it already
		rest = payload[r.Pos:]
	}
	added := uint32(1)
	if w.sh.hook {
		added++
	}
	size := len(payload) + 2*len(w.opt.FuelModule) + len(w.opt.FuelGlobal) + len(w.opt.FuelHook) + 32
	if w.renameEmpty {
		size += len(w.m.Imports) * len(w.opt.EmptyModule)
	}
	p := appendU32(make([]byte, 0, size), n+added)
	if w.renameEmpty {
		for _, im := range w.m.Imports {
			mod := im.Module
			if mod == "" {
				mod = w.opt.EmptyModule
			}
			p = appendName(p, mod)
			p = append(p, w.m.raw[im.field:im.end]...)
		}
	} else {
		p = append(p, rest...)
	}
	if w.sh.hook {
		p = appendName(p, w.opt.FuelModule)
		p = appendName(p, w.opt.FuelHook)
		p = append(p, byte(ExternFunc))
		p = appendU32(p, w.hookType)
	}
	p = appendName(p, w.opt.FuelModule)
	p = appendName(p, w.opt.FuelGlobal)
	return append(p, byte(ExternGlobal), byte(I64), 0x01)
}

func (w *rewriter) tableSection() []byte {
	p := appendU32(nil, uint32(len(w.tables)))
	for _, t := range w.tables {
		p = append(p, t.ElemType)
		if t.HasMax {
			p = append(p, 0x01)
			p = appendU32(p, t.Min)
			p = appendU32(p, t.Max)
		} else {
			p = append(p, 0x00)
			p = appendU32(p, t.Min)
		}
	}
	return p
}

func (w *rewriter) globalSection(p []byte) ([]byte, error) {
	p = appendU32(p, uint32(len(w.m.Globals)))
	var err error
	for _, g := range w.m.Globals {
		mut := byte(0)
		if g.Type.Mutable {
			mut = 1
		}
		p = append(p, byte(g.Type.ValType), mut)
		if p, err = shiftExpr(p, g.Init, w.sh, &w.mt.in); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (w *rewriter) exportSection() []byte {
	var direct []Export
	if w.opt.DirectPrefix != "" && len(w.wrappers) > 0 {
		names := make(map[string]bool, len(w.m.Exports))
		for _, e := range w.m.Exports {
			names[e.Name] = true
		}
		w.m.EntryCharges = map[string]int64{}
		for _, e := range w.m.Exports {
			if _, ok := w.wrapperOf[e.Index]; !ok || e.Kind != ExternFunc || names[w.opt.DirectPrefix+e.Name] {
				continue
			}
			direct = append(direct, Export{Name: w.opt.DirectPrefix + e.Name, Kind: ExternFunc, Index: e.Index})
			w.m.EntryCharges[e.Name] = w.entryCost[e.Index-w.m.NumImportedFuncs]
		}
	}
	state := w.stateExports()
	p := appendU32(nil, uint32(len(w.m.Exports)+len(direct)+len(state)))
	for _, e := range state {
		p = appendName(p, e.Name)
		p = append(p, byte(e.Kind))
		idx := e.Index
		if e.Kind == ExternGlobal {
			idx = w.sh.globalIdx(idx)
		}
		p = appendU32(p, idx)
	}
	for _, e := range direct {
		p = appendName(p, e.Name)
		p = append(p, byte(ExternFunc))
		p = appendU32(p, w.sh.funcIdx(e.Index))
	}
	for _, e := range w.m.Exports {
		p = appendName(p, e.Name)
		p = append(p, byte(e.Kind))
		idx := e.Index
		switch e.Kind {
		case ExternGlobal:
			idx = w.sh.globalIdx(idx)
		case ExternFunc:
			idx = w.funcRef(idx)
		}
		p = appendU32(p, idx)
	}
	return p
}

// stateExports lists the exports InstrumentOptions.StatePrefix adds: none without the option, or
// when the module already exports a name with the prefix.
func (w *rewriter) stateExports() []Export {
	prefix := w.opt.StatePrefix
	if prefix == "" {
		return nil
	}
	for _, ex := range w.m.Exports {
		if strings.HasPrefix(ex.Name, prefix) {
			return nil
		}
	}
	var out []Export
	for i, g := range w.m.Globals {
		if g.Type.Mutable {
			idx := w.m.NumImportedGlobals + uint32(i)
			out = append(out, Export{Name: SnapshotGlobalExport(prefix, idx), Kind: ExternGlobal, Index: idx})
		}
	}
	for i := range w.m.Memories {
		idx := uint32(len(w.m.ImportedMemories) + i)
		out = append(out, Export{Name: SnapshotMemoryExport(prefix, idx), Kind: ExternMemory, Index: idx})
	}
	return out
}

func (w *rewriter) elementSection(p []byte) ([]byte, error) {
	p = appendU32(p, uint32(len(w.m.Elements)))
	var err error
	for _, s := range w.m.Elements {
		p = appendU32(p, s.Flags)
		if s.Mode == ModeActive {
			if s.Flags&0x02 != 0 {
				p = appendU32(p, s.Table)
			}
			if p, err = shiftExpr(p, s.Offset, w.sh, &w.mt.in); err != nil {
				return nil, err
			}
		}
		if s.Flags&0x03 != 0 {
			if s.UsesExprs() {
				p = append(p, s.ElemType)
			} else {
				p = append(p, 0x00)
			}
		}
		p = appendU32(p, s.ItemCount)
		if !s.UsesExprs() {
			if p, err = w.appendFuncIndices(p, s.Items); err != nil {
				return nil, err
			}
		} else if p, err = shiftExpr(p, s.Items, w.sh, &w.mt.in); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// appendFuncIndices appends an element segment's vector of function indices (without its count),
// renumbered.
func (w *rewriter) appendFuncIndices(dst, items []byte) ([]byte, error) {
	if !w.sh.hook {
		return append(dst, items...), nil
	}
	r := newReader(items, 0)
	for !r.Done() {
		f, err := r.U32()
		if err != nil {
			return nil, err
		}
		dst = appendU32(dst, w.sh.funcIdx(f))
	}
	return dst, nil
}

func (w *rewriter) dataSection(p []byte) ([]byte, error) {
	p = appendU32(p, uint32(len(w.m.Data)))
	var err error
	for _, s := range w.m.Data {
		p = appendU32(p, s.Flags)
		if s.Flags == 2 {
			p = appendU32(p, s.Memory)
		}
		if s.Mode == ModeActive {
			if p, err = shiftExpr(p, s.Offset, w.sh, &w.mt.in); err != nil {
				return nil, err
			}
		}
		p = appendU32(p, uint32(len(s.Data)))
		p = append(p, s.Data...)
	}
	return p, nil
}

func (w *rewriter) codeSection(p []byte) ([]byte, error) {
	p = appendU32(p, uint32(len(w.m.Code)+len(w.wrappers)))
	var body []byte
	var adjust []int64
	for i, c := range w.m.Code {
		pl := w.plans[i]
		if cap(adjust) < len(pl.blocks) {
			adjust = make([]int64, len(pl.blocks))
		}
		adjust = adjust[:len(pl.blocks)]
		clear(adjust)
		for _, cs := range pl.calls {
			if ec := w.entryCost[cs.callee]; ec > 0 {
				adjust[cs.block] += ec
			}
		}
		if w.entryCost[i] >= 0 {
			pl.blocks[0].cost = 0 // charged by the caller or the export wrapper
		}
		decls := c.full[:len(c.full)-len(c.Body)]
		var scratch uint32
		if len(pl.bulks) > 0 {
			// One more i32 local, after the declared ones, holds a bulk instruction's length.
			r := newReader(decls, 0)
			n, err := r.U32()
			if err != nil {
				return nil, fmt.Errorf("section code: function %d: %w", w.m.NumImportedFuncs+uint32(i), err)
			}
			params := uint64(len(w.m.Types[w.m.FuncTypeIndices[i]].Params))
			if params+c.NumLocals >= 1<<32-1 {
				return nil, fmt.Errorf("%w: function %d has too many locals for a bulk check", ErrInstrument, w.m.NumImportedFuncs+uint32(i))
			}
			scratch = uint32(params + c.NumLocals)
			body = appendU32(body[:0], n+1)
			body = append(body, decls[r.Pos:]...)
			body = append(body, 0x01, byte(I32))
		} else {
			body = append(body[:0], decls...)
		}
		body = w.mt.emit(body, c.Body, pl, adjust, scratch)
		p = appendU32(p, uint32(len(body)))
		p = append(p, body...)
	}
	w.plans = nil
	for _, f := range w.wrappers {
		p = w.appendWrapper(p, f)
	}
	return p, nil
}

// customSection returns a custom section's payload, with the name section's maps moved to the
// shifted indices: global names always, and with a fuel hook the function names and the local and
// label names (keyed by function index). A map that cannot be read is dropped rather than left to
// label the wrong entities. Without a hook, function names are copied, plus the wrappers' names.
//
// With a hook (as the engine instruments), every malformed subsection is dropped, and all that
// follows a malformed size: wazero reads a subsection by its contents, not its declared size, so
// a malformed one next to rewritten ones could make wazero refuse the module it accepted before.
func (w *rewriter) customSection(payload []byte) []byte {
	// Without a hook a malformed size keeps the rest as it was, as wazero will read it.
	return editNameSection(payload, !w.sh.hook, func(out []byte, id byte, sub, raw []byte) []byte {
		var moved []byte
		var ok bool
		switch {
		case id == nameGlobals:
			moved, ok = shiftNameMap(sub, w.sh.globalIdx)
		case id == nameFunctions && w.sh.hook:
			if moved, ok = shiftNameMap(sub, w.sh.funcIdx); ok && len(w.wrappers) > 0 {
				moved, ok = w.nameWrappers(moved)
			}
		case id == nameFunctions && len(w.wrappers) > 0:
			if moved, ok = w.nameWrappers(sub); !ok {
				moved, ok = sub, true // the indices are unchanged: keep the map as it was
			}
		case (id == nameLocals || id == nameLabels) && w.sh.hook:
			moved, ok = shiftIndirectNameMap(sub, w.sh.funcIdx)
		default:
			if !w.sh.hook || wellFormedName(id, sub) {
				out = append(out, raw...)
			}
			return out
		}
		if !ok {
			return out
		}
		out = append(out, id)
		out = appendU32(out, uint32(len(moved)))
		return append(out, moved...)
	})
}

// wellFormedNameSection returns a custom section's payload and, when it is the name section, only
// its well-formed subsections, up to the first malformed size: what Unmetered, which moves no
// index, hands wazero. wazero reads a subsection by its declared counts, and allocates for them
// before it finds the bytes missing (3 GiB for a 16-byte name section with one huge count).
func wellFormedNameSection(payload []byte) []byte {
	return editNameSection(payload, false, func(out []byte, id byte, sub, raw []byte) []byte {
		if wellFormedName(id, sub) {
			out = append(out, raw...)
		}
		return out
	})
}

// editNameSection is the one walk over the name section's subsections, for the two callers that
// rebuild it. Any other custom section comes back as it was. The name section comes back as its
// name, then what edit appends for each subsection in order (id and contents, and raw: the
// subsection's bytes as they were), up to the first subsection whose size cannot be read or runs
// past the end; from there the rest is kept as it was when keepTail is set, and dropped otherwise.
func editNameSection(payload []byte, keepTail bool, edit func(out []byte, id byte, sub, raw []byte) []byte) []byte {
	r := newReader(payload, 0)
	name, err := r.Name()
	if err != nil || name != "name" {
		return payload
	}
	out := append([]byte(nil), payload[:r.Pos]...)
	for !r.Done() {
		start := r.Pos
		id, _ := r.Byte()
		size, err := r.U32()
		if err != nil || uint64(size) > uint64(r.Remaining()) {
			if keepTail {
				out = append(out, payload[start:]...)
			}
			return out
		}
		sub, _ := r.Bytes(uint64(size))
		out = edit(out, id, sub, payload[start:r.Pos])
	}
	return out
}

// wellFormedName reports whether a name subsection holds exactly what its id says: a name
// (module), a name map (functions, types, tables, memories, globals, element and data segments,
// tags) or an indirect name map (locals, labels, fields). Unknown ids are taken as they are.
func wellFormedName(id byte, sub []byte) bool {
	same := func(i uint32) uint32 { return i }
	switch id {
	case nameModule:
		r := newReader(sub, 0)
		_, err := r.Name()
		return err == nil && r.Done()
	case nameLocals, nameLabels, 10: // 10: field names
		_, ok := shiftIndirectNameMap(sub, same)
		return ok
	case nameFunctions, 4, 5, 6, nameGlobals, 8, 9, 11:
		_, ok := shiftNameMap(sub, same)
		return ok
	}
	return true
}

// nameWrappers appends the wrappers to a function-name map, each under its function's name, so
// that stack traces read as before. The wrappers' indices are above all others, which keeps the
// map sorted.
func (w *rewriter) nameWrappers(sub []byte) ([]byte, bool) {
	r := newReader(sub, 0)
	n, err := r.Count("names", 2, 0)
	if err != nil {
		return nil, false
	}
	var extra []byte
	added := uint32(0)
	for _, f := range w.wrappers {
		if name := w.m.FuncName(f); name != "" {
			extra = appendU32(extra, w.wrapperOf[f])
			extra = appendName(extra, name)
			added++
		}
	}
	out := appendU32(nil, n+added)
	out = append(out, sub[r.Pos:]...)
	return append(out, extra...), true
}

// shiftNameMap re-encodes a name map (vec(idx name)) with its indices renumbered by shift.
func shiftNameMap(sub []byte, shift func(uint32) uint32) ([]byte, bool) {
	r := newReader(sub, 0)
	n, err := r.Count("names", 2, 0)
	if err != nil {
		return nil, false
	}
	out := appendU32(make([]byte, 0, len(sub)+8), n)
	for i := uint32(0); i < n; i++ {
		idx, err := r.U32()
		if err != nil {
			return nil, false
		}
		start := r.Pos
		if _, err := r.Name(); err != nil {
			return nil, false
		}
		out = appendU32(out, shift(idx))
		out = append(out, sub[start:r.Pos]...)
	}
	if !r.Done() {
		return nil, false
	}
	return out, true
}

// shiftIndirectNameMap re-encodes an indirect name map (vec(idx namemap)), as the local and label
// names are, with its outer indices renumbered by shift; the inner maps are copied.
func shiftIndirectNameMap(sub []byte, shift func(uint32) uint32) ([]byte, bool) {
	r := newReader(sub, 0)
	n, err := r.Count("functions", 2, 0)
	if err != nil {
		return nil, false
	}
	out := appendU32(make([]byte, 0, len(sub)+8), n)
	for i := uint32(0); i < n; i++ {
		idx, err := r.U32()
		if err != nil {
			return nil, false
		}
		start := r.Pos
		m, err := r.Count("names", 2, 0)
		if err != nil {
			return nil, false
		}
		for j := uint32(0); j < m; j++ {
			if _, err := r.U32(); err != nil {
				return nil, false
			}
			if _, err := r.Name(); err != nil {
				return nil, false
			}
		}
		out = appendU32(out, shift(idx))
		out = append(out, sub[start:r.Pos]...)
	}
	if !r.Done() {
		return nil, false
	}
	return out, true
}
