package wasm

import "fmt"

// This file computes where fuel is charged in a function body and writes the metered body.
// The counting rule is documented in doc.go.

// bblock is a charge point: a basic block, or several merged into one.
type bblock struct {
	at    int   // offset in Code.Body where the charge code goes
	cost  int64 // fuel charged there for the function's own instructions
	check bool  // check the counter after charging
	calls bool  // the block holds a call or call_indirect
	// adjust is the entry cost of the callees the block calls directly that do not charge it
	// themselves (see rewriter.prepare). It takes no part in the analysis.
	adjust int64
}

type edge struct{ from, to int32 }

// cinstr is one instruction of the body being metered, as the analysis and emit need it.
// Decode records only the instructions the metering acts on (see opKinds) and counts the cost of
// those in between in the next one's pre; meter.decode records every instruction. Bodies are
// shorter than 4 GiB, since their size is a u32.
type cinstr struct {
	op    uint32
	start uint32 // offset in Code.Body
	end   uint32 // offset in Code.Body just past the instruction
	// idx is the first index immediate; for br_table, where its target count and then its targets
	// start in the body's labels; for loop, 1 when a branch targets the loop (counted
	// syntactically, dead code included).
	idx uint32
	pre uint32 // the cost of the instructions left out right before this one
}

// opKinds says of each single-byte opcode whether the metering acts on it (opKindMetered:
// control flow, calls, and the instructions whose index the fuel imports renumber), or else what
// it costs. Of the prefixed opcodes, the metering acts only on the bulk instructions, which the
// hook follows; the others cost 1.
var opKinds = func() (t [256]uint8) {
	for op := range t {
		t[op] = uint8(cost(uint32(op)))
	}
	for _, op := range []byte{opBlock, opLoop, opIf, opElse, opEnd, opBr, opBrIf, opBrTable, opReturn,
		opUnreachable, opCall, opCallInd, opGlobalGet, opGlobalSet, opRefFunc} {
		t[op] = opKindMetered
	}
	return t
}()

const opKindMetered = 2

// codeRecorder builds the compact instruction list of one body at a time, appending to code and
// labels. Several bodies may share the backing arrays: a body's list starts at base, and when the
// arrays are full the list moves to new ones of at least chunk elements, so a module's lists are
// allocated in chunks rather than one by one or copied as a whole.
type codeRecorder struct {
	code      []cinstr
	labels    []uint32
	base      int
	labelBase int
	loops     []int32 // per open block, if or loop: the loop's index in the body's list, or -1
	pre       uint32
	all       bool // record every instruction (meter.decode), not only the metered ones
	chunk     int  // the smallest array to allocate, in elements
	// limit, when not zero, is the most bytes of instructions and labels to record; past it the
	// recorder stops (off), and Instrument decodes the bodies again instead. used counts them.
	limit, used int
	off         bool
}

// recordBytesPerByte bounds what Decode records to this many bytes per byte of the code section
// (plus 64 KiB). Real code stays under 2 (a metered instruction every 8 to 16 bytes, 20 bytes each); a body
// made of nothing but blocks and ends would need 20.
const recordBytesPerByte = 4

// recordChunk is the largest chunk: a module's code section is recorded in arrays of 16 Ki
// instructions (320 KiB), or less for a small section (see setChunk).
const recordChunk = 1 << 14

// setChunk sizes the chunks for a code section of size bytes. Real code has a metered instruction
// every 8 to 16 bytes, and a small module gets small arrays.
func (cr *codeRecorder) setChunk(size int) {
	cr.chunk = min(recordChunk, max(64, size/8))
	cr.limit = recordBytesPerByte*size + 64<<10
}

// grow returns s with room for need more elements, moving s[*base:] to a new array of at least
// chunk elements if there is none.
func grow[T any](s []T, base *int, need, chunk int) []T {
	if cap(s)-len(s) >= need {
		return s
	}
	n := len(s) - *base
	ns := make([]T, n, max(2*n+need, chunk))
	copy(ns, s[*base:])
	*base = 0
	return ns
}

// begin starts the list of a new body.
func (cr *codeRecorder) begin() {
	cr.base, cr.labelBase = len(cr.code), len(cr.labels)
	cr.loops = append(cr.loops[:0], -1)
	cr.pre = 0
}

// finish returns the list of the body since begin; labels is nil when the body has no br_table.
func (cr *codeRecorder) finish() (code []cinstr, labels []uint32) {
	code = cr.code[cr.base:len(cr.code):len(cr.code)]
	if len(cr.labels) > cr.labelBase {
		labels = cr.labels[cr.labelBase:len(cr.labels):len(cr.labels)]
	}
	return code, labels
}

// add records in, whose immediates were read from the body. It reports false for an end that
// closes no block.
func (cr *codeRecorder) add(in *instr) bool {
	if !cr.all {
		if in.op < 0x100 {
			if k := opKinds[in.op]; k != opKindMetered {
				cr.pre += uint32(k) // the cost
				return true
			}
		} else if !isBulk(in.op) {
			cr.pre++
			return true
		}
	}
	if cr.limit > 0 {
		if cr.off {
			return true
		}
		cr.used += 20 // the size of a cinstr
		if in.op == opBrTable {
			cr.used += 4 * (len(in.labels) + 1)
		}
		if cr.used > cr.limit {
			cr.off = true
			cr.code, cr.labels, cr.base, cr.labelBase = nil, nil, 0, 0
			return true
		}
	}
	c := cinstr{op: in.op, start: uint32(in.start), end: uint32(in.end), idx: in.idx, pre: cr.pre}
	cr.pre = 0
	cr.code = grow(cr.code, &cr.base, 1, cr.chunk)
	switch in.op {
	case opBlock, opIf:
		cr.loops = append(cr.loops, -1)
	case opLoop:
		c.idx = 0
		cr.loops = append(cr.loops, int32(len(cr.code)-cr.base))
	case opEnd:
		if len(cr.loops) == 0 {
			return false
		}
		cr.loops = cr.loops[:len(cr.loops)-1]
	case opBr, opBrIf:
		cr.markLoop(in.idx)
	case opBrTable:
		cr.labels = grow(cr.labels, &cr.labelBase, len(in.labels)+1, cr.chunk/4)
		c.idx = uint32(len(cr.labels) - cr.labelBase)
		cr.labels = append(cr.labels, uint32(len(in.labels)))
		cr.labels = append(cr.labels, in.labels...)
		for _, l := range in.labels {
			cr.markLoop(l)
		}
	}
	cr.code = append(cr.code, c)
	return true
}

func (cr *codeRecorder) markLoop(label uint32) {
	i := len(cr.loops) - 1 - int(label)
	if i >= 0 && cr.loops[i] >= 0 {
		cr.code[cr.base+int(cr.loops[i])].idx = 1
	}
}

// mframe is a control frame of the metering pass.
type mframe struct {
	kind   byte
	live   bool    // entered from reachable code
	head   int32   // frameIf/frameElse: the block that ends with the if
	header int32   // frameLoop: the header block, or -1 when no branch targets the loop
	srcs   []int32 // blocks that reach the continuation by a branch or the fall-through of a then arm
}

// exitBlock is a pseudo block standing for the function's return (by a branch to the function's
// label); no cost ever moves across a return.
const exitBlock = 0

// meter holds the per-function scratch state, reused across the functions of a module.
type meter struct {
	sh        indexShift
	charge    func(dst []byte, cost int64) []byte
	checkCode []byte
	blocks    []bblock
	edges     []edge
	frames    []mframe
	preds     []int32
	succStart []int32
	succs     []int32
	in        instr
	rec       codeRecorder // meter.decode's
	code      []cinstr     // the body being metered
	labels    []uint32     // the br_table targets of code: for each br_table, their count, then them
	predStart []int32
	predList  []int32
	mark      []int32 // graph's fill pointers, then sink's "already charged" marks
	checked   []bool  // callsChecked's "every path so far passed a check", by block

	// numImported is the number of imported functions; calls lists the direct calls of defined
	// functions in live code, by block, for caller-charged entries (see rewriter.prepare).
	numImported uint32
	calls       []callSite
	shifts      []shiftSite
	bulks       []shiftSite
}

// pblock is a charge point of a plan. Costs fit in 32 bits: a block's cost is at most the number
// of instructions in its function. The callees' entry costs (bblock.adjust) are added at emit.
type pblock struct {
	at    uint32
	cost  uint32
	check bool
}

// callSite is a direct call of the defined function callee (index among the defined functions)
// from block.
type callSite struct {
	block  int32
	callee uint32
}

// shiftSite is the offset in Code.Body of an instruction (global.get, global.set, call or
// ref.func) whose index the fuel imports renumber. emit reads the instruction again there.
type shiftSite uint32

// plan is what emit needs of one analyzed body: its charge points (those that charge or check,
// in body order, with the cost of the function's own instructions), the calls that fold callees'
// entry costs into them, and the instructions to renumber. It lets the rewriter analyze every
// body once, before it knows every entry cost, and then emit without decoding the body again.
type plan struct {
	blocks []pblock
	calls  []callSite // block indexes refer to blocks
	shifts []shiftSite
	bulks  []shiftSite // bulk memory and table instructions, followed by a deadline check
}

// BulkCheckLength is the length, in bytes or table elements, from which a bulk memory or table
// instruction (memory.fill, memory.copy, memory.init, table.fill, table.copy, table.init) is
// followed by a call of the fuel hook. Each costs 1 fuel whatever its length, so without it a
// loop of large fills, each up to the memory limit, would reach the hook (and its deadline check)
// only every slice of fuel: hours, not milliseconds. Below it, 100,000 fills take well under a
// second, and the call stays off Go's memmove and memclr, which use these instructions for
// every copy.
const BulkCheckLength = 64 << 10

// isBulk reports whether op is a bulk instruction with a length operand on top of the stack.
func isBulk(op uint32) bool {
	switch op {
	case prefixMisc<<16 | 8, prefixMisc<<16 | 10, prefixMisc<<16 | 11, // memory.init, copy, fill
		prefixMisc<<16 | 12, prefixMisc<<16 | 14, prefixMisc<<16 | 17: // table.init, copy, fill
		return true
	}
	return false
}

// decode reads every instruction of body into mt.code, for a body that Decode did not record
// (Instrument runs a second time on the same Module) and for tests.
func (mt *meter) decode(body []byte) error {
	cr := &mt.rec
	cr.code, cr.labels, cr.all, cr.chunk = cr.code[:0], cr.labels[:0], true, 256
	cr.begin()
	r := newReader(body, 0)
	in := &mt.in
	for !r.Done() {
		if err := readInstr(r, in); err != nil {
			return err
		}
		if !cr.add(in) {
			return fmt.Errorf("%w: end without a block", ErrMalformed)
		}
	}
	mt.code, mt.labels = cr.finish()
	return nil
}

// analyze decodes body and fills m.blocks with its charge points.
func (mt *meter) analyze(body []byte) error {
	if err := mt.decode(body); err != nil {
		return err
	}
	return mt.analyzeCode()
}

// analyzeCode fills m.blocks with the charge points of the body in mt.code and mt.labels.
func (mt *meter) analyzeCode() error {
	// Basic blocks, edges and costs.
	mt.blocks = append(mt.blocks[:0], bblock{at: -1, check: true}) // exitBlock
	mt.calls = mt.calls[:0]
	mt.edges = mt.edges[:0]
	mt.frames = mt.frames[:0]
	cur := mt.newBlock(0, false)
	callBlock, callBlocks := int32(-1), 0
	mt.pushFrame(frameFunc, true, -1, -1)
	for i := range mt.code {
		in := &mt.code[i]
		end := int(in.end)
		live := cur >= 0
		if live {
			mt.blocks[cur].cost += int64(in.pre) + cost(in.op)
			if (in.op == opCall || in.op == opCallInd) && !mt.blocks[cur].calls {
				mt.blocks[cur].calls = true
				callBlock = cur
				callBlocks++
			}
			if in.op == opCall && in.idx >= mt.numImported {
				mt.calls = append(mt.calls, callSite{cur, in.idx - mt.numImported})
			}
		}
		switch in.op {
		case opBlock:
			mt.pushFrame(frameBlock, live, -1, -1)
		case opLoop:
			targeted := in.idx != 0
			header := int32(-1)
			if live && targeted {
				header = mt.newBlock(end, true)
				mt.edges = append(mt.edges, edge{cur, header})
				cur = header
			}
			mt.pushFrame(frameLoop, live, -1, header)
		case opIf:
			mt.pushFrame(frameIf, live, cur, -1)
			if live {
				t := mt.newBlock(end, false)
				mt.edges = append(mt.edges, edge{cur, t})
				cur = t
			}
		case opElse:
			f := &mt.frames[len(mt.frames)-1]
			if f.kind != frameIf {
				return fmt.Errorf("%w: else without if", ErrMalformed)
			}
			f.kind = frameElse
			if !f.live {
				break
			}
			if cur >= 0 {
				f.addSrc(cur)
			}
			e := mt.newBlock(end, false)
			mt.edges = append(mt.edges, edge{f.head, e})
			cur = e
		case opEnd:
			f := mt.frames[len(mt.frames)-1]
			mt.frames = mt.frames[:len(mt.frames)-1]
			switch {
			case f.kind == frameFunc:
				// The function's end: falling off it returns.
			case !f.live:
				cur = -1
			case f.kind == frameLoop:
				// Only the fall-through reaches the end of a loop; cur continues.
			default:
				if f.kind == frameIf {
					f.srcs = append(f.srcs, f.head) // the false edge of an if without else
				}
				if len(f.srcs) == 0 {
					break // only the fall-through, if any, reaches here: same block (or dead)
				}
				j := mt.newBlock(end, false)
				for _, s := range f.srcs {
					mt.edges = append(mt.edges, edge{s, j})
				}
				if cur >= 0 {
					mt.edges = append(mt.edges, edge{cur, j})
				}
				cur = j
			}
		case opBr, opBrIf:
			if !live {
				break
			}
			mt.branch(cur, in.idx)
			if in.op == opBr {
				cur = -1
			} else {
				f := mt.newBlock(end, false)
				mt.edges = append(mt.edges, edge{cur, f})
				cur = f
			}
		case opBrTable:
			if !live {
				break
			}
			n := mt.labels[in.idx]
			for _, l := range mt.labels[in.idx+1 : in.idx+1+n] {
				mt.branch(cur, l)
			}
			cur = -1
		case opReturn, opUnreachable:
			cur = -1
		}
	}
	mt.graph()
	// The check that bounds recursion, unless every block that calls is reached from the entry
	// only through checks: then in the only block that calls, or at the entry if several blocks
	// call.
	if callBlocks > 0 && !mt.callsChecked() {
		if callBlocks == 1 {
			mt.blocks[callBlock].check = true
		} else {
			mt.blocks[1].check = true
		}
	}
	mt.sink()
	mt.pushDown()
	mt.hoist()
	return nil
}

func (mt *meter) newBlock(at int, check bool) int32 {
	mt.blocks = append(mt.blocks, bblock{at: at, check: check})
	return int32(len(mt.blocks) - 1)
}

func (mt *meter) pushFrame(kind byte, live bool, head, header int32) {
	n := len(mt.frames)
	if n < cap(mt.frames) {
		mt.frames = mt.frames[:n+1]
		f := &mt.frames[n]
		f.kind, f.live, f.head, f.header, f.srcs = kind, live, head, header, f.srcs[:0]
		return
	}
	mt.frames = append(mt.frames, mframe{kind: kind, live: live, head: head, header: header})
}

func (f *mframe) addSrc(b int32) {
	if n := len(f.srcs); n > 0 && f.srcs[n-1] == b {
		return
	}
	f.srcs = append(f.srcs, b)
}

// branch records the edge of a branch from block cur to label.
func (mt *meter) branch(cur int32, label uint32) {
	f := &mt.frames[len(mt.frames)-1-int(label)]
	switch f.kind {
	case frameFunc:
		mt.edges = append(mt.edges, edge{cur, exitBlock})
	case frameLoop:
		if f.header < 0 {
			panic("BUG: branch to a loop the first pass did not mark")
		}
		mt.edges = append(mt.edges, edge{cur, f.header})
	default:
		f.addSrc(cur)
	}
}

// graph builds the successor and predecessor lists of mt.edges. Edges are kept with their
// multiplicity (a br_table may name a block twice).
func (mt *meter) graph() {
	n := len(mt.blocks)
	mt.preds = resize(mt.preds, n)
	mt.succStart = resize(mt.succStart, n+1)
	mt.predStart = resize(mt.predStart, n+1)
	for _, e := range mt.edges {
		mt.preds[e.to]++
		mt.succStart[e.from+1]++
		mt.predStart[e.to+1]++
	}
	for i := 1; i <= n; i++ {
		mt.succStart[i] += mt.succStart[i-1]
		mt.predStart[i] += mt.predStart[i-1]
	}
	mt.succs = resize(mt.succs, len(mt.edges))
	mt.predList = resize(mt.predList, len(mt.edges))
	// mark serves as the fill pointers here; sink reuses it.
	mt.mark = resize(mt.mark, 2*n)
	sfill, pfill := mt.mark[:n], mt.mark[n:]
	copy(sfill, mt.succStart[:n])
	copy(pfill, mt.predStart[:n])
	for _, e := range mt.edges {
		mt.succs[sfill[e.from]] = e.to
		sfill[e.from]++
		mt.predList[pfill[e.to]] = e.from
		pfill[e.to]++
	}
}

func (mt *meter) succsOf(b int32) []int32 { return mt.succs[mt.succStart[b]:mt.succStart[b+1]] }

func (mt *meter) predsOf(b int32) []int32 { return mt.predList[mt.predStart[b]:mt.predStart[b+1]] }

// callsChecked reports whether every block that calls is reached from the function entry only
// through a check: the block checks itself, or every path from the entry to it passes a checked
// block. Each call level then passes a check before it calls again, as a Go function does at
// the header of its dispatch loop, so the function needs no check of its own for its calls.
//
// Blocks are numbered in body order, and every edge goes to a later block except those to loop
// headers, which are always checked, so one forward walk decides every block.
func (mt *meter) callsChecked() bool {
	n := len(mt.blocks)
	if cap(mt.checked) < n {
		mt.checked = make([]bool, n)
	}
	in := mt.checked[:n]
	for i := range in {
		in[i] = true // "every path so far passed a check", until a path without one is found
	}
	in[1] = false
	ok := true
	for b := int32(1); int(b) < n; b++ {
		blk := &mt.blocks[b]
		out := in[b] || blk.check
		if blk.calls && !out {
			ok = false
		}
		if out {
			continue
		}
		for _, s := range mt.succsOf(b) {
			if s > b {
				in[s] = false
			}
		}
	}
	return ok
}

// sink moves the whole cost of a block into its predecessors when each of them can only continue
// into it: whenever a predecessor completes, the block runs, so charging its cost one block
// earlier is exact. It is done only when every predecessor charges already, so the block's
// charge disappears and no new one appears. The entry block has the caller as a predecessor too
// and keeps its cost. Walking backwards lets a cost move up a chain of such blocks.
func (mt *meter) sink() {
	mark := mt.mark[:len(mt.blocks)]
	for i := range mark {
		mark[i] = -1
	}
	for b := int32(len(mt.blocks)) - 1; b >= 2; b-- {
		c := mt.blocks[b].cost
		if c <= 0 {
			continue
		}
		ps := mt.predsOf(b)
		ok := len(ps) > 0
		for _, p := range ps {
			if p == b || mt.blocks[p].cost <= 0 {
				ok = false
				break
			}
			for _, s := range mt.succsOf(p) {
				if s != b {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		mt.blocks[b].cost = 0
		for _, p := range ps {
			if mark[p] != b { // a predecessor named twice is charged once
				mark[p] = b
				mt.blocks[p].cost += c
			}
		}
	}
}

// pushDown moves the whole cost of a block into each of its successors when every successor is
// entered only from it: whenever one of them is entered, the block has run in full, so the
// successor's charge can pay for it. The block then charges nothing, and each time it runs
// exactly one successor charges instead, which is never more charges than before (the successors
// that charged nothing before are entered no more often than the block). Costs are charged late
// this way, never early: a check may see the counter higher than the fuel already spent, by at
// most the cost of the blocks since the last join, but every call still pays its exact cost
// before it returns, and a loop iteration or call level pays for itself before its next check,
// since loop headers and function entries are joins. Walking forwards moves costs down chains of
// such blocks to the last one before a join, a return or a trap.
//
// The entry block is left alone (its cost is charged by the callers when it can be, for free),
// and so are blocks that call (they may charge their callees' entry costs anyway); hoist handles
// those.
func (mt *meter) pushDown() {
	for b := int32(2); int(b) < len(mt.blocks); b++ {
		blk := &mt.blocks[b]
		if blk.cost <= 0 || blk.calls {
			continue
		}
		ss := mt.succsOf(b)
		if len(ss) == 0 { // a return or a trap: the block pays for itself
			continue
		}
		ok := true
		for _, s := range ss {
			if s == exitBlock || mt.preds[s] != 1 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, s := range ss {
			mt.blocks[s].cost += blk.cost
		}
		blk.cost = 0
	}
}

// hoist moves cost from the successors of a block into the block when every successor is entered
// only from it: whichever successor runs, at least the smallest successor cost is spent, so
// charging it one block earlier is exact. Successors entered only from one block come later in
// the body than it (loop headers reached by a back edge have two predecessors), so walking
// backwards hoists transitively.
//
// Only the entry block and blocks that call take cost this way: every other block whose
// successors are all entered only from it has given its own cost to them (see pushDown), which
// already leaves one charge per run of the block.
func (mt *meter) hoist() {
	for b := int32(len(mt.blocks)) - 1; b >= 1; b-- {
		if b != 1 && !mt.blocks[b].calls {
			continue
		}
		ss := mt.succsOf(b)
		if len(ss) == 0 {
			continue
		}
		minCost := int64(-1)
		for _, s := range ss {
			if mt.preds[s] != 1 || s == exitBlock {
				minCost = -1
				break
			}
			if c := mt.blocks[s].cost; minCost < 0 || c < minCost {
				minCost = c
			}
		}
		if minCost <= 0 {
			continue
		}
		mt.blocks[b].cost += minCost
		for _, s := range ss {
			mt.blocks[s].cost -= minCost
		}
	}
}

func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// planArena allocates the plans of a module's bodies in chunks, so that they are neither copied
// as they grow nor allocated one by one.
type planArena struct {
	chunk  int // the smallest chunk, in elements: at most arenaChunk, less for small modules
	blocks []pblock
	calls  []callSite
	shifts []shiftSite
	bulks  []shiftSite
}

const arenaChunk = 1 << 14

// take returns n elements of *a, which the caller fills, and moves *a past them.
func take[T any](a *[]T, n, chunk int) []T {
	if cap(*a)-len(*a) < n {
		*a = make([]T, 0, max(n, chunk))
	}
	l := len(*a)
	*a = (*a)[:l+n]
	return (*a)[l : l+n : l+n]
}

// plan returns the plan of the body just analyzed, allocated from a, with its instructions
// renumbered by mt.sh.
func (mt *meter) plan(a *planArena) plan {
	// Blocks that neither charge nor check nor call, and the exit pseudo block, are dropped (the
	// entry block is kept: it may be charged by the callers); calls move to the kept blocks' new
	// indexes.
	keep := resize(mt.preds, len(mt.blocks)) // free after the analysis
	mt.preds = keep
	n := 0
	for i, b := range mt.blocks[1:] {
		keep[i+1] = -1
		if b.cost != 0 || b.check || b.calls || i == 0 {
			keep[i+1] = int32(n)
			n++
		}
	}
	var p plan
	p.blocks = take(&a.blocks, n, a.chunk)
	for i, b := range mt.blocks[1:] {
		if k := keep[i+1]; k >= 0 {
			p.blocks[k] = pblock{at: uint32(b.at), cost: uint32(b.cost), check: b.check}
		}
	}
	p.calls = take(&a.calls, len(mt.calls), a.chunk)
	for i, c := range mt.calls {
		k := keep[c.block]
		if k < 0 {
			panic("BUG: a calling block was dropped")
		}
		p.calls[i] = callSite{k, c.callee}
	}
	mt.shifts, mt.bulks = mt.shifts[:0], mt.bulks[:0]
	sh := mt.sh
	for i := range mt.code {
		in := &mt.code[i]
		switch op := in.op; {
		case op == opGlobalGet || op == opGlobalSet:
			if in.idx >= sh.global {
				mt.shifts = append(mt.shifts, shiftSite(in.start))
			}
		case op == opCall || op == opRefFunc:
			if sh.hook && in.idx >= sh.fn {
				mt.shifts = append(mt.shifts, shiftSite(in.start))
			}
		case op > 0xff && sh.hook && isBulk(op):
			mt.bulks = append(mt.bulks, shiftSite(in.start))
		}
	}
	p.shifts = take(&a.shifts, len(mt.shifts), a.chunk)
	copy(p.shifts, mt.shifts)
	if len(mt.bulks) > 0 {
		p.bulks = take(&a.bulks, len(mt.bulks), a.chunk)
		copy(p.bulks, mt.bulks)
	}
	return p
}

// emit appends the metered body (instructions only) to dst: body with the charges and checks of
// its plan inserted and its instructions renumbered. adjust[i] is what block i charges for the
// entries of the functions it calls (see rewriter.prepare), besides its own cost. scratch is the
// i32 local the bulk checks keep a length in (used only when the plan has bulk sites).
func (mt *meter) emit(dst []byte, body []byte, p plan, adjust []int64, scratch uint32) []byte {
	pos := 0
	bi, si, ki := 0, 0, 0
	const none = ^uint32(0)
	for {
		ba, sa, ka := none, none, none
		if bi < len(p.blocks) {
			ba = p.blocks[bi].at
		}
		if si < len(p.shifts) {
			sa = uint32(p.shifts[si])
		}
		if ki < len(p.bulks) {
			ka = uint32(p.bulks[ki])
		}
		if ba == none && sa == none && ka == none {
			break
		}
		// A charge comes before the instruction at its offset.
		if ba != none && ba <= sa && ba <= ka {
			b := p.blocks[bi]
			dst = append(dst, body[pos:b.at]...)
			pos = int(b.at)
			if c := int64(b.cost) + adjust[bi]; c > 0 {
				dst = mt.charge(dst, c)
			}
			if b.check {
				dst = append(dst, mt.checkCode...)
			}
			bi++
			continue
		}
		if ka < sa {
			// local.tee keeps the length on the stack; after the instruction, a length of at
			// least BulkCheckLength calls the hook, which checks the deadline.
			at := int(ka)
			dst = append(dst, body[pos:at]...)
			r := reader{Buf: body, Pos: at, Malformed: malformed, OverLimit: overLimit}
			if err := readInstr(&r, &mt.in); err != nil {
				panic("BUG: a decoded bulk instruction does not read again")
			}
			dst = append(dst, opLocalTee)
			dst = appendU32(dst, scratch)
			dst = append(dst, body[at:r.Pos]...)
			dst = append(dst, opLocalGet)
			dst = appendU32(dst, scratch)
			dst = append(dst, opI32Const)
			dst = appendS64(dst, BulkCheckLength)
			dst = append(dst, opI32GeU, opIf, 0x40, opCall)
			dst = appendU32(dst, mt.sh.fn)
			dst = append(dst, opEnd)
			pos = r.Pos
			ki++
			continue
		}
		at := int(sa)
		dst = append(dst, body[pos:at]...)
		op := body[at]
		r := reader{Buf: body, Pos: at + 1, Malformed: malformed, OverLimit: overLimit}
		idx, err := r.U32()
		if err != nil {
			panic("BUG: the index of a decoded instruction does not read again")
		}
		if op == opGlobalGet || op == opGlobalSet {
			idx = mt.sh.globalIdx(idx)
		} else {
			idx = mt.sh.funcIdx(idx)
		}
		dst = append(dst, op)
		dst = appendU32(dst, idx)
		pos = r.Pos
		si++
	}
	return append(dst, body[pos:]...)
}

// indexShift renumbers the indices that the fuel imports displace. The fuel global takes global
// index global, the number of imported globals, so every defined global moves up by one. With a
// fuel hook, the hook takes function index fn, the number of imported functions, so every defined
// function moves up by one too.
type indexShift struct {
	global uint32
	fn     uint32
	hook   bool
}

func (s indexShift) globalIdx(i uint32) uint32 {
	if i >= s.global {
		return i + 1
	}
	return i
}

func (s indexShift) funcIdx(i uint32) uint32 {
	if s.hook && i >= s.fn {
		return i + 1
	}
	return i
}

// appendInstr appends the instruction in (read from src) to dst with its global or function index
// renumbered. Only global.get, global.set, call and ref.func name those index spaces in the
// features Instrument accepts (return_call and call_ref are refused).
func (s indexShift) appendInstr(dst, src []byte, in *instr) []byte {
	switch in.op {
	case opGlobalGet, opGlobalSet:
		if n := s.globalIdx(in.idx); n != in.idx {
			dst = append(dst, byte(in.op))
			return appendU32(dst, n)
		}
	case opCall, opRefFunc:
		if n := s.funcIdx(in.idx); n != in.idx {
			dst = append(dst, byte(in.op))
			return appendU32(dst, n)
		}
	}
	return append(dst, src[in.start:in.end]...)
}

// shiftExpr appends a constant expression (or any instruction sequence without fuel) with its
// global and function indices renumbered by s.
func shiftExpr(dst, expr []byte, s indexShift, in *instr) ([]byte, error) {
	r := newReader(expr, 0)
	for !r.Done() {
		if err := readInstr(r, in); err != nil {
			return nil, err
		}
		dst = s.appendInstr(dst, expr, in)
	}
	return dst, nil
}
