package fuzz

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kobako/kobako/abi"
)

// byteSource hands out fuzz input bytes, then zeros.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSource) u32() uint32 {
	return uint32(s.next()) | uint32(s.next())<<8 | uint32(s.next())<<16 | uint32(s.next())<<24
}

var fuzzResources = []*abi.ResourceType{abi.NewResourceType("a"), abi.NewResourceType("b")}

func labels(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// typeFrom decodes a type from fuzz bytes. Every byte string decodes to some valid type.
func typeFrom(s *byteSource, depth int) abi.Type {
	prims := []abi.Type{abi.Bool, abi.S8, abi.U8, abi.S16, abi.U16, abi.S32, abi.U32, abi.S64, abi.U64,
		abi.F32, abi.F64, abi.Char, abi.String}
	k := int(s.next())
	if depth <= 0 {
		k %= len(prims) + 4
	} else {
		k %= len(prims) + 11
	}
	switch k - len(prims) {
	case 0:
		n := 1 + int(s.next())
		if s.next()&1 == 1 {
			n += 256 // a u16 discriminant
		}
		return abi.Must(abi.EnumOf(labels("e", n)...))
	case 1:
		return abi.Must(abi.FlagsOf(labels("f", 1+int(s.next()%32))...))
	case 2:
		return abi.Must(abi.OwnOf(fuzzResources[s.next()%2]))
	case 3:
		return abi.Must(abi.BorrowOf(fuzzResources[s.next()%2]))
	case 4, 5:
		return abi.Must(abi.ListOf(typeFrom(s, depth-1)))
	case 6:
		fs := make([]abi.Field, 1+s.next()%4)
		for i := range fs {
			fs[i] = abi.Field{Name: fmt.Sprintf("f%d", i), Type: typeFrom(s, depth-1)}
		}
		return abi.Must(abi.RecordOf(fs...))
	case 7:
		ts := make([]abi.Type, 1+s.next()%4)
		for i := range ts {
			ts[i] = typeFrom(s, depth-1)
		}
		return abi.Must(abi.TupleOf(ts...))
	case 8:
		cs := make([]abi.Case, 1+s.next()%5)
		for i := range cs {
			cs[i].Name = fmt.Sprintf("c%d", i)
			if s.next()&1 == 1 {
				cs[i].Type = typeFrom(s, depth-1)
			}
		}
		return abi.Must(abi.VariantOf(cs...))
	case 9:
		return abi.Must(abi.OptionOf(typeFrom(s, depth-1)))
	case 10:
		var ok, er abi.Type
		if b := s.next(); b&1 == 1 {
			ok = typeFrom(s, depth-1)
		} else if b&2 == 2 {
			er = typeFrom(s, depth-1)
		}
		return abi.Must(abi.ResultOf(ok, er))
	}
	return prims[k]
}

// guestTable returns a handle table with own and borrow handles of both resource types, so that
// fuzzed handle numbers sometimes name something.
func guestTable() *abi.Handles {
	t := abi.NewHandles()
	for i := uint32(0); i < 8; i++ {
		rt := fuzzResources[i%2]
		if i < 4 {
			_, _ = t.New(rt, 1000+i)
		} else {
			_, _ = t.LowerBorrow(rt, 1000+i, &abi.BorrowScope{})
		}
	}
	return t
}

type fuzzCase struct {
	typ  abi.Type
	enc  abi.StringEncoding
	ptr  uint32
	mem  *abi.SliceMemory
	rest *byteSource
}

func decodeCase(data []byte) fuzzCase {
	s := &byteSource{b: data}
	typ := typeFrom(s, 3)
	enc := abi.StringEncoding(s.next() % 3)
	ptr := s.u32()
	mem := abi.NewSliceMemory(uint32(max(len(s.b), 64)), 1<<16)
	mem.Write(0, s.b)
	if mem.Size() > 0 && ptr > mem.Size() && ptr&0x80000000 == 0 {
		ptr %= mem.Size() // mostly in range, sometimes far out
	}
	return fuzzCase{typ: typ, enc: enc, ptr: ptr, mem: mem, rest: s}
}

func liftContext(mem abi.Memory, enc abi.StringEncoding) *abi.CallContext {
	return &abi.CallContext{Memory: mem, Encoding: enc, Handles: guestTable(), Scope: &abi.BorrowScope{},
		MaxLiftBytes: 4 << 20}
}

func lowerContext(enc abi.StringEncoding) (*abi.CallContext, *abi.SliceMemory) {
	mem := abi.NewSliceMemory(1<<12, 64<<20)
	return &abi.CallContext{Memory: mem, Realloc: mem.Realloc, Encoding: enc, Handles: abi.NewHandles(),
		Scope: &abi.BorrowScope{}, MaxLiftBytes: 64 << 20}, mem
}

// checkRelower lowers a lifted value into fresh memory (in a possibly different encoding) and
// lifts it again: it must be the same value.
func checkRelower(t *testing.T, typ abi.Type, v abi.Value, enc abi.StringEncoding) {
	cx, mem := lowerContext(enc)
	ptr, err := mem.Realloc(0, 0, typ.Align(), typ.Size())
	if err != nil {
		t.Fatal(err)
	}
	if err := cx.Store(typ, v, ptr); err != nil {
		t.Fatalf("lifted %s as %s but cannot lower it: %v", v, typ, err)
	}
	back, err := cx.Load(typ, ptr)
	if err != nil || !abi.Equal(back, v) {
		t.Fatalf("%s: lowered %s, lifted %s (%v)", typ, v, back, err)
	}
	flat, err := cx.LowerFlat(typ, v)
	if err != nil {
		t.Fatalf("lower flat %s: %v", v, err)
	}
	back, err = cx.LiftFlat(typ, flat)
	if err != nil || !abi.Equal(back, v) {
		t.Fatalf("%s flat: lowered %s, lifted %s (%v)", typ, v, back, err)
	}
}

func seeds(f *testing.F) {
	f.Add([]byte{12, 0, 0, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'}) // string
	f.Add([]byte{17, 2, 0, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 1, 2})          // list<u8>
	f.Add([]byte{21, 1, 11, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xd8, 0, 0, 0})      // variant with char
	f.Add([]byte{22, 12, 2, 0, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0x3d, 0xd8, 0x00, 0xde})
	f.Add([]byte{19, 3, 12, 9, 15, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 1, 0, 0, 0})
}

// FuzzLiftMemory lifts arbitrary memory contents as arbitrary types: it never panics, and any
// value that lifts lowers back to bytes that lift to the same value.
func FuzzLiftMemory(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeCase(data)
		v, err := liftContext(c.mem, c.enc).Load(c.typ, c.ptr)
		if err != nil {
			var pe *abi.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *abi.PathError: %v", err, err)
			}
			return
		}
		checkRelower(t, c.typ, v, abi.StringEncoding((int(c.enc)+int(c.ptr))%3))
	})
}

// FuzzLiftFlat does the same for flat core values.
func FuzzLiftFlat(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeCase(data)
		n := c.typ.FlatLen()
		flat := make([]uint64, n)
		for i := range flat {
			// Mostly small numbers (discriminants, in-range pointers), sometimes full 64 bits.
			flat[i] = uint64(c.rest.next())
			if b := c.rest.next(); b&1 == 1 {
				flat[i] = uint64(c.rest.u32()) | uint64(c.rest.u32())<<32
			} else if b&2 == 2 {
				flat[i] = uint64(c.rest.u32() % c.mem.Size())
			}
		}
		v, err := liftContext(c.mem, c.enc).LiftFlat(c.typ, flat)
		if err != nil {
			return
		}
		checkRelower(t, c.typ, v, c.enc)
	})
}

type fuzzRecord struct {
	Name   string
	Bytes  []byte
	Nums   []float32
	Choice fuzzChoice
	Maybe  *int16
	Res    abi.Result[uint64, string]
	Flags  uint16
	Kind   uint8
	Nested []fuzzPair
}

type fuzzChoice struct {
	A *uint32
	B *string
	C bool
}

type fuzzPair struct {
	X rune
	Y abi.Option[bool]
}

var fuzzRecordType = abi.Must(abi.RecordOf(
	abi.Field{Name: "name", Type: abi.String},
	abi.Field{Name: "bytes", Type: abi.Must(abi.ListOf(abi.U8))},
	abi.Field{Name: "nums", Type: abi.Must(abi.ListOf(abi.F32))},
	abi.Field{Name: "choice", Type: abi.Must(abi.VariantOf(abi.Case{Name: "a", Type: abi.U32},
		abi.Case{Name: "b", Type: abi.String}, abi.Case{Name: "c"}))},
	abi.Field{Name: "maybe", Type: abi.Must(abi.OptionOf(abi.S16))},
	abi.Field{Name: "res", Type: abi.Must(abi.ResultOf(abi.U64, abi.String))},
	abi.Field{Name: "flags", Type: abi.Must(abi.FlagsOf(labels("f", 12)...))},
	abi.Field{Name: "kind", Type: abi.Must(abi.EnumOf(labels("k", 5)...))},
	abi.Field{Name: "nested", Type: abi.Must(abi.ListOf(abi.Must(abi.TupleOf(abi.Char, abi.Must(abi.OptionOf(abi.Bool))))))},
))

// FuzzTypedAgreesWithDynamic lifts a fixed record type from fuzzed memory, converts it to Go and
// back, and lowers it through the typed and the dynamic path: same value, same bytes.
func FuzzTypedAgreesWithDynamic(f *testing.F) {
	codec := abi.Must(abi.CodecFor[fuzzRecord](fuzzRecordType))
	f.Add([]byte{0, 0, 0, 0})
	f.Add(make([]byte, 256))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &byteSource{b: data}
		enc := abi.StringEncoding(s.next() % 3)
		mem := abi.NewSliceMemory(uint32(max(len(s.b), int(fuzzRecordType.Size()))), 1<<16)
		mem.Write(0, s.b)
		v, err := liftContext(mem, enc).Load(fuzzRecordType, 0)
		if err != nil {
			return
		}
		x, err := codec.FromValue(v)
		if err != nil {
			t.Fatalf("lifted %s but the codec refuses it: %v", v, err)
		}
		if back, err := codec.ToValue(x); err != nil || !abi.Equal(back, v) {
			t.Fatalf("ToValue(FromValue(%s)) = %s, %v", v, back, err)
		}
		cxa, ma := lowerContext(enc)
		cxb, mb := lowerContext(enc)
		fa, errA := codec.LowerFlat(cxa, x)
		fb, errB := cxb.LowerFlat(fuzzRecordType, v)
		if errA != nil || errB != nil || !slices.Equal(fa, fb) || !slices.Equal(ma.Bytes(), mb.Bytes()) {
			t.Fatalf("typed lowering %v (%v) differs from dynamic %v (%v)", fa, errA, fb, errB)
		}
		got, err := codec.LiftFlat(cxa, fa)
		if err != nil {
			t.Fatal(err)
		}
		if gv, _ := codec.ToValue(got); !abi.Equal(gv, v) {
			t.Fatalf("typed round trip changed %s", v)
		}
	})
}
