package wasm

// instr is one decoded instruction. Only the immediates the decoder and instrumenter act on are
// kept; everything else is skipped and later copied verbatim.
type instr struct {
	op    uint32 // single-byte opcode, or prefix<<16 | sub-opcode
	start int    // offset of the opcode within the reader's buffer
	end   int    // offset just past the last immediate
	idx   uint32 // first index immediate (label, function, global, ...)
	idx2  uint32 // second index immediate
	bt    int64  // block type: -64 empty, other negatives a value type, >= 0 a type index
	// labels holds br_table's targets, default last. The slice is reused between instructions.
	labels []uint32
	// immFeature names a feature the immediates (not the opcode) use, e.g. a memory index.
	immFeature string
}

const blockTypeEmpty = -64 // 0x40 read as s33

// readInstr decodes the instruction at r's position into in.
func readInstr(r *reader, in *instr) error {
	in.start = r.Pos
	in.immFeature = ""
	if readShort(r, in) {
		return nil
	}
	return readLong(r, in)
}

// readLong is readInstr without the short cut.
func readLong(r *reader, in *instr) error {
	b, err := r.Byte()
	if err != nil {
		return err
	}
	var info opInfo
	if b >= prefixGC && b <= prefixThreads {
		sub, err := r.U32()
		if err != nil {
			return err
		}
		in.op = uint32(b)<<16 | sub
		info = lookupOp(in.op)
		if !info.valid {
			return r.Fail("unknown opcode 0x%02x 0x%02x", b, sub)
		}
	} else {
		in.op = uint32(b)
		info = ops1[b]
		if !info.valid {
			return r.Fail("unknown opcode 0x%02x", b)
		}
	}
	if err := readImm(r, in, info.imm); err != nil {
		return err
	}
	in.end = r.Pos
	return nil
}

// readShort decodes the most common instructions, single-byte opcodes whose immediates are none
// or single-byte LEB128s, without going through readImm. It reports false, having read nothing,
// for every other instruction.
func readShort(r *reader, in *instr) bool {
	p, buf := r.Pos, r.Buf
	if p >= len(buf) || buf[p] >= prefixGC {
		return false
	}
	b := buf[p]
	info := &ops1[b]
	if !info.valid {
		return false
	}
	switch info.imm {
	case immNone:
		p++
	case immIdx:
		if p+1 >= len(buf) || buf[p+1] >= 0x80 {
			return false
		}
		in.idx = uint32(buf[p+1])
		p += 2
	case immI32:
		if p+1 >= len(buf) || buf[p+1] >= 0x80 {
			return false
		}
		in.bt = int64(int8(buf[p+1]<<1) >> 1) // sign-extend the 7-bit value
		p += 2
	case immMemarg:
		// alignment below 0x40 (no memory index) and an offset below 0x80
		if p+2 >= len(buf) || buf[p+1] >= 0x40 || buf[p+2] >= 0x80 {
			return false
		}
		in.idx = uint32(buf[p+1])
		p += 3
	default:
		return false
	}
	in.op = uint32(b)
	r.Pos = p
	in.end = p
	return true
}

func readImm(r *reader, in *instr, k immKind) error {
	var err error
	switch k {
	case immNone:
	case immBlock:
		in.bt, err = readBlockType(r, in)
	case immIdx:
		in.idx, err = r.U32()
	case immIdx2:
		if in.idx, err = r.U32(); err == nil {
			in.idx2, err = r.U32()
		}
		if err == nil && (in.op == prefixMisc<<16|8 && in.idx2 != 0 || in.op == prefixMisc<<16|10 && (in.idx|in.idx2) != 0) {
			in.immFeature = FeatureMultiMemory
		}
		if err == nil && (in.op == prefixMisc<<16|12 && in.idx2 != 0 || in.op == prefixMisc<<16|14 && (in.idx|in.idx2) != 0) {
			in.immFeature = FeatureReferenceTypes
		}
	case immCallIndirect:
		if in.idx, err = r.U32(); err == nil {
			in.idx2, err = r.U32()
			if err == nil && in.idx2 != 0 {
				in.immFeature = FeatureReferenceTypes
			}
		}
	case immMemIdx:
		in.idx, err = r.U32()
		if err == nil && in.idx != 0 {
			in.immFeature = FeatureMultiMemory
		}
	case immBrTable:
		var n uint32
		if n, err = r.Count("br_table targets", 1, 0); err != nil {
			return err
		}
		in.labels = in.labels[:0]
		for i := uint32(0); i <= n; i++ {
			l, err := r.U32()
			if err != nil {
				return err
			}
			in.labels = append(in.labels, l)
		}
	case immMemarg:
		err = readMemarg(r, in)
	case immMemLane:
		if err = readMemarg(r, in); err == nil {
			_, err = r.Byte()
		}
	case immLane, immZeroByte:
		var v byte
		v, err = r.Byte()
		if err == nil && k == immZeroByte && v != 0 {
			return r.Fail("atomic.fence flags must be 0, found 0x%02x", v)
		}
	case immI32:
		var v int32
		v, err = s32(r)
		in.bt = int64(v)
	case immI64:
		in.bt, err = r.Signed(64)
	case immF32:
		_, err = r.Bytes(4)
	case immF64:
		_, err = r.Bytes(8)
	case immV128:
		_, err = r.Bytes(16)
	case immHeapType:
		var f string
		f, err = readHeapType(r)
		in.immFeature = f
	case immSelectT:
		var n uint32
		if n, err = r.Count("select types", 1, 0); err != nil {
			return err
		}
		if n != 1 {
			in.immFeature = FeatureMultiValue
		}
		for i := uint32(0); i < n; i++ {
			_, f, err := readValType(r)
			if err != nil {
				return err
			}
			if f != "" && !engineFeatures[f] {
				in.immFeature = f
			}
		}
	case immTryTable:
		if in.bt, err = readBlockType(r, in); err != nil {
			return err
		}
		var n uint32
		if n, err = r.Count("catch clauses", 2, 0); err != nil {
			return err
		}
		for i := uint32(0); i < n; i++ {
			kind, err := r.Byte()
			if err != nil {
				return err
			}
			switch kind {
			case 0, 1:
				if _, err := r.U32(); err != nil {
					return err
				}
			case 2, 3:
			default:
				return r.Fail("unknown catch clause kind 0x%02x", kind)
			}
			if _, err := r.U32(); err != nil {
				return err
			}
		}
	case immBrOnCast:
		if _, err = r.Byte(); err != nil {
			return err
		}
		if in.idx, err = r.U32(); err != nil {
			return err
		}
		if _, err = readHeapType(r); err != nil {
			return err
		}
		_, err = readHeapType(r)
	default:
		panic("BUG: unknown immediate kind")
	}
	return err
}

func readMemarg(r *reader, in *instr) error {
	align, err := r.U32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		mem, err := r.U32()
		if err != nil {
			return err
		}
		in.idx2 = mem
		in.immFeature = FeatureMultiMemory
		align &^= 0x40
	}
	if align >= 64 {
		return r.Fail("memarg alignment exponent %d too large", align)
	}
	in.idx = align
	off, err := r.U64()
	if err != nil {
		return err
	}
	if off > 0xffffffff {
		in.immFeature = FeatureMemory64
	}
	return nil
}

// readBlockType reads a block type: 0x40, a value type, or a type index (multi-value).
func readBlockType(r *reader, in *instr) (int64, error) {
	if r.Pos < len(r.Buf) {
		b := r.Buf[r.Pos]
		if b == 0x40 {
			r.Pos++
			return blockTypeEmpty, nil
		}
		if b&0xc0 == 0x40 {
			t, f, err := readValType(r)
			if err != nil {
				return 0, err
			}
			if f != "" && !engineFeatures[f] {
				in.immFeature = f
			}
			return int64(int8(byte(t) | 0x80)), nil
		}
	}
	v, err := r.Signed(33)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, r.Fail("invalid block type %d", v)
	}
	in.immFeature = FeatureMultiValue
	return v, nil
}

// readValType reads a value type. It returns the post-MVP feature the type needs, if any.
// Reference types of the function-references and GC proposals are read with their heap type and
// returned as their leading byte.
func readValType(r *reader) (ValType, string, error) {
	b, err := r.Byte()
	if err != nil {
		return 0, "", err
	}
	switch b {
	case byte(I32), byte(I64), byte(F32), byte(F64):
		return ValType(b), "", nil
	case byte(V128):
		return V128, FeatureSIMD, nil
	case byte(FuncRef), byte(ExternRef):
		return ValType(b), FeatureReferenceTypes, nil
	case 0x63, 0x64: // (ref null ht), (ref ht)
		f, err := readHeapType(r)
		if err != nil {
			return 0, "", err
		}
		if f == "" || f == FeatureReferenceTypes {
			f = FeatureFunctionRefs
		}
		return ValType(b), f, nil
	case 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x71, 0x72, 0x73:
		return ValType(b), FeatureGC, nil
	case 0x69, 0x74:
		return ValType(b), FeatureExceptionHandling, nil
	}
	r.Pos--
	return 0, "", r.Fail("unknown value type 0x%02x", b)
}

// readHeapType reads an s33 heap type and returns the feature it needs beyond reference types.
func readHeapType(r *reader) (string, error) {
	v, err := r.Signed(33)
	if err != nil {
		return "", err
	}
	if v >= 0 {
		return FeatureFunctionRefs, nil
	}
	switch byte(v & 0x7f) {
	case byte(FuncRef), byte(ExternRef):
		return "", nil
	case 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x71, 0x72, 0x73:
		return FeatureGC, nil
	case 0x69, 0x74:
		return FeatureExceptionHandling, nil
	}
	return "", r.Fail("unknown heap type %d", v)
}

// cost returns the fuel an instruction costs: 0 for the instructions that do no work of their
// own (as in wasmtime), 1 for every other.
func cost(op uint32) int64 {
	switch op {
	case opNop, opDrop, opBlock, opLoop, opUnreachable, opReturn, opElse, opEnd:
		return 0
	}
	return 1
}
