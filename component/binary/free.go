package binary

// hasFreeResources reports whether t refers to a resource type that t itself does not bind (as
// the imports and exports of a component or instance type bind theirs).
func (d *decoder) hasFreeResources(t Type) (bool, error) {
	w := &resourceWalker{d: d, seen: map[any]bool{}, used: map[*Resource]bool{}, bound: map[*Resource]bool{}}
	if err := w.typ(t); err != nil {
		return false, err
	}
	for r := range w.used {
		if !w.bound[r] {
			return true, nil
		}
	}
	return false, nil
}

type resourceWalker struct {
	d     *decoder
	seen  map[any]bool
	used  map[*Resource]bool
	bound map[*Resource]bool
}

func (w *resourceWalker) visit(n any) (bool, error) {
	if w.seen[n] {
		return false, nil
	}
	w.seen[n] = true
	return true, w.d.spend(1)
}

func (w *resourceWalker) val(t ValType) error {
	if t == nil || !t.info().hasHandle {
		return nil
	}
	if first, err := w.visit(t); !first || err != nil {
		return err
	}
	switch t := t.(type) {
	case *RecordType:
		for _, f := range t.Fields {
			if err := w.val(f.Type); err != nil {
				return err
			}
		}
	case *VariantType:
		for _, c := range t.Cases {
			if err := w.val(c.Type); err != nil {
				return err
			}
		}
	case *ListType:
		return w.val(t.Elem)
	case *TupleType:
		for _, e := range t.Elems {
			if err := w.val(e); err != nil {
				return err
			}
		}
	case *OptionType:
		return w.val(t.Elem)
	case *ResultType:
		if err := w.val(t.OK); err != nil {
			return err
		}
		return w.val(t.Err)
	case *OwnType:
		w.used[t.Resource.Resource] = true
	case *BorrowType:
		w.used[t.Resource.Resource] = true
	}
	return nil
}

func (w *resourceWalker) typ(t Type) error {
	switch t := t.(type) {
	case ValType:
		return w.val(t)
	case *ResourceType:
		w.used[t.Resource] = true
	case *FuncType:
		if first, err := w.visit(t); !first || err != nil {
			return err
		}
		for _, p := range t.Params {
			if err := w.val(p.Type); err != nil {
				return err
			}
		}
		return w.val(t.Result)
	case *InstanceType:
		if first, err := w.visit(t); !first || err != nil {
			return err
		}
		for _, p := range t.defined {
			w.bound[p.Res] = true
		}
		return w.decls(t.Exports)
	case *ComponentType:
		if first, err := w.visit(t); !first || err != nil {
			return err
		}
		for _, p := range t.imported {
			w.bound[p.Res] = true
		}
		for _, p := range t.defined {
			w.bound[p.Res] = true
		}
		if err := w.decls(t.Imports); err != nil {
			return err
		}
		return w.decls(t.Exports)
	}
	return nil
}

func (w *resourceWalker) decls(ds []ExternDecl) error {
	for _, d := range ds {
		var err error
		switch d.Type.Sort {
		case SortFunc:
			err = w.typ(d.Type.Func)
		case SortType:
			err = w.typ(d.Type.Type)
		case SortInstance:
			err = w.typ(d.Type.Instance)
		case SortComponent:
			err = w.typ(d.Type.Component)
		case SortValue:
			err = w.val(d.Type.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
