package wasm

import (
	"fmt"
)

// InstrumentOptions configures Instrument.
type InstrumentOptions struct {
	// FuelModule and FuelGlobal name the import of the shared fuel counter, a mutable i64 global
	// holding the remaining fuel. The engine passes "kobako:fuel" and "remaining".
	FuelModule string
	FuelGlobal string
	// MaxTableElements, when not zero, becomes the declared maximum of every defined table whose
	// maximum is absent or larger, because wazero has no table limit of its own. A defined table
	// whose minimum exceeds it makes Instrument fail with an error wrapping ErrTableLimit.
	// Imported tables are left alone: their exporter declared them.
	MaxTableElements uint32
}

// Instrument returns a copy of the module's binary rewritten for fuel metering:
//
//   - one import, (import FuelModule FuelGlobal (global (mut i64))), is appended to the import
//     section (which is created if absent), so it takes global index k = the number of imported
//     globals, and every reference to a defined global (index >= k) moves up by one: global.get
//     and global.set in code, global.get in every constant expression, global exports and the
//     name section's global names;
//   - every function body charges the fuel its instructions cost and checks the counter, as the
//     package documentation describes;
//   - defined tables get the maximum InstrumentOptions.MaxTableElements asks for.
//
// All other sections, custom ones included, are copied unchanged, in order. The output depends
// only on the module and opt. Instrument records the table limits it wrote in m.Tables (the
// declared ones stay in m.DeclaredTables); it changes nothing else in m.
//
// Instrument refuses modules that use features CheckEngineFeatures rejects (their control flow,
// such as exceptions and tail calls, is outside what the metering handles) and modules that
// already import from FuelModule.
func Instrument(m *Module, opt InstrumentOptions) ([]byte, error) {
	out, err := instrument(m, opt, nil)
	if err != nil {
		return nil, fmt.Errorf("wasm: instrument: %w", err)
	}
	return out, nil
}

func instrument(m *Module, opt InstrumentOptions, analyze func(*meter, []byte) error) ([]byte, error) {
	if opt.FuelModule == "" || opt.FuelGlobal == "" {
		return nil, fmt.Errorf("%w: the fuel import needs a module and a field name", ErrInstrument)
	}
	if err := m.CheckEngineFeatures(); err != nil {
		return nil, err
	}
	for i, im := range m.Imports {
		if im.Module == opt.FuelModule {
			return nil, fmt.Errorf("%w: import %d (%q %q) already uses the fuel module name %q", ErrInstrument, i, im.Module, im.Name, opt.FuelModule)
		}
	}
	tables, err := clampTables(m.DeclaredTables, m.NumImportedTables, opt.MaxTableElements)
	if err != nil {
		return nil, err
	}

	k := m.NumImportedGlobals
	w := &rewriter{m: m, k: k, opt: opt, tables: tables, analyze: (*meter).analyze}
	if analyze != nil {
		w.analyze = analyze
	}
	w.mt.k = k
	w.mt.checkCode = checkCode(k)
	w.mt.charge = func(dst []byte, c int64) []byte {
		dst = append(dst, opGlobalGet)
		dst = appendU32(dst, k)
		dst = append(dst, opI64Const)
		dst = appendS64(dst, c)
		dst = append(dst, opI64Sub, opGlobalSet)
		return appendU32(dst, k)
	}

	out := make([]byte, 0, len(m.raw)+len(m.raw)/8+64)
	out = append(out, m.raw[:8]...)
	importDone := false
	for _, s := range m.sections {
		if !importDone && s.id != secCustom && sectionRank[s.id] > sectionRank[secImport] {
			out = appendSection(out, secImport, w.importSection(nil))
			importDone = true
		}
		payload := m.raw[s.payloadStart:s.end]
		var p []byte
		switch s.id {
		case secImport:
			p = w.importSection(payload)
			importDone = true
		case secTable:
			p = w.tableSection()
		case secGlobal:
			p, err = w.globalSection()
		case secExport:
			p = w.exportSection()
		case secElement:
			p, err = w.elementSection()
		case secData:
			p, err = w.dataSection()
		case secCode:
			p, err = w.codeSection()
		case secCustom:
			p = w.customSection(payload)
		default:
			p = payload
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", sectionNames[s.id], err)
		}
		out = appendSection(out, s.id, p)
	}
	if !importDone {
		out = appendSection(out, secImport, w.importSection(nil))
	}
	m.Tables = tables
	return out, nil
}

// checkCode is the check at function entries and loop headers:
//
//	block
//	  global.get $fuel
//	  i64.const 0
//	  i64.ge_s
//	  br_if 0
//	  unreachable
//	end
//
// It traps only when the counter is negative. wazero's interpreter runs the taken br_if as one
// jump to the block's continuation; an "if unreachable end" would also run an else label, a
// jump and a continuation label on the fast path.
func checkCode(k uint32) []byte {
	b := []byte{opBlock, 0x40, opGlobalGet}
	b = appendU32(b, k)
	return append(b, opI64Const, 0x00, opI64GeS, opBrIf, 0x00, opUnreachable, opEnd)
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

func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

// rewriter re-encodes the sections that refer to globals or tables.
type rewriter struct {
	m      *Module
	k      uint32
	opt    InstrumentOptions
	tables []TableType
	mt     meter
	// analyze places the charges of one body; tests replace it with a per-instruction oracle.
	analyze func(mt *meter, body []byte) error
}

func (w *rewriter) shift(idx uint32) uint32 {
	if idx >= w.k {
		return idx + 1
	}
	return idx
}

// importSection returns the import section with the fuel import appended; payload is the original
// section's payload, or nil when the module has none.
func (w *rewriter) importSection(payload []byte) []byte {
	var rest []byte
	n := uint32(0)
	if payload != nil {
		r := newReader(payload, 0)
		n, _ = r.u32() // Decode read it already
		rest = payload[r.pos:]
	}
	p := appendU32(make([]byte, 0, len(payload)+len(w.opt.FuelModule)+len(w.opt.FuelGlobal)+16), n+1)
	p = append(p, rest...)
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

func (w *rewriter) globalSection() ([]byte, error) {
	p := appendU32(nil, uint32(len(w.m.Globals)))
	var err error
	for _, g := range w.m.Globals {
		mut := byte(0)
		if g.Type.Mutable {
			mut = 1
		}
		p = append(p, byte(g.Type.ValType), mut)
		if p, err = shiftExpr(p, g.Init, w.k, &w.mt.in); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (w *rewriter) exportSection() []byte {
	p := appendU32(nil, uint32(len(w.m.Exports)))
	for _, e := range w.m.Exports {
		p = appendName(p, e.Name)
		p = append(p, byte(e.Kind))
		idx := e.Index
		if e.Kind == ExternGlobal {
			idx = w.shift(idx)
		}
		p = appendU32(p, idx)
	}
	return p
}

func (w *rewriter) elementSection() ([]byte, error) {
	p := appendU32(nil, uint32(len(w.m.Elements)))
	var err error
	for _, s := range w.m.Elements {
		p = appendU32(p, s.Flags)
		if s.Mode == ModeActive {
			if s.Flags&0x02 != 0 {
				p = appendU32(p, s.Table)
			}
			if p, err = shiftExpr(p, s.Offset, w.k, &w.mt.in); err != nil {
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
			p = append(p, s.Items...)
		} else if p, err = shiftExpr(p, s.Items, w.k, &w.mt.in); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (w *rewriter) dataSection() ([]byte, error) {
	size := 8
	for _, s := range w.m.Data {
		size += len(s.Data) + len(s.Offset) + 16
	}
	p := appendU32(make([]byte, 0, size), uint32(len(w.m.Data)))
	var err error
	for _, s := range w.m.Data {
		p = appendU32(p, s.Flags)
		if s.Flags == 2 {
			p = appendU32(p, s.Memory)
		}
		if s.Mode == ModeActive {
			if p, err = shiftExpr(p, s.Offset, w.k, &w.mt.in); err != nil {
				return nil, err
			}
		}
		p = appendU32(p, uint32(len(s.Data)))
		p = append(p, s.Data...)
	}
	return p, nil
}

func (w *rewriter) codeSection() ([]byte, error) {
	total := 0
	for _, c := range w.m.Code {
		total += len(c.full)
	}
	p := appendU32(make([]byte, 0, total+total/4+16), uint32(len(w.m.Code)))
	var body []byte
	for i, c := range w.m.Code {
		fn := w.m.NumImportedFuncs + uint32(i)
		if err := w.analyze(&w.mt, c.Body); err != nil {
			return nil, fmt.Errorf("function %d: %w", fn, err)
		}
		body = append(body[:0], c.full[:len(c.full)-len(c.Body)]...) // local declarations
		var err error
		if body, err = w.mt.emit(body, c.Body); err != nil {
			return nil, fmt.Errorf("function %d: %w", fn, err)
		}
		p = appendU32(p, uint32(len(body)))
		p = append(p, body...)
	}
	return p, nil
}

// customSection returns a custom section's payload, with the name section's global names moved
// to the shifted indices.
func (w *rewriter) customSection(payload []byte) []byte {
	r := newReader(payload, 0)
	name, err := r.name()
	if err != nil || name != "name" {
		return payload
	}
	out := append([]byte(nil), payload[:r.pos]...)
	for !r.done() {
		start := r.pos
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil || uint64(size) > uint64(r.remaining()) {
			// Malformed from here on: keep the rest as it was, as wazero will read it.
			return append(out, payload[start:]...)
		}
		sub, _ := r.bytes(int(size))
		if id != nameGlobals {
			out = append(out, payload[start:r.pos]...)
			continue
		}
		shifted, ok := w.shiftNameMap(sub)
		if !ok {
			continue // drop a global-name map we cannot read rather than mislabel globals
		}
		out = append(out, id)
		out = appendU32(out, uint32(len(shifted)))
		out = append(out, shifted...)
	}
	return out
}

func (w *rewriter) shiftNameMap(sub []byte) ([]byte, bool) {
	r := newReader(sub, 0)
	n, err := r.count("names", 2, 0)
	if err != nil {
		return nil, false
	}
	out := appendU32(nil, n)
	for i := uint32(0); i < n; i++ {
		idx, err := r.u32()
		if err != nil {
			return nil, false
		}
		start := r.pos
		if _, err := r.name(); err != nil {
			return nil, false
		}
		out = appendU32(out, w.shift(idx))
		out = append(out, sub[start:r.pos]...)
	}
	if !r.done() {
		return nil, false
	}
	return out, true
}
