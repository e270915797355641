package component

// BindForTest finds f's function in instance in, as every call does first: the binding to a
// fresh instance whose cost TestPreFunc_BindAllocs measures.
func BindForTest[P, R any](f *PreFunc[P, R], in *Instance) error {
	_, _, err := f.x.resolve(in)
	return err
}

// PlannedPerInstance reports whether f's call in instance in used a plan made for that
// instance rather than the one made at prepare time.
func PlannedPerInstance[P, R any](f *PreFunc[P, R], in *Instance) (bool, error) {
	impl, plan, err := f.x.resolve(in)
	if err != nil {
		return false, err
	}
	return plan != f.x.plan || impl.planOf != nil, nil
}
