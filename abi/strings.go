package abi

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// liftString is load_string_from_range: it decodes (ptr, tagged code units) in the context's
// encoding into a Go (UTF-8) string, after checking the byte length limit, alignment and bounds.
func (l *lifter) liftString(ptr, tagged uint32) (Value, error) {
	s, err := l.liftStr(ptr, tagged)
	if err != nil {
		return Value{}, err
	}
	return StringValue(s), nil
}

// liftStr is liftString returning the Go string, for the typed path.
func (l *lifter) liftStr(ptr, tagged uint32) (string, error) {
	mem, err := l.cx.memory()
	if err != nil {
		return "", err
	}
	var (
		align   uint32 = 2
		byteLen uint64
		utf16   bool
		latin1  bool
	)
	switch l.cx.Encoding {
	case UTF8:
		align, byteLen = 1, uint64(tagged)
	case UTF16:
		byteLen, utf16 = 2*uint64(tagged), true
	case Latin1UTF16:
		if tagged&UTF16Tag != 0 {
			byteLen, utf16 = 2*uint64(tagged^UTF16Tag), true
		} else {
			byteLen, latin1 = uint64(tagged), true
		}
	default:
		return "", errorf(ErrMissingOption, "unknown string encoding %d", l.cx.Encoding)
	}
	if byteLen > MaxStringByteLength {
		return "", errorf(ErrTooLong, "%s string of %d bytes is above 2^28-1", l.cx.Encoding, byteLen)
	}
	if err := checkAlign(ptr, align, "string"); err != nil {
		return "", err
	}
	b, err := view(mem, ptr, byteLen)
	if err != nil {
		return "", fmt.Errorf("string: %w", err)
	}
	// Charge the worst-case UTF-8 size before allocating it.
	cost := byteLen
	switch {
	case utf16:
		cost = byteLen/2*3 + liftNodeCost
	case latin1:
		cost = byteLen*2 + liftNodeCost
	}
	if err := l.charge(cost); err != nil {
		return "", err
	}
	var s string
	switch {
	case utf16:
		s, err = decodeUTF16(b)
	case latin1:
		s = decodeLatin1(b)
	default:
		if s, err = liftUTF8(b); err != nil {
			return "", err
		}
	}
	if err != nil {
		return "", err
	}
	return s, nil
}

// chunk is the unit in which UTF-8 is validated and copied together, small enough that the
// second pass over it hits the cache.
const chunk = 16 << 10

// liftUTF8 validates guest bytes and copies them into a new string in one sweep of chunks.
func liftUTF8(b []byte) (string, error) {
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); i += chunk {
		e := min(i+chunk, len(b))
		if asciiLen(b[i:e]) != e-i {
			// Non-ASCII: sequences may straddle chunks, so validate the rest as a whole.
			if !utf8.Valid(b[i:]) {
				return "", errorf(ErrInvalidString, "invalid UTF-8 at byte %d of %d", i+invalidUTF8At(b[i:]), len(b))
			}
			sb.Write(b[i:])
			break
		}
		sb.Write(b[i:e])
	}
	return sb.String(), nil
}

// copyUTF8 copies a host string into guest memory and validates the copy, chunk by chunk. It
// returns the offset of the first invalid byte, or -1.
func copyUTF8(dst []byte, s string) int {
	for i := 0; i < len(s); i += chunk {
		e := min(i+chunk, len(s))
		copy(dst[i:e], s[i:e])
		if asciiLen(dst[i:e]) != e-i {
			copy(dst[e:], s[e:])
			if !utf8.Valid(dst[i:]) {
				return i + invalidUTF8At(dst[i:])
			}
			return -1
		}
	}
	return -1
}

// asciiLen returns the length of the all-ASCII prefix of b.
func asciiLen(b []byte) int {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		c := b[i : i+32 : i+32]
		if (le.Uint64(c[0:8])|le.Uint64(c[8:16])|le.Uint64(c[16:24])|le.Uint64(c[24:32]))&asciiMask8 != 0 {
			break
		}
	}
	for ; i < len(b) && b[i] < 0x80; i++ {
	}
	return i
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// The transcoders below have ASCII fast paths that handle eight bytes (or four UTF-16 code
// units) per step; everything else goes one code point at a time.

const (
	asciiMask8  = 0x8080808080808080 // high bit of each of 8 bytes
	asciiMask16 = 0xFF80FF80FF80FF80 // code units >= 0x80 among 4 UTF-16 units
)

// spread interleaves zero bytes: 4 ASCII bytes become 4 little-endian UTF-16 code units.
func spread(x uint32) uint64 {
	y := uint64(x)
	y = (y | y<<16) & 0x0000FFFF0000FFFF
	return (y | y<<8) & 0x00FF00FF00FF00FF
}

// squeeze is the inverse of spread: 4 UTF-16 code units below 0x100 become 4 bytes.
func squeeze(y uint64) uint32 {
	y = (y | y>>8) & 0x0000FFFF0000FFFF
	return uint32(y | y>>16)
}

// decodeUTF16 decodes little-endian UTF-16, rejecting unpaired surrogates as Python's strict
// 'utf-16-le' codec does. It sizes the output exactly in a first pass so the second writes by
// index without growth checks.
func decodeUTF16(b []byte) (string, error) {
	n := len(b) / 2
	size := 0
	for i := 0; i < n; {
		if i+4 <= n && le.Uint64(b[2*i:])&asciiMask16 == 0 {
			size += 4
			i += 4
			continue
		}
		u := uint16(b[2*i]) | uint16(b[2*i+1])<<8
		switch {
		case u < 0x80:
			size++
		case u < 0x800:
			size += 2
		case u < 0xD800 || u > 0xDFFF:
			size += 3
		case u < 0xDC00:
			if i+1 >= n {
				return "", errorf(ErrInvalidString, "unpaired UTF-16 high surrogate %#x at code unit %d", u, i)
			}
			if u2 := uint16(b[2*i+2]) | uint16(b[2*i+3])<<8; u2 < 0xDC00 || u2 > 0xDFFF {
				return "", errorf(ErrInvalidString, "unpaired UTF-16 high surrogate %#x at code unit %d", u, i)
			}
			size += 4
			i++
		default:
			return "", errorf(ErrInvalidString, "unpaired UTF-16 low surrogate %#x at code unit %d", u, i)
		}
		i++
	}
	out := make([]byte, size)
	j := 0
	for i := 0; i < n; {
		if i+4 <= n {
			if x := le.Uint64(b[2*i:]); x&asciiMask16 == 0 {
				le.PutUint32(out[j:], squeeze(x))
				i += 4
				j += 4
				continue
			}
		}
		u := uint16(b[2*i]) | uint16(b[2*i+1])<<8
		i++
		if u < 0x80 {
			out[j] = byte(u)
			j++
			continue
		}
		r := rune(u)
		if u >= 0xD800 && u <= 0xDBFF {
			u2 := uint16(b[2*i]) | uint16(b[2*i+1])<<8
			r = (rune(u)-0xD800)<<10 + (rune(u2) - 0xDC00) + 0x10000
			i++
		}
		j += utf8.EncodeRune(out[j:], r)
	}
	return string(out), nil
}

// asciiPrefix returns the length of the longest all-ASCII prefix of b, rounded down to 8 bytes.
func asciiPrefix(b []byte) int {
	i := 0
	for i+8 <= len(b) && le.Uint64(b[i:])&asciiMask8 == 0 {
		i += 8
	}
	return i
}

func decodeLatin1(b []byte) string {
	start := asciiPrefix(b)
	size := len(b)
	for _, c := range b[start:] {
		size += int(c >> 7)
	}
	if size == len(b) {
		return string(b) // ASCII: Latin-1 and UTF-8 agree
	}
	out := make([]byte, size)
	copy(out, b[:start])
	j := start
	for _, c := range b[start:] {
		if c < 0x80 {
			out[j] = c
			j++
		} else {
			out[j], out[j+1] = 0xC0|c>>6, 0x80|c&0x3F
			j += 2
		}
	}
	return string(out)
}

// load8 reads 8 bytes of a string as a little-endian word.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// scanUTF8 validates a host string and measures it for UTF-16: code units, code points, and
// whether every code point fits in Latin-1. bad is the offset of the first invalid byte, or -1.
func scanUTF8(s string) (units, runes uint64, isLatin1 bool, bad int) {
	isLatin1 = true
	i := 0
	for i < len(s) {
		if i+8 <= len(s) && load8(s, i)&asciiMask8 == 0 {
			units += 8
			runes += 8
			i += 8
			continue
		}
		c := s[i]
		if c < 0x80 {
			units++
			runes++
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return 0, 0, false, i
		}
		runes++
		units++
		if r > 0xFFFF {
			units++
		}
		if r > 0xFF {
			isLatin1 = false
		}
		i += n
	}
	return units, runes, isLatin1, -1
}

// encodeUTF16 writes a valid UTF-8 string as little-endian UTF-16 into dst, which is exactly
// large enough.
func encodeUTF16(dst []byte, s string) {
	j := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if x := load8(s, i); x&asciiMask8 == 0 {
				le.PutUint64(dst[j:], spread(uint32(x)))
				le.PutUint64(dst[j+8:], spread(uint32(x>>32)))
				i += 8
				j += 16
				continue
			}
		}
		c := s[i]
		if c < 0x80 {
			dst[j], dst[j+1] = c, 0
			j += 2
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r > 0xFFFF {
			r -= 0x10000
			hi, lo := 0xD800+uint16(r>>10), 0xDC00+uint16(r&0x3FF)
			dst[j], dst[j+1], dst[j+2], dst[j+3] = byte(hi), byte(hi>>8), byte(lo), byte(lo>>8)
			j += 4
			continue
		}
		dst[j], dst[j+1] = byte(r), byte(r>>8)
		j += 2
	}
}

// encodeLatin1 writes a valid UTF-8 string whose code points are all below U+0100 as Latin-1.
func encodeLatin1(dst []byte, s string) {
	j := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && load8(s, i)&asciiMask8 == 0 {
			copy(dst[j:j+8], s[i:i+8])
			i += 8
			j += 8
			continue
		}
		c := s[i]
		if c < 0x80 {
			dst[j] = c
			i++
		} else {
			// Two-byte sequences C2/C3 xx encode U+0080–U+00FF.
			dst[j] = c<<6 | s[i+1]&0x3F
			i += 2
		}
		j++
	}
}

// lowerString is store_string_into_range for a host string: it allocates the exact destination
// size with one realloc call and writes the encoded bytes. The specification's single-pass
// algorithms guess a size and reallocate; the host has the whole string, so it measures first.
// The resulting bytes and length are the same.
func (s *storer) lowerString(str string) (ptr, tagged uint32, err error) {
	mem, err := s.cx.memory()
	if err != nil {
		return 0, 0, err
	}
	switch s.cx.Encoding {
	case UTF8:
		n := uint64(len(str))
		if n > MaxStringByteLength {
			return 0, 0, errorf(ErrTooLong, "utf8 string of %d bytes is above 2^28-1", n)
		}
		p, err := s.cx.alloc(1, uint32(n))
		if err != nil {
			return 0, 0, err
		}
		dst, err := view(mem, p, n)
		if err != nil {
			return 0, 0, err
		}
		if bad := copyUTF8(dst, str); bad >= 0 {
			return 0, 0, errorf(ErrInvalidString, "host string is not valid UTF-8 at byte %d", bad)
		}
		return p, uint32(n), nil
	case UTF16, Latin1UTF16:
		units, runes, isLatin1, bad := scanUTF8(str)
		if bad >= 0 {
			return 0, 0, errorf(ErrInvalidString, "host string is not valid UTF-8 at byte %d", bad)
		}
		if s.cx.Encoding == Latin1UTF16 && isLatin1 {
			if runes > MaxStringByteLength {
				return 0, 0, errorf(ErrTooLong, "latin1 string of %d bytes is above 2^28-1", runes)
			}
			p, err := s.cx.alloc(2, uint32(runes))
			if err != nil {
				return 0, 0, err
			}
			dst, err := view(mem, p, runes)
			if err != nil {
				return 0, 0, err
			}
			encodeLatin1(dst, str)
			return p, uint32(runes), nil
		}
		byteLen := 2 * units
		if byteLen > MaxStringByteLength {
			return 0, 0, errorf(ErrTooLong, "utf16 string of %d bytes is above 2^28-1", byteLen)
		}
		p, err := s.cx.alloc(2, uint32(byteLen))
		if err != nil {
			return 0, 0, err
		}
		dst, err := view(mem, p, byteLen)
		if err != nil {
			return 0, 0, err
		}
		encodeUTF16(dst, str)
		if s.cx.Encoding == Latin1UTF16 {
			return p, uint32(units) | UTF16Tag, nil
		}
		return p, uint32(units), nil
	}
	return 0, 0, errorf(ErrMissingOption, "unknown string encoding %d", s.cx.Encoding)
}
