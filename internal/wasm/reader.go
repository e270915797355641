package wasm

import (
	"fmt"
	"unicode/utf8"

	"github.com/kobako/kobako/internal/leb128"
)

// reader reads the binary format from a byte slice. Positions are absolute offsets into the
// module binary (base is the offset of buf[0]) so that errors can name where they happened.
type reader struct {
	buf  []byte
	pos  int
	base int
}

func newReader(b []byte, base int) *reader { return &reader{buf: b, base: base} }

func (r *reader) offset() int { return r.base + r.pos }

func (r *reader) remaining() int { return len(r.buf) - r.pos }

func (r *reader) done() bool { return r.pos >= len(r.buf) }

func (r *reader) errf(format string, args ...any) error {
	return fmt.Errorf("at byte offset 0x%x: %w: %s", r.offset(), ErrMalformed, fmt.Sprintf(format, args...))
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.buf) {
		return 0, r.errf("unexpected end")
	}
	b := r.buf[r.pos]
	r.pos++
	return b, nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, r.errf("length %d exceeds the %d remaining bytes", n, r.remaining())
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b, nil
}

// leb turns a leb128 error into a malformed-input error at the integer's offset.
func (r *reader) leb(err error) error {
	return fmt.Errorf("at byte offset 0x%x: %w: %w", r.offset(), ErrMalformed, err)
}

// u32 reads an unsigned LEB128 of at most 5 bytes whose unused high bits are zero.
func (r *reader) u32() (uint32, error) {
	if r.pos < len(r.buf) && r.buf[r.pos] < 0x80 {
		v := r.buf[r.pos]
		r.pos++
		return uint32(v), nil
	}
	v, n, err := leb128.U32(r.buf[r.pos:])
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

// u64 reads an unsigned LEB128 of at most 10 bytes.
func (r *reader) u64() (uint64, error) {
	v, n, err := leb128.U64(r.buf[r.pos:])
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

// sleb reads a signed LEB128 of a value with n bits (32, 33 or 64).
func (r *reader) sleb(bits int) (int64, error) {
	v, n, err := leb128.Signed(r.buf[r.pos:], bits)
	if err != nil {
		return 0, r.leb(err)
	}
	r.pos += n
	return v, nil
}

func (r *reader) s32() (int32, error) {
	v, err := r.sleb(32)
	return int32(v), err
}

func (r *reader) s64() (int64, error) { return r.sleb(64) }

// count reads a vector length and checks that at least minSize bytes per element remain, so
// that a hostile count fails before anything is allocated for it.
func (r *reader) count(what string, minSize int, limit uint32) (uint32, error) {
	at := r.offset()
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if limit != 0 && n > limit {
		return 0, fmt.Errorf("at byte offset 0x%x: %w: %d %s, over the limit of %d", at, ErrLimit, n, what, limit)
	}
	if minSize > 0 && uint64(n)*uint64(minSize) > uint64(r.remaining()) {
		return 0, fmt.Errorf("at byte offset 0x%x: %w: %d %s need at least %d bytes, only %d remain", at, ErrMalformed, n, what, uint64(n)*uint64(minSize), r.remaining())
	}
	return n, nil
}

// name reads a UTF-8 name.
func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if uint64(n) > uint64(r.remaining()) {
		return "", r.errf("name length %d exceeds the %d remaining bytes", n, r.remaining())
	}
	b, _ := r.bytes(int(n))
	if !utf8.Valid(b) {
		return "", r.errf("name is not valid UTF-8")
	}
	return string(b), nil
}

// appendU32 appends v as unsigned LEB128.
func appendU32(b []byte, v uint32) []byte { return leb128.AppendU32(b, v) }

func appendU64(b []byte, v uint64) []byte { return leb128.AppendU64(b, v) }

// appendS64 appends v as signed LEB128.
func appendS64(b []byte, v int64) []byte { return leb128.AppendS64(b, v) }
