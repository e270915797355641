package wasm

import "fmt"

// This file decodes the declaration sections: type, import, function, table, memory, global,
// export, start and tag.

func (d *decoder) typeSection(r *reader) error {
	n, err := r.Count("types", 3, d.lim.Types)
	if err != nil {
		return err
	}
	d.m.Types = make([]FuncType, 0, n)
	for i := uint32(0); i < n; i++ {
		at := r.Offset()
		form, err := r.Byte()
		if err != nil {
			return err
		}
		switch form {
		case 0x60:
		case 0x4e, 0x50, 0x4f, 0x5f, 0x5e:
			return fmt.Errorf("type %d at byte offset 0x%x: %w: %s (GC type form 0x%02x); Decode reads only function types", i, at, ErrUnsupportedFeature, FeatureGC, form)
		default:
			return fmt.Errorf("type %d at byte offset 0x%x: %w: unknown type form 0x%02x", i, at, ErrMalformed, form)
		}
		var ft FuncType
		if ft.Params, err = d.valTypes(r, "params", d.lim.Params, i); err != nil {
			return err
		}
		if ft.Results, err = d.valTypes(r, "results", d.lim.Results, i); err != nil {
			return err
		}
		if len(ft.Results) > 1 {
			d.feature(FeatureMultiValue, at, "type %d has %d results", i, len(ft.Results))
		}
		d.m.Types = append(d.m.Types, ft)
	}
	return nil
}

func (d *decoder) valTypes(r *reader, what string, limit uint32, typeIdx uint32) ([]ValType, error) {
	at := r.Offset()
	n, err := r.U32()
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("type %d: %w", typeIdx, limitErr(at, what, uint64(n), uint64(limit)))
	}
	if uint64(n) > uint64(r.Remaining()) {
		return nil, r.Fail("%d %s exceed the %d remaining bytes", n, what, r.Remaining())
	}
	out := make([]ValType, 0, n)
	for j := uint32(0); j < n; j++ {
		vat := r.Offset()
		t, f, err := readValType(r)
		if err != nil {
			return nil, err
		}
		if f != "" {
			d.feature(f, vat, "type %d uses value type %s", typeIdx, t)
		}
		out = append(out, t)
	}
	return out, nil
}

func (d *decoder) typeAt(r *reader, at int) (uint32, error) {
	idx, err := r.U32()
	if err != nil {
		return 0, err
	}
	if uint64(idx) >= uint64(len(d.m.Types)) {
		return 0, fmt.Errorf("at byte offset 0x%x: %w: unknown type %d (the module has %d)", at, ErrMalformed, idx, len(d.m.Types))
	}
	return idx, nil
}

func (d *decoder) checkCount(at int, what string, n uint64, limit uint32) error {
	if n > uint64(limit) {
		return limitErr(at, what, n, uint64(limit))
	}
	return nil
}

func (d *decoder) importSection(r *reader) error {
	n, err := r.Count("imports", 4, d.lim.Imports)
	if err != nil {
		return err
	}
	m := d.m
	m.Imports = make([]Import, 0, n)
	for i := uint32(0); i < n; i++ {
		at := r.Offset()
		var im Import
		if im.Module, err = r.Name(); err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
		im.field = r.Offset()
		if im.Name, err = r.Name(); err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
		k, err := r.Byte()
		if err != nil {
			return err
		}
		im.Kind = ExternKind(k)
		switch im.Kind {
		case ExternFunc:
			if im.TypeIndex, err = d.typeAt(r, r.Offset()); err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
			im.Func = m.Types[im.TypeIndex]
			m.importedFuncs = append(m.importedFuncs, uint32(len(m.Imports)))
			m.NumImportedFuncs++
			if err := d.checkCount(at, "functions", uint64(m.NumImportedFuncs), d.lim.Functions); err != nil {
				return err
			}
		case ExternTable:
			if im.Table, err = d.tableType(r); err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
			m.NumImportedTables++
			d.numTables++
			if err := d.checkCount(at, "tables", uint64(d.numTables), d.lim.Tables); err != nil {
				return err
			}
		case ExternMemory:
			if im.Memory, err = d.memoryType(r); err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
			m.ImportedMemories = append(m.ImportedMemories, im.Memory)
			d.numMems++
			if err := d.checkCount(at, "memories", uint64(d.numMems), d.lim.Memories); err != nil {
				return err
			}
		case ExternGlobal:
			if im.Global, err = d.globalType(r); err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
			if im.Global.Mutable {
				d.feature(FeatureMutableGlobal, at, "import %q %q is a mutable global", im.Module, im.Name)
			}
			m.importedGlobals = append(m.importedGlobals, uint32(len(m.Imports)))
			m.NumImportedGlobals++
			if err := d.checkCount(at, "globals", uint64(m.NumImportedGlobals), d.lim.Globals); err != nil {
				return err
			}
		case ExternTag:
			if im.TypeIndex, err = d.tagType(r); err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
			d.feature(FeatureExceptionHandling, at, "import %q %q is a tag", im.Module, im.Name)
			m.NumImportedTags++
		default:
			return fmt.Errorf("import %d at byte offset 0x%x: %w: unknown import kind 0x%02x", i, at, ErrMalformed, k)
		}
		im.end = r.Offset()
		m.Imports = append(m.Imports, im)
	}
	return nil
}

func (d *decoder) functionSection(r *reader) error {
	n, err := r.Count("functions", 1, 0)
	if err != nil {
		return err
	}
	if err := d.checkCount(r.Offset(), "functions", uint64(d.m.NumImportedFuncs)+uint64(n), d.lim.Functions); err != nil {
		return err
	}
	d.m.FuncTypeIndices = make([]uint32, 0, n)
	for i := uint32(0); i < n; i++ {
		idx, err := d.typeAt(r, r.Offset())
		if err != nil {
			return fmt.Errorf("function %d: %w", d.m.NumImportedFuncs+i, err)
		}
		d.m.FuncTypeIndices = append(d.m.FuncTypeIndices, idx)
	}
	return nil
}

func (d *decoder) tableSection(r *reader) error {
	n, err := r.Count("tables", 3, 0)
	if err != nil {
		return err
	}
	if err := d.checkCount(r.Offset(), "tables", uint64(d.numTables)+uint64(n), d.lim.Tables); err != nil {
		return err
	}
	d.m.Tables = make([]TableType, 0, n)
	for i := uint32(0); i < n; i++ {
		t, err := d.tableType(r)
		if err != nil {
			return fmt.Errorf("table %d: %w", d.m.NumImportedTables+i, err)
		}
		d.m.Tables = append(d.m.Tables, t)
	}
	d.numTables += n
	return nil
}

func (d *decoder) memorySection(r *reader) error {
	n, err := r.Count("memories", 2, 0)
	if err != nil {
		return err
	}
	if err := d.checkCount(r.Offset(), "memories", uint64(d.numMems)+uint64(n), d.lim.Memories); err != nil {
		return err
	}
	d.m.Memories = make([]MemoryType, 0, n)
	for i := uint32(0); i < n; i++ {
		t, err := d.memoryType(r)
		if err != nil {
			return fmt.Errorf("memory %d: %w", uint32(len(d.m.ImportedMemories))+i, err)
		}
		d.m.Memories = append(d.m.Memories, t)
	}
	d.numMems += n
	return nil
}

// limits reads a limits flag byte and the sizes it announces. It returns the flags so the caller
// can check which are allowed.
func (d *decoder) limits(r *reader, what string) (flags byte, min, max uint64, err error) {
	at := r.Offset()
	if flags, err = r.Byte(); err != nil {
		return
	}
	if flags > 0x07 {
		err = fmt.Errorf("at byte offset 0x%x: %w: unknown %s limits flags 0x%02x", at, ErrMalformed, what, flags)
		return
	}
	is64 := flags&0x04 != 0
	size := func() (uint64, error) {
		if is64 {
			return r.U64()
		}
		v, err := r.U32()
		return uint64(v), err
	}
	if min, err = size(); err != nil {
		return
	}
	if flags&0x01 != 0 {
		if max, err = size(); err != nil {
			return
		}
		if max < min {
			err = fmt.Errorf("at byte offset 0x%x: %w: %s minimum %d is greater than its maximum %d", at, ErrMalformed, what, min, max)
		}
	}
	return
}

func (d *decoder) tableType(r *reader) (TableType, error) {
	at := r.Offset()
	et, f, err := readValType(r)
	if err != nil {
		return TableType{}, err
	}
	switch et {
	case FuncRef:
	case ExternRef:
		d.feature(FeatureReferenceTypes, at, "table of externref")
	default:
		if f == FeatureSIMD || f == "" {
			return TableType{}, fmt.Errorf("at byte offset 0x%x: %w: table element type %s is not a reference type", at, ErrMalformed, et)
		}
		d.feature(f, at, "table element type 0x%02x", byte(et))
	}
	flags, min, max, err := d.limits(r, "table")
	if err != nil {
		return TableType{}, err
	}
	if flags&0x02 != 0 {
		return TableType{}, fmt.Errorf("at byte offset 0x%x: %w: tables cannot be shared", at, ErrMalformed)
	}
	t := TableType{ElemType: byte(et), HasMax: flags&0x01 != 0, Is64: flags&0x04 != 0}
	if t.Is64 {
		d.feature(FeatureMemory64, at, "64-bit table")
		if min > uint64(^uint32(0)) {
			min = uint64(^uint32(0))
		}
		if max > uint64(^uint32(0)) {
			max = uint64(^uint32(0))
		}
	}
	if min > uint64(d.lim.TableElements) {
		return TableType{}, limitErr(at, "table elements (minimum)", min, uint64(d.lim.TableElements))
	}
	t.Min, t.Max = uint32(min), uint32(max)
	return t, nil
}

func (d *decoder) memoryType(r *reader) (MemoryType, error) {
	at := r.Offset()
	flags, min, max, err := d.limits(r, "memory")
	if err != nil {
		return MemoryType{}, err
	}
	t := MemoryType{Min: min, Max: max, HasMax: flags&0x01 != 0, Shared: flags&0x02 != 0, Is64: flags&0x04 != 0}
	if t.Shared {
		d.feature(FeatureThreads, at, "shared memory")
		if !t.HasMax {
			return MemoryType{}, fmt.Errorf("at byte offset 0x%x: %w: shared memory must declare a maximum", at, ErrMalformed)
		}
	}
	if t.Is64 {
		d.feature(FeatureMemory64, at, "64-bit memory")
		return t, nil
	}
	if t.Min > d.lim.MemoryPages {
		return MemoryType{}, limitErr(at, "memory pages (minimum)", t.Min, d.lim.MemoryPages)
	}
	if t.HasMax && t.Max > 65536 {
		return MemoryType{}, fmt.Errorf("at byte offset 0x%x: %w: memory maximum %d pages exceeds 65536", at, ErrMalformed, t.Max)
	}
	return t, nil
}

func (d *decoder) globalType(r *reader) (GlobalType, error) {
	at := r.Offset()
	t, f, err := readValType(r)
	if err != nil {
		return GlobalType{}, err
	}
	if f != "" {
		d.feature(f, at, "global of type %s", t)
	}
	mut, err := r.Byte()
	if err != nil {
		return GlobalType{}, err
	}
	if mut > 1 {
		return GlobalType{}, fmt.Errorf("at byte offset 0x%x: %w: invalid global mutability 0x%02x", at+1, ErrMalformed, mut)
	}
	return GlobalType{ValType: t, Mutable: mut == 1}, nil
}

func (d *decoder) globalSection(r *reader) error {
	n, err := r.Count("globals", 3, 0)
	if err != nil {
		return err
	}
	if err := d.checkCount(r.Offset(), "globals", uint64(d.m.NumImportedGlobals)+uint64(n), d.lim.Globals); err != nil {
		return err
	}
	d.m.Globals = make([]Global, 0, n)
	for i := uint32(0); i < n; i++ {
		t, err := d.globalType(r)
		if err != nil {
			return fmt.Errorf("global %d: %w", d.m.NumImportedGlobals+i, err)
		}
		init, err := d.constExpr(r, d.m.NumImportedGlobals+i)
		if err != nil {
			return fmt.Errorf("global %d: %w", d.m.NumImportedGlobals+i, err)
		}
		d.m.Globals = append(d.m.Globals, Global{Type: t, Init: init})
	}
	return nil
}

func (d *decoder) globalTypeOf(idx uint32) (GlobalType, bool) {
	m := d.m
	if idx < m.NumImportedGlobals {
		return m.Imports[m.importedGlobals[idx]].Global, true
	}
	i := uint64(idx - m.NumImportedGlobals)
	if i < uint64(len(m.Globals)) {
		return m.Globals[i].Type, true
	}
	return GlobalType{}, false
}

func (d *decoder) exportSection(r *reader) error {
	n, err := r.Count("exports", 3, d.lim.Exports)
	if err != nil {
		return err
	}
	m := d.m
	m.Exports = make([]Export, 0, n)
	seen := make(map[string]struct{}, n)
	numFuncs := m.NumFuncs()
	for i := uint32(0); i < n; i++ {
		at := r.Offset()
		var e Export
		if e.Name, err = r.Name(); err != nil {
			return fmt.Errorf("export %d: %w", i, err)
		}
		k, err := r.Byte()
		if err != nil {
			return err
		}
		e.Kind = ExternKind(k)
		if e.Index, err = r.U32(); err != nil {
			return err
		}
		if _, dup := seen[e.Name]; dup {
			return fmt.Errorf("export %d at byte offset 0x%x: %w: duplicate export name %q", i, at, ErrMalformed, e.Name)
		}
		seen[e.Name] = struct{}{}
		var space uint32
		switch e.Kind {
		case ExternFunc:
			space = numFuncs
		case ExternTable:
			space = d.numTables
		case ExternMemory:
			space = d.numMems
		case ExternGlobal:
			space = m.NumGlobals()
			if t, ok := d.globalTypeOf(e.Index); ok && t.Mutable {
				d.feature(FeatureMutableGlobal, at, "export %q is a mutable global", e.Name)
			}
		case ExternTag:
			space = m.NumImportedTags + uint32(len(m.Tags))
			d.feature(FeatureExceptionHandling, at, "export %q is a tag", e.Name)
		default:
			return fmt.Errorf("export %d at byte offset 0x%x: %w: unknown export kind 0x%02x", i, at, ErrMalformed, k)
		}
		if e.Index >= space {
			return fmt.Errorf("export %q at byte offset 0x%x: %w: unknown %s %d", e.Name, at, ErrMalformed, e.Kind, e.Index)
		}
		m.Exports = append(m.Exports, e)
	}
	return nil
}

func (d *decoder) startSection(r *reader) error {
	at := r.Offset()
	idx, err := r.U32()
	if err != nil {
		return err
	}
	if idx >= d.m.NumFuncs() {
		return fmt.Errorf("at byte offset 0x%x: %w: unknown start function %d", at, ErrMalformed, idx)
	}
	d.m.StartFunc = &idx
	return nil
}

func (d *decoder) tagType(r *reader) (uint32, error) {
	at := r.Offset()
	attr, err := r.Byte()
	if err != nil {
		return 0, err
	}
	if attr != 0 {
		return 0, fmt.Errorf("at byte offset 0x%x: %w: unknown tag attribute 0x%02x", at, ErrMalformed, attr)
	}
	return d.typeAt(r, r.Offset())
}

func (d *decoder) tagSection(r *reader) error {
	n, err := r.Count("tags", 2, 0)
	if err != nil {
		return err
	}
	d.m.Tags = make([]uint32, 0, n)
	for i := uint32(0); i < n; i++ {
		at := r.Offset()
		t, err := d.tagType(r)
		if err != nil {
			return fmt.Errorf("tag %d: %w", i, err)
		}
		d.feature(FeatureExceptionHandling, at, "tag section declares tag %d", d.m.NumImportedTags+i)
		d.m.Tags = append(d.m.Tags, t)
	}
	return nil
}
