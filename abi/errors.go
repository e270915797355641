package abi

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error returned by this package matches exactly one of them with
// errors.Is; the message around it says where in the value and what the offending number was.
var (
	// ErrInvalidType: a type constructor was given arguments the component model does not allow
	// (no fields, duplicate labels, more than 32 flags, a value size of 2^28 bytes or more, …).
	ErrInvalidType = errors.New("invalid type")
	// ErrAsync: an async feature of the component model (stream, future, error-context, async
	// lift or lower) was asked for. kobako implements the synchronous 0.2 component model only.
	ErrAsync = errors.New("async component model features are not supported")
	// ErrTypeMismatch: a host Value or Go value does not have the shape of the type it is lowered as.
	ErrTypeMismatch = errors.New("type mismatch")
	// ErrOutOfBounds: a pointer and length do not fit in linear memory (including uint32 wrap-around).
	ErrOutOfBounds = errors.New("out of bounds")
	// ErrMisaligned: a pointer is not a multiple of the alignment its type requires.
	ErrMisaligned = errors.New("misaligned pointer")
	// ErrTooLong: a string or list is longer than the canonical ABI allows
	// (MaxStringByteLength, MaxListByteLength).
	ErrTooLong = errors.New("length exceeds limit")
	// ErrDiscriminant: a variant, enum, option or result discriminant names no case.
	ErrDiscriminant = errors.New("discriminant out of range")
	// ErrInvalidChar: a char is a surrogate or above U+10FFFF.
	ErrInvalidChar = errors.New("invalid char")
	// ErrInvalidString: string bytes are not valid in their encoding (bad UTF-8, unpaired UTF-16
	// surrogate), or a host string to be lowered is not valid UTF-8.
	ErrInvalidString = errors.New("invalid string")
	// ErrFlags: a host flags value sets bits beyond the declared flags.
	ErrFlags = errors.New("flag bits out of range")
	// ErrMissingOption: a lift or lower needs a canonical option (memory, realloc, handle table,
	// borrow scope) that the call context does not have.
	ErrMissingOption = errors.New("missing canonical option")
	// ErrRealloc: the guest's realloc failed (trapped) while lowering.
	ErrRealloc = errors.New("realloc failed")
	// ErrPostReturn: the guest's post-return function failed.
	ErrPostReturn = errors.New("post-return failed")
	// ErrCoreValues: the number of core values does not match the flattened signature.
	ErrCoreValues = errors.New("wrong number of core values")
	// ErrHandle: a resource handle index is out of range, empty, of another resource type, of the
	// wrong ownership, or still lent out.
	ErrHandle = errors.New("invalid resource handle")
	// ErrTableFull: a handle table already holds its maximum number of entries (2^28-1).
	ErrTableFull = errors.New("handle table full")
	// ErrBorrowOutstanding: a call ended while handles borrowed for it were still live.
	ErrBorrowOutstanding = errors.New("borrowed handles outstanding at end of call")
	// ErrLiftLimit: lifting would materialise more host memory than CallContext.MaxLiftBytes.
	ErrLiftLimit = errors.New("lifted value exceeds size limit")
)

// leafError is the innermost error of a failed lift or lower: a message that states the
// offending number, matching one sentinel.
type leafError struct {
	msg string
	err error
}

func (e *leafError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *leafError) Unwrap() error { return e.err }

func errorf(sentinel error, format string, args ...any) error {
	return &leafError{msg: fmt.Sprintf(format, args...), err: sentinel}
}

// PathError reports where inside a value a lift or lower failed. Its message reads outermost
// first, for example
//
//	lift param "req": record field "body": list element 3: char 0xd800 is a surrogate: invalid char
type PathError struct {
	// Op is "lift" or "lower".
	Op string
	// Path lists the steps from the outermost value to the failing one, such as
	// `param "req"`, `record field "body"`, `list element 3`.
	Path []string
	// Err is the cause; it matches one of the package's sentinel errors.
	Err error
}

// Error renders Op, the path and the cause.
func (e *PathError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	for i, p := range e.Path {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(": ")
		}
		b.WriteString(p)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

// pathErr is the error type used while unwinding: segments are appended innermost first, so
// adding a step costs no copy. finish turns it into a *PathError once, at the API boundary.
type pathErr struct {
	rev []string
	err error
}

func (e *pathErr) Error() string { return e.finish("").Error() }
func (e *pathErr) Unwrap() error { return e.err }

func (e *pathErr) finish(op string) *PathError {
	p := make([]string, len(e.rev))
	for i, s := range e.rev {
		p[len(e.rev)-1-i] = s
	}
	return &PathError{Op: op, Path: p, Err: e.err}
}

// at adds a path step to err. It is only called on the error path, so the success path does not
// pay for building step names.
func at(err error, step string) error {
	if pe, ok := err.(*pathErr); ok {
		pe.rev = append(pe.rev, step)
		return pe
	}
	return &pathErr{rev: []string{step}, err: err}
}

// finishErr converts an internal error into the *PathError returned to callers.
func finishErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*pathErr); ok {
		return pe.finish(op)
	}
	return &PathError{Op: op, Err: err}
}

func fieldStep(name string) string { return fmt.Sprintf("record field %q", name) }
func tupleStep(i int) string       { return fmt.Sprintf("tuple element %d", i) }
func listStep(i uint64) string     { return fmt.Sprintf("list element %d", i) }
func caseStep(name string) string  { return fmt.Sprintf("variant case %q", name) }
func paramStep(i int, n string) string {
	if n == "" {
		return fmt.Sprintf("param %d", i)
	}
	return fmt.Sprintf("param %q", n)
}
func resultStep(i, n int) string {
	if n == 1 {
		return "result"
	}
	return fmt.Sprintf("result %d", i)
}
