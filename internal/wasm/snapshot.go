package wasm

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Snapshots.
//
// A snapshot is a module's state after initialization (its start function, and the init export an
// embedder calls after it), turned back into a module that starts in that state without running
// anything: the memories' contents become active data segments, the mutable globals' values
// become their initializers, and the start section is dropped. Capturing reads the state through
// exports that AddStateExports adds; RestoreState builds the restored module. Both edit the
// original binary (not the metered one), so that metering the result meters every function body
// exactly as it meters the original: no function, type or global index moves.
//
// What the snapshot cannot restore, CheckSnapshot refuses: tables written by code (only element
// segments fill tables, and the restored module keeps them, so its tables start as the original's
// did), data segments dropped by code (a passive segment must be in the same state as after
// initialization), and state that lives outside the module (imported memories, tables and globals).

// SnapshotPageSize is the size of a memory page, the unit of a memory image's length.
const SnapshotPageSize = 65536

// State is what RestoreState writes into a module.
type State struct {
	// Globals maps the index of every defined mutable global (in the global index space, imports
	// first) to its value, encoded as wazero encodes values: i32 and f32 in the low 32 bits.
	Globals map[uint32]uint64
	// Memories holds the contents of every defined memory, in order; each is a whole number of
	// pages long.
	Memories [][]byte
	// ImagesOutside leaves the memories' contents out of the restored module: each memory's
	// minimum is its image's size, but no data segment writes the image. The caller writes it
	// into every new memory before anything reads it (one copy of the non-zero runs, where
	// data segments cost wazero a constant expression and a slot per segment at each
	// instantiation, and the compiled module a second copy of the image).
	ImagesOutside bool
}

// CheckSnapshot reports, wrapping ErrSnapshot, why the module's state after initialization
// could not be captured and restored exactly, or nil when it can. With linked, the module is
// one of a set of modules instantiated together and all captured (a component's core modules):
// its imported memories, tables and globals come from another module of the set, whose state the
// snapshot restores, and its exported tables can only be written by modules of the set, each of
// which must pass CheckSnapshot too; without linked, those are refused.
func (m *Module) CheckSnapshot(linked bool) error {
	_, err := m.checkSnapshot(linked)
	return err
}

// checkSnapshot is CheckSnapshot, also reporting whether any function uses memory.init: only then
// can code observe the bytes of a data segment after instantiation.
func (m *Module) checkSnapshot(linked bool) (memoryInit bool, err error) {
	for i, im := range m.Imports {
		switch {
		case im.Kind == ExternTag:
			return false, fmt.Errorf("%w: import %d (%q %q) is a tag", ErrSnapshot, i, im.Module, im.Name)
		case !linked && im.Kind != ExternFunc:
			return false, fmt.Errorf("%w: import %d (%q %q) is a %s: its state belongs to another instance, which a snapshot does not restore", ErrSnapshot, i, im.Module, im.Name, im.Kind)
		}
	}
	for _, ex := range m.Exports {
		if !linked && ex.Kind == ExternTable {
			return false, fmt.Errorf("%w: it exports table %d as %q, which another instance could write", ErrSnapshot, ex.Index, ex.Name)
		}
	}
	for i, mem := range m.Memories {
		if mem.Shared || mem.Is64 {
			return false, fmt.Errorf("%w: memory %d is shared or 64-bit", ErrSnapshot, uint32(len(m.ImportedMemories))+uint32(i))
		}
	}
	for i, g := range m.Globals {
		if !g.Type.Mutable {
			continue
		}
		switch g.Type.ValType {
		case I32, I64, F32, F64:
		default:
			return false, fmt.Errorf("%w: mutable global %d of type %s cannot be captured", ErrSnapshot, m.NumImportedGlobals+uint32(i), g.Type.ValType)
		}
	}
	var in instr
	for i, c := range m.Code {
		r := newReader(c.Body, c.Offset)
		for !r.Done() {
			if err := readInstr(r, &in); err != nil {
				return false, fmt.Errorf("%w: function %d: %w", ErrSnapshot, m.NumImportedFuncs+uint32(i), err)
			}
			memoryInit = memoryInit || in.op == prefixMisc<<16|8
			if why := snapshotBlocker(in.op); why != "" {
				return false, fmt.Errorf("%w: function %d at byte offset 0x%x uses %s, %s", ErrSnapshot, m.NumImportedFuncs+uint32(i), r.Base+in.start, lookupOp(in.op).name, why)
			}
		}
	}
	return memoryInit, nil
}

// snapshotBlocker says why an instruction makes a snapshot inexact, or "" when it does not.
func snapshotBlocker(op uint32) string {
	const misc = prefixMisc << 16
	switch op {
	case 0x26, misc | 12, misc | 14, misc | 15, misc | 17: // table.set, table.init, table.copy, table.grow, table.fill
		return "which writes a table (a snapshot restores no table contents)"
	case misc | 13: // elem.drop
		return "which drops an element segment (a snapshot restores no segment state)"
	case misc | 9: // data.drop
		return "which drops a data segment (a snapshot restores no segment state)"
	}
	return ""
}

// SnapshotGlobalExport and SnapshotMemoryExport name the exports AddStateExports adds for global
// and memory idx (in their index spaces, imports first).
func SnapshotGlobalExport(prefix string, idx uint32) string {
	return prefix + "global/" + strconv.FormatUint(uint64(idx), 10)
}

// SnapshotMemoryExport names the export AddStateExports adds for memory idx.
func SnapshotMemoryExport(prefix string, idx uint32) string {
	return prefix + "memory/" + strconv.FormatUint(uint64(idx), 10)
}

// AddStateExports returns the module's binary with every defined mutable global and every
// defined memory also exported, under the names SnapshotGlobalExport and SnapshotMemoryExport
// give, so that a host can read the state of an instance. It refuses a module that already
// exports a name starting with prefix. m is not changed.
func AddStateExports(m *Module, prefix string) ([]byte, error) {
	if m == nil || len(m.raw) < 8 {
		return nil, fmt.Errorf("wasm: snapshot: %w: the module was not produced by Decode", ErrSnapshot)
	}
	exports := append([]Export(nil), m.Exports...)
	for _, ex := range m.Exports {
		if strings.HasPrefix(ex.Name, prefix) {
			return nil, fmt.Errorf("wasm: snapshot: %w: export %q uses the reserved prefix %q", ErrSnapshot, ex.Name, prefix)
		}
	}
	for i, g := range m.Globals {
		if g.Type.Mutable {
			idx := m.NumImportedGlobals + uint32(i)
			exports = append(exports, Export{Name: SnapshotGlobalExport(prefix, idx), Kind: ExternGlobal, Index: idx})
		}
	}
	for i := range m.Memories {
		idx := uint32(len(m.ImportedMemories) + i)
		exports = append(exports, Export{Name: SnapshotMemoryExport(prefix, idx), Kind: ExternMemory, Index: idx})
	}
	return m.edit(map[byte][]byte{secExport: encodeExports(exports)}, nil), nil
}

// RestoreState returns the module's binary changed to start in state st: every defined mutable
// global is initialized to its captured value, every defined memory's minimum is its image's
// page count and, unless st.ImagesOutside, its contents are written by active data segments
// (runs of non-zero bytes), and the start section is removed. The original data segments stay
// only when code can read them, with memory.init: the active ones then become passive ones with
// the same bytes (wazero keeps an applied active segment readable by memory.init, where the spec
// drops it), ahead of the image segments so that no segment index moves. Without memory.init
// (and data.drop, which CheckSnapshot refuses) no code names a segment, and the images already
// hold what the segments wrote. Functions, tables and element segments are unchanged. The
// module must pass CheckSnapshot (with linked as given). m is not changed.
func RestoreState(m *Module, st State, linked bool) ([]byte, error) {
	if m == nil || len(m.raw) < 8 {
		return nil, fmt.Errorf("wasm: snapshot: %w: the module was not produced by Decode", ErrSnapshot)
	}
	memoryInit, err := m.checkSnapshot(linked)
	if err != nil {
		return nil, fmt.Errorf("wasm: snapshot: %w", err)
	}
	if len(st.Memories) != len(m.Memories) {
		return nil, fmt.Errorf("wasm: snapshot: %w: %d memory images for %d memories", ErrSnapshot, len(st.Memories), len(m.Memories))
	}
	edits := map[byte][]byte{}

	globals := appendU32(nil, uint32(len(m.Globals)))
	for i, g := range m.Globals {
		globals = append(globals, byte(g.Type.ValType), 0)
		if !g.Type.Mutable {
			globals = append(globals, g.Init...)
			continue
		}
		globals[len(globals)-1] = 1
		idx := m.NumImportedGlobals + uint32(i)
		v, ok := st.Globals[idx]
		if !ok {
			return nil, fmt.Errorf("wasm: snapshot: %w: no value for mutable global %d", ErrSnapshot, idx)
		}
		globals = appendConst(globals, g.Type.ValType, v)
	}
	if len(m.Globals) > 0 {
		edits[secGlobal] = globals
	}

	if len(m.Memories) > 0 {
		mems := appendU32(nil, uint32(len(m.Memories)))
		for i, mt := range m.Memories {
			img := st.Memories[i]
			pages := uint64(len(img)) / SnapshotPageSize
			if uint64(len(img))%SnapshotPageSize != 0 || pages < mt.Min || (mt.HasMax && pages > mt.Max) || pages > 1<<16 {
				return nil, fmt.Errorf("wasm: snapshot: %w: memory %d image of %d bytes does not fit its type", ErrSnapshot, uint32(len(m.ImportedMemories)+i), len(img))
			}
			if mt.HasMax {
				mems = append(mems, 0x01)
				mems = appendU64(mems, pages)
				mems = appendU64(mems, mt.Max)
			} else {
				mems = append(mems, 0x00)
				mems = appendU64(mems, pages)
			}
		}
		edits[secMemory] = mems
	}

	var segs []byte
	n := uint32(0)
	for _, s := range m.Data {
		if !memoryInit {
			break
		}
		n++
		// An applied active segment becomes a passive one with the same bytes: wazero does not
		// drop active segments after applying them (the spec does), so memory.init can still
		// read them, and the restored module must let it read the same bytes.
		flags := s.Flags
		if s.Mode == ModeActive {
			flags = 1
		}
		segs = appendU32(segs, flags)
		segs = appendU32(segs, uint32(len(s.Data)))
		segs = append(segs, s.Data...)
	}
	for i, img := range st.Memories {
		if st.ImagesOutside {
			break
		}
		mem := uint32(len(m.ImportedMemories) + i)
		for _, run := range NonZeroRuns(img) {
			n++
			if mem == 0 {
				segs = append(segs, 0x00)
			} else {
				segs = append(segs, 0x02)
				segs = appendU32(segs, mem)
			}
			segs = append(segs, opI32Const)
			segs = appendS64(segs, int64(int32(uint32(run[0]))))
			segs = append(segs, opEnd)
			segs = appendU32(segs, uint32(run[1]-run[0]))
			segs = append(segs, img[run[0]:run[1]]...)
		}
	}
	drop := map[byte]bool{secStart: true}
	if n > 0 {
		edits[secData] = append(appendU32(nil, n), segs...)
	} else {
		drop[secData] = true
	}
	if m.DataCount != nil {
		edits[secDataCount] = appendU32(nil, n)
	}
	return m.edit(edits, drop), nil
}

// maxZeroGap is the longest run of zero bytes kept inside one data segment rather than split
// into two: a segment's header costs about as much.
const maxZeroGap = 4096

// NonZeroRuns returns the [start, end) ranges of img that hold its non-zero bytes, joining runs
// separated by at most maxZeroGap zeros.
func NonZeroRuns(img []byte) [][2]int {
	var runs [][2]int
	for i := 0; i < len(img); {
		if img[i] == 0 {
			i++
			continue
		}
		start, end := i, i
		for j := i; j < len(img); j++ {
			if img[j] != 0 {
				end = j + 1
			} else if j-end >= maxZeroGap {
				break
			}
		}
		runs = append(runs, [2]int{start, end})
		i = end
	}
	return runs
}

func appendConst(b []byte, t ValType, v uint64) []byte {
	switch t {
	case I32:
		b = append(b, opI32Const)
		b = appendS64(b, int64(int32(uint32(v))))
	case I64:
		b = append(b, opI64Const)
		b = appendS64(b, int64(v))
	case F32:
		b = append(b, opF32Const)
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	case F64:
		b = append(b, opF64Const)
		b = binary.LittleEndian.AppendUint64(b, v)
	default:
		panic("BUG: appendConst of " + t.String())
	}
	return append(b, opEnd)
}

func encodeExports(exports []Export) []byte {
	p := appendU32(nil, uint32(len(exports)))
	for _, e := range exports {
		p = appendName(p, e.Name)
		p = append(p, byte(e.Kind))
		p = appendU32(p, e.Index)
	}
	return p
}

// edit returns the module's binary with the payload of each section in replace (creating the
// sections that are absent, in their place in the section order) and without the sections in
// drop. Custom sections stay where they are; a created section goes before the trailing custom
// sections when no later known section follows.
func (m *Module) edit(replace map[byte][]byte, drop map[byte]bool) []byte {
	out := make([]byte, 0, len(m.raw)+len(replace[secData])+64)
	out = append(out, m.raw[:8]...)
	present := map[byte]bool{}
	for _, s := range m.sections {
		present[s.id] = true
	}
	var missing []byte
	for id := range replace {
		if !present[id] {
			missing = append(missing, id)
		}
	}
	// sort the missing ids by rank (few: a selection sort is enough)
	for i := range missing {
		for j := i + 1; j < len(missing); j++ {
			if sectionRank[missing[j]] < sectionRank[missing[i]] {
				missing[i], missing[j] = missing[j], missing[i]
			}
		}
	}
	tail := len(m.sections)
	for tail > 0 && m.sections[tail-1].id == secCustom {
		tail--
	}
	emitMissing := func(before int, rank int) {
		for len(missing) > 0 && (before == tail || sectionRank[missing[0]] < rank) {
			out = appendSection(out, missing[0], replace[missing[0]])
			missing = missing[1:]
		}
	}
	for i, s := range m.sections {
		if s.id != secCustom || i == tail {
			rank := 0
			if s.id != secCustom {
				rank = sectionRank[s.id]
			}
			emitMissing(i, rank)
		}
		if drop[s.id] {
			continue
		}
		if p, ok := replace[s.id]; ok && s.id != secCustom {
			out = appendSection(out, s.id, p)
			continue
		}
		out = append(out, m.raw[s.start:s.end]...)
	}
	emitMissing(tail, math.MaxInt)
	return out
}

// DropRecording lets go of what Decode recorded of the function bodies for Instrument (several
// times the code's size for a large module): a caller that keeps a decoded module only to check
// and restore it, as a snapshot capture does, calls it. Instrument still works afterwards; it
// decodes the bodies again.
func (m *Module) DropRecording() {
	for i := range m.Code {
		m.Code[i].code, m.Code[i].labels = nil, nil
	}
}
