package binary

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors. Every error returned by Decode wraps exactly one of them (test with errors.Is)
// inside a *DecodeError that says where in the binary the problem is.
var (
	// ErrMalformed means the bytes do not follow the binary format: truncated input, a bad
	// LEB128, an unknown opcode, a length that does not match its contents.
	ErrMalformed = errors.New("malformed component binary")
	// ErrInvalid means the binary is well-formed but breaks a validation rule: an index out of
	// range, a type of the wrong kind, mismatched signatures, a bad or duplicate name.
	ErrInvalid = errors.New("invalid component")
	// ErrUnsupported means the component uses a feature outside kobako's scope (the synchronous
	// component model 0.2): async, streams, futures, error-context, threads, values, GC types,
	// memory64 and similar. The message names the feature.
	ErrUnsupported = errors.New("unsupported component feature")
	// ErrLimit means the component exceeds one of the decoder's implementation limits (nesting
	// depth, type size, type-checking work), which exist so that no input can exhaust memory or
	// time.
	ErrLimit = errors.New("component exceeds a decoder limit")
	// ErrNotComponent means the input is not a component binary at all; a core module gets
	// this error too, so callers can fall back to running it as a module.
	ErrNotComponent = errors.New("not a component binary")
)

// DecodeError is the error Decode returns. Offset is the position in the input of the item that
// failed (the start of the definition being validated, or the byte that could not be read).
type DecodeError struct {
	Offset int
	Err    error
}

// Error formats the error as "component: offset 0x…: <detail>".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("component: offset 0x%x: %v", e.Offset, e.Err)
}

// Unwrap returns the wrapped error, which wraps one of the sentinels.
func (e *DecodeError) Unwrap() error { return e.Err }

// errf builds a detail error wrapping a sentinel.
func errf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// unsupported reports an out-of-scope feature by name.
func unsupported(feature string) error {
	return fmt.Errorf("%w: %s (kobako runs the synchronous component model 0.2)", ErrUnsupported, feature)
}

// at attaches an offset to err unless it already carries one.
func at(off int, err error) error {
	if err == nil {
		return nil
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	return &DecodeError{Offset: off, Err: err}
}

// within prefixes a context to an error while keeping the innermost offset.
func within(ctx string, err error) error {
	if err == nil {
		return nil
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return &DecodeError{Offset: de.Offset, Err: fmt.Errorf("%s: %w", ctx, de.Err)}
	}
	return fmt.Errorf("%s: %w", ctx, err)
}

// isLimit reports whether err is a decoder limit, which must not be reworded as a type error.
func isLimit(err error) bool { return errors.Is(err, ErrLimit) }

// q quotes a string from the input for a message: in backquotes when it is plain printable
// text, Go-quoted when it holds anything that could garble a terminal or log line.
func q(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '`' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return "`" + s + "`"
}
