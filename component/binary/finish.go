package binary

// finishComponent runs the checks that need the whole component and computes its type.
func (s *scope) finishComponent() error {
	for i, used := range s.valueUsed {
		if !used {
			return errf(ErrInvalid, "value %d is never used (every value must be used exactly once)", i)
		}
	}
	imports := make([]ExternDecl, len(s.c.Imports))
	for i, im := range s.c.Imports {
		imports[i] = ExternDecl{Name: im.Name, Type: im.Type}
	}
	exports := make([]ExternDecl, len(s.c.Exports))
	for i, ex := range s.c.Exports {
		exports[i] = ExternDecl{Name: ex.Name, Type: ex.Type}
	}
	// Record where exported resources can be found, so that subtyping against this component's
	// type can match them by name.
	paths := map[*Resource][]string{}
	for _, e := range exports {
		if err := s.d.exportedResources(e.Type, []string{e.Name.Raw}, paths); err != nil {
			return err
		}
	}
	defined := make([]resourcePath, len(s.defined))
	for i, p := range s.defined {
		defined[i] = resourcePath{Res: p.Res, Path: paths[p.Res]}
	}
	ct, err := newComponentType(imports, exports, s.imported, defined)
	if err != nil {
		return err
	}
	s.c.Type = ct
	return nil
}

// exportedResources records the first path under which each resource type is exported.
func (d *decoder) exportedResources(et ExternType, path []string, out map[*Resource][]string) error {
	if err := d.spend(1); err != nil {
		return err
	}
	switch et.Sort {
	case SortType:
		if rt, ok := et.Type.(*ResourceType); ok {
			if _, seen := out[rt.Resource]; !seen {
				out[rt.Resource] = append([]string(nil), path...)
			}
		}
	case SortInstance:
		for _, e := range et.Instance.Exports {
			if err := d.exportedResources(e.Type, append(path[:len(path):len(path)], e.Name.Raw), out); err != nil {
				return err
			}
		}
	}
	return nil
}
