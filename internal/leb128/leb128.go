// Package leb128 reads and writes the LEB128 integers of the WebAssembly binary formats, core and
// component alike, with the spec's strictness: an encoding may use at most ceil(N/7) bytes for an
// N-bit integer, and the unused bits of its last byte must be zero (unsigned) or copies of the
// sign bit (signed). See https://webassembly.github.io/spec/core/binary/values.html#integers.
//
// The functions read from the start of a byte slice and report how many bytes they used, so each
// decoder keeps its own cursor and wraps the sentinel errors with its own offsets and error kinds.
// Standard library only.
package leb128

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error a reader returns wraps exactly one.
var (
	// ErrTruncated: the input ends inside the integer.
	ErrTruncated = errors.New("unexpected end of input in a LEB128 integer")
	// ErrTooLong: the encoding uses more bytes than its width allows.
	ErrTooLong = errors.New("integer representation too long")
	// ErrTooLarge: the last byte's unused bits are not zero (unsigned) or a sign extension
	// (signed), so the value does not fit the width.
	ErrTooLarge = errors.New("integer too large")
)

// U32 reads an unsigned LEB128 of at most 5 bytes whose value fits 32 bits, and returns it with
// the number of bytes it used.
func U32(b []byte) (uint32, int, error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint32(b[0]), 1, nil
	}
	v, n, err := unsigned(b, 32)
	return uint32(v), n, err
}

// U64 reads an unsigned LEB128 of at most 10 bytes, and returns it with the number of bytes it
// used.
func U64(b []byte) (uint64, int, error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1, nil
	}
	return unsigned(b, 64)
}

func unsigned(b []byte, bits int) (uint64, int, error) {
	maxBytes := (bits + 6) / 7
	var v uint64
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, ErrTruncated
		}
		c := b[i]
		if i == maxBytes-1 {
			if c&0x80 != 0 {
				return 0, 0, fmt.Errorf("%w (u%d)", ErrTooLong, bits)
			}
			if used := bits - 7*i; c>>used != 0 {
				return 0, 0, fmt.Errorf("%w (u%d)", ErrTooLarge, bits)
			}
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	panic("BUG: leb128: the last byte of an unsigned integer continues")
}

// S32 reads a signed LEB128 of at most 5 bytes whose value fits 32 bits.
func S32(b []byte) (int32, int, error) {
	v, n, err := Signed(b, 32)
	return int32(v), n, err
}

// S33 reads a signed LEB128 of at most 5 bytes whose value fits 33 bits: the block-type and
// heap-type encoding.
func S33(b []byte) (int64, int, error) { return Signed(b, 33) }

// S64 reads a signed LEB128 of at most 10 bytes.
func S64(b []byte) (int64, int, error) { return Signed(b, 64) }

// Signed reads a signed LEB128 of a value with bits bits (1 to 64), sign-extended to int64, and
// returns it with the number of bytes it used.
func Signed(b []byte, bits int) (int64, int, error) {
	if bits < 1 || bits > 64 {
		panic(fmt.Sprintf("BUG: leb128: signed width %d", bits))
	}
	maxBytes := (bits + 6) / 7
	var v int64
	shift := 0
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, ErrTruncated
		}
		c := b[i]
		if i == maxBytes-1 {
			if c&0x80 != 0 {
				return 0, 0, fmt.Errorf("%w (s%d)", ErrTooLong, bits)
			}
			// (bits - shift) of the 7 payload bits carry the value; the bits above them, down to
			// the value's own top bit, must all equal that sign bit.
			if used := bits - shift; used < 7 {
				hi := int8(c<<1) >> uint(used) // the payload bits from position used-1 upward, sign-extended
				if hi != 0 && hi != -1 {
					return 0, 0, fmt.Errorf("%w (s%d)", ErrTooLarge, bits)
				}
			}
		}
		v |= int64(c&0x7f) << uint(shift)
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << uint(shift)
			}
			return v, i + 1, nil
		}
	}
	panic("BUG: leb128: the last byte of a signed integer continues")
}

// AppendU64 appends v as unsigned LEB128 in the fewest bytes.
func AppendU64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendU32 appends v as unsigned LEB128 in the fewest bytes.
func AppendU32(b []byte, v uint32) []byte { return AppendU64(b, uint64(v)) }

// AppendS64 appends v as signed LEB128 in the fewest bytes.
func AppendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
