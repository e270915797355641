package binary

// coreModuleSection records an embedded core module (section 1) and computes its type.
func (s *scope) coreModuleSection(r *reader, off int) error {
	b, err := r.Bytes(uint64(r.Remaining()))
	if err != nil {
		return err
	}
	mt, err := scanModule(b, r.Offset()-len(b))
	if err != nil {
		return err
	}
	def := &CoreModule{Offset: off, Bytes: b, Type: mt}
	s.addDef(def)
	s.c.CoreModules = append(s.c.CoreModules, Item[*ModuleType]{def, mt})
	return nil
}
