package preview2

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// hostKey holds the Host bound to a store.
var hostKey = engine.NewKey[*Host]()

// HostOf returns the Host bound to the calling instance's store (by Bind), for host functions of
// other packages (wasi:http, a plugin runtime) that mint streams and pollables in its resource
// table. It fails with ErrNotBound when the store has none.
func HostOf(c *component.Caller) (*Host, error) {
	if c == nil {
		return nil, fmt.Errorf("preview2: %w: no caller", ErrNotBound)
	}
	return FromStore(c.Store())
}

// FromStore returns the Host bound to s, or ErrNotBound.
func FromStore(s *engine.Store) (*Host, error) {
	h, ok := hostKey.Get(s)
	if !ok || h == nil {
		return nil, fmt.Errorf("preview2: %w", ErrNotBound)
	}
	return h, nil
}

// Resources returns the table of the host resources the guest holds handles to: streams,
// pollables, descriptors, errors, and whatever other packages push there. Its capacity is
// Config.MaxHandles.
func (h *Host) Resources() *component.ResourceTable { return h.res }

// add pushes r into the resource table, reporting a full table as ErrTooManyResources.
func (h *Host) add(r any) (uint32, error) {
	rep, err := h.res.Push(r)
	if err != nil {
		return 0, fmt.Errorf("preview2: %w: %w", ErrTooManyResources, err)
	}
	return rep, nil
}

// get returns the resource rep as a T, or ErrHandle: the component's handle table guarantees
// the type of a handle, but a rep is still a guest-influenced number.
func get[T any](h *Host, rep uint32) (T, error) {
	r, err := component.GetAs[T](h.res, rep)
	if err != nil {
		return r, fmt.Errorf("preview2: %w: %w", ErrHandle, err)
	}
	return r, nil
}

// push adds r to the resource table and returns an own handle of it for a host function to
// return, reporting a full table as ErrTooManyResources.
func push[R abi.Resource](h *Host, r R) (abi.Own[R], error) {
	o, err := component.PushOwn(h.res, r)
	if err != nil {
		return abi.Own[R]{}, fmt.Errorf("preview2: %w: %w", ErrTooManyResources, err)
	}
	return o, nil
}

// borrowed returns the resource behind a borrow handle the guest passed, or ErrHandle: the
// component's handle table guarantees the resource type, but the rep is still a number the
// guest influences.
func borrowed[R abi.Resource](h *Host, b abi.Borrow[R]) (R, error) {
	r, err := component.GetBorrow(h.res, b)
	if err != nil {
		return r, fmt.Errorf("preview2: %w: %w", ErrHandle, err)
	}
	return r, nil
}

// take removes the resource behind an own handle the guest passed from the table and returns
// it: the host owns it now, and no destructor runs for it.
func take[R abi.Resource](h *Host, o abi.Own[R]) (R, error) {
	r, err := component.GetOwn(h.res, o)
	if err != nil {
		return r, fmt.Errorf("preview2: %w: %w", ErrHandle, err)
	}
	_, err = h.res.Delete(o.Rep)
	return r, err
}

// dtor returns the destructor of a resource type whose values are T: it forgets the resource
// and closes it if it has a close method.
func dtor[T any]() component.HostDtor {
	return func(_ context.Context, c *component.Caller, rep uint32) error {
		h, err := HostOf(c)
		if err != nil {
			return err
		}
		return drop[T](h, rep)
	}
}

// drop forgets resource rep, which must be a T, and closes it.
func drop[T any](h *Host, rep uint32) error {
	if _, err := get[T](h, rep); err != nil {
		return err
	}
	r, err := h.res.Delete(rep)
	if err != nil {
		if errors.Is(err, component.ErrResourceHasChildren) {
			return fmt.Errorf("preview2: %w", err)
		}
		return fmt.Errorf("preview2: %w: %w", ErrHandle, err)
	}
	closeResource(r)
	return nil
}

// closeResource releases a resource the guest let go of; a close error has nowhere to go.
func closeResource(r any) {
	if c, ok := r.(interface{ close() error }); ok {
		_ = c.close()
	}
}

// hostOfCaller is the state getter of every WASI function.
func hostOfCaller(c *component.Caller) (*Host, error) { return HostOf(c) }

// defineFunc defines a typed WASI function, which takes the calling instance's Host after its
// context.
func defineFunc(l *component.Linker, iface, name string, fn any) error {
	return component.DefineFuncWith(l, hostOfCaller, iface, name, fn)
}

// defineAll defines typed WASI functions of one interface.
func defineAll(l *component.Linker, iface string, fns map[string]any) error {
	for name, fn := range fns {
		if err := defineFunc(l, iface, name, fn); err != nil {
			return err
		}
	}
	return nil
}
