package wasm

import (
	"fmt"
	"unicode/utf8"
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

// u32 reads an unsigned LEB128 of at most 5 bytes whose unused high bits are zero.
func (r *reader) u32() (uint32, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i == 4 && b&0xf0 != 0 {
			return 0, r.errf("integer representation too long or too large (u32)")
		}
		v |= uint32(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, r.errf("integer representation too long (u32)")
}

// u64 reads an unsigned LEB128 of at most 10 bytes.
func (r *reader) u64() (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i == 9 && b&0xfe != 0 {
			return 0, r.errf("integer representation too long or too large (u64)")
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, r.errf("integer representation too long (u64)")
}

// sleb reads a signed LEB128 of a value with n bits (32, 33 or 64). The unused bits of the last
// byte must be a sign extension of the value's top bit, as the spec requires.
func (r *reader) sleb(n int) (int64, error) {
	maxBytes := (n + 6) / 7
	var v int64
	shift := 0
	for i := 0; i < maxBytes; i++ {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i == maxBytes-1 {
			if b&0x80 != 0 {
				return 0, r.errf("integer representation too long (s%d)", n)
			}
			// Bits of b above the value's width: (n - shift) bits are payload, the rest of the 7
			// payload bits (plus one for the sign) must all equal the sign bit.
			used := n - shift // 1..7
			if used < 7 {
				hi := int8(b<<1) >> uint(used) // sign-extended bits from position used-1 upward
				if hi != 0 && hi != -1 {
					return 0, r.errf("integer too large (s%d)", n)
				}
			}
		}
		v |= int64(b&0x7f) << uint(shift)
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << uint(shift)
			}
			return v, nil
		}
	}
	return 0, r.errf("integer representation too long (s%d)", n)
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
func appendU32(b []byte, v uint32) []byte { return appendU64(b, uint64(v)) }

func appendU64(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// appendS64 appends v as signed LEB128.
func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
