package binary

import "github.com/kobako/kobako/abi"

// asyncCanonNames names the canonical built-ins of the async, error-context and threads
// proposals, which the decoder refuses by name.
var asyncCanonNames = map[byte]string{
	0x05: "task.cancel", 0x06: "subtask.cancel", 0x07: "resource.drop async", 0x08: "backpressure.set",
	0x09: "task.return", 0x0a: "context.get", 0x0b: "context.set", 0x0c: "thread.yield",
	0x0d: "subtask.drop", 0x0e: "stream.new", 0x0f: "stream.read", 0x10: "stream.write",
	0x11: "stream.cancel-read", 0x12: "stream.cancel-write", 0x13: "stream.drop-readable",
	0x14: "stream.drop-writable", 0x15: "future.new", 0x16: "future.read", 0x17: "future.write",
	0x18: "future.cancel-read", 0x19: "future.cancel-write", 0x1a: "future.drop-readable",
	0x1b: "future.drop-writable", 0x1c: "error-context.new", 0x1d: "error-context.debug-message",
	0x1e: "error-context.drop", 0x1f: "waitable-set.new", 0x20: "waitable-set.wait",
	0x21: "waitable-set.poll", 0x22: "waitable-set.drop", 0x23: "waitable.join",
	0x24: "backpressure.inc", 0x25: "backpressure.dec", 0x26: "thread.index",
	0x27: "thread.new-indirect", 0x28: "thread.resume-later", 0x29: "thread.suspend",
	0x2a: "thread.suspend-then-resume", 0x2b: "thread.yield-then-resume",
	0x2c: "thread.suspend-then-promote", 0x2d: "thread.yield-then-promote",
	0x40: "thread.spawn-ref", 0x41: "thread.spawn-indirect", 0x42: "thread.available-parallelism",
}

// canon1 handles one canonical definition (section 8).
func (s *scope) canon1(r *reader, off int) error {
	op, err := r.Byte()
	if err != nil {
		return err
	}
	def := &Canon{Offset: off}
	switch op {
	case 0x00, 0x01:
		soff := r.Offset()
		var sort byte
		if sort, err = r.Byte(); err != nil {
			return err
		}
		if sort != 0x00 {
			return at(soff, errf(ErrMalformed, "canon %s must be followed by the func sort 0x00, found 0x%02x", CanonKind(op), sort))
		}
		if op == 0x00 {
			def.Kind = CanonLift
			if def.CoreFunc, err = r.U32(); err != nil {
				return err
			}
		} else {
			def.Kind = CanonLower
			if def.FuncIndex, err = r.U32(); err != nil {
				return err
			}
		}
		if def.Options, err = s.readCanonOptions(r); err != nil {
			return err
		}
		if op == 0x00 {
			if def.TypeIndex, err = r.U32(); err != nil {
				return err
			}
			err = s.lift(def)
		} else {
			err = s.lower(def)
		}
	case 0x02, 0x03, 0x04:
		def.Kind = CanonKind(op)
		if def.TypeIndex, err = r.U32(); err != nil {
			return err
		}
		err = s.resourceBuiltin(def)
	default:
		if name, ok := asyncCanonNames[op]; ok {
			return at(off, unsupported("the canonical built-in "+name))
		}
		return at(off, errf(ErrMalformed, "unknown canonical definition opcode 0x%02x", op))
	}
	if err != nil {
		return err
	}
	s.addDef(def)
	return nil
}

// readCanonOptions reads and checks a canonopt vector: each option at most once, memory a
// 32-bit unshared memory, realloc of type [i32 i32 i32 i32] -> [i32] and only with memory.
func (s *scope) readCanonOptions(r *reader) (CanonOptions, error) {
	var o CanonOptions
	n, err := r.Count("canonical option", 1, 0)
	if err != nil {
		return o, err
	}
	hasEncoding := false
	for i := uint32(0); i < n; i++ {
		off := r.Offset()
		b, err := r.Byte()
		if err != nil {
			return o, err
		}
		dup := func(what string) error {
			return at(off, errf(ErrInvalid, "canonical option %s given twice", what))
		}
		switch b {
		case 0x00, 0x01, 0x02:
			if hasEncoding {
				return o, dup("string-encoding")
			}
			hasEncoding = true
			o.StringEncoding = abi.StringEncoding(b) // 0x00, 0x01, 0x02 are abi's UTF8, UTF16, Latin1UTF16
		case 0x03:
			if o.HasMemory {
				return o, dup("memory")
			}
			if o.Memory, err = r.U32(); err != nil {
				return o, err
			}
			o.HasMemory = true
			mt, err := s.coreMemory(o.Memory)
			if err != nil {
				return o, at(off, within("canonical option memory", err))
			}
			if mt.Is64 {
				return o, at(off, unsupported("64-bit memories as canonical ABI memory (🐘)"))
			}
			if mt.Shared {
				return o, at(off, errf(ErrInvalid, "canonical option memory %d is a shared memory", o.Memory))
			}
		case 0x04:
			if o.HasRealloc {
				return o, dup("realloc")
			}
			if o.Realloc, err = r.U32(); err != nil {
				return o, err
			}
			o.HasRealloc = true
			ft, err := s.coreFunc(o.Realloc)
			if err != nil {
				return o, at(off, within("canonical option realloc", err))
			}
			want := &CoreFuncType{Params: []CoreValType{CoreI32, CoreI32, CoreI32, CoreI32}, Results: []CoreValType{CoreI32}}
			if !ft.Equal(want) {
				return o, at(off, errf(ErrInvalid, "realloc (core func %d) has type `%s`, expected `%s`", o.Realloc, ft, want))
			}
		case 0x05:
			if o.HasPostReturn {
				return o, dup("post-return")
			}
			if o.PostReturn, err = r.U32(); err != nil {
				return o, err
			}
			o.HasPostReturn = true
			if _, err := s.coreFunc(o.PostReturn); err != nil {
				return o, at(off, within("canonical option post-return", err))
			}
		case 0x06:
			return o, at(off, unsupported("the async canonical option"))
		case 0x07:
			return o, at(off, unsupported("the callback canonical option (async)"))
		case 0x08, 0x09:
			return o, at(off, unsupported("the core-type and gc canonical options (GC ABI)"))
		default:
			return o, at(off, errf(ErrMalformed, "unknown canonical option 0x%02x", b))
		}
	}
	if o.HasRealloc && !o.HasMemory {
		return o, errf(ErrInvalid, "canonical option realloc requires the memory option")
	}
	return o, nil
}

// lift checks `canon lift`: the core callee must have the flattened signature of the function
// type, and the options must provide what lowering the parameters and lifting the results need.
func (s *scope) lift(def *Canon) error {
	core, err := s.coreFunc(def.CoreFunc)
	if err != nil {
		return within("canon lift", err)
	}
	ft, err := s.funcType(def.TypeIndex)
	if err != nil {
		return within("canon lift", err)
	}
	o := def.Options
	pOver, rOver := ft.flatOver()
	switch {
	case (ft.paramsHavePtr() || pOver) && !o.HasRealloc:
		return errf(ErrInvalid, "canon lift of `%s` needs the realloc option (and memory) to pass its parameters", ft)
	case (ft.resultHasPtr() || rOver) && !o.HasMemory:
		return errf(ErrInvalid, "canon lift of `%s` needs the memory option to return its result", ft)
	}
	want, err := ft.coreSignature(true)
	if err != nil {
		return within("canon lift", err)
	}
	if !core.Equal(want) {
		return errf(ErrInvalid, "canon lift: core func %d has type `%s`, but `%s` flattens to `%s`", def.CoreFunc, core, ft, want)
	}
	if o.HasPostReturn {
		pr, _ := s.coreFunc(o.PostReturn)
		wantPR := &CoreFuncType{Params: want.Results, Results: []CoreValType{}}
		if !pr.Equal(wantPR) {
			return errf(ErrInvalid, "canon lift: post-return (core func %d) has type `%s`, expected `%s`", o.PostReturn, pr, wantPR)
		}
	}
	def.Func, def.CoreType = ft, core
	s.c.Funcs = append(s.c.Funcs, Item[*FuncType]{def, ft})
	return nil
}

// lower checks `canon lower` and defines a core function with the flattened signature.
func (s *scope) lower(def *Canon) error {
	ft, err := s.fn(def.FuncIndex)
	if err != nil {
		return within("canon lower", err)
	}
	o := def.Options
	pOver, rOver := ft.flatOver()
	switch {
	case o.HasPostReturn:
		return errf(ErrInvalid, "canon lower cannot have the post-return option")
	case (ft.paramsHavePtr() || pOver || rOver) && !o.HasMemory:
		return errf(ErrInvalid, "canon lower of `%s` needs the memory option", ft)
	case ft.resultHasPtr() && !o.HasRealloc:
		return errf(ErrInvalid, "canon lower of `%s` needs the realloc option to return its result", ft)
	}
	if def.CoreType, err = ft.coreSignature(false); err != nil {
		return within("canon lower", err)
	}
	def.Func = ft
	s.c.CoreFuncs = append(s.c.CoreFuncs, Item[*CoreFuncType]{def, def.CoreType})
	return nil
}

// resourceBuiltin checks resource.new, resource.drop and resource.rep. new and rep need a
// resource defined by this very component: only its definer may see the representation.
func (s *scope) resourceBuiltin(def *Canon) error {
	rt, err := s.resourceType(def.TypeIndex)
	if err != nil {
		return within("canon "+def.Kind.String(), err)
	}
	rep := rt.Resource.Rep
	if def.Kind != CanonResourceDrop && rt.Resource.definer != s {
		return errf(ErrInvalid, "canon %s: type %d is not a resource defined by this component", def.Kind, def.TypeIndex)
	}
	def.Resource = rt
	switch def.Kind {
	case CanonResourceNew:
		def.CoreType = &CoreFuncType{Params: []CoreValType{rep}, Results: []CoreValType{CoreI32}}
	case CanonResourceDrop:
		def.CoreType = &CoreFuncType{Params: []CoreValType{CoreI32}, Results: []CoreValType{}}
	case CanonResourceRep:
		def.CoreType = &CoreFuncType{Params: []CoreValType{CoreI32}, Results: []CoreValType{rep}}
	}
	s.c.CoreFuncs = append(s.c.CoreFuncs, Item[*CoreFuncType]{def, def.CoreType})
	return nil
}
