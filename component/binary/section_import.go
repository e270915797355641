package binary

import "fmt"

// import1 handles one import of the component (section 10).
func (s *scope) import1(r *reader, off int) error {
	name, err := readExternName(r)
	if err != nil {
		return err
	}
	et, fresh, err := s.readExternType(r, name.Raw)
	if err != nil {
		return within(fmt.Sprintf("import `%s`", name.Raw), err)
	}
	def := &Import{Offset: off, Name: name}
	if def.Type, err = s.declare(asImport, name, et, fresh, def); err != nil {
		return err
	}
	s.addDef(def)
	s.c.Imports = append(s.c.Imports, def)
	return nil
}

// importDecl handles an import declarator of a component type.
func (s *scope) importDecl(r *reader, off int) error {
	name, err := readExternName(r)
	if err != nil {
		return err
	}
	et, fresh, err := s.readExternType(r, name.Raw)
	if err != nil {
		return within(fmt.Sprintf("import `%s`", name.Raw), err)
	}
	// Declarators add to the type's scratch index spaces, which no definition needs to reach.
	if et, err = s.declare(asImport, name, et, fresh, nil); err != nil {
		return err
	}
	s.imports = append(s.imports, ExternDecl{Name: name, Type: et})
	return nil
}

// exportDecl handles an export declarator of a component or instance type.
func (s *scope) exportDecl(r *reader, off int) error {
	name, err := readExternName(r)
	if err != nil {
		return err
	}
	et, fresh, err := s.readExternType(r, name.Raw)
	if err != nil {
		return within(fmt.Sprintf("export `%s`", name.Raw), err)
	}
	if et, err = s.declare(asExport, name, et, fresh, nil); err != nil {
		return err
	}
	s.exports = append(s.exports, ExternDecl{Name: name, Type: et})
	return nil
}
