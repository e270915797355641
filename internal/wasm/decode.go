package wasm

import (
	"bytes"
	"fmt"
)

// Section ids.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag"}

// sectionRank orders the known sections as the binary format requires: the tag section sits
// between memory and global, the data count section between element and code.
var sectionRank = [...]int{secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5,
	secTag: 6, secGlobal: 7, secExport: 8, secStart: 9, secElement: 10, secDataCount: 11, secCode: 12,
	secData: 13}

var (
	wasmMagic      = []byte{0x00, 0x61, 0x73, 0x6d}
	versionCore    = []byte{0x01, 0x00, 0x00, 0x00}
	layerComponent = []byte{0x01, 0x00}
)

type decoder struct {
	m           *Module
	lim         Limits
	totalLocals uint64
	hasFuncSec  bool
	numFuncs    uint32 // total function index space once the function section is read
	numMems     uint32
	numTables   uint32
	instr       instr
	stack       []byte       // scanBody's control frames
	rec         codeRecorder // the metered instructions of every body
}

// Decode decodes and checks a WebAssembly core module binary. It reads every section and every
// instruction, checks every count against lim (zero fields take DefaultLimits values) and against
// the bytes that remain before allocating anything for it, and records the post-MVP features the
// module uses (see Features). It does not type-check function bodies: wazero does that.
//
// Errors wrap ErrMalformed, ErrLimit, ErrNotCoreModule or ErrUnsupportedFeature (for GC types,
// whose encoding Decode does not read).
func Decode(b []byte, lim Limits) (*Module, error) {
	m, err := decode(b, lim, false)
	if err != nil {
		return nil, fmt.Errorf("wasm: decode: %w", err)
	}
	return m, nil
}

// Check runs Decode's checks on b without keeping what Decode records of the function bodies
// for Instrument: for a module that goes to wazero as it is, whose every count must be checked
// against the bytes that remain before wazero allocates for it. Its errors are Decode's.
func Check(b []byte, lim Limits) error {
	if _, err := decode(b, lim, true); err != nil {
		return fmt.Errorf("wasm: decode: %w", err)
	}
	return nil
}

func decode(b []byte, lim Limits, check bool) (*Module, error) {
	lim = lim.withDefaults()
	if uint64(len(b)) > lim.ModuleSize {
		return nil, fmt.Errorf("%w: module is %d bytes, over the limit of %d", ErrLimit, len(b), lim.ModuleSize)
	}
	if len(b) < 8 || !bytes.Equal(b[:4], wasmMagic) {
		if len(b) >= 4 && !bytes.Equal(b[:4], wasmMagic) || len(b) < 4 && !bytes.HasPrefix(wasmMagic, b) {
			return nil, fmt.Errorf("%w: not a WebAssembly binary (no \\0asm magic)", ErrMalformed)
		}
		return nil, fmt.Errorf("%w: truncated header (%d bytes)", ErrMalformed, len(b))
	}
	if !bytes.Equal(b[4:8], versionCore) {
		if bytes.Equal(b[6:8], layerComponent) {
			return nil, fmt.Errorf("%w: this is a component, not a core module (version 0x%02x%02x, layer 1)", ErrNotCoreModule, b[5], b[4])
		}
		return nil, fmt.Errorf("%w: unknown binary version % x", ErrMalformed, b[4:8])
	}
	d := &decoder{m: &Module{raw: b}, lim: lim}
	d.rec.off = check // setChunk gives the recorder a limit, and an off recorder with one records nothing
	r := newReader(b[8:], 8)
	lastRank := 0
	for !r.Done() {
		start := r.Offset()
		id, _ := r.Byte()
		size, err := r.U32()
		if err != nil {
			return nil, err
		}
		if uint64(size) > uint64(r.Remaining()) {
			return nil, fmt.Errorf("at byte offset 0x%x: %w: section %d declares %d bytes, only %d remain", start, ErrMalformed, id, size, r.Remaining())
		}
		payloadStart := r.Offset()
		payload, _ := r.Bytes(uint64(size))
		if id > secTag {
			return nil, fmt.Errorf("at byte offset 0x%x: %w: unknown section id %d", start, ErrMalformed, id)
		}
		if id != secCustom {
			rank := sectionRank[id]
			if rank == lastRank {
				return nil, fmt.Errorf("at byte offset 0x%x: %w: duplicate %s section", start, ErrMalformed, sectionNames[id])
			}
			if rank < lastRank {
				return nil, fmt.Errorf("at byte offset 0x%x: %w: %s section out of order", start, ErrMalformed, sectionNames[id])
			}
			lastRank = rank
		}
		d.m.sections = append(d.m.sections, section{id: id, start: start, payloadStart: payloadStart, end: r.Offset()})
		sr := newReader(payload, payloadStart)
		if err := d.section(id, sr); err != nil {
			return nil, fmt.Errorf("section %s: %w", sectionNames[id], err)
		}
		if id != secCustom && !sr.Done() {
			return nil, fmt.Errorf("section %s: at byte offset 0x%x: %w: %d unread bytes at the end of the section", sectionNames[id], sr.Offset(), ErrMalformed, sr.Remaining())
		}
	}
	m := d.m
	if uint64(len(m.FuncTypeIndices)) != uint64(len(m.Code)) {
		return nil, fmt.Errorf("%w: function section declares %d functions but the code section has %d bodies", ErrMalformed, len(m.FuncTypeIndices), len(m.Code))
	}
	if m.DataCount != nil && uint64(*m.DataCount) != uint64(len(m.Data)) {
		return nil, fmt.Errorf("%w: data count section says %d segments but the data section has %d", ErrMalformed, *m.DataCount, len(m.Data))
	}
	if d.numMems > 1 {
		d.m.features.add(FeatureMultiMemory, -1, 8, fmt.Sprintf("%d memories", d.numMems))
	}
	m.DeclaredTables = append([]TableType(nil), m.Tables...)
	return m, nil
}

func (d *decoder) section(id byte, r *reader) error {
	switch id {
	case secCustom:
		return d.customSection(r)
	case secType:
		return d.typeSection(r)
	case secImport:
		return d.importSection(r)
	case secFunction:
		return d.functionSection(r)
	case secTable:
		return d.tableSection(r)
	case secMemory:
		return d.memorySection(r)
	case secGlobal:
		return d.globalSection(r)
	case secExport:
		return d.exportSection(r)
	case secStart:
		return d.startSection(r)
	case secElement:
		return d.elementSection(r)
	case secCode:
		return d.codeSection(r)
	case secData:
		return d.dataSection(r)
	case secDataCount:
		return d.dataCountSection(r)
	case secTag:
		return d.tagSection(r)
	}
	panic("BUG: unknown section id")
}

func (d *decoder) feature(feature string, off int, format string, args ...any) {
	d.m.features.add(feature, -1, off, fmt.Sprintf(format, args...))
}

func limitErr(off int, what string, n uint64, limit uint64) error {
	return fmt.Errorf("at byte offset 0x%x: %w: %d %s, over the limit of %d", off, ErrLimit, n, what, limit)
}
