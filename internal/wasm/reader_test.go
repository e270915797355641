package wasm

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

func TestLEBRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := rapid.Uint32().Draw(t, "u32")
		r := newReader(appendU32(nil, u), 0)
		if got, err := r.U32(); err != nil || got != u || !r.Done() {
			t.Fatalf("u32 %d: got %d, %v", u, got, err)
		}
		u64 := rapid.Uint64().Draw(t, "u64")
		r = newReader(appendU64(nil, u64), 0)
		if got, err := r.U64(); err != nil || got != u64 || !r.Done() {
			t.Fatalf("u64 %d: got %d, %v", u64, got, err)
		}
		s := rapid.Int64().Draw(t, "s64")
		r = newReader(appendS64(nil, s), 0)
		if got, err := r.Signed(64); err != nil || got != s || !r.Done() {
			t.Fatalf("s64 %d: got %d, %v", s, got, err)
		}
		v32 := rapid.Int32().Draw(t, "s32")
		r = newReader(appendS64(nil, int64(v32)), 0)
		if got, err := s32(r); err != nil || got != v32 || !r.Done() {
			t.Fatalf("s32 %d: got %d, %v", v32, got, err)
		}
		s33 := rapid.Int64Range(-1<<32, 1<<32-1).Draw(t, "s33")
		r = newReader(appendS64(nil, s33), 0)
		if got, err := r.Signed(33); err != nil || got != s33 || !r.Done() {
			t.Fatalf("s33 %d: got %d, %v", s33, got, err)
		}
	})
}

func TestLEB_Errors(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		read func(r *reader) error
	}{
		{"u32 six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, func(r *reader) error { _, err := r.U32(); return err }},
		{"u32 too large", []byte{0xff, 0xff, 0xff, 0xff, 0x10}, func(r *reader) error { _, err := r.U32(); return err }},
		{"u32 truncated", []byte{0x80, 0x80}, func(r *reader) error { _, err := r.U32(); return err }},
		{"u64 too large", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, func(r *reader) error { _, err := r.U64(); return err }},
		{"s32 too large", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, func(r *reader) error { _, err := s32(r); return err }},
		{"s32 bad sign bits", []byte{0x80, 0x80, 0x80, 0x80, 0x70}, func(r *reader) error { _, err := s32(r); return err }},
		{"s64 too long", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, func(r *reader) error { _, err := r.Signed(64); return err }},
		{"s64 bad sign bits", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, func(r *reader) error { _, err := r.Signed(64); return err }},
		{"s33 too large", []byte{0x80, 0x80, 0x80, 0x80, 0x20}, func(r *reader) error { _, err := r.Signed(33); return err }},
	}
	for _, c := range cases {
		if err := c.read(newReader(c.b, 0)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Maximal valid encodings are accepted.
	ok := []struct {
		b    []byte
		read func(r *reader) (int64, error)
		want int64
	}{
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, func(r *reader) (int64, error) { v, err := r.U32(); return int64(v), err }, 1<<32 - 1},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x78}, func(r *reader) (int64, error) { v, err := s32(r); return int64(v), err }, -1 << 31},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x07}, func(r *reader) (int64, error) { v, err := s32(r); return int64(v), err }, 1<<31 - 1},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, func(r *reader) (int64, error) { return r.Signed(64) }, -1 << 63},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x00}, func(r *reader) (int64, error) { v, err := s32(r); return int64(v), err }, 0},
	}
	for i, c := range ok {
		if v, err := c.read(newReader(c.b, 0)); err != nil || v != c.want {
			t.Errorf("valid encoding %d: %d, %v", i, v, err)
		}
	}
}

// TestPropertyReadShort checks readInstr's short cut against the general decoder on random
// bytes: the same instruction, immediates and end, or the short cut declines.
func TestPropertyReadShort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 1, 6).Draw(rt, "bytes")
		var fast, slow instr
		rf, rs := newReader(b, 0), newReader(b, 0)
		if !readShort(rf, &fast) {
			if rf.Pos != 0 {
				rt.Fatalf("declined after reading %d bytes", rf.Pos)
			}
			return
		}
		if err := readLong(rs, &slow); err != nil {
			rt.Fatalf("short cut read % x, the general decoder fails: %v", b, err)
		}
		if fast.op != slow.op || fast.end != slow.end || rf.Pos != rs.Pos || fast.immFeature != slow.immFeature {
			rt.Fatalf("% x: short cut op %#x end %d, general op %#x end %d", b, fast.op, fast.end, slow.op, slow.end)
		}
		switch lookupOp(fast.op).imm {
		case immIdx, immMemarg:
			if fast.idx != slow.idx {
				rt.Fatalf("% x: index %d, want %d", b, fast.idx, slow.idx)
			}
		case immI32:
			if fast.bt != slow.bt {
				rt.Fatalf("% x: constant %d, want %d", b, fast.bt, slow.bt)
			}
		}
	})
}
