// Package binread reads the primitives of the WebAssembly binary formats (bytes, LEB128
// integers, names, vector counts) from a byte slice, for both of kobako's decoders: internal/wasm
// (core modules) and component/binary (components). Each decoder says how a malformed input is
// reported (Reader.Malformed), so their errors keep their own sentinels and shapes.
package binread

import (
	"fmt"
	"unicode/utf8"

	"github.com/kobako/kobako/internal/leb128"
)

// Reader reads from Buf at Pos. Base is the offset of Buf[0] in the whole input, so that every
// error names an absolute offset. The decoders' hot loops read Buf and move Pos themselves.
type Reader struct {
	Buf  []byte
	Pos  int
	Base int
	// Malformed makes the error for malformed input found at absolute offset off; nil means a
	// plain "at byte offset" error.
	Malformed func(off int, err error) error
	// OverLimit makes the error for a count over the limit Count was given, at offset off; nil
	// means Malformed's.
	OverLimit func(off int, err error) error
}

// New returns a Reader of b, whose first byte is at offset base of the input.
func New(b []byte, base int, malformed func(off int, err error) error) *Reader {
	return &Reader{Buf: b, Base: base, Malformed: malformed}
}

// Offset is the absolute offset of the next byte.
func (r *Reader) Offset() int { return r.Base + r.Pos }

// Remaining is the number of bytes not read yet.
func (r *Reader) Remaining() int { return len(r.Buf) - r.Pos }

// Done reports whether every byte was read.
func (r *Reader) Done() bool { return r.Pos >= len(r.Buf) }

// Fail returns a malformed-input error at the current offset.
func (r *Reader) Fail(format string, args ...any) error {
	return r.FailAt(r.Offset(), format, args...)
}

// FailAt returns a malformed-input error at offset off.
func (r *Reader) FailAt(off int, format string, args ...any) error {
	return r.malformed(off, fmt.Errorf(format, args...))
}

func (r *Reader) malformed(off int, err error) error {
	if r.Malformed == nil {
		return fmt.Errorf("at byte offset 0x%x: %w", off, err)
	}
	return r.Malformed(off, err)
}

// Byte reads one byte.
func (r *Reader) Byte() (byte, error) {
	if r.Pos >= len(r.Buf) {
		return 0, r.Fail("unexpected end of input")
	}
	b := r.Buf[r.Pos]
	r.Pos++
	return b, nil
}

// Peek returns the next byte without reading it.
func (r *Reader) Peek() (byte, error) {
	if r.Pos >= len(r.Buf) {
		return 0, r.Fail("unexpected end of input")
	}
	return r.Buf[r.Pos], nil
}

// Bytes reads the next n bytes, sharing the input's backing array (capacity clipped so that
// appending to the result cannot overwrite the input).
func (r *Reader) Bytes(n uint64) ([]byte, error) {
	if n > uint64(r.Remaining()) {
		return nil, r.Fail("length %d exceeds the %d bytes that remain", n, r.Remaining())
	}
	b := r.Buf[r.Pos : r.Pos+int(n) : r.Pos+int(n)]
	r.Pos += int(n)
	return b, nil
}

// U32 reads an unsigned LEB128 of at most 5 bytes whose value fits 32 bits.
func (r *Reader) U32() (uint32, error) {
	if r.Pos < len(r.Buf) && r.Buf[r.Pos] < 0x80 { // most are one byte
		v := r.Buf[r.Pos]
		r.Pos++
		return uint32(v), nil
	}
	v, n, err := leb128.U32(r.Buf[r.Pos:])
	if err != nil {
		return 0, r.malformed(r.Offset(), err)
	}
	r.Pos += n
	return v, nil
}

// U64 reads an unsigned LEB128 of at most 10 bytes.
func (r *Reader) U64() (uint64, error) {
	v, n, err := leb128.U64(r.Buf[r.Pos:])
	if err != nil {
		return 0, r.malformed(r.Offset(), err)
	}
	r.Pos += n
	return v, nil
}

// Signed reads a signed LEB128 of a value of bits bits (32, 33 or 64).
func (r *Reader) Signed(bits int) (int64, error) {
	v, n, err := leb128.Signed(r.Buf[r.Pos:], bits)
	if err != nil {
		return 0, r.malformed(r.Offset(), err)
	}
	r.Pos += n
	return v, nil
}

// Name reads a length-prefixed UTF-8 string.
func (r *Reader) Name() (string, error) {
	start := r.Offset()
	n, err := r.U32()
	if err != nil {
		return "", err
	}
	if uint64(n) > uint64(r.Remaining()) {
		return "", r.Fail("name length %d exceeds the %d bytes that remain", n, r.Remaining())
	}
	b := r.Buf[r.Pos : r.Pos+int(n)]
	r.Pos += int(n)
	if !utf8.Valid(b) {
		return "", r.FailAt(start, "name is not valid UTF-8")
	}
	return string(b), nil
}

// Count reads a vector length and checks it: at most limit (when limit is not 0, reported by
// OverLimit), and, when minSize is positive, that that many items of at least minSize bytes each
// fit in the bytes that remain, so that no input makes a decoder allocate more than it reads.
func (r *Reader) Count(what string, minSize int, limit uint32) (uint32, error) {
	start := r.Offset()
	n, err := r.U32()
	if err != nil {
		return 0, err
	}
	if limit != 0 && n > limit {
		e := fmt.Errorf("%d %s, over the limit of %d", n, what, limit)
		if r.OverLimit != nil {
			return 0, r.OverLimit(start, e)
		}
		return 0, r.malformed(start, e)
	}
	if minSize > 0 && uint64(n)*uint64(minSize) > uint64(r.Remaining()) {
		return 0, r.FailAt(start, "%d %s need at least %d bytes, only %d remain", n, what, uint64(n)*uint64(minSize), r.Remaining())
	}
	return n, nil
}

// ExpectEnd fails unless every byte was read.
func (r *Reader) ExpectEnd(what string) error {
	if !r.Done() {
		return r.Fail("%d unexpected bytes at the end of %s", r.Remaining(), what)
	}
	return nil
}
