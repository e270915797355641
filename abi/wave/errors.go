package wave

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinel errors. Every error returned by the package is an *Error matching exactly one of them.
var (
	// ErrSyntax: the text is not well-formed WAVE (an unexpected character or token, an
	// unterminated string, a bad escape).
	ErrSyntax = errors.New("syntax error")
	// ErrValue: the text is well-formed but does not denote a value of the expected type (a number
	// out of range, an unknown label, a missing record field, the wrong number of arguments).
	ErrValue = errors.New("value does not fit type")
	// ErrUnsupported: the type has no WAVE text form that kobako accepts as input (own and borrow
	// handles: a resource cannot be conjured from text).
	ErrUnsupported = errors.New("unsupported type")
)

// Error is a parse error at a position of the input.
type Error struct {
	// Offset is the byte offset of the problem in the input.
	Offset int
	// Line and Column are 1-based; Column counts characters (Unicode code points).
	Line, Column int
	// Msg says what was expected and what was found.
	Msg string
	// Err is ErrSyntax, ErrValue or ErrUnsupported.
	Err error
}

// Error renders "wave: LINE:COL: message".
func (e *Error) Error() string {
	return fmt.Sprintf("wave: %d:%d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// newError places msg at byte offset off of src.
func newError(src string, off int, kind error, msg string) *Error {
	if off > len(src) {
		off = len(src)
	}
	line, col := 1, 1
	before := src[:off]
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		line += strings.Count(before, "\n")
		before = before[i+1:]
	}
	col += utf8.RuneCountInString(before)
	return &Error{Offset: off, Line: line, Column: col, Msg: msg, Err: kind}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
