//go:build !linux

package durable

import (
	"errors"
	"os"
)

// Exchange is unsupported here: callers move the old directory aside and the new one in, and
// recover from a crash between the two renames.
func Exchange(a, b string) error {
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
}
