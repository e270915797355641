package binread_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/internal/binread"
	"github.com/kobako/kobako/internal/leb128"
)

var errBad = errors.New("bad")

type offErr struct {
	off int
	err error
}

func (e *offErr) Error() string { return fmt.Sprintf("@%d: %v", e.off, e.err) }
func (e *offErr) Unwrap() error { return errBad }

func reader(b []byte, base int) *binread.Reader {
	return binread.New(b, base, func(off int, err error) error { return &offErr{off, err} })
}

// Every malformed input is reported through the decoder's hook, at the absolute offset where
// the item that failed starts.
func TestReader_Errors(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		read    func(r *binread.Reader) error
		wantOff int
		want    string
	}{
		{"byte at end", nil, func(r *binread.Reader) error { _, err := r.Byte(); return err }, 100, "unexpected end"},
		{"peek at end", nil, func(r *binread.Reader) error { _, err := r.Peek(); return err }, 100, "unexpected end"},
		{"bytes past end", []byte{1, 2}, func(r *binread.Reader) error { _, err := r.Bytes(3); return err }, 100, "exceeds the 2 bytes"},
		{"u32 truncated", []byte{0x80}, func(r *binread.Reader) error { _, err := r.U32(); return err }, 100, ""},
		{"u32 too large", []byte{0xff, 0xff, 0xff, 0xff, 0x10}, func(r *binread.Reader) error { _, err := r.U32(); return err }, 100, ""},
		{"name too long", []byte{5, 'a'}, func(r *binread.Reader) error { _, err := r.Name(); return err }, 101, "name length 5"},
		{"name not UTF-8", []byte{2, 0xff, 0xfe}, func(r *binread.Reader) error { _, err := r.Name(); return err }, 100, "UTF-8"},
		{"count past end", []byte{3, 0, 0}, func(r *binread.Reader) error { _, err := r.Count("items", 1, 0); return err }, 100, "3 items need at least 3 bytes, only 2 remain"},
		{"count over limit", []byte{9}, func(r *binread.Reader) error { _, err := r.Count("items", 0, 8); return err }, 100, "9 items, over the limit of 8"},
		{"trailing bytes", []byte{1}, func(r *binread.Reader) error { return r.ExpectEnd("the section") }, 100, "1 unexpected bytes at the end of the section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read(reader(tt.b, 100))
			var oe *offErr
			if !errors.As(err, &oe) || !errors.Is(err, errBad) {
				t.Fatalf("err %v, want one made by the hook", err)
			}
			if oe.off != tt.wantOff || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v at %d, want %q at %d", err, oe.off, tt.want, tt.wantOff)
			}
		})
	}
}

// A count over the limit goes to OverLimit when it is set, and a count of zero-size items is not
// checked against the bytes that remain.
func TestReader_Count(t *testing.T) {
	over := errors.New("over")
	r := reader([]byte{9}, 0)
	r.OverLimit = func(off int, err error) error { return fmt.Errorf("%w: %w", over, err) }
	if _, err := r.Count("items", 1, 8); !errors.Is(err, over) {
		t.Fatalf("over the limit: %v", err)
	}
	if n, err := reader(leb128.AppendU32(nil, 200), 0).Count("repeats", 0, 0); err != nil || n != 200 {
		t.Fatalf("zero-size items: %d, %v", n, err)
	}
}

// What the leb128 package writes, the reader reads back, consuming exactly those bytes.
func TestReader_LEBRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := rapid.Uint32().Draw(t, "u32")
		u64 := rapid.Uint64().Draw(t, "u64")
		s := rapid.Int64().Draw(t, "s64")
		name := rapid.String().Draw(t, "name")
		b := leb128.AppendU32(nil, u)
		b = leb128.AppendU64(b, u64)
		b = leb128.AppendS64(b, s)
		b = leb128.AppendU32(b, uint32(len(name)))
		b = append(b, name...)
		r := reader(b, 0)
		gu, err1 := r.U32()
		gu64, err2 := r.U64()
		gs, err3 := r.Signed(64)
		gn, err4 := r.Name()
		if err := errors.Join(err1, err2, err3, err4); err != nil || gu != u || gu64 != u64 || gs != s || gn != name || !r.Done() {
			t.Fatalf("read back %d %d %d %q (%v), want %d %d %d %q", gu, gu64, gs, gn, err, u, u64, s, name)
		}
	})
}
