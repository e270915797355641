package engine

import (
	"errors"
	"fmt"
)

// Sentinel errors. A *Trap matches the sentinel of its kind with errors.Is.
var (
	// ErrUnreachable: the guest executed `unreachable`.
	ErrUnreachable = errors.New("unreachable")
	// ErrMemoryOutOfBounds: a load, store or bulk operation touched memory outside the linear memory.
	ErrMemoryOutOfBounds = errors.New("out of bounds memory access")
	// ErrTableOutOfBounds: a table access or call_indirect used an index outside the table or a null entry.
	ErrTableOutOfBounds = errors.New("invalid table access")
	// ErrDivideByZero: integer division or remainder by zero.
	ErrDivideByZero = errors.New("integer divide by zero")
	// ErrIntegerOverflow: signed division overflow (INT_MIN / -1) or a float-to-int conversion out of range.
	ErrIntegerOverflow = errors.New("integer overflow")
	// ErrInvalidConversion: a float-to-int conversion of NaN.
	ErrInvalidConversion = errors.New("invalid conversion to integer")
	// ErrIndirectCallMismatch: call_indirect found a function of another type.
	ErrIndirectCallMismatch = errors.New("indirect call type mismatch")
	// ErrNullReference: a null reference was dereferenced.
	ErrNullReference = errors.New("null reference")
	// ErrStackOverflow: the wasm call stack, or guest→host→guest re-entry, went too deep.
	ErrStackOverflow = errors.New("stack overflow")
	// ErrFuelExhausted: the call used up its fuel.
	ErrFuelExhausted = errors.New("fuel exhausted")
	// ErrDeadlineExceeded: the call ran past its deadline.
	ErrDeadlineExceeded = errors.New("deadline exceeded")
	// ErrCanceled: the caller's context was canceled during the call.
	ErrCanceled = errors.New("canceled")
	// ErrMemoryLimit: a memory's declared minimum is above the store's memory limit.
	ErrMemoryLimit = errors.New("memory limit exceeded")
	// ErrTableLimit: a table's declared minimum is above the store's table element limit.
	ErrTableLimit = errors.New("table limit exceeded")
	// ErrInstanceLimit: the store already holds its maximum number of core instances.
	ErrInstanceLimit = errors.New("instance limit exceeded")
	// ErrHost: a host function failed and ended the call.
	ErrHost = errors.New("host function failed")
	// ErrCanonicalABI: a component guest broke the canonical ABI (a bad pointer or alignment,
	// discriminant, char, string or handle, a re-entrant call); the Trap's Cause is the abi
	// error naming where in the value.
	ErrCanonicalABI = errors.New("canonical ABI violation")

	// ErrInvalidModule: the bytes are not a module the engine accepts (malformed, over a decode
	// limit, or using an unsupported feature). Wrapped with the reason.
	ErrInvalidModule = errors.New("invalid module")
	// ErrInstanceUnavailable: the store was discarded after an interrupted or trapped call.
	ErrInstanceUnavailable = errors.New("instance is unavailable: a previous call was interrupted before completion")
	// ErrNoExport: the instance has no such export, or it has another kind.
	ErrNoExport = errors.New("no such export")
	// ErrUnmeteredUnsupported: an unmetered store was asked for on GOOS=js or wasip1, where Go's
	// scheduler cannot preempt a running guest, so only metering can stop it at its deadline.
	ErrUnmeteredUnsupported = errors.New("unmetered stores are not supported on this platform")
	// ErrLink: an import could not be satisfied.
	ErrLink = errors.New("link error")
	// ErrClosed: the engine, store, module or host module was closed.
	ErrClosed = errors.New("closed")
)

// TrapKind says why a call trapped.
type TrapKind int

// The trap kinds.
const (
	TrapUnreachable TrapKind = iota + 1
	TrapMemoryOutOfBounds
	TrapTableOutOfBounds
	TrapDivideByZero
	TrapIntegerOverflow
	TrapInvalidConversion
	TrapIndirectCallMismatch
	TrapNullReference
	TrapStackOverflow
	TrapFuelExhausted
	TrapDeadlineExceeded
	TrapCanceled
	TrapMemoryLimit
	TrapTableLimit
	TrapInstanceLimit
	TrapHost
	TrapCanonicalABI
)

var trapSentinels = map[TrapKind]error{
	TrapUnreachable:          ErrUnreachable,
	TrapMemoryOutOfBounds:    ErrMemoryOutOfBounds,
	TrapTableOutOfBounds:     ErrTableOutOfBounds,
	TrapDivideByZero:         ErrDivideByZero,
	TrapIntegerOverflow:      ErrIntegerOverflow,
	TrapInvalidConversion:    ErrInvalidConversion,
	TrapIndirectCallMismatch: ErrIndirectCallMismatch,
	TrapNullReference:        ErrNullReference,
	TrapStackOverflow:        ErrStackOverflow,
	TrapFuelExhausted:        ErrFuelExhausted,
	TrapDeadlineExceeded:     ErrDeadlineExceeded,
	TrapCanceled:             ErrCanceled,
	TrapMemoryLimit:          ErrMemoryLimit,
	TrapTableLimit:           ErrTableLimit,
	TrapInstanceLimit:        ErrInstanceLimit,
	TrapHost:                 ErrHost,
	TrapCanonicalABI:         ErrCanonicalABI,
}

// String returns the kind's stable lower-case name, e.g. "fuel exhausted".
func (k TrapKind) String() string {
	if e, ok := trapSentinels[k]; ok {
		return e.Error()
	}
	return fmt.Sprintf("trap kind %d", int(k))
}

// Trap is the one error type for a guest call that ran and ended abnormally, except by the
// guest's exit (*ExitError); a call that could not run at all (a discarded or closed store) fails
// with ErrInstanceUnavailable or ErrClosed instead. Kind says what happened; Function names the wasm function where it happened when
// the engine could tell (the export called, for TrapCanonicalABI); Cause holds the underlying error
// (a host function's error for TrapHost, the abi error for TrapCanonicalABI).
type Trap struct {
	Kind     TrapKind
	Function string
	Cause    error
}

// Error reads like "wasm trap: fuel exhausted in function fib".
func (t *Trap) Error() string {
	msg := "wasm trap: " + t.Kind.String()
	if t.Function != "" {
		msg += " in function " + t.Function
	}
	if t.Cause != nil && (t.Kind == TrapHost || t.Kind == TrapCanonicalABI) {
		msg += ": " + t.Cause.Error()
	}
	return msg
}

// Is reports whether target is the sentinel of t's kind.
func (t *Trap) Is(target error) bool { return trapSentinels[t.Kind] == target }

// Unwrap returns the cause, so errors.Is finds a host function's own error.
func (t *Trap) Unwrap() error { return t.Cause }

// ExitError reports that the guest called proc_exit (or an equivalent) with Code.
type ExitError struct {
	Code uint32
}

// Error reads like "exit status 3".
func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }
