package wasm

import (
	"fmt"

	"github.com/kobako/kobako/internal/binread"
	"github.com/kobako/kobako/internal/leb128"
)

// reader reads the binary format from a byte slice (internal/binread, shared with the component
// decoder). Positions are absolute offsets into the module binary, so that errors can name where
// they happened: ErrMalformed for malformed input, ErrLimit for a count over a Limits bound.
type reader = binread.Reader

func newReader(b []byte, base int) *reader {
	return &reader{Buf: b, Base: base, Malformed: malformed, OverLimit: overLimit}
}

func malformed(off int, err error) error {
	return fmt.Errorf("at byte offset 0x%x: %w: %w", off, ErrMalformed, err)
}

func overLimit(off int, err error) error {
	return fmt.Errorf("at byte offset 0x%x: %w: %w", off, ErrLimit, err)
}

func s32(r *reader) (int32, error) {
	v, err := r.Signed(32)
	return int32(v), err
}

// appendU32 appends v as unsigned LEB128.
func appendU32(b []byte, v uint32) []byte { return leb128.AppendU32(b, v) }

func appendU64(b []byte, v uint64) []byte { return leb128.AppendU64(b, v) }

// appendS64 appends v as signed LEB128.
func appendS64(b []byte, v int64) []byte { return leb128.AppendS64(b, v) }
