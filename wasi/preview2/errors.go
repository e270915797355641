package preview2

import (
	"errors"
	"fmt"
)

var (
	// ErrConfig reports a Config that cannot be used.
	ErrConfig = errors.New("invalid configuration")
	// ErrHandle reports a resource rep the host does not hold, or one of another type: a
	// guest-supplied handle that the component's handle table let through but the host
	// does not know.
	ErrHandle = errors.New("unknown resource")
	// ErrTooManyResources reports a guest holding more host resources than Config.MaxResources.
	ErrTooManyResources = errors.New("too many host resources")
	// ErrPermit reports a write larger than the stream's last check-write permit, which WASI
	// 0.2 makes a trap.
	ErrPermit = errors.New("write exceeds the check-write permit")
	// ErrClosed reports a use of the Host after Close.
	ErrClosed = errors.New("host closed")
	// ErrNoRun reports a component without a wasi:cli/run export.
	ErrNoRun = errors.New("component does not export wasi:cli/run")
)

// ExitError is how wasi:cli/exit ends a run: the host function returns it, the guest traps, and
// Run reports Code as the exit status.
type ExitError struct {
	Code uint32
}

func (e *ExitError) Error() string { return fmt.Sprintf("preview2: exit with status %d", e.Code) }
