package leb128

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

func TestU32(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
		want uint32
		n    int
		err  error
	}{
		{"zero", []byte{0x00}, 0, 1, nil},
		{"one byte", []byte{0x7f, 0xff}, 127, 1, nil},
		{"two bytes", []byte{0xe5, 0x8e, 0x26}, 624485, 3, nil},
		{"padded zero", []byte{0x80, 0x80, 0x80, 0x80, 0x00}, 0, 5, nil},
		{"max", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, math.MaxUint32, 5, nil},
		{"empty", nil, 0, 0, ErrTruncated},
		{"truncated", []byte{0x80, 0x80}, 0, 0, ErrTruncated},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, 0, ErrTooLong},
		{"unused bits", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 0, 0, ErrTooLarge},
		{"top unused bit", []byte{0x80, 0x80, 0x80, 0x80, 0x40}, 0, 0, ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := U32(tt.in)
			if !errors.Is(err, tt.err) || v != tt.want || n != tt.n {
				t.Errorf("U32(% x) = %d, %d, %v; want %d, %d, %v", tt.in, v, n, err, tt.want, tt.n, tt.err)
			}
		})
	}
}

func TestU64(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
		want uint64
		n    int
		err  error
	}{
		{"small", []byte{0x05}, 5, 1, nil},
		{"max", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, math.MaxUint64, 10, nil},
		{"over 32 bits", []byte{0x80, 0x80, 0x80, 0x80, 0x10}, 1 << 32, 5, nil},
		{"unused bits", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 0, 0, ErrTooLarge},
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, 0, ErrTooLong},
		{"truncated", []byte{0xff}, 0, 0, ErrTruncated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := U64(tt.in)
			if !errors.Is(err, tt.err) || v != tt.want || n != tt.n {
				t.Errorf("U64(% x) = %d, %d, %v; want %d, %d, %v", tt.in, v, n, err, tt.want, tt.n, tt.err)
			}
		})
	}
}

func TestSigned(t *testing.T) {
	for _, tt := range []struct {
		name string
		bits int
		in   []byte
		want int64
		n    int
		err  error
	}{
		{"minus one", 32, []byte{0x7f}, -1, 1, nil},
		{"minus 64", 32, []byte{0x40}, -64, 1, nil},
		{"64", 32, []byte{0xc0, 0x00}, 64, 2, nil},
		{"-123456", 64, []byte{0xc0, 0xbb, 0x78}, -123456, 3, nil},
		{"s32 min", 32, []byte{0x80, 0x80, 0x80, 0x80, 0x78}, math.MinInt32, 5, nil},
		{"s32 max", 32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}, math.MaxInt32, 5, nil},
		{"s32 unused bits", 32, []byte{0xff, 0xff, 0xff, 0xff, 0x4f}, 0, 0, ErrTooLarge},
		{"s32 positive overflow", 32, []byte{0x80, 0x80, 0x80, 0x80, 0x08}, 0, 0, ErrTooLarge},
		{"s32 too long", 32, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, 0, ErrTooLong},
		{"s33 block type index", 33, []byte{0x80, 0x80, 0x80, 0x80, 0x0f}, 0xf0000000, 5, nil},
		{"s33 negative", 33, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, -1, 5, nil},
		{"s33 unused bits", 33, []byte{0x80, 0x80, 0x80, 0x80, 0x20}, 0, 0, ErrTooLarge},
		{"s64 min", 64, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, math.MinInt64, 10, nil},
		{"s64 unused bits", 64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x41}, 0, 0, ErrTooLarge},
		{"truncated", 64, []byte{0xff, 0xff}, 0, 0, ErrTruncated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := Signed(tt.in, tt.bits)
			if !errors.Is(err, tt.err) || v != tt.want || n != tt.n {
				t.Errorf("Signed(% x, %d) = %d, %d, %v; want %d, %d, %v", tt.in, tt.bits, v, n, err, tt.want, tt.n, tt.err)
			}
		})
	}
}

// Every value survives a round trip through the shortest encoding, which is no longer than the
// width allows.
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := rapid.Uint64().Draw(t, "u")
		b := AppendU64(nil, u)
		if got, n, err := U64(b); err != nil || got != u || n != len(b) || n > 10 {
			t.Fatalf("U64(AppendU64(%d) = % x) = %d, %d, %v", u, b, got, n, err)
		}
		if got, n, err := U32(b); u <= math.MaxUint32 && (err != nil || uint64(got) != u || n != len(b)) {
			t.Fatalf("U32(% x) = %d, %d, %v", b, got, n, err)
		} else if u > math.MaxUint32 && err == nil {
			t.Fatalf("U32(% x) accepted %d", b, got)
		}
		s := rapid.Int64().Draw(t, "s")
		b = AppendS64(nil, s)
		if got, n, err := S64(b); err != nil || got != s || n != len(b) {
			t.Fatalf("S64(AppendS64(%d) = % x) = %d, %d, %v", s, b, got, n, err)
		}
		fits33 := s >= -(1<<32) && s < 1<<32
		if got, _, err := S33(b); fits33 != (err == nil) || fits33 && got != s {
			t.Fatalf("S33(% x) = %d, %v for %d", b, got, err, s)
		}
		fits32 := s >= math.MinInt32 && s <= math.MaxInt32
		if got, _, err := S32(b); fits32 != (err == nil) || fits32 && int64(got) != s {
			t.Fatalf("S32(% x) = %d, %v for %d", b, got, err, s)
		}
	})
}

// reference decodes b the slow way, with big integers, for any width: the value and its byte
// count, or false where the spec refuses the encoding.
func reference(b []byte, bits int, signed bool) (*big.Int, int, bool) {
	maxBytes := (bits + 6) / 7
	v := new(big.Int)
	for i := 0; i < len(b) && i < maxBytes; i++ {
		v.Or(v, new(big.Int).Lsh(big.NewInt(int64(b[i]&0x7f)), uint(7*i)))
		if b[i]&0x80 != 0 {
			continue
		}
		total := uint(7 * (i + 1))
		if signed && b[i]&0x40 != 0 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), total))
		}
		lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits))
		if signed {
			lo.Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
			hi.Lsh(big.NewInt(1), uint(bits-1))
		}
		if v.Cmp(lo) < 0 || v.Cmp(hi) >= 0 {
			return nil, 0, false
		}
		return v, i + 1, true
	}
	return nil, 0, false
}

// FuzzLEB128 checks every reader against the big-integer reference on arbitrary bytes.
func FuzzLEB128(f *testing.F) {
	for _, s := range [][]byte{{0}, {0x7f}, {0xe5, 0x8e, 0x26}, {0xff, 0xff, 0xff, 0xff, 0x0f}, {0x80, 0x80, 0x80, 0x80, 0x78},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(name string, bits int, signed bool, got *big.Int, n int, err error) {
			want, wn, ok := reference(b, bits, signed)
			if ok != (err == nil) {
				t.Fatalf("%s(% x): error %v, reference accepts=%v", name, b, err, ok)
			}
			if ok && (got.Cmp(want) != 0 || n != wn) {
				t.Fatalf("%s(% x) = %v, %d; reference %v, %d", name, b, got, n, want, wn)
			}
			if err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%s(% x): error %v wraps no sentinel", name, b, err)
			}
		}
		u32, n, err := U32(b)
		check("U32", 32, false, new(big.Int).SetUint64(uint64(u32)), n, err)
		u64, n, err := U64(b)
		check("U64", 64, false, new(big.Int).SetUint64(u64), n, err)
		for _, bits := range []int{7, 32, 33, 64} {
			s, n, err := Signed(b, bits)
			check("Signed", bits, true, big.NewInt(s), n, err)
		}
	})
}
