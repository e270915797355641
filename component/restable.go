package component

import (
	"errors"
	"fmt"

	"github.com/kobako/kobako/abi"
)

// Errors of ResourceTable.
var (
	// ErrResourceNotFound means a rep names no live entry of a ResourceTable, or one holding a
	// value of another Go type than asked for.
	ErrResourceNotFound = errors.New("no such host resource")
	// ErrResourceLimit means a ResourceTable is full: the guest holds as many host resources as
	// the table's capacity allows.
	ErrResourceLimit = errors.New("too many host resources")
	// ErrResourceHasChildren means an entry cannot be deleted while entries pushed as its
	// children live (a stream of a body, say, outliving the body).
	ErrResourceHasChildren = errors.New("host resource has live children")
)

// ResourceTable holds the Go values behind the host resources a guest has handles to, by the rep
// the host chose when it returned the own handle (wasmtime's ResourceTable). A host function
// that creates a resource pushes its value and returns the rep (as abi.Own or a uint32); the
// functions and destructor of the resource type find it again with Get, GetAs, GetOwn or
// GetBorrow. The component's handle table guarantees a handle's resource type, but the rep is
// still a number the guest influences, so every lookup checks both presence and Go type.
//
// An entry may be pushed as the child of another (PushChild): the parent cannot be deleted while
// children live, as wasi:http's body cannot go while its stream does. The table holds at most
// its capacity of entries, so a guest cannot make the host allocate without bound.
//
// A ResourceTable is not safe for concurrent use; it belongs to one store, whose calls are
// serialised.
type ResourceTable struct {
	entries []resEntry // index = rep; 0 is never used
	free    []uint32
	live    int
	limit   int
}

type resEntry struct {
	v        any
	used     bool
	parent   uint32 // 0: none
	children int
}

// NewResourceTable returns an empty table that holds at most capacity entries (capacity > 0; a
// smaller value means one).
func NewResourceTable(capacity int) *ResourceTable {
	return &ResourceTable{entries: make([]resEntry, 1, 8), limit: max(capacity, 1)}
}

// Capacity returns the most entries the table holds at once.
func (t *ResourceTable) Capacity() int { return t.limit }

// Len returns the number of live entries.
func (t *ResourceTable) Len() int { return t.live }

// Push adds v and returns its rep.
func (t *ResourceTable) Push(v any) (uint32, error) { return t.push(v, 0) }

// PushChild adds v as a child of the live entry parent and returns its rep; parent cannot be
// deleted until v is.
func (t *ResourceTable) PushChild(v any, parent uint32) (uint32, error) {
	if _, err := t.entry(parent); err != nil {
		return 0, err
	}
	return t.push(v, parent)
}

func (t *ResourceTable) push(v any, parent uint32) (uint32, error) {
	if t.live >= t.limit {
		return 0, fmt.Errorf("component: resource table: %w (capacity %d)", ErrResourceLimit, t.limit)
	}
	e := resEntry{v: v, used: true, parent: parent}
	var rep uint32
	if n := len(t.free); n > 0 {
		rep = t.free[n-1]
		t.free = t.free[:n-1]
		t.entries[rep] = e
	} else {
		if uint64(len(t.entries)) > abi.MaxTableLength {
			return 0, fmt.Errorf("component: resource table: %w (%d reps)", ErrResourceLimit, len(t.entries))
		}
		rep = uint32(len(t.entries))
		t.entries = append(t.entries, e)
	}
	if parent != 0 {
		t.entries[parent].children++
	}
	t.live++
	return rep, nil
}

func (t *ResourceTable) entry(rep uint32) (*resEntry, error) {
	if rep == 0 || uint64(rep) >= uint64(len(t.entries)) || !t.entries[rep].used {
		return nil, fmt.Errorf("component: resource table: %w: rep %d", ErrResourceNotFound, rep)
	}
	return &t.entries[rep], nil
}

// Get returns the value of entry rep.
func (t *ResourceTable) Get(rep uint32) (any, error) {
	e, err := t.entry(rep)
	if err != nil {
		return nil, err
	}
	return e.v, nil
}

// Delete removes entry rep and returns its value. It fails with ErrResourceHasChildren while
// entries pushed as its children live.
func (t *ResourceTable) Delete(rep uint32) (any, error) {
	e, err := t.entry(rep)
	if err != nil {
		return nil, err
	}
	if e.children > 0 {
		return nil, fmt.Errorf("component: resource table: %w: rep %d has %d", ErrResourceHasChildren, rep, e.children)
	}
	v, parent := e.v, e.parent
	t.entries[rep] = resEntry{}
	t.free = append(t.free, rep)
	t.live--
	if parent != 0 {
		t.entries[parent].children--
	}
	return v, nil
}

// Drain removes every entry and returns their values, children before their parents, so the
// caller can release them (when its store closes, say).
func (t *ResourceTable) Drain() []any {
	out := make([]any, 0, t.live)
	for t.live > 0 {
		n := t.live
		for i := len(t.entries) - 1; i > 0; i-- {
			if e := &t.entries[i]; e.used && e.children == 0 {
				v, _ := t.Delete(uint32(i))
				out = append(out, v)
			}
		}
		if t.live == n {
			panic("BUG: component: resource table: a cycle of parents")
		}
	}
	t.entries = t.entries[:1]
	t.free = t.free[:0]
	return out
}

// GetAs returns entry rep as a T, or ErrResourceNotFound if it holds another type.
func GetAs[T any](t *ResourceTable, rep uint32) (T, error) {
	v, err := t.Get(rep)
	if err != nil {
		var zero T
		return zero, err
	}
	x, ok := v.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("component: resource table: %w: rep %d holds a %T, not a %T", ErrResourceNotFound, rep, v, zero)
	}
	return x, nil
}

// GetOwn returns the value behind an own handle the guest passed.
func GetOwn[R abi.Resource](t *ResourceTable, h abi.Own[R]) (R, error) { return GetAs[R](t, h.Rep) }

// GetBorrow returns the value behind a borrow handle the guest passed.
func GetBorrow[R abi.Resource](t *ResourceTable, h abi.Borrow[R]) (R, error) {
	return GetAs[R](t, h.Rep)
}

// PushOwn adds v and returns an own handle of it for a host function to return.
func PushOwn[R abi.Resource](t *ResourceTable, v R) (abi.Own[R], error) {
	rep, err := t.Push(v)
	return abi.Own[R]{Rep: rep}, err
}
