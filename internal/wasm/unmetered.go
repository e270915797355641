package wasm

import "fmt"

// UnmeteredOptions configures Unmetered. Its fields mean what InstrumentOptions' fields of the
// same names mean.
type UnmeteredOptions struct {
	MaxTableElements uint32
	EmptyModule      string
}

// Unmetered returns a copy of the module's binary prepared to run without fuel, on a runtime that
// interrupts a guest by checks of its own at loop headers (wazero's close-on-context-done puts one
// at every loop instruction, whether a branch targets it or not):
//
//   - every function body that holds a call or call_indirect gets an empty loop (loop; end, three
//     bytes) on the way to its calls, so that a chain of calls without a loop (a deep or
//     exponential recursion) meets such a check on every call level too: right before the
//     straight-line run of instructions that holds the function's calls when they are all in one
//     (recursive fib's else arm, so that its leaves, which call nothing, pay nothing), otherwise
//     at the function's entry. A function without calls either loops, and meets the checks at its
//     loop headers, or runs a bounded number of instructions;
//   - defined tables get the maximum MaxTableElements asks for, and imports from the empty module
//     name import from EmptyModule, exactly as Instrument does.
//
// Nothing is imported or charged and no index moves, so every other section is copied unchanged,
// custom sections too but for the name section's malformed subsections, which are dropped as
// Instrument drops them (wazero would allocate for their declared counts), and the contentless
// custom sections that end the module (see emptyCustomTail). The output depends only on the
// module and opt. Like Instrument, Unmetered records the table limits it wrote in m.Tables, lets
// go of what Decode recorded of the function bodies, and must not run concurrently with other
// uses of the same Module.
func Unmetered(m *Module, opt UnmeteredOptions) ([]byte, error) {
	out, err := unmetered(m, opt)
	if err != nil {
		return nil, fmt.Errorf("wasm: unmetered: %w", err)
	}
	return out, nil
}

// entryLoop is the empty loop Unmetered puts on the way to a function's calls.
var entryLoop = []byte{opLoop, 0x40, opEnd}

// checkAt returns where in a body whose metered instructions are code the entry loop goes: the
// start of the straight-line run that holds every call, or 0 (the entry) when the calls are in
// several runs; -1 when the body calls nothing. A run ends at every control instruction, so one
// that holds a call is entered only at its start, and every execution that reaches the call
// passed the loop.
func checkAt(code []cinstr) int {
	at, run := -1, 0
	for _, in := range code {
		switch in.op {
		case opCall, opCallInd:
			if at >= 0 && at != run {
				return 0
			}
			at = run
		case opBlock, opLoop, opIf, opElse, opEnd, opBr, opBrIf, opBrTable, opReturn, opUnreachable:
			run = int(in.end)
		}
	}
	return at
}

func unmetered(m *Module, opt UnmeteredOptions) ([]byte, error) {
	if m == nil || len(m.raw) < 8 {
		return nil, fmt.Errorf("%w: the module was not produced by Decode", ErrInstrument)
	}
	if err := m.CheckEngineFeatures(); err != nil {
		return nil, err
	}
	renameEmpty := false
	for _, im := range m.Imports {
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
	w := &rewriter{m: m, tables: tables}
	at := make([]int, len(m.Code))
	var mt meter
	for i := range m.Code {
		c := &m.Code[i]
		code := c.code
		if code == nil {
			if err := mt.decode(c.Body); err != nil {
				return nil, fmt.Errorf("section code: function %d: %w", m.NumImportedFuncs+uint32(i), err)
			}
			code = mt.code
		}
		at[i] = checkAt(code)
		c.code, c.labels = nil, nil
	}

	out := make([]byte, 0, len(m.raw)+len(m.Code)*len(entryLoop)+len(m.raw)/64+64)
	out = append(out, m.raw[:8]...)
	emptyTail := m.emptyCustomTail()
	for i, s := range m.sections {
		if i >= emptyTail {
			break
		}
		payload := m.raw[s.payloadStart:s.end]
		switch s.id {
		case secImport:
			if renameEmpty {
				p := appendU32(make([]byte, 0, len(payload)+len(m.Imports)*len(opt.EmptyModule)), uint32(len(m.Imports)))
				for _, im := range m.Imports {
					mod := im.Module
					if mod == "" {
						mod = opt.EmptyModule
					}
					p = appendName(p, mod)
					p = append(p, m.raw[im.field:im.end]...)
				}
				payload = p
			}
		case secTable:
			payload = w.tableSection()
		case secCustom:
			payload = wellFormedNameSection(payload)
		case secCode:
			if out, err = appendSectionFunc(out, s.id, func(p []byte) ([]byte, error) {
				p = appendU32(p, uint32(len(m.Code)))
				for i, c := range m.Code {
					if at[i] < 0 {
						p = appendU32(p, uint32(len(c.full)))
						p = append(p, c.full...)
						continue
					}
					p = appendU32(p, uint32(len(c.full)+len(entryLoop)))
					decls := c.full[:len(c.full)-len(c.Body)]
					p = append(p, decls...)
					p = append(p, c.Body[:at[i]]...)
					p = append(p, entryLoop...)
					p = append(p, c.Body[at[i]:]...)
				}
				return p, nil
			}); err != nil {
				return nil, err
			}
			continue
		}
		out = appendSection(out, s.id, payload)
	}
	m.Tables = tables
	return out, nil
}
