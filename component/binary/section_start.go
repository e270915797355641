package binary

// startSection handles the start section (section 9): a function called at instantiation with
// values as arguments, whose results become new values. Every value must be used exactly once,
// which finishComponent checks.
func (s *scope) startSection(r *reader, off int) error {
	if s.hasStart {
		return at(off, errf(ErrInvalid, "a component can have only one start section"))
	}
	s.hasStart = true
	def := &Start{Offset: off}
	var err error
	if def.Func, err = r.U32(); err != nil {
		return err
	}
	n, err := r.Count("start argument", 1, 0)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		v, err := r.U32()
		if err != nil {
			return err
		}
		def.Args = append(def.Args, v)
	}
	if def.Results, err = r.U32(); err != nil {
		return err
	}
	ft, err := s.fn(def.Func)
	if err != nil {
		return at(off, within("start", err))
	}
	if len(def.Args) != len(ft.Params) {
		return at(off, errf(ErrInvalid, "start function `%s` takes %d parameters, given %d values", ft, len(ft.Params), len(def.Args)))
	}
	for i, v := range def.Args {
		vt, err := s.value(v)
		if err != nil {
			return at(off, within("start argument", err))
		}
		eq, err := newChecker(s.d).val(vt, ft.Params[i].Type)
		if err != nil {
			return at(off, err)
		}
		if !eq {
			return at(off, errf(ErrInvalid, "start argument %d: expected `%s`, found `%s`", i, ft.Params[i].Type, vt))
		}
		if s.valueUsed[v] {
			return at(off, errf(ErrInvalid, "start argument %d: value %d is already used", i, v))
		}
		s.valueUsed[v] = true
	}
	want := uint32(0)
	if ft.Result != nil {
		want = 1
	}
	if def.Results != want {
		return at(off, errf(ErrInvalid, "start function `%s` has %d results, start section says %d", ft, want, def.Results))
	}
	if ft.Result != nil {
		s.addItem(def, ExternType{Sort: SortValue, Value: ft.Result})
	}
	s.addDef(def)
	return nil
}
