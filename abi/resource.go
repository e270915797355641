package abi

// HandleTable is the part of a component instance's handle table that lifting and lowering of
// own and borrow use (CanonicalABI.md#resource-state). Package component implements it per
// instance; Handles is a complete reference implementation.
//
// "Lower" moves a resource into the guest (a new handle appears in its table); "lift" moves it
// out (the handle index the guest passed is looked up, and for own removed).
type HandleTable interface {
	// LowerOwn adds an owning handle for rep and returns its index (lower_own).
	LowerOwn(rt *ResourceType, rep uint32) (handle uint32, err error)
	// LowerBorrow adds a borrowing handle for rep that must be dropped before the call scope ends,
	// calling scope.AddBorrow (lower_borrow). An instance that implements rt itself receives the
	// rep directly instead, and nothing is added.
	LowerBorrow(rt *ResourceType, rep uint32, scope *BorrowScope) (handle uint32, err error)
	// LiftOwn removes the owning handle at index handle and returns its rep (lift_own). It fails
	// if the index is empty or out of range, of another resource type, a borrow, or lent out.
	LiftOwn(rt *ResourceType, handle uint32) (rep uint32, err error)
	// LiftBorrow returns the rep of the handle at index handle, own or borrow, and lends it for
	// the duration of the call: it must call scope.Lend with a function that ends the lend
	// (lift_borrow, Subtask.add_lender).
	LiftBorrow(rt *ResourceType, handle uint32, scope *BorrowScope) (rep uint32, err error)
}

// BorrowScope tracks the borrows of one call (the Task or Subtask the specification threads
// through lifting and lowering as borrow_scope).
//
// When the host calls an export, borrow handles lowered into the guest are counted with
// AddBorrow and must all be dropped (DropBorrow) before the call returns; End reports
// ErrBorrowOutstanding otherwise. When the guest calls an import, handles the host lifts as
// borrow are lent (Lend) and stay lent, so the guest cannot drop them, until End.
type BorrowScope struct {
	releases []func()
	live     int
}

// Lend records a lent handle; release ends the lend when the scope ends.
func (s *BorrowScope) Lend(release func()) { s.releases = append(s.releases, release) }

// AddBorrow records that a borrow handle was created for this call.
func (s *BorrowScope) AddBorrow() { s.live++ }

// DropBorrow records that a borrow handle of this call was dropped.
func (s *BorrowScope) DropBorrow() error {
	if s.live == 0 {
		return errorf(ErrHandle, "borrow scope has no live borrows to drop")
	}
	s.live--
	return nil
}

// Live returns the number of borrow handles created for this call and not yet dropped.
func (s *BorrowScope) Live() int { return s.live }

// End ends the call: every lend is released, and an error matching ErrBorrowOutstanding is
// returned if borrow handles created for the call are still live. End may be called again.
func (s *BorrowScope) End() error {
	for _, r := range s.releases {
		r()
	}
	s.releases = nil
	if s.live != 0 {
		return errorf(ErrBorrowOutstanding, "%d borrow handle(s) not dropped", s.live)
	}
	return nil
}

// MaxTableLength is Table.MAX_LENGTH: handle indices stay below 2^28 so that guests may use the
// high bits.
const MaxTableLength = 1<<28 - 1

// Handles is a reference handle table with the specification's semantics: index 0 is never
// used, freed indices are reused, owned handles cannot be moved or dropped while lent, borrow
// handles belong to the scope of the call that created them. It implements HandleTable and the
// resource.new, resource.rep and resource.drop built-ins. It is not safe for concurrent use.
type Handles struct {
	entries []tableEntry
	free    []uint32
	local   map[*ResourceType]bool
	removed int
}

type tableEntry struct {
	used  bool
	own   bool
	rt    *ResourceType
	rep   uint32
	lends int
	scope *BorrowScope
}

// NewHandles returns an empty table for an instance that implements the given resource
// types (borrows of those are passed to it as their rep, not as handles).
func NewHandles(implements ...*ResourceType) *Handles {
	t := &Handles{entries: make([]tableEntry, 1), local: map[*ResourceType]bool{}}
	for _, rt := range implements {
		t.local[rt] = true
	}
	return t
}

// Len returns the number of live handles.
func (t *Handles) Len() int { return len(t.entries) - 1 - len(t.free) }

// Removed returns how many handles have left the table (dropped, or owned handles lifted out of
// it) since it was created. A table that never lost one hands out 1, 2, 3, … in order, which
// lets a snapshot rebuild it by repeating the calls that filled it.
func (t *Handles) Removed() int { return t.removed }

func (t *Handles) add(e tableEntry) (uint32, error) {
	e.used = true
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.entries[i] = e
		return i, nil
	}
	i := len(t.entries)
	if i > MaxTableLength {
		return 0, errorf(ErrTableFull, "%d handles", i-1)
	}
	t.entries = append(t.entries, e)
	return uint32(i), nil
}

func (t *Handles) get(rt *ResourceType, h uint32) (*tableEntry, error) {
	if h == 0 || uint64(h) >= uint64(len(t.entries)) || !t.entries[h].used {
		return nil, errorf(ErrHandle, "handle %d does not exist", h)
	}
	e := &t.entries[h]
	if e.rt != rt {
		return nil, errorf(ErrHandle, "handle %d is a %s, not a %s", h, e.rt, rt)
	}
	return e, nil
}

func (t *Handles) remove(h uint32) {
	t.removed++
	t.entries[h] = tableEntry{}
	t.free = append(t.free, h)
}

// New is resource.new: it adds an owning handle for rep.
func (t *Handles) New(rt *ResourceType, rep uint32) (uint32, error) {
	return t.add(tableEntry{own: true, rt: rt, rep: rep})
}

// Rep is resource.rep: it returns the rep of handle h.
func (t *Handles) Rep(rt *ResourceType, h uint32) (uint32, error) {
	e, err := t.get(rt, h)
	if err != nil {
		return 0, err
	}
	return e.rep, nil
}

// Drop is resource.drop: it removes handle h. For an owning handle it returns own == true and the
// caller must run the resource's destructor on rep; dropping a lent owning handle fails. Dropping
// a borrow handle ends it in its call scope.
func (t *Handles) Drop(rt *ResourceType, h uint32) (rep uint32, own bool, err error) {
	e, err := t.get(rt, h)
	if err != nil {
		return 0, false, err
	}
	if e.lends != 0 {
		return 0, false, errorf(ErrHandle, "handle %d is lent %d time(s)", h, e.lends)
	}
	rep, own, scope := e.rep, e.own, e.scope
	if !own && scope != nil {
		if err := scope.DropBorrow(); err != nil {
			return 0, false, err
		}
	}
	t.remove(h)
	return rep, own, nil
}

// LowerOwn implements HandleTable.
func (t *Handles) LowerOwn(rt *ResourceType, rep uint32) (uint32, error) {
	return t.add(tableEntry{own: true, rt: rt, rep: rep})
}

// LowerBorrow implements HandleTable.
func (t *Handles) LowerBorrow(rt *ResourceType, rep uint32, scope *BorrowScope) (uint32, error) {
	if t.local[rt] {
		return rep, nil
	}
	h, err := t.add(tableEntry{rt: rt, rep: rep, scope: scope})
	if err != nil {
		return 0, err
	}
	scope.AddBorrow()
	return h, nil
}

// LiftOwn implements HandleTable.
func (t *Handles) LiftOwn(rt *ResourceType, h uint32) (uint32, error) {
	e, err := t.get(rt, h)
	if err != nil {
		return 0, err
	}
	if !e.own {
		return 0, errorf(ErrHandle, "handle %d is a borrow, not own", h)
	}
	if e.lends != 0 {
		return 0, errorf(ErrHandle, "handle %d is lent %d time(s)", h, e.lends)
	}
	rep := e.rep
	t.remove(h)
	return rep, nil
}

// LiftBorrow implements HandleTable.
func (t *Handles) LiftBorrow(rt *ResourceType, h uint32, scope *BorrowScope) (uint32, error) {
	e, err := t.get(rt, h)
	if err != nil {
		return 0, err
	}
	e.lends++
	scope.Lend(func() { t.entries[h].lends-- })
	return e.rep, nil
}

// Resource is implemented by the Go type of a host resource's values, for the typed mapping of
// own and borrow handles: ResourceName returns the WIT name of the resource type ("pollable",
// "input-stream") and must answer on the type's zero value (a nil pointer).
type Resource interface {
	ResourceName() string
}

// Own is the Go form of own<R> in the typed mapping: the rep of a resource whose values have Go
// type R. Binding checks that the WIT type is an own handle of a resource named
// R.ResourceName(), so a handle of another resource type, or a borrow, is an error when a
// function is bound rather than a number that silently fits.
type Own[R Resource] struct {
	Rep uint32
}

// Borrow is the Go form of borrow<R> in the typed mapping, checked as Own is.
type Borrow[R Resource] struct {
	Rep uint32
}

func (Own[R]) handleKind() Kind        { return KindOwn }
func (Borrow[R]) handleKind() Kind     { return KindBorrow }
func (Own[R]) resourceName() string    { var r R; return r.ResourceName() }
func (Borrow[R]) resourceName() string { var r R; return r.ResourceName() }
func (h Own[R]) rep() uint32           { return h.Rep }
func (h Borrow[R]) rep() uint32        { return h.Rep }

type handleMarker interface {
	handleKind() Kind
	resourceName() string
	rep() uint32
}
