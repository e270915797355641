package wasm

import "fmt"

// This file decodes constant expressions and the element, data and data count sections.

// constExpr reads a constant expression up to and including its end and returns its bytes.
// Globals may refer to the globals before maxGlobal (exclusive); wazero checks the finer rules
// (imported, immutable, types).
func (d *decoder) constExpr(r *reader, maxGlobal uint32) ([]byte, error) {
	start := r.Pos
	in := &d.instr
	for {
		if err := readInstr(r, in); err != nil {
			return nil, err
		}
		at := r.Base + in.start
		info := lookupOp(in.op)
		switch in.op {
		case opEnd:
			return r.Buf[start:r.Pos:r.Pos], nil
		case opI32Const, opI64Const, opF32Const, opF64Const:
		case prefixSIMD<<16 | 0x0c:
			d.feature(FeatureSIMD, at, "v128.const in a constant expression")
		case opRefNull, opRefFunc:
			if in.op == opRefFunc {
				if in.idx >= d.numFuncsSoFar() {
					return nil, fmt.Errorf("at byte offset 0x%x: %w: ref.func of unknown function %d", at, ErrMalformed, in.idx)
				}
				d.markReferenced(in.idx)
			}
			d.feature(FeatureReferenceTypes, at, "%s in a constant expression", info.name)
		case opGlobalGet:
			if in.idx >= maxGlobal {
				return nil, fmt.Errorf("at byte offset 0x%x: %w: constant expression reads unknown global %d", at, ErrMalformed, in.idx)
			}
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // i32/i64 add, sub, mul
			d.feature(FeatureExtendedConst, at, "%s in a constant expression", info.name)
		default:
			if info.feature == FeatureGC {
				d.feature(FeatureGC, at, "%s in a constant expression", info.name)
				break
			}
			return nil, fmt.Errorf("at byte offset 0x%x: %w: %s is not allowed in a constant expression", at, ErrMalformed, info.name)
		}
		if in.immFeature != "" {
			d.feature(in.immFeature, at, "%s in a constant expression", info.name)
		}
	}
}

// skipConstExpr moves r past a constant expression that Decode already accepted.
func skipConstExpr(r *reader, in *instr) error {
	for {
		if err := readInstr(r, in); err != nil {
			return err
		}
		if in.op == opEnd {
			return nil
		}
	}
}

// markReferenced records that function idx (already checked to exist) may be called indirectly.
func (d *decoder) markReferenced(idx uint32) {
	m := d.m
	if m.referenced == nil {
		m.referenced = make([]bool, d.numFuncsSoFar())
	}
	if idx < uint32(len(m.referenced)) {
		m.referenced[idx] = true
	}
}

func (d *decoder) numFuncsSoFar() uint32 {
	return d.m.NumImportedFuncs + uint32(len(d.m.FuncTypeIndices))
}

func (d *decoder) elementSection(r *reader) error {
	n, err := r.Count("element segments", 3, d.lim.ElementSegments)
	if err != nil {
		return err
	}
	d.m.Elements = make([]ElementSegment, 0, n)
	for i := uint32(0); i < n; i++ {
		s, err := d.elementSegment(r, i)
		if err != nil {
			return fmt.Errorf("element segment %d: %w", i, err)
		}
		d.m.Elements = append(d.m.Elements, s)
	}
	return nil
}

func (d *decoder) elementSegment(r *reader, i uint32) (ElementSegment, error) {
	at := r.Offset()
	flags, err := r.U32()
	if err != nil {
		return ElementSegment{}, err
	}
	if flags > 7 {
		return ElementSegment{}, fmt.Errorf("at byte offset 0x%x: %w: unknown element segment flags %d", at, ErrMalformed, flags)
	}
	s := ElementSegment{Flags: flags, ElemType: byte(FuncRef)}
	switch {
	case flags&0x01 == 0:
		s.Mode = ModeActive
	case flags&0x02 == 0:
		s.Mode = ModePassive
	default:
		s.Mode = ModeDeclarative
	}
	if flags != 0 {
		d.feature(FeatureBulkMemory, at, "element segment %d uses encoding %d", i, flags)
	}
	if flags&0x04 != 0 || s.Mode == ModeDeclarative {
		d.feature(FeatureReferenceTypes, at, "element segment %d uses encoding %d", i, flags)
	}
	if s.Mode == ModeActive {
		if flags&0x02 != 0 {
			if s.Table, err = r.U32(); err != nil {
				return s, err
			}
		}
		if s.Table >= d.numTables {
			return s, fmt.Errorf("at byte offset 0x%x: %w: unknown table %d", at, ErrMalformed, s.Table)
		}
		if s.Offset, err = d.constExpr(r, d.m.NumGlobals()); err != nil {
			return s, err
		}
	}
	// Flags 0 and 4 imply funcref; the others carry an elemkind (0..3) or a reference type (4..7).
	if flags&0x03 != 0 {
		kat := r.Offset()
		if flags&0x04 == 0 {
			k, err := r.Byte()
			if err != nil {
				return s, err
			}
			if k != 0 {
				return s, fmt.Errorf("at byte offset 0x%x: %w: unknown element kind 0x%02x", kat, ErrMalformed, k)
			}
		} else {
			t, f, err := readValType(r)
			if err != nil {
				return s, err
			}
			if t != FuncRef && t != ExternRef {
				if f == "" || f == FeatureSIMD {
					return s, fmt.Errorf("at byte offset 0x%x: %w: element type %s is not a reference type", kat, ErrMalformed, t)
				}
				d.feature(f, kat, "element segment %d of type 0x%02x", i, byte(t))
			}
			s.ElemType = byte(t)
		}
	}
	minItem := 1
	if flags&0x04 != 0 {
		minItem = 2
	}
	if s.ItemCount, err = r.Count("element segment items", minItem, d.lim.TableElements); err != nil {
		return s, err
	}
	start := r.Pos
	numFuncs := d.numFuncsSoFar()
	for j := uint32(0); j < s.ItemCount; j++ {
		if flags&0x04 == 0 {
			iat := r.Offset()
			f, err := r.U32()
			if err != nil {
				return s, err
			}
			if f >= numFuncs {
				return s, fmt.Errorf("at byte offset 0x%x: %w: unknown function %d", iat, ErrMalformed, f)
			}
			d.markReferenced(f)
			continue
		}
		if _, err := d.constExpr(r, d.m.NumGlobals()); err != nil {
			return s, err
		}
	}
	s.Items = r.Buf[start:r.Pos:r.Pos]
	return s, nil
}

func (d *decoder) dataSection(r *reader) error {
	n, err := r.Count("data segments", 2, d.lim.DataSegments)
	if err != nil {
		return err
	}
	d.m.Data = make([]DataSegment, 0, n)
	for i := uint32(0); i < n; i++ {
		at := r.Offset()
		flags, err := r.U32()
		if err != nil {
			return err
		}
		s := DataSegment{Flags: flags}
		switch flags {
		case 0:
		case 1:
			s.Mode = ModePassive
			d.feature(FeatureBulkMemory, at, "passive data segment %d", i)
		case 2:
			if s.Memory, err = r.U32(); err != nil {
				return err
			}
			if s.Memory != 0 {
				d.feature(FeatureMultiMemory, at, "data segment %d for memory %d", i, s.Memory)
			}
		default:
			return fmt.Errorf("data segment %d at byte offset 0x%x: %w: unknown data segment flags %d", i, at, ErrMalformed, flags)
		}
		if s.Mode == ModeActive {
			if s.Memory >= d.numMems {
				return fmt.Errorf("data segment %d at byte offset 0x%x: %w: unknown memory %d", i, at, ErrMalformed, s.Memory)
			}
			if s.Offset, err = d.constExpr(r, d.m.NumGlobals()); err != nil {
				return fmt.Errorf("data segment %d: %w", i, err)
			}
		}
		size, err := r.U32()
		if err != nil {
			return err
		}
		if s.Data, err = r.Bytes(uint64(size)); err != nil {
			return fmt.Errorf("data segment %d: %w", i, err)
		}
		d.m.Data = append(d.m.Data, s)
	}
	return nil
}

func (d *decoder) dataCountSection(r *reader) error {
	at := r.Offset()
	n, err := r.U32()
	if err != nil {
		return err
	}
	if n > d.lim.DataSegments {
		return limitErr(at, "data segments", uint64(n), uint64(d.lim.DataSegments))
	}
	d.feature(FeatureBulkMemory, at, "data count section")
	d.m.DataCount = &n
	return nil
}
