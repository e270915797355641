package preview2

import (
	"errors"
)

var (
	// ErrConfig reports a Config that cannot be used.
	ErrConfig = errors.New("invalid configuration")
	// ErrHandle reports a resource rep the host does not hold, or one of another type: a
	// guest-supplied handle that the component's handle table let through but the host
	// does not know.
	ErrHandle = errors.New("unknown resource")
	// ErrTooManyResources reports a guest holding more host resources than Config.MaxHandles.
	ErrTooManyResources = errors.New("too many host resources")
	// ErrPermit reports a write larger than the stream's last check-write permit, which WASI
	// 0.2 makes a trap.
	ErrPermit = errors.New("write exceeds the check-write permit")
	// ErrClosed reports a use of the Host after Close.
	ErrClosed = errors.New("host closed")
	// ErrNotBound reports a WASI function called in a store that has no Host (see Bind).
	ErrNotBound = errors.New("no WASI 0.2 host is bound to the store")
	// ErrAlreadyBound reports a second Bind to one store.
	ErrAlreadyBound = errors.New("a WASI 0.2 host is already bound to the store")
	// ErrNoRun reports a component without a wasi:cli/run export.
	ErrNoRun = errors.New("component does not export wasi:cli/run")
)
