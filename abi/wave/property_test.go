package wave

import (
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/kobako/kobako/abi"
	"pgregory.net/rapid"
)

// labelPool mixes plain labels, keywords (which cases must escape) and upper-case words.
var labelPool = []string{"a", "b-c", "x1", "ok", "err", "none", "some", "true", "false", "nan", "inf",
	"HTTP3", "method-GET", "long-label-name", "z"}

func drawLabels(t *rapid.T, name string, min, max int) []string {
	n := rapid.IntRange(min, max).Draw(t, name+"-n")
	perm := rapid.Permutation(labelPool).Draw(t, name)
	return perm[:n]
}

var primTypes = []abi.Type{abi.Bool, abi.S8, abi.U8, abi.S16, abi.U16, abi.S32, abi.U32, abi.S64, abi.U64,
	abi.F32, abi.F64, abi.Char, abi.String}

// genType draws a WIT value type (no resource handles, which have no parseable text form) nesting
// at most depth levels.
func genType(t *rapid.T, depth int) abi.Type {
	if depth <= 0 {
		return rapid.SampledFrom(primTypes).Draw(t, "prim")
	}
	d := depth - 1
	switch rapid.IntRange(0, 10).Draw(t, "kind") {
	case 0:
		return abi.Must(abi.ListOf(genType(t, d)))
	case 1:
		names := drawLabels(t, "fields", 1, 4)
		fs := make([]abi.Field, len(names))
		for i, n := range names {
			fs[i] = abi.Field{Name: n, Type: genType(t, d)}
		}
		return abi.Must(abi.RecordOf(fs...))
	case 2:
		n := rapid.IntRange(1, 4).Draw(t, "elems")
		es := make([]abi.Type, n)
		for i := range es {
			es[i] = genType(t, d)
		}
		return abi.Must(abi.TupleOf(es...))
	case 3:
		names := drawLabels(t, "cases", 1, 4)
		cs := make([]abi.Case, len(names))
		for i, n := range names {
			cs[i].Name = n
			if rapid.Bool().Draw(t, "payload") {
				cs[i].Type = genType(t, d)
			}
		}
		return abi.Must(abi.VariantOf(cs...))
	case 4:
		return abi.Must(abi.EnumOf(drawLabels(t, "enum", 1, 5)...))
	case 5:
		return abi.Must(abi.OptionOf(genType(t, d)))
	case 6:
		var ok, e abi.Type
		if rapid.Bool().Draw(t, "ok") {
			ok = genType(t, d)
		}
		if rapid.Bool().Draw(t, "err") {
			e = genType(t, d)
		}
		return abi.Must(abi.ResultOf(ok, e))
	case 7:
		return abi.Must(abi.FlagsOf(drawLabels(t, "flags", 1, 6)...))
	}
	return rapid.SampledFrom(primTypes).Draw(t, "prim")
}

func genValue(t *rapid.T, typ abi.Type) abi.Value {
	switch typ.Kind() {
	case abi.KindBool:
		return abi.BoolValue(rapid.Bool().Draw(t, "bool"))
	case abi.KindS8:
		return abi.S8Value(rapid.Int8().Draw(t, "s8"))
	case abi.KindS16:
		return abi.S16Value(rapid.Int16().Draw(t, "s16"))
	case abi.KindS32:
		return abi.S32Value(rapid.Int32().Draw(t, "s32"))
	case abi.KindS64:
		return abi.S64Value(rapid.Int64().Draw(t, "s64"))
	case abi.KindU8:
		return abi.U8Value(rapid.Uint8().Draw(t, "u8"))
	case abi.KindU16:
		return abi.U16Value(rapid.Uint16().Draw(t, "u16"))
	case abi.KindU32:
		return abi.U32Value(rapid.Uint32().Draw(t, "u32"))
	case abi.KindU64:
		return abi.U64Value(rapid.Uint64().Draw(t, "u64"))
	case abi.KindF32:
		return abi.F32Value(math.Float32frombits(rapid.Uint32().Draw(t, "f32")))
	case abi.KindF64:
		return abi.F64Value(math.Float64frombits(rapid.Uint64().Draw(t, "f64")))
	case abi.KindChar:
		return abi.CharValue(drawScalar(t))
	case abi.KindString:
		rs := rapid.SliceOfN(rapid.Custom(drawScalar), 0, 8).Draw(t, "string")
		return abi.StringValue(string(rs))
	case abi.KindList:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		es := make([]abi.Value, n)
		for i := range es {
			es[i] = genValue(t, typ.(*abi.ListType).Elem())
		}
		return abi.ListValue(es...)
	case abi.KindRecord:
		r := typ.(*abi.RecordType)
		es := make([]abi.Value, r.NumFields())
		for i := range es {
			es[i] = genValue(t, r.Field(i).Type)
		}
		return abi.RecordValue(es...)
	case abi.KindTuple:
		tt := typ.(*abi.TupleType)
		es := make([]abi.Value, tt.NumElems())
		for i := range es {
			es[i] = genValue(t, tt.Elem(i))
		}
		return abi.TupleValue(es...)
	case abi.KindVariant:
		cs := typ.(*abi.VariantType).Cases()
		c := rapid.IntRange(0, len(cs)-1).Draw(t, "case")
		var p abi.Value
		if cs[c].Type != nil {
			p = genValue(t, cs[c].Type)
		}
		return abi.VariantValue(uint32(c), p)
	case abi.KindEnum:
		return abi.EnumValue(uint32(rapid.IntRange(0, typ.(*abi.EnumType).NumCases()-1).Draw(t, "case")))
	case abi.KindOption:
		if rapid.Bool().Draw(t, "some") {
			return abi.SomeValue(genValue(t, typ.(*abi.OptionType).Elem()))
		}
		return abi.NoneValue()
	case abi.KindResult:
		r := typ.(*abi.ResultType)
		if rapid.Bool().Draw(t, "isErr") {
			var p abi.Value
			if r.Err() != nil {
				p = genValue(t, r.Err())
			}
			return abi.ErrValue(p)
		}
		var p abi.Value
		if r.Ok() != nil {
			p = genValue(t, r.Ok())
		}
		return abi.OkValue(p)
	case abi.KindFlags:
		f := typ.(*abi.FlagsType)
		return abi.FlagsValue(rapid.Uint32().Draw(t, "bits") & f.Mask())
	}
	t.Fatalf("genValue: unexpected type %s", typ)
	return abi.Value{}
}

// drawScalar draws a Unicode scalar value, favouring the characters that need escaping.
func drawScalar(t *rapid.T) rune {
	if rapid.Bool().Draw(t, "special") {
		return rapid.SampledFrom([]rune{'\'', '"', '\\', '\n', '\r', '\t', 0, 0x7f, 0x300, 0x200b, 0xfeff, '/', ' ', '%'}).Draw(t, "rune")
	}
	for {
		r := rapid.Int32Range(0, utf8.MaxRune).Draw(t, "rune")
		if utf8.ValidRune(r) {
			return r
		}
	}
}

// TestPropertyRoundTrip: printing any value and parsing the text gives the value back, and
// printing is a fixed point.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, rapid.IntRange(0, 3).Draw(t, "depth"))
		v := genValue(t, typ)
		s := FormatValue(typ, v)
		got, err := ParseValue(typ, s)
		if err != nil {
			t.Fatalf("ParseValue(%s, %s): %v", typ, s, err)
		}
		if !abi.Equal(got, v) {
			t.Fatalf("round trip of %s as %s: got %s", s, typ, FormatValue(typ, got))
		}
		if s2 := FormatValue(typ, got); s2 != s {
			t.Fatalf("format not stable: %s then %s", s, s2)
		}
	})
}

// TestPropertyCallRoundTrip: a call written from formatted arguments splits and parses back.
func TestPropertyCallRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 4).Draw(t, "params")
		types := make([]abi.Type, n)
		vals := make([]abi.Value, n)
		text := "my-func("
		for i := range types {
			types[i] = genType(t, 2)
			vals[i] = genValue(t, types[i])
			if i > 0 {
				text += ", "
			}
			text += FormatValue(types[i], vals[i])
		}
		text += ")"
		c, err := ParseCall(text)
		if err != nil {
			t.Fatalf("ParseCall(%s): %v", text, err)
		}
		if len(c.Args) != n {
			t.Fatalf("ParseCall(%s): %d args, want %d", text, len(c.Args), n)
		}
		got, err := ParseArgs(types, c)
		if err != nil {
			t.Fatalf("ParseArgs(%s): %v", text, err)
		}
		for i := range got {
			if !abi.Equal(got[i], vals[i]) {
				t.Fatalf("argument %d: got %s, want %s", i, got[i], vals[i])
			}
		}
	})
}

// TestFloatShortest: floats print the shortest decimal that reads back bit for bit.
func TestFloatShortest(t *testing.T) {
	for _, f := range []float32{0.1, 1.5e-45, math.MaxFloat32, 16777217} {
		s := FormatValue(abi.F32, abi.F32Value(f))
		if g, err := strconv.ParseFloat(s, 32); err != nil || float32(g) != f {
			t.Errorf("f32 %g printed as %s", f, s)
		}
	}
}
