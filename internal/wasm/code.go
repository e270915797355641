package wasm

import "fmt"

// This file decodes the code section: local declarations, limits on locals and body size, and a
// structural pass over every instruction.

func (d *decoder) codeSection(r *reader) error {
	n, err := r.Count("function bodies", 2, 0)
	if err != nil {
		return err
	}
	if uint64(n) != uint64(len(d.m.FuncTypeIndices)) {
		return fmt.Errorf("%w: code section has %d bodies but the function section declares %d functions", ErrMalformed, n, len(d.m.FuncTypeIndices))
	}
	d.m.Code = make([]Code, 0, n)
	d.rec.setChunk(r.Remaining())
	for i := uint32(0); i < n; i++ {
		fn := d.m.NumImportedFuncs + i
		at := r.Offset()
		size, err := r.U32()
		if err != nil {
			return fmt.Errorf("function %d: %w", fn, err)
		}
		if size > d.lim.FunctionBodySize {
			return fmt.Errorf("function %d: %w", fn, limitErr(at, "bytes of function body", uint64(size), uint64(d.lim.FunctionBodySize)))
		}
		bodyAt := r.Offset()
		body, err := r.Bytes(uint64(size))
		if err != nil {
			return fmt.Errorf("function %d: %w", fn, err)
		}
		c, err := d.functionBody(fn, i, body, bodyAt)
		if err != nil {
			return fmt.Errorf("function %d: %w", fn, err)
		}
		d.m.Code = append(d.m.Code, c)
	}
	if d.rec.off {
		// Too many instructions to keep for their bytes: Instrument decodes the bodies again.
		for i := range d.m.Code {
			d.m.Code[i].code, d.m.Code[i].labels = nil, nil
		}
	}
	return nil
}

func (d *decoder) functionBody(fn, defined uint32, body []byte, base int) (Code, error) {
	r := newReader(body, base)
	c := Code{full: body}
	at := r.Offset()
	nd, err := r.Count("local declarations", 2, d.lim.LocalsPerFunction)
	if err != nil {
		return c, err
	}
	params := uint64(len(d.m.Types[d.m.FuncTypeIndices[defined]].Params))
	locals := params

	for j := uint32(0); j < nd; j++ {
		cat := r.Offset()
		cnt, err := r.U32()
		if err != nil {
			return c, err
		}
		locals += uint64(cnt)
		if locals > uint64(d.lim.LocalsPerFunction) {
			return c, limitErr(cat, "locals (parameters included)", locals, uint64(d.lim.LocalsPerFunction))
		}
		tat := r.Offset()
		t, f, err := readValType(r)
		if err != nil {
			return c, err
		}
		if f != "" {
			d.m.features.add(f, int64(fn), tat, fmt.Sprintf("local of type %s", t))
		}
		if cnt > 0 {
			// Empty runs are dropped, so the decoded locals never outnumber the declared ones.
			c.Locals = append(c.Locals, LocalDecl{Count: cnt, Type: t})
		}
	}
	c.NumLocals = locals - params
	d.totalLocals += c.NumLocals
	if d.totalLocals > d.lim.TotalLocals {
		return c, limitErr(at, "locals in all functions together", d.totalLocals, d.lim.TotalLocals)
	}
	c.Offset = r.Offset()
	c.Body = body[r.Pos:len(body):len(body)]
	if err := d.scanBody(fn, r); err != nil {
		return c, err
	}
	if !d.rec.off {
		c.code, c.labels = d.rec.finish()
	}
	return c, nil
}

// Control frame kinds of the structural pass.
const (
	frameFunc byte = iota
	frameBlock
	frameLoop
	frameIf
	frameElse
	frameTry
	frameCatch
	frameTryTable
)

// scanBody reads every instruction of a function body, checks that blocks nest and end where the
// body ends, that labels, functions and globals exist, and records the features used and, in
// d.rec, the instructions the metering acts on.
func (d *decoder) scanBody(fn uint32, r *reader) error {
	m := d.m
	numGlobals := m.NumGlobals()
	numFuncs := m.NumFuncs()
	stack := append(d.stack[:0], frameFunc)
	defer func() { d.stack = stack }()
	in := &d.instr
	rec := &d.rec
	rec.begin()
	bodyStart := r.Pos
	for !r.Done() {
		if err := readInstr(r, in); err != nil {
			return err
		}
		// The recorded offsets are relative to Code.Body, which starts where r does. The structure
		// is checked below, so add's report of an unmatched end is not needed.
		in.start -= bodyStart
		in.end -= bodyStart
		rec.add(in)
		in.start += bodyStart
		at := r.Base + in.start
		var feature string
		if in.op < 0x100 {
			feature = ops1[in.op].feature // without copying the whole opInfo
		} else {
			feature = lookupOp(in.op).feature
		}
		if feature != "" {
			m.features.addOp(feature, int64(fn), at, "opcode ", in.op)
		}
		if in.immFeature != "" && in.immFeature != feature {
			m.features.addOp(in.immFeature, int64(fn), at, "immediate of opcode ", in.op)
		}
		depth := uint32(len(stack))
		switch in.op {
		case opBlock:
			stack = append(stack, frameBlock)
		case opLoop:
			stack = append(stack, frameLoop)
		case opIf:
			stack = append(stack, frameIf)
		case opTry:
			stack = append(stack, frameTry)
		case opTryTable:
			stack = append(stack, frameTryTable)
		case opElse:
			if stack[len(stack)-1] != frameIf {
				return fmt.Errorf("at byte offset 0x%x: %w: else without a matching if", at, ErrMalformed)
			}
			stack[len(stack)-1] = frameElse
		case opCatch, opCatchAll:
			if k := stack[len(stack)-1]; k != frameTry && k != frameCatch {
				return fmt.Errorf("at byte offset 0x%x: %w: %s without a matching try", at, ErrMalformed, lookupOp(in.op).name)
			}
			stack[len(stack)-1] = frameCatch
		case opDelegate:
			if stack[len(stack)-1] != frameTry {
				return fmt.Errorf("at byte offset 0x%x: %w: delegate without a matching try", at, ErrMalformed)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 || in.idx >= uint32(len(stack)) {
				return fmt.Errorf("at byte offset 0x%x: %w: delegate to unknown label %d", at, ErrMalformed, in.idx)
			}
		case opEnd:
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && !r.Done() {
				return fmt.Errorf("at byte offset 0x%x: %w: instructions after the function's final end", r.Offset(), ErrMalformed)
			}
		case opBr, opBrIf, opBrOnNull, opBrOnNonNull, prefixGC<<16 | 24, prefixGC<<16 | 25:
			if in.idx >= depth {
				return fmt.Errorf("at byte offset 0x%x: %w: branch to unknown label %d (depth %d)", at, ErrMalformed, in.idx, depth)
			}
		case opBrTable:
			for _, l := range in.labels {
				if l >= depth {
					return fmt.Errorf("at byte offset 0x%x: %w: br_table to unknown label %d (depth %d)", at, ErrMalformed, l, depth)
				}
			}
		case opGlobalGet, opGlobalSet:
			if in.idx >= numGlobals {
				return fmt.Errorf("at byte offset 0x%x: %w: unknown global %d", at, ErrMalformed, in.idx)
			}
		case opCall, opReturnCall, opRefFunc:
			if in.idx >= numFuncs {
				return fmt.Errorf("at byte offset 0x%x: %w: unknown function %d", at, ErrMalformed, in.idx)
			}
			if in.op == opRefFunc {
				d.markReferenced(in.idx)
			}
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("at byte offset 0x%x: %w: function body ends inside %d unclosed blocks", r.Offset(), ErrMalformed, len(stack))
	}
	return nil
}
