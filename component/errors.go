package component

import (
	"errors"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// Sentinel errors of the runtime (Compile, Linker, Instance). Each error returned by
// them wraps one of these or an error of package engine or abi.
var (
	// ErrMissingImport means the linker defines nothing that satisfies an import of the
	// component (or no version of it that is semver-compatible).
	ErrMissingImport = errors.New("missing import")
	// ErrLinkType means a linker definition does not fit the type the component imports it at.
	ErrLinkType = errors.New("import type mismatch")
	// ErrNoExport means the instance has no export of the requested name and kind.
	ErrNoExport = errors.New("no such export")
	// ErrReentrance is the spec's may_enter / may_leave trap: a call into an instance that is
	// already running, or a guest leaving the instance while it must not (inside realloc or
	// post-return).
	ErrReentrance = errors.New("instance is already running")
	// ErrRuntimeUnsupported means instantiation needs a component-model feature the runtime does
	// not implement yet; the message names it.
	ErrRuntimeUnsupported = errors.New("unsupported by the component runtime")
	// ErrBind means a Go function does not fit the component function it is bound to.
	ErrBind = errors.New("cannot bind Go function")
	// ErrClosed means the compiled component was closed (Component.Close): it can no longer
	// be prepared or instantiated.
	ErrClosed = errors.New("component is closed")
	// ErrUnknownImport is the trap of a stand-in that Linker.DefineUnknownImportsAsTraps defined
	// for an import the host does not implement: the guest called it.
	ErrUnknownImport = errors.New("unknown import called")
	// ErrForeignInstance means a prepared export (PreFunc, InstancePre.BindInterface) was
	// called with an instance made from another InstancePre.
	ErrForeignInstance = errors.New("instance of another InstancePre")
)

// guestFaults are the abi errors by which a guest breaks the canonical ABI: bad pointers,
// lengths, discriminants, chars, strings and handles in what it passes or returns, a failing
// realloc or post-return, a re-entrant call. The others (a host value of the wrong shape) are the
// host's.
var guestFaults = []error{
	abi.ErrOutOfBounds, abi.ErrMisaligned, abi.ErrTooLong, abi.ErrDiscriminant, abi.ErrInvalidChar,
	abi.ErrInvalidString, abi.ErrRealloc, abi.ErrPostReturn, abi.ErrHandle, abi.ErrTableFull,
	abi.ErrCoreValues, abi.ErrBorrowOutstanding, abi.ErrLiftLimit, ErrReentrance,
}

// canonTrap turns err, the failure of a call that crossed the canonical ABI, into the trap of a
// guest's breach when it is one: an *engine.Trap of kind TrapCanonicalABI with err as its cause.
// Engine traps and exits pass through, as do the host's own mistakes.
func canonTrap(err error, function string) error {
	var t *engine.Trap
	var ee *engine.ExitError
	if err == nil || errors.As(err, &t) || errors.As(err, &ee) {
		return err
	}
	for _, f := range guestFaults {
		if errors.Is(err, f) {
			return &engine.Trap{Kind: engine.TrapCanonicalABI, Function: function, Cause: err}
		}
	}
	return err
}

// hostError marks a host function's own error on its way through a canon lower, so that it is
// reported as the host's (engine.TrapHost) even when it wraps an abi error.
type hostError struct{ err error }

func (e *hostError) Error() string { return e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }
