package binary

import (
	"unicode/utf8"

	"github.com/kobako/kobako/internal/leb128"
)

// reader reads the binary format from a byte slice. base is the offset of buf[0] in the whole
// input, so that every error names an absolute offset.
type reader struct {
	buf  []byte
	pos  int
	base int
}

func newReader(b []byte, base int) *reader { return &reader{buf: b, base: base} }

func (r *reader) offset() int    { return r.base + r.pos }
func (r *reader) remaining() int { return len(r.buf) - r.pos }
func (r *reader) done() bool     { return r.pos >= len(r.buf) }

// fail returns a malformed-input error at the current position.
func (r *reader) fail(format string, args ...any) error {
	return at(r.offset(), errf(ErrMalformed, format, args...))
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.buf) {
		return 0, r.fail("unexpected end of input")
	}
	b := r.buf[r.pos]
	r.pos++
	return b, nil
}

// peek returns the next byte without consuming it.
func (r *reader) peek() (byte, error) {
	if r.pos >= len(r.buf) {
		return 0, r.fail("unexpected end of input")
	}
	return r.buf[r.pos], nil
}

// bytes returns the next n bytes, sharing the input's backing array (capacity clipped so that
// appending to the result cannot overwrite the input).
func (r *reader) bytes(n uint32) ([]byte, error) {
	if uint64(n) > uint64(r.remaining()) {
		return nil, r.fail("length %d exceeds the %d bytes that remain", n, r.remaining())
	}
	b := r.buf[r.pos : r.pos+int(n) : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// leb turns a leb128 error into a malformed-input error at the integer's offset.
func (r *reader) leb(err error) error {
	return at(r.offset(), errf(ErrMalformed, "%v", err))
}

// u32 reads an unsigned LEB128 of at most 5 bytes whose value fits 32 bits.
func (r *reader) u32() (uint32, error) {
	v, n, err := leb128.U32(r.buf[r.pos:])
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

// u64 reads an unsigned LEB128 of at most 10 bytes whose value fits 64 bits.
func (r *reader) u64() (uint64, error) {
	v, n, err := leb128.U64(r.buf[r.pos:])
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

// s33 reads a signed LEB128 of at most 5 bytes (the core format's block-type/heap-type encoding).
func (r *reader) s33() (int64, error) {
	v, n, err := leb128.S33(r.buf[r.pos:])
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

// name reads a length-prefixed UTF-8 string.
func (r *reader) name() (string, error) {
	start := r.offset()
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", at(start, errf(ErrMalformed, "name is not valid UTF-8"))
	}
	return string(b), nil
}

// count reads a vector length and checks that that many items, each at least minSize bytes,
// fit in the bytes that remain: no input can make the decoder allocate more than it reads.
func (r *reader) count(what string, minSize int) (uint32, error) {
	start := r.offset()
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if minSize < 1 {
		minSize = 1
	}
	if uint64(n)*uint64(minSize) > uint64(r.remaining()) {
		return 0, at(start, errf(ErrMalformed, "%s count %d exceeds the %d bytes that remain", what, n, r.remaining()))
	}
	return n, nil
}

// expectEnd fails unless the reader consumed all of its bytes.
func (r *reader) expectEnd(what string) error {
	if !r.done() {
		return r.fail("%d unexpected bytes at the end of %s", r.remaining(), what)
	}
	return nil
}
