package engine

// Key names one piece of typed per-store host state, as a context key names a context value but
// with its type fixed: a package that serves many stores from one set of host functions (a WASI
// host, a plugin runtime) makes one Key per kind of state, usually a package-level variable, and
// reaches the state of the calling store through Caller.Store in its host functions. Keys are
// compared by identity, so two packages never collide.
type Key[T any] struct {
	_ byte // a Key has a size, so that every NewKey is a distinct pointer
}

// NewKey returns a new key for values of type T.
func NewKey[T any]() *Key[T] { return &Key[T]{} }

// Get returns the value stored under k in s, and whether there is one.
func (k *Key[T]) Get(s *Store) (T, bool) {
	for i := range s.data {
		if s.data[i].key == any(k) {
			v, ok := s.data[i].value.(T)
			return v, ok
		}
	}
	var zero T
	return zero, false
}

// Set stores v under k in s, replacing what was there.
func (k *Key[T]) Set(s *Store, v T) {
	for i := range s.data {
		if s.data[i].key == any(k) {
			s.data[i].value = v
			return
		}
	}
	s.data = append(s.data, dataEntry{k, v})
}

// Delete removes the value stored under k in s, if any.
func (k *Key[T]) Delete(s *Store) {
	for i := range s.data {
		if s.data[i].key == any(k) {
			s.data = append(s.data[:i], s.data[i+1:]...)
			return
		}
	}
}
