package abi

// Load lifts a value of type t stored at ptr in cx.Memory (CanonicalABI.md#loading). ptr must be
// aligned to t.Align() and the value must lie within memory.
func (cx *CallContext) Load(t Type, ptr uint32) (Value, error) {
	v, err := cx.load(t, ptr)
	return v, finishErr("lift", err)
}

func (cx *CallContext) load(t Type, ptr uint32) (Value, error) {
	if err := cx.checkAsync(); err != nil {
		return Value{}, err
	}
	if isNil(t) {
		return Value{}, errorf(ErrInvalidType, "nil type")
	}
	mem, err := cx.memory()
	if err != nil {
		return Value{}, err
	}
	if err := checkAlign(ptr, t.Align(), t.Kind().String()); err != nil {
		return Value{}, err
	}
	b, err := view(mem, ptr, uint64(t.Size()))
	if err != nil {
		return Value{}, err
	}
	return newLifter(cx).load(t, b)
}

// Store lowers v as type t into cx.Memory at ptr (CanonicalABI.md#storing), calling cx.Realloc
// for the strings and lists inside it. ptr must be aligned to t.Align() and the value must lie
// within memory.
func (cx *CallContext) Store(t Type, v Value, ptr uint32) error {
	return finishErr("lower", cx.store(t, v, ptr))
}

func (cx *CallContext) store(t Type, v Value, ptr uint32) error {
	if err := cx.checkAsync(); err != nil {
		return err
	}
	if isNil(t) {
		return errorf(ErrInvalidType, "nil type")
	}
	if err := checkAlign(ptr, t.Align(), t.Kind().String()); err != nil {
		return err
	}
	s := &storer{cx: cx}
	return s.storeTo(ptr, uint64(t.Size()), t.base().hasPtr, func(b []byte) error { return s.store(t, v, b, ptr) })
}

// storeTo checks that [ptr, ptr+size) lies in guest memory and runs fill over it: with a view of
// it, or, when the value may call realloc (hasPtr), with nil, so that store writes straight into
// memory (realloc can move memory and strand a view). Memory only grows, so the range stays in
// bounds.
func (s *storer) storeTo(ptr uint32, size uint64, hasPtr bool, fill func([]byte) error) error {
	mem, err := s.cx.memory()
	if err != nil {
		return err
	}
	b, err := view(mem, ptr, size)
	if err != nil {
		return err
	}
	if hasPtr {
		b = nil
	}
	return fill(b)
}

// LiftFlat lifts a value of type t from its flattened core values (CanonicalABI.md#flat-lifting).
// len(flat) must be t.FlatLen(). i32 and f32 values are taken from the low 32 bits; f32 and f64
// are bit patterns (math.Float32bits), as wazero passes them.
func (cx *CallContext) LiftFlat(t Type, flat []uint64) (Value, error) {
	v, err := cx.liftFlat(t, flat)
	return v, finishErr("lift", err)
}

func (cx *CallContext) liftFlat(t Type, flat []uint64) (Value, error) {
	if err := cx.checkAsync(); err != nil {
		return Value{}, err
	}
	if isNil(t) {
		return Value{}, errorf(ErrInvalidType, "nil type")
	}
	if len(flat) != t.FlatLen() {
		return Value{}, errorf(ErrCoreValues, "%s needs %d core values, got %d", t.Kind(), t.FlatLen(), len(flat))
	}
	return newLifter(cx).liftFlat(t, &flatReader{vals: flat})
}

// LowerFlat lowers v as type t to its flattened core values (CanonicalABI.md#flat-lowering),
// calling cx.Realloc for the strings and lists inside it.
func (cx *CallContext) LowerFlat(t Type, v Value) ([]uint64, error) {
	out, err := cx.lowerFlat(t, v)
	return out, finishErr("lower", err)
}

func (cx *CallContext) lowerFlat(t Type, v Value) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if isNil(t) {
		return nil, errorf(ErrInvalidType, "nil type")
	}
	out, err := (&storer{cx: cx}).lowerFlat(t, v, make([]uint64, 0, min(t.FlatLen(), maxCachedFlat)))
	if err != nil {
		return nil, err
	}
	return out, nil
}
