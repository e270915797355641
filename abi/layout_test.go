package abi

import (
	"slices"
	"strings"
	"testing"
)

// TestKindLayout checks that the kinds whose layout is fixed give their types' layouts, and that
// the others panic rather than guess.
func TestKindLayout(t *testing.T) {
	r := NewResourceType("r")
	fixed := []Type{Bool, S8, U8, S16, U16, S32, U32, S64, U64, F32, F64, Char, String, lst(U64),
		Must(OwnOf(r)), Must(BorrowOf(r))}
	for _, typ := range fixed {
		l := typ.Kind().Layout()
		if l.Size() != typ.Size() || l.Align() != typ.Align() || !slices.Equal(l.Flat(), typ.Flat()) || l.FlatLen() != typ.FlatLen() {
			t.Errorf("%s.Layout() = %d %d %v, type has %d %d %v", typ.Kind(), l.Size(), l.Align(), l.Flat(),
				typ.Size(), typ.Align(), typ.Flat())
		}
	}
	for _, k := range []Kind{KindInvalid, KindRecord, KindTuple, KindVariant, KindEnum, KindOption, KindResult, KindFlags, KindBorrow + 1} {
		wantPanic(t, k.String()+".Layout", "depends on more than its kind", func() { k.Layout() })
	}
}

// TestLayoutMisuse checks the panics that document the calculus's preconditions.
func TestLayoutMisuse(t *testing.T) {
	u8 := KindU8.Layout()
	tests := []struct {
		name, msg string
		f         func()
	}{
		{"flags 0", "flags with 0 labels", func() { FlagsLayout(0) }},
		{"flags 33", "flags with 33 labels", func() { FlagsLayout(MaxFlags + 1) }},
		{"empty record", "no fields", func() { RecordLayout() }},
		{"zero field", "zero Layout", func() { RecordLayout(u8, Layout{}) }},
		{"no cases", "variant of 0 cases", func() { VariantLayout(0) }},
		{"more payloads than cases", "1 cases with 2 payloads", func() { VariantLayout(1, u8, u8) }},
		{"zero payload", "zero Layout", func() { VariantLayout(2, Layout{}) }},
	}
	for _, tt := range tests {
		wantPanic(t, tt.name, tt.msg, tt.f)
	}
}

func wantPanic(t *testing.T, name, msg string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, msg) {
			t.Errorf("%s: panic %v, want one saying %q", name, r, msg)
		}
	}()
	f()
}

// TestLayoutLimits checks the two memory layouts and the flattening kept at the edges: a layout
// keeps flattenings of up to 32 core types and only counts longer ones.
func TestLayoutLimits(t *testing.T) {
	u8, str := KindU8.Layout(), KindString.Layout()
	fields := func(n int) []Layout { return slices.Repeat([]Layout{u8}, n) }
	tests := []struct {
		name           string
		l              Layout
		size, size64   uint64
		align, flatLen int
		kept           bool
	}{
		{"record{u8,string}", RecordLayout(u8, str), 12, 24, 4, 3, true},
		{"list is a pointer and a length", KindList.Layout(), 8, 16, 4, 2, true},
		{"32 u8s", RecordLayout(fields(32)...), 32, 32, 1, 32, true},
		{"33 u8s", RecordLayout(fields(33)...), 33, 33, 1, 33, false},
		{"variant of 31 u8s", VariantLayout(3, RecordLayout(fields(31)...), u8), 32, 32, 1, 32, true},
		{"variant of 32 u8s", VariantLayout(3, RecordLayout(fields(32)...)), 33, 33, 1, 33, false},
		{"option<string>", VariantLayout(2, str), 12, 24, 4, 3, true},
		{"enum of 257", VariantLayout(257), 2, 2, 2, 1, true},
		{"enum of 65537", VariantLayout(1<<16 + 1), 4, 4, 4, 1, true},
	}
	for _, tt := range tests {
		l := tt.l
		if uint64(l.Size()) != tt.size || l.Size64() != tt.size64 || int(l.Align()) != tt.align || l.FlatLen() != tt.flatLen ||
			(l.Flat() != nil) != tt.kept || tt.kept && len(l.Flat()) != tt.flatLen {
			t.Errorf("%s: size %d, size64 %d, align %d, %d flat %v; want %d, %d, %d, %d (kept %v)", tt.name,
				l.Size(), l.Size64(), l.Align(), l.FlatLen(), l.Flat(), tt.size, tt.size64, tt.align, tt.flatLen, tt.kept)
		}
	}
	// Doubling a record past 2^28 bytes caps the count of core values rather than overflowing
	// an int on 32-bit platforms; the layout is invalid, as Size64 says.
	l := u8
	for range 31 {
		l = RecordLayout(l, l)
	}
	if l.Size64() != 1<<31 || l.FlatLen() != maxFlatLen {
		t.Errorf("doubled record: size64 %d, %d flat; want %d, %d", l.Size64(), l.FlatLen(), uint64(1)<<31, maxFlatLen)
	}
}
