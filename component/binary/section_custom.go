package binary

// customSection keeps a custom section's name and bytes. Their contents (the component-name
// section, producers, wit-component's type metadata) are not validated: the spec lets engines
// ignore them.
func (s *scope) customSection(r *reader, off int) error {
	name, err := r.Name()
	if err != nil {
		return err
	}
	data, err := r.Bytes(uint64(r.Remaining()))
	if err != nil {
		return err
	}
	s.c.Custom = append(s.c.Custom, CustomSection{Name: name, Data: data, Offset: off})
	return nil
}
