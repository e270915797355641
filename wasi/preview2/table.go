package preview2

import (
	"context"
	"fmt"
)

// table holds the host resources the guest has handles to, by the rep the host chose. Reps are
// never reused while a resource lives, and are checked on every use: the component's handle
// table guarantees the type of a handle, but a rep is still a guest-influenced number.
type table struct {
	items map[uint32]any
	next  uint32
	limit int
}

func (t *table) add(r any) (uint32, error) {
	if t.items == nil {
		t.items = map[uint32]any{}
	}
	if len(t.items) >= t.limit {
		return 0, fmt.Errorf("preview2: %w (limit %d)", ErrTooManyResources, t.limit)
	}
	for {
		t.next++
		if t.next == 0 {
			continue
		}
		if _, used := t.items[t.next]; !used {
			break
		}
	}
	t.items[t.next] = r
	return t.next, nil
}

// get returns the resource rep as a T, or ErrHandle.
func get[T any](h *Host, rep uint32) (T, error) {
	r, ok := h.res.items[rep].(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("preview2: %w: rep %d (%T)", ErrHandle, rep, zero)
	}
	return r, nil
}

// dtor returns the destructor of a resource type whose values are T: it closes the resource if
// it has a close method and forgets it.
func dtor[T any](h *Host) func(context.Context, uint32) error {
	return func(_ context.Context, rep uint32) error {
		r, err := get[T](h, rep)
		if err != nil {
			return err
		}
		delete(h.res.items, rep)
		if c, ok := any(r).(interface{ close() error }); ok {
			_ = c.close() // the guest has let go; a close error has nowhere to go
		}
		return nil
	}
}
