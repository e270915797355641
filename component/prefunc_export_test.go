package component

// BindForTest finds f's function in instance in, as every call does first: the binding to a
// fresh instance whose cost TestPreFunc_BindAllocs measures.
func BindForTest[P, R any](f *PreFunc[P, R], in *Instance) error {
	_, _, err := f.x.resolve(in)
	return err
}
