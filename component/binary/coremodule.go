package binary

import (
	"bytes"
)

var (
	wasmMagic      = []byte{0x00, 0x61, 0x73, 0x6d}
	coreVersion    = []byte{0x01, 0x00, 0x00, 0x00}
	componentLayer = []byte{0x0d, 0x00, 0x01, 0x00}
)

// scanModule computes the type of an embedded core module (its imports and exports) from its
// type, import, function, table, memory, global, tag and export sections. Function bodies, data
// and the other sections are skipped over by their sizes: package engine decodes and validates
// all of the module when it compiles it.
func scanModule(b []byte, base int) (*ModuleType, error) {
	r := newReader(b, base)
	if len(b) < 8 || !bytes.Equal(b[:4], wasmMagic) {
		return nil, r.Fail("core module: missing the \\0asm header")
	}
	if !bytes.Equal(b[4:8], coreVersion) {
		return nil, r.Fail("core module: unsupported version % x (a core module must have version 1)", b[4:8])
	}
	r.Pos = 8
	var (
		types   []*CoreFuncType
		funcs   []*CoreFuncType
		tables  []CoreTableType
		mems    []CoreMemoryType
		globals []CoreGlobalType
		tags    []*CoreFuncType
		mt      = &ModuleType{}
		seen    [14]bool
		// importNames: the component model joins a two-level import name into one (wit-component's
		// "module:name" mangling), so it refuses duplicates that core wasm allows.
		importNames = map[[2]string]bool{}
	)
	funcType := func(idx uint32) (*CoreFuncType, error) {
		if int64(idx) >= int64(len(types)) {
			return nil, outOfRange("core module: type", idx, len(types))
		}
		return types[idx], nil
	}
	for !r.Done() {
		idOff := r.Offset()
		id, err := r.Byte()
		if err != nil {
			return nil, err
		}
		size, err := r.U32()
		if err != nil {
			return nil, err
		}
		payload, err := r.Bytes(uint64(size))
		if err != nil {
			return nil, err
		}
		if id > 13 {
			return nil, at(idOff, errf(ErrMalformed, "core module: unknown section id %d", id))
		}
		if id != 0 {
			if seen[id] {
				return nil, at(idOff, errf(ErrMalformed, "core module: duplicate section id %d", id))
			}
			seen[id] = true
		}
		sr := newReader(payload, r.Offset()-len(payload))
		switch id {
		case 1: // type
			n, err := sr.Count("core module: type", 1, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				op, err := sr.Byte()
				if err != nil {
					return nil, err
				}
				if op != 0x60 {
					if op == 0x4e || op == 0x4f || op == 0x50 || op == 0x5f || op == 0x5e || op == 0x5d {
						return nil, at(sr.Offset()-1, unsupported("core GC, recursive or continuation types"))
					}
					return nil, at(sr.Offset()-1, errf(ErrMalformed, "core module: unknown type opcode 0x%02x", op))
				}
				ft, err := readCoreFuncSig(sr)
				if err != nil {
					return nil, err
				}
				types = append(types, ft)
			}
		case 2: // import
			n, err := sr.Count("core module: import", 4, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				mod, err := sr.Name()
				if err != nil {
					return nil, err
				}
				name, err := sr.Name()
				if err != nil {
					return nil, err
				}
				if err := checkImportName(importNames, mod, name); err != nil {
					return nil, at(sr.Offset(), err)
				}
				et, err := readCoreExternDesc(sr, funcType)
				if err != nil {
					return nil, err
				}
				switch et.Kind {
				case CoreExternFunc:
					funcs = append(funcs, et.Func)
				case CoreExternTable:
					tables = append(tables, et.Table)
				case CoreExternMemory:
					mems = append(mems, et.Memory)
				case CoreExternGlobal:
					globals = append(globals, et.Global)
				case CoreExternTag:
					tags = append(tags, et.Func)
				}
				mt.Imports = append(mt.Imports, CoreImport{Module: mod, Name: name, Type: et})
			}
		case 3: // function
			n, err := sr.Count("core module: function", 1, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				idx, err := sr.U32()
				if err != nil {
					return nil, err
				}
				ft, err := funcType(idx)
				if err != nil {
					return nil, at(sr.Offset(), err)
				}
				funcs = append(funcs, ft)
			}
		case 4: // table
			n, err := sr.Count("core module: table", 2, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				tt, err := readTableType(sr)
				if err != nil {
					return nil, err
				}
				tables = append(tables, tt)
			}
		case 5: // memory
			n, err := sr.Count("core module: memory", 2, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				m, err := readMemoryType(sr)
				if err != nil {
					return nil, err
				}
				mems = append(mems, m)
			}
		case 6: // global
			n, err := sr.Count("core module: global", 3, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				g, err := readGlobalType(sr)
				if err != nil {
					return nil, err
				}
				if err := skipConstExpr(sr); err != nil {
					return nil, err
				}
				globals = append(globals, g)
			}
		case 13: // tag
			n, err := sr.Count("core module: tag", 2, 0)
			if err != nil {
				return nil, err
			}
			for i := uint32(0); i < n; i++ {
				ft, err := readTag(sr, funcType)
				if err != nil {
					return nil, err
				}
				tags = append(tags, ft)
			}
		case 7: // export
			n, err := sr.Count("core module: export", 3, 0)
			if err != nil {
				return nil, err
			}
			names := make(map[string]bool, n)
			for i := uint32(0); i < n; i++ {
				off := sr.Offset()
				name, err := sr.Name()
				if err != nil {
					return nil, err
				}
				kind, err := sr.Byte()
				if err != nil {
					return nil, err
				}
				idx, err := sr.U32()
				if err != nil {
					return nil, err
				}
				if names[name] {
					return nil, at(off, errf(ErrInvalid, "core module: duplicate export %q", name))
				}
				names[name] = true
				et := CoreExternType{Kind: CoreExternKind(kind)}
				var space int
				switch et.Kind {
				case CoreExternFunc:
					space = len(funcs)
					if int64(idx) < int64(space) {
						et.Func = funcs[idx]
					}
				case CoreExternTable:
					space = len(tables)
					if int64(idx) < int64(space) {
						et.Table = tables[idx]
					}
				case CoreExternMemory:
					space = len(mems)
					if int64(idx) < int64(space) {
						et.Memory = mems[idx]
					}
				case CoreExternGlobal:
					space = len(globals)
					if int64(idx) < int64(space) {
						et.Global = globals[idx]
					}
				case CoreExternTag:
					space = len(tags)
					if int64(idx) < int64(space) {
						et.Func = tags[idx]
					}
				default:
					return nil, at(off, errf(ErrMalformed, "core module: export %q has unknown kind 0x%02x", name, kind))
				}
				if int64(idx) >= int64(space) {
					return nil, at(off, outOfRange("core module: export "+et.Kind.String(), idx, space))
				}
				mt.Exports = append(mt.Exports, CoreExport{Name: name, Type: et})
			}
		}
		if id >= 1 && id <= 7 || id == 13 {
			if err := sr.ExpectEnd("core module section"); err != nil {
				return nil, err
			}
		}
	}
	mt.index = indexCore(mt.Exports)
	return mt, nil
}

// readCoreFuncSig reads the params and results of a core function type (after 0x60).
func readCoreFuncSig(r *reader) (*CoreFuncType, error) {
	ft := &CoreFuncType{}
	for pass := 0; pass < 2; pass++ {
		n, err := r.Count("core value type", 1, 0)
		if err != nil {
			return nil, err
		}
		ts := make([]CoreValType, 0, n)
		for i := uint32(0); i < n; i++ {
			t, err := readCoreValType(r)
			if err != nil {
				return nil, err
			}
			ts = append(ts, t)
		}
		if pass == 0 {
			ft.Params = ts
		} else {
			ft.Results = ts
		}
	}
	return ft, nil
}

// readCoreValType reads a core value type; reference types beyond funcref and externref need
// proposals kobako does not run.
func readCoreValType(r *reader) (CoreValType, error) {
	off := r.Offset()
	b, err := r.Byte()
	if err != nil {
		return 0, err
	}
	switch t := CoreValType(b); t {
	case CoreI32, CoreI64, CoreF32, CoreF64, CoreV128, CoreFuncRef, CoreExternRef:
		return t, nil
	}
	switch {
	case b == 0x63 || b == 0x64:
		return 0, at(off, unsupported("typed function references"))
	case b >= 0x65 && b <= 0x74:
		return 0, at(off, unsupported("GC and exception reference types"))
	}
	return 0, at(off, errf(ErrMalformed, "unknown core value type 0x%02x", b))
}

func readLimits(r *reader, allow64 bool) (min, max uint64, hasMax, shared, is64 bool, err error) {
	off := r.Offset()
	flags, err := r.Byte()
	if err != nil {
		return
	}
	if flags&^0x07 != 0 {
		if flags&0x08 != 0 {
			err = at(off, unsupported("custom page sizes"))
			return
		}
		err = at(off, errf(ErrMalformed, "unknown limits flags 0x%02x", flags))
		return
	}
	hasMax, shared, is64 = flags&1 != 0, flags&2 != 0, flags&4 != 0
	if is64 && !allow64 {
		err = at(off, errf(ErrMalformed, "unknown limits flags 0x%02x", flags))
		return
	}
	read := func() (uint64, error) {
		if is64 {
			return r.U64()
		}
		v, err := r.U32()
		return uint64(v), err
	}
	if min, err = read(); err != nil {
		return
	}
	if hasMax {
		if max, err = read(); err != nil {
			return
		}
		if max < min {
			err = at(off, errf(ErrInvalid, "limits maximum %d is below the minimum %d", max, min))
		}
	}
	return
}

func readTableType(r *reader) (CoreTableType, error) {
	off := r.Offset()
	b, err := r.Peek()
	if err != nil {
		return CoreTableType{}, err
	}
	if b == 0x40 {
		return CoreTableType{}, at(off, unsupported("tables with initializer expressions (typed function references)"))
	}
	et, err := readCoreValType(r)
	if err != nil {
		return CoreTableType{}, err
	}
	if et != CoreFuncRef && et != CoreExternRef {
		return CoreTableType{}, at(off, errf(ErrInvalid, "table element type %s is not a reference type", et))
	}
	min, max, hasMax, shared, is64, err := readLimits(r, true)
	if err != nil {
		return CoreTableType{}, err
	}
	if shared {
		return CoreTableType{}, at(off, unsupported("shared tables"))
	}
	return CoreTableType{Elem: et, Min: min, Max: max, HasMax: hasMax, Is64: is64}, nil
}

// checkImportName refuses a two-level import name seen already, recording it otherwise.
func checkImportName(seen map[[2]string]bool, mod, name string) error {
	k := [2]string{mod, name}
	if seen[k] {
		return errf(ErrInvalid, "core module imports %q %q twice", mod, name)
	}
	seen[k] = true
	return nil
}

// maxPages32 and maxPages64 are the most 64 KiB pages a 32-bit (4 GiB) and a 64-bit (2^64 bytes)
// memory can declare.
const (
	maxPages32 = 1 << 16
	maxPages64 = 1 << 48
)

func readMemoryType(r *reader) (CoreMemoryType, error) {
	off := r.Offset()
	min, max, hasMax, shared, is64, err := readLimits(r, true)
	if err != nil {
		return CoreMemoryType{}, err
	}
	limit := uint64(maxPages32)
	if is64 {
		limit = maxPages64
	}
	if min > limit || (hasMax && max > limit) {
		return CoreMemoryType{}, at(off, errf(ErrInvalid, "memory size must be at most %d pages", limit))
	}
	return CoreMemoryType{Min: min, Max: max, HasMax: hasMax, Shared: shared, Is64: is64}, nil
}

func readGlobalType(r *reader) (CoreGlobalType, error) {
	t, err := readCoreValType(r)
	if err != nil {
		return CoreGlobalType{}, err
	}
	off := r.Offset()
	m, err := r.Byte()
	if err != nil {
		return CoreGlobalType{}, err
	}
	if m > 1 {
		if m&2 != 0 {
			return CoreGlobalType{}, at(off, unsupported("shared globals"))
		}
		return CoreGlobalType{}, at(off, errf(ErrMalformed, "unknown global mutability 0x%02x", m))
	}
	return CoreGlobalType{Type: t, Mutable: m == 1}, nil
}

func readTag(r *reader, funcType func(uint32) (*CoreFuncType, error)) (*CoreFuncType, error) {
	off := r.Offset()
	attr, err := r.Byte()
	if err != nil {
		return nil, err
	}
	if attr != 0 {
		return nil, at(off, errf(ErrMalformed, "unknown tag attribute 0x%02x", attr))
	}
	idx, err := r.U32()
	if err != nil {
		return nil, err
	}
	ft, err := funcType(idx)
	if err != nil {
		return nil, at(off, err)
	}
	return ft, nil
}

// readCoreExternDesc reads the descriptor of a core import (core:importdesc / core:externtype).
func readCoreExternDesc(r *reader, funcType func(uint32) (*CoreFuncType, error)) (CoreExternType, error) {
	off := r.Offset()
	kind, err := r.Byte()
	if err != nil {
		return CoreExternType{}, err
	}
	et := CoreExternType{Kind: CoreExternKind(kind)}
	switch et.Kind {
	case CoreExternFunc:
		idx, err := r.U32()
		if err != nil {
			return et, err
		}
		if et.Func, err = funcType(idx); err != nil {
			return et, at(off, err)
		}
	case CoreExternTable:
		et.Table, err = readTableType(r)
	case CoreExternMemory:
		et.Memory, err = readMemoryType(r)
	case CoreExternGlobal:
		et.Global, err = readGlobalType(r)
	case CoreExternTag:
		et.Func, err = readTag(r, funcType)
	default:
		return et, at(off, errf(ErrMalformed, "unknown core extern kind 0x%02x", kind))
	}
	return et, err
}

// skipLEB skips a LEB128 of at most maxBytes bytes.
func skipLEB(r *reader, maxBytes int) error {
	for i := 0; i < maxBytes; i++ {
		b, err := r.Byte()
		if err != nil {
			return err
		}
		if b&0x80 == 0 {
			return nil
		}
	}
	return r.Fail("LEB128 integer too long")
}

// skipConstExpr skips a constant expression up to and including its end opcode.
func skipConstExpr(r *reader) error {
	for {
		off := r.Offset()
		op, err := r.Byte()
		if err != nil {
			return err
		}
		switch op {
		case 0x0b: // end
			return nil
		case 0x41: // i32.const
			err = skipLEB(r, 5)
		case 0x42: // i64.const
			err = skipLEB(r, 10)
		case 0x43: // f32.const
			_, err = r.Bytes(uint64(4))
		case 0x44: // f64.const
			_, err = r.Bytes(uint64(8))
		case 0x23, 0xd2: // global.get, ref.func
			_, err = r.U32()
		case 0xd0: // ref.null
			_, err = r.Signed(33)
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constant arithmetic
		case 0xfd:
			var sub uint32
			if sub, err = r.U32(); err == nil {
				if sub != 12 {
					return at(off, errf(ErrMalformed, "instruction 0xfd %d in a constant expression", sub))
				}
				_, err = r.Bytes(uint64(16))
			}
		case 0xfb:
			return at(off, unsupported("GC instructions in constant expressions"))
		default:
			return at(off, errf(ErrMalformed, "opcode 0x%02x in a constant expression", op))
		}
		if err != nil {
			return err
		}
	}
}
