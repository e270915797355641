package binary

// componentSection decodes a nested component (section 4) in a scope of its own whose outer
// aliases can reach this one.
func (s *scope) componentSection(r *reader, off int) error {
	b, err := r.Bytes(uint64(r.Remaining()))
	if err != nil {
		return err
	}
	child, err := newScope(kindComponent, s, s.d)
	if err != nil {
		return at(off, err)
	}
	if err := s.d.component(b, r.Offset()-len(b), child, false); err != nil {
		return within("nested component", err)
	}
	def := &NestedComponent{Offset: off, Component: child.c}
	s.addDef(def)
	s.c.Components = append(s.c.Components, Item[*ComponentType]{def, child.c.Type})
	return nil
}
