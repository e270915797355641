// Package errs builds errors that read exactly as the reference host's
// messages while still matching a package sentinel with errors.Is.
package errs

import "fmt"

type sentinelError struct {
	sentinel error
	msg      string
}

// Error is the message alone.
func (e *sentinelError) Error() string { return e.msg }

// Unwrap exposes the sentinel to errors.Is.
func (e *sentinelError) Unwrap() error { return e.sentinel }

// New returns an error whose text is the formatted message (no sentinel
// prefix) and which unwraps to sentinel. %w verbs in format are not
// supported; use %v.
func New(sentinel error, format string, args ...any) error {
	return &sentinelError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}
