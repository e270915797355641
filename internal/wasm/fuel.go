package wasm

import "fmt"

// This file computes where fuel is charged in a function body and writes the metered body.
// The counting rule is documented in doc.go.

// bblock is a charge point: a basic block, or several merged into one.
type bblock struct {
	at    int   // offset in Code.Body where the charge code goes
	cost  int64 // fuel charged there for the function's own instructions
	check bool  // check the counter after charging
	// adjust is the entry cost of the callees the block calls directly that do not charge it
	// themselves (see rewriter.prepare). It takes no part in hoisting.
	adjust int64
}

type edge struct{ from, to int32 }

// mframe is a control frame of the metering pass.
type mframe struct {
	kind   byte
	live   bool    // entered from reachable code
	head   int32   // frameIf/frameElse: the block that ends with the if
	header int32   // frameLoop: the header block, or -1 when no branch targets the loop
	srcs   []int32 // blocks that reach the continuation by a branch or the fall-through of a then arm
}

// exitBlock is a pseudo block standing for the function's return; no cost is ever hoisted across
// a return.
const exitBlock = 0

// meter holds the per-function scratch state, reused across the functions of a module.
type meter struct {
	sh         indexShift
	charge     func(dst []byte, cost int64) []byte
	checkCode  []byte
	blocks     []bblock
	edges      []edge
	frames     []mframe
	loops      []bool
	preds      []int32
	succStart  []int32
	succs      []int32
	in         instr
	loopStack  []int32
	loopFrames []byte

	// Caller-charged entries: a defined function i with entryCost[i] >= 0 has its entry block
	// charged by its direct callers (and by its export wrapper) instead of by itself.
	numImported uint32
	entryCost   []int64
	adjustCalls bool // add callees' entry costs at direct calls (false while computing entryCost)
	self        int  // defined index of the function being analyzed
}

// analyze fills m.blocks with the charge points of body.
func (mt *meter) analyze(body []byte) error {
	// Pass 1: which loops are branch targets (counted syntactically, dead code included), and does
	// the body call anything.
	mt.loops = mt.loops[:0]
	mt.loopStack = mt.loopStack[:0]
	mt.loopFrames = mt.loopFrames[:0]
	r := newReader(body, 0)
	in := &mt.in
	mt.loopFrames = append(mt.loopFrames, frameFunc)
	mt.loopStack = append(mt.loopStack, -1)
	for !r.done() {
		if err := readInstr(r, in); err != nil {
			return err
		}
		switch in.op {
		case opBlock, opIf:
			mt.loopFrames = append(mt.loopFrames, frameBlock)
			mt.loopStack = append(mt.loopStack, -1)
		case opLoop:
			mt.loopFrames = append(mt.loopFrames, frameLoop)
			mt.loopStack = append(mt.loopStack, int32(len(mt.loops)))
			mt.loops = append(mt.loops, false)
		case opEnd:
			mt.loopFrames = mt.loopFrames[:len(mt.loopFrames)-1]
			mt.loopStack = mt.loopStack[:len(mt.loopStack)-1]
		case opBr, opBrIf:
			mt.markLoop(in.idx)
		case opBrTable:
			for _, l := range in.labels {
				mt.markLoop(l)
			}
		}
	}

	// Pass 2: basic blocks, edges and costs.
	mt.blocks = append(mt.blocks[:0], bblock{at: -1, check: true}) // exitBlock
	mt.edges = mt.edges[:0]
	mt.frames = mt.frames[:0]
	cur := mt.newBlock(0, false)
	callBlock, callBlocks := int32(-1), 0
	mt.pushFrame(frameFunc, true, -1, -1)
	loopOrd := 0
	r = newReader(body, 0)
	for !r.done() {
		if err := readInstr(r, in); err != nil {
			return err
		}
		live := cur >= 0
		if live {
			mt.blocks[cur].cost += cost(in.op)
			if (in.op == opCall || in.op == opCallInd) && callBlock != cur {
				callBlock = cur
				callBlocks++
			}
			if in.op == opCall && mt.adjustCalls && in.idx >= mt.numImported {
				if c := mt.entryCost[in.idx-mt.numImported]; c > 0 {
					mt.blocks[cur].adjust += c
				}
			}
		}
		switch in.op {
		case opBlock:
			mt.pushFrame(frameBlock, live, -1, -1)
		case opLoop:
			targeted := mt.loops[loopOrd]
			loopOrd++
			header := int32(-1)
			if live && targeted {
				header = mt.newBlock(in.end, true)
				mt.edges = append(mt.edges, edge{cur, header})
				cur = header
			}
			mt.pushFrame(frameLoop, live, -1, header)
		case opIf:
			mt.pushFrame(frameIf, live, cur, -1)
			if live {
				t := mt.newBlock(in.end, false)
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
			e := mt.newBlock(in.end, false)
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
				j := mt.newBlock(in.end, false)
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
				f := mt.newBlock(in.end, false)
				mt.edges = append(mt.edges, edge{cur, f})
				cur = f
			}
		case opBrTable:
			if !live {
				break
			}
			for _, l := range in.labels {
				mt.branch(cur, l)
			}
			cur = -1
		case opReturn, opUnreachable:
			cur = -1
		}
	}
	// The check that bounds recursion: in the only block that calls, or at the entry if several
	// blocks call.
	switch {
	case callBlocks == 1:
		mt.blocks[callBlock].check = true
	case callBlocks > 1:
		mt.blocks[1].check = true
	}
	mt.hoist()
	if mt.adjustCalls && mt.self >= 0 && mt.entryCost[mt.self] >= 0 {
		mt.blocks[1].cost = 0 // charged by the caller or the export wrapper
	}
	return nil
}

func (mt *meter) markLoop(label uint32) {
	i := len(mt.loopStack) - 1 - int(label)
	if i >= 0 && mt.loopFrames[i] == frameLoop {
		mt.loops[mt.loopStack[i]] = true
	}
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

// hoist moves cost from the successors of a block into the block when every successor is entered
// only from it: whichever successor runs, at least the smallest successor cost is spent, so
// charging it one block earlier is exact. Successors entered only from one block come later in
// the body than it (loop headers reached by a back edge have two predecessors), so walking
// backwards hoists transitively.
func (mt *meter) hoist() {
	n := len(mt.blocks)
	mt.preds = resize(mt.preds, n)
	mt.succStart = resize(mt.succStart, n+1)
	for _, e := range mt.edges {
		mt.preds[e.to]++
		mt.succStart[e.from+1]++
	}
	for i := 1; i <= n; i++ {
		mt.succStart[i] += mt.succStart[i-1]
	}
	mt.succs = resize(mt.succs, len(mt.edges))
	fill := append([]int32(nil), mt.succStart[:n]...)
	for _, e := range mt.edges {
		mt.succs[fill[e.from]] = e.to
		fill[e.from]++
	}
	for b := n - 1; b >= 1; b-- {
		ss := mt.succs[mt.succStart[b]:mt.succStart[b+1]]
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

// emit appends the metered body (instructions only) to dst, with its global and function indices
// renumbered by mt.sh.
func (mt *meter) emit(dst []byte, body []byte) ([]byte, error) {
	r := newReader(body, 0)
	in := &mt.in
	next := 1 // blocks[0] is the exit pseudo block
	for !r.done() {
		for next < len(mt.blocks) && mt.blocks[next].at == r.pos {
			b := mt.blocks[next]
			if c := b.cost + b.adjust; c > 0 {
				dst = mt.charge(dst, c)
			}
			if b.check {
				dst = append(dst, mt.checkCode...)
			}
			next++
		}
		if err := readInstr(r, in); err != nil {
			return nil, err
		}
		dst = mt.sh.appendInstr(dst, body, in)
	}
	if next != len(mt.blocks) {
		panic("BUG: charge point past the end of the body")
	}
	return dst, nil
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
	for !r.done() {
		if err := readInstr(r, in); err != nil {
			return nil, err
		}
		dst = s.appendInstr(dst, expr, in)
	}
	return dst, nil
}
