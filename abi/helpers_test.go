package abi

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMain makes every rapid property run 10,000 cases unless -rapid.checks or RAPID_CHECKS says
// otherwise, so CI covers each type family with at least that many.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if _, env := os.LookupEnv("RAPID_CHECKS"); !set && !env {
		_ = flag.Set("rapid.checks", "10000")
	}
	os.Exit(m.Run())
}

// movingMemory is a SliceMemory whose every Realloc moves the whole backing array, as a
// memory.grow may. A lowering that writes through a view taken before a realloc loses data here.
type movingMemory struct {
	*SliceMemory
}

func (m *movingMemory) Realloc(oldPtr, oldSize, align, newSize uint32) (uint32, error) {
	p, err := m.SliceMemory.Realloc(oldPtr, oldSize, align, newSize)
	m.buf = slices.Clone(m.buf)
	return p, err
}

type env struct {
	mem   *movingMemory
	table *Handles
	cx    *CallContext
}

func newEnv(enc StringEncoding) *env {
	m := &movingMemory{NewSliceMemory(1<<12, 64<<20)}
	tbl := NewHandles()
	return &env{mem: m, table: tbl, cx: &CallContext{
		Memory: m, Realloc: m.Realloc, Encoding: enc, Handles: tbl, Scope: &BorrowScope{},
	}}
}

var testResources = []*ResourceType{NewResourceType("file"), NewResourceType("socket")}

// genType draws a random type nesting at most depth levels of compound types.
func genType(t *rapid.T, depth int, borrow bool) Type {
	// rapid favours small numbers, so compound kinds are numbered from 0 when allowed.
	k := 0
	if depth > 0 && rapid.IntRange(0, 9).Draw(t, "compound") < 6 {
		k = 16 + rapid.IntRange(0, 6).Draw(t, "compoundkind")
	} else {
		k = rapid.IntRange(0, 15).Draw(t, "leafkind")
	}
	switch k {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12:
		return []Type{Bool, S8, U8, S16, U16, S32, U32, S64, U64, F32, F64, Char, String}[k]
	case 13:
		return Must(EnumOf(genLabels(t, "e")...))
	case 14:
		return Must(FlagsOf(labels("f", rapid.IntRange(1, 32).Draw(t, "nflags"))...))
	case 15:
		rt := rapid.SampledFrom(testResources).Draw(t, "resource")
		if borrow && rapid.Bool().Draw(t, "borrow") {
			return Must(BorrowOf(rt))
		}
		return Must(OwnOf(rt))
	case 16, 17:
		return Must(ListOf(genType(t, depth-1, borrow)))
	case 18:
		n := rapid.IntRange(1, 4).Draw(t, "nfields")
		fs := make([]Field, n)
		for i := range fs {
			fs[i] = Field{Name: fmt.Sprintf("r%d", i), Type: genType(t, depth-1, borrow)}
		}
		return Must(RecordOf(fs...))
	case 19:
		n := rapid.IntRange(1, 4).Draw(t, "nelems")
		es := make([]Type, n)
		for i := range es {
			es[i] = genType(t, depth-1, borrow)
		}
		return Must(TupleOf(es...))
	case 20:
		n := rapid.SampledFrom([]int{1, 2, 3, 4, 5, 256, 257}).Draw(t, "ncases")
		cs := make([]Case, n)
		for i := range cs {
			cs[i].Name = fmt.Sprintf("c%d", i)
			if (n < 10 || i%64 == 0) && rapid.Bool().Draw(t, "payload") {
				cs[i].Type = genType(t, depth-1, borrow)
			}
		}
		return Must(VariantOf(cs...))
	case 21:
		return Must(OptionOf(genType(t, depth-1, borrow)))
	default:
		var ok, er Type
		if rapid.Bool().Draw(t, "ok") {
			ok = genType(t, depth-1, borrow)
		}
		if rapid.Bool().Draw(t, "err") {
			er = genType(t, depth-1, borrow)
		}
		return Must(ResultOf(ok, er))
	}
}

func labels(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func genLabels(t *rapid.T, prefix string) []string {
	return labels(prefix, rapid.SampledFrom([]int{1, 2, 3, 7, 255, 256, 257}).Draw(t, "nlabels"))
}

// Floats are drawn as bit patterns, so every NaN payload and both zeros appear.
var specialF32 = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc00001, 0xffffffff, 0x7f800001, 1}
var specialF64 = []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001, math.MaxUint64}

func genF32(t *rapid.T) uint32 {
	if rapid.Bool().Draw(t, "special") {
		return rapid.SampledFrom(specialF32).Draw(t, "f32")
	}
	return rapid.Uint32().Draw(t, "f32")
}

func genF64(t *rapid.T) uint64 {
	if rapid.Bool().Draw(t, "special") {
		return rapid.SampledFrom(specialF64).Draw(t, "f64")
	}
	return rapid.Uint64().Draw(t, "f64")
}

// genChar draws Unicode scalar values from every UTF-8 and UTF-16 length class.
func genChar(t *rapid.T) rune {
	switch rapid.IntRange(0, 4).Draw(t, "charclass") {
	case 0:
		return rune(rapid.IntRange(0, 0x7F).Draw(t, "ascii"))
	case 1:
		return rune(rapid.IntRange(0x80, 0xFF).Draw(t, "latin1"))
	case 2:
		return rune(rapid.IntRange(0x100, 0xD7FF).Draw(t, "bmp"))
	case 3:
		return rune(rapid.IntRange(0xE000, 0xFFFF).Draw(t, "bmp2"))
	}
	return rune(rapid.IntRange(0x10000, 0x10FFFF).Draw(t, "astral"))
}

// genString draws strings of up to 40 code points; runs of ASCII exercise the transcoders'
// eight-at-a-time fast paths, with other code points at every offset.
func genString(t *rapid.T) string {
	n := rapid.IntRange(0, 40).Draw(t, "strlen")
	mode := rapid.IntRange(0, 2).Draw(t, "strmode") // 0 any, 1 Latin-1 only, 2 mostly ASCII
	rs := make([]rune, n)
	for i := range rs {
		switch {
		case mode == 1:
			rs[i] = rune(rapid.IntRange(0, 0xFF).Draw(t, "l1"))
		case mode == 2 && rapid.IntRange(0, 9).Draw(t, "rare") != 0:
			rs[i] = rune(rapid.IntRange(0x20, 0x7E).Draw(t, "a"))
		default:
			rs[i] = genChar(t)
		}
	}
	return string(rs)
}

// genValue draws a value of type typ.
func genValue(t *rapid.T, typ Type) Value {
	switch typ.Kind() {
	case KindBool:
		return BoolValue(rapid.Bool().Draw(t, "bool"))
	case KindS8:
		return S8Value(rapid.Int8().Draw(t, "s8"))
	case KindU8:
		return U8Value(rapid.Uint8().Draw(t, "u8"))
	case KindS16:
		return S16Value(rapid.Int16().Draw(t, "s16"))
	case KindU16:
		return U16Value(rapid.Uint16().Draw(t, "u16"))
	case KindS32:
		return S32Value(rapid.Int32().Draw(t, "s32"))
	case KindU32:
		return U32Value(rapid.Uint32().Draw(t, "u32"))
	case KindS64:
		return S64Value(rapid.Int64().Draw(t, "s64"))
	case KindU64:
		return U64Value(rapid.Uint64().Draw(t, "u64"))
	case KindF32:
		return F32Value(math.Float32frombits(genF32(t)))
	case KindF64:
		return F64Value(math.Float64frombits(genF64(t)))
	case KindChar:
		return CharValue(genChar(t))
	case KindString:
		return StringValue(genString(t))
	case KindList:
		elem := typ.(*ListType).elem
		n := rapid.IntRange(0, 4).Draw(t, "listlen")
		es := make([]Value, n)
		for i := range es {
			es[i] = genValue(t, elem)
		}
		if elem.Kind() == KindU8 && rapid.Bool().Draw(t, "bytes") {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(es[i].num)
			}
			return BytesValue(b)
		}
		if packedSize(elem.Kind()) != 0 && rapid.Bool().Draw(t, "packed") {
			raw := make([]byte, n*int(packedSize(elem.Kind())))
			for i, e := range es {
				putNum(elem.Kind(), raw[i*int(packedSize(elem.Kind())):], e.num)
			}
			return packedValue(elem.Kind(), raw)
		}
		return ListValue(es...)
	case KindRecord:
		r := typ.(*RecordType)
		es := make([]Value, len(r.fields))
		for i, f := range r.fields {
			es[i] = genValue(t, f.Type)
		}
		return RecordValue(es...)
	case KindTuple:
		tt := typ.(*TupleType)
		es := make([]Value, len(tt.elems))
		for i, e := range tt.elems {
			es[i] = genValue(t, e)
		}
		return TupleValue(es...)
	case KindVariant, KindEnum, KindOption, KindResult:
		c := casesOf(typ)
		d := rapid.IntRange(0, c.numCases()-1).Draw(t, "case")
		var p Value
		if pt := c.payloads[d]; pt != nil {
			p = genValue(t, pt)
		}
		return payloadValue(typ.Kind(), uint64(d), p)
	case KindFlags:
		return FlagsValue(rapid.Uint32().Draw(t, "flags") & flagsMask(len(typ.(*FlagsType).labels)))
	case KindOwn:
		return OwnValue(rapid.Uint32().Draw(t, "rep"))
	case KindBorrow:
		return BorrowValue(rapid.Uint32().Draw(t, "rep"))
	}
	t.Fatalf("genValue: kind %s", typ.Kind())
	return Value{}
}

func putNum(k Kind, b []byte, num uint64) {
	switch packedSize(k) {
	case 1:
		b[0] = byte(num)
	case 2:
		le.PutUint16(b, uint16(num))
	case 4:
		le.PutUint32(b, uint32(num))
	case 8:
		le.PutUint64(b, num)
	}
}

// roundTripMemory stores v at a fresh allocation and loads it back.
func roundTripMemory(t *rapid.T, e *env, typ Type, v Value) Value {
	ptr, err := e.mem.Realloc(0, 0, typ.Align(), typ.Size())
	if err != nil {
		t.Fatalf("alloc: %v", err)
	}
	if err := e.cx.Store(typ, v, ptr); err != nil {
		t.Fatalf("store %s as %s: %v", v, typ, err)
	}
	got, err := e.cx.Load(typ, ptr)
	if err != nil {
		t.Fatalf("load %s: %v", typ, err)
	}
	return got
}

func roundTripFlat(t *rapid.T, e *env, typ Type, v Value) Value {
	flat, err := e.cx.LowerFlat(typ, v)
	if err != nil {
		t.Fatalf("lower flat %s as %s: %v", v, typ, err)
	}
	if len(flat) != typ.FlatLen() {
		t.Fatalf("lower flat %s: %d values, want %d", typ, len(flat), typ.FlatLen())
	}
	got, err := e.cx.LiftFlat(typ, flat)
	if err != nil {
		t.Fatalf("lift flat %s from %v: %v", typ, flat, err)
	}
	return got
}

func float32FromBits(b uint32) float32 { return math.Float32frombits(b) }
