package abi

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestStoreWritesOnlyWhatSpecWrites lowers values into memory filled with 0xAA and checks every
// byte: the spec's store writes each scalar and nothing else, so padding and the unused bytes of a
// variant's payload keep the guest's 0xAA (a guest can observe them). Allocations start at 1024.
func TestStoreWritesOnlyWhatSpecWrites(t *testing.T) {
	optStr := Must(OptionOf(String))
	wide := Must(VariantOf(Case{Name: "a", Type: U8}, Case{Name: "b", Type: U64}))
	rec := Must(RecordOf(Field{Name: "b", Type: Bool}, Field{Name: "s", Type: String}))
	optU32 := Must(OptionOf(U32))
	u32 := func(x uint32) []byte { return binary.LittleEndian.AppendUint32(nil, x) }
	tests := []struct {
		name string
		typ  Type
		val  Value
		// want maps an address to the bytes written there; every other byte must stay 0xAA.
		want map[uint32][]byte
	}{
		{"option<string> some(\"\")", optStr, SomeValue(StringValue("")),
			map[uint32][]byte{64: {1}, 68: u32(1024), 72: u32(0)}},
		{"variant short case", wide, VariantValue(0, U8Value(7)),
			map[uint32][]byte{64: {0}, 72: {7}}},
		{"record bool string", rec, RecordValue(BoolValue(true), StringValue("hi")),
			map[uint32][]byte{64: {1}, 68: u32(1024), 72: u32(2), 1024: []byte("hi")}},
		{"list of records with strings", Must(ListOf(rec)),
			ListValue(RecordValue(BoolValue(true), StringValue("x")), RecordValue(BoolValue(false), StringValue("yz"))),
			map[uint32][]byte{64: u32(1024), 68: u32(2),
				1024: {1}, 1028: u32(1048), 1032: u32(1),
				1036: {0}, 1040: u32(1049), 1044: u32(2),
				1048: []byte("xyz")}},
		{"list of options", Must(ListOf(optU32)), ListValue(NoneValue(), SomeValue(U32Value(5))),
			map[uint32][]byte{64: u32(1024), 68: u32(2), 1024: {0}, 1032: {1}, 1036: u32(5)}},
		{"tuple in option", Must(OptionOf(Must(TupleOf(U8, String)))), SomeValue(TupleValue(U8Value(3), StringValue(""))),
			map[uint32][]byte{64: {1}, 68: {3}, 72: u32(1024), 76: u32(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(UTF8)
			e.mem.next = 1024
			want := bytes.Repeat([]byte{0xAA}, 2048)
			for i := range e.mem.buf {
				e.mem.buf[i] = 0xAA
			}
			for addr, b := range tt.want {
				copy(want[addr:], b)
			}
			if err := e.cx.Store(tt.typ, tt.val, 64); err != nil {
				t.Fatal(err)
			}
			if got := e.mem.buf[:len(want)]; !bytes.Equal(got, want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("byte %d = %#x, want %#x (memory %x)", i, got[i], want[i], got[64:96])
					}
				}
			}
		})
	}
}
