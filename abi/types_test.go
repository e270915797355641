package abi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func flatString(fs []CoreType) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func rec(fields ...Field) Type { return Must(RecordOf(fields...)) }
func tup(ts ...Type) Type      { return Must(TupleOf(ts...)) }
func vnt(cs ...Case) Type      { return Must(VariantOf(cs...)) }
func opt(t Type) Type          { return Must(OptionOf(t)) }
func res(ok, err Type) Type    { return Must(ResultOf(ok, err)) }
func lst(t Type) Type          { return Must(ListOf(t)) }
func flg(n int) Type           { return Must(FlagsOf(labels("f", n)...)) }
func enm(n int) Type           { return Must(EnumOf(labels("e", n)...)) }

// TestLayout checks sizes, alignments and flattenings worked out by hand from CanonicalABI.md.
func TestLayout(t *testing.T) {
	res1 := NewResourceType("r")
	tests := []struct {
		name  string
		typ   Type
		size  uint32
		align uint32
		flat  string
	}{
		{"bool", Bool, 1, 1, "[i32]"},
		{"s16", S16, 2, 2, "[i32]"},
		{"u64", U64, 8, 8, "[i64]"},
		{"f32", F32, 4, 4, "[f32]"},
		{"f64", F64, 8, 8, "[f64]"},
		{"char", Char, 4, 4, "[i32]"},
		{"string", String, 8, 4, "[i32 i32]"},
		{"list<u64>", lst(U64), 8, 4, "[i32 i32]"},
		{"own", Must(OwnOf(res1)), 4, 4, "[i32]"},
		{"borrow", Must(BorrowOf(res1)), 4, 4, "[i32]"},
		// Records with mixed alignment: each field at its own alignment, size rounded to the max.
		{"record{u8,u32,u16}", rec(Field{"a", U8}, Field{"b", U32}, Field{"c", U16}), 12, 4, "[i32 i32 i32]"},
		{"record{u8,u64}", rec(Field{"a", U8}, Field{"b", U64}), 16, 8, "[i32 i64]"},
		{"record{u16,u8}", rec(Field{"a", U16}, Field{"b", U8}), 4, 2, "[i32 i32]"},
		{"record{string,u8}", rec(Field{"a", String}, Field{"b", U8}), 12, 4, "[i32 i32 i32]"},
		{"tuple<u8,u16,u8>", tup(U8, U16, U8), 6, 2, "[i32 i32 i32]"},
		{"tuple<f32,f64>", tup(F32, F64), 16, 8, "[f32 f64]"},
		{"nested record", rec(Field{"a", U8}, Field{"b", tup(U8, U16)}), 6, 2, "[i32 i32 i32]"},
		// Variants: discriminant, payload at the max case alignment, joined flat types.
		{"variant{u8,u64}", vnt(Case{"a", U8}, Case{"b", U64}), 16, 8, "[i32 i64]"},
		{"variant{f32,u32} joins to i32", vnt(Case{"a", F32}, Case{"b", U32}), 8, 4, "[i32 i32]"},
		{"variant{f32,f32} keeps f32", vnt(Case{"a", F32}, Case{"b", F32}), 8, 4, "[i32 f32]"},
		{"variant{f64,u32} joins to i64", vnt(Case{"a", F64}, Case{"b", U32}), 16, 8, "[i32 i64]"},
		{"variant{f32,u64} joins to i64", vnt(Case{"a", F32}, Case{"b", U64}), 16, 8, "[i32 i64]"},
		{"variant{f32,f64} joins to i64", vnt(Case{"a", F32}, Case{"b", F64}), 16, 8, "[i32 i64]"},
		{"variant{f64,f64} keeps f64", vnt(Case{"a", F64}, Case{"b", F64}), 16, 8, "[i32 f64]"},
		{"variant of tuples joins slot-wise", vnt(Case{"a", tup(U32, F32)}, Case{"b", tup(F32, F64)}), 24, 8, "[i32 i32 i64]"},
		{"variant longer case extends", vnt(Case{"a", U8}, Case{"b", String}, Case{"c", nil}), 12, 4, "[i32 i32 i32]"},
		{"variant no payloads", vnt(Case{"a", nil}, Case{"b", nil}), 1, 1, "[i32]"},
		{"option<u8>", opt(U8), 2, 1, "[i32 i32]"},
		{"option<u64>", opt(U64), 16, 8, "[i32 i64]"},
		{"option<string>", opt(String), 12, 4, "[i32 i32 i32]"},
		{"option<f32>", opt(F32), 8, 4, "[i32 f32]"},
		{"result", res(nil, nil), 1, 1, "[i32]"},
		{"result<u32,string>", res(U32, String), 12, 4, "[i32 i32 i32]"},
		{"result<_,f64>", res(nil, F64), 16, 8, "[i32 f64]"},
		{"result<f32,u32>", res(F32, U32), 8, 4, "[i32 i32]"},
		// Discriminant widths.
		{"enum 1", enm(1), 1, 1, "[i32]"},
		{"enum 256", enm(256), 1, 1, "[i32]"},
		{"enum 257", enm(257), 2, 2, "[i32]"},
		{"enum 65536", enm(65536), 2, 2, "[i32]"},
		{"enum 65537", enm(65537), 4, 4, "[i32]"},
		{"variant 257 with u8", vnt(append([]Case{{"x", U8}}, casesN(256)...)...), 4, 2, "[i32 i32]"},
		// Flags widths.
		{"flags 1", flg(1), 1, 1, "[i32]"},
		{"flags 8", flg(8), 1, 1, "[i32]"},
		{"flags 9", flg(9), 2, 2, "[i32]"},
		{"flags 16", flg(16), 2, 2, "[i32]"},
		{"flags 17", flg(17), 4, 4, "[i32]"},
		{"flags 32", flg(32), 4, 4, "[i32]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.typ.Size() != tt.size || tt.typ.Align() != tt.align || flatString(tt.typ.Flat()) != tt.flat {
				t.Errorf("%s: size %d align %d flat %s, want %d %d %s", tt.typ, tt.typ.Size(), tt.typ.Align(),
					flatString(tt.typ.Flat()), tt.size, tt.align, tt.flat)
			}
			if tt.typ.FlatLen() != len(tt.typ.Flat()) {
				t.Errorf("FlatLen %d", tt.typ.FlatLen())
			}
		})
	}
}

func casesN(n int) []Case {
	cs := make([]Case, n)
	for i := range cs {
		cs[i].Name = fmt.Sprintf("n%d", i)
	}
	return cs
}

func TestRecordOffsets(t *testing.T) {
	r := Must(RecordOf(Field{"a", U8}, Field{"b", U64}, Field{"c", U16}, Field{"d", String}, Field{"e", Bool}))
	want := []uint32{0, 8, 16, 20, 28}
	for i, w := range want {
		if r.Offset(i) != w {
			t.Errorf("field %d offset %d, want %d", i, r.Offset(i), w)
		}
	}
	if r.Size() != 32 || r.Align() != 8 {
		t.Errorf("size %d align %d", r.Size(), r.Align())
	}
	v := Must(VariantOf(Case{"a", U8}, Case{"b", U64}))
	if v.payloadOff != 8 || v.DiscriminantSize() != 1 {
		t.Errorf("variant payload offset %d disc %d", v.payloadOff, v.DiscriminantSize())
	}
}

func TestTypeString(t *testing.T) {
	r := NewResourceType("file")
	tests := []struct {
		typ  Type
		want string
	}{
		{lst(U8), "list<u8>"},
		{rec(Field{"a", U32}, Field{"b", String}), "record { a: u32, b: string }"},
		{tup(U32, Char), "tuple<u32, char>"},
		{vnt(Case{"a", U32}, Case{"b", nil}), "variant { a(u32), b }"},
		{enm(2), "enum { e0, e1 }"},
		{opt(Bool), "option<bool>"},
		{res(nil, nil), "result"},
		{res(U8, nil), "result<u8>"},
		{res(nil, U8), "result<_, u8>"},
		{res(U8, String), "result<u8, string>"},
		{flg(2), "flags { f0, f1 }"},
		{Must(OwnOf(r)), "own<file>"},
		{Must(BorrowOf(r)), "borrow<file>"},
	}
	for _, tt := range tests {
		if got := tt.typ.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestTypes_Errors(t *testing.T) {
	big := Type(U8)
	for i := 0; i < 3; i++ {
		big = tup(big, big) // keep depth small
	}
	deep := Type(U8)
	for i := 1; i < MaxTypeDepth; i++ {
		deep = lst(deep) // depth MaxTypeDepth: allowed
	}
	hugeFields := make([]Field, 1<<13)
	hugeElem := Must(TupleOf(slices.Repeat([]Type{String}, 1<<13)...)) // 2^13 × 16 bytes (64-bit ABI) = 2^17
	for i := range hugeFields {
		hugeFields[i] = Field{fmt.Sprintf("f%d", i), hugeElem}
	}
	var nilList *ListType
	tests := []struct {
		name string
		make func() (Type, error)
		want error
	}{
		{"empty record", func() (Type, error) { return RecordOf() }, ErrInvalidType},
		{"duplicate field", func() (Type, error) { return RecordOf(Field{"a", U8}, Field{"a", U8}) }, ErrInvalidType},
		{"empty field name", func() (Type, error) { return RecordOf(Field{"", U8}) }, ErrInvalidType},
		{"nil field type", func() (Type, error) { return RecordOf(Field{"a", nil}) }, ErrInvalidType},
		{"typed nil field type", func() (Type, error) { return RecordOf(Field{"a", nilList}) }, ErrInvalidType},
		{"empty tuple", func() (Type, error) { return TupleOf() }, ErrInvalidType},
		{"empty variant", func() (Type, error) { return VariantOf() }, ErrInvalidType},
		{"duplicate case", func() (Type, error) { return VariantOf(Case{"a", nil}, Case{"a", U8}) }, ErrInvalidType},
		{"empty enum", func() (Type, error) { return EnumOf() }, ErrInvalidType},
		{"duplicate enum label", func() (Type, error) { return EnumOf("x", "x") }, ErrInvalidType},
		{"no flags", func() (Type, error) { return FlagsOf() }, ErrInvalidType},
		{"33 flags", func() (Type, error) { return FlagsOf(labels("f", 33)...) }, ErrInvalidType},
		{"duplicate flag", func() (Type, error) { return FlagsOf("a", "a") }, ErrInvalidType},
		{"nil list elem", func() (Type, error) { return ListOf(nil) }, ErrInvalidType},
		{"nil option", func() (Type, error) { return OptionOf(nil) }, ErrInvalidType},
		{"typed nil result", func() (Type, error) { return ResultOf(nilList, nil) }, ErrInvalidType},
		{"nil resource", func() (Type, error) { return OwnOf(nil) }, ErrInvalidType},
		{"too deep", func() (Type, error) { return ListOf(deep) }, ErrInvalidType},
		{"2^28 bytes", func() (Type, error) { return RecordOf(hugeFields...) }, ErrInvalidType},
		{"stream", func() (Type, error) { return StreamOf(U8) }, ErrAsync},
		{"future", func() (Type, error) { return FutureOf(nil) }, ErrAsync},
		{"error-context", func() (Type, error) { return ErrorContext() }, ErrAsync},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := tt.make()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, %v; want error %v", typ, err, tt.want)
			}
		})
	}
	if _, err := ListOf(big); err != nil {
		t.Errorf("small type refused: %v", err)
	}
	// The 64-bit bound counts strings as 16 bytes: 2^24 strings fit in 32 bits (2^27 bytes) but
	// not in 64 (2^28).
	ok := Must(TupleOf(slices.Repeat([]Type{String}, 1<<10)...))
	if _, err := TupleOf(slices.Repeat([]Type{ok}, 1<<14-1)...); err != nil {
		t.Errorf("type just under 2^28 bytes (64-bit) refused: %v", err)
	}
	if _, err := TupleOf(slices.Repeat([]Type{ok}, 1<<14)...); !errors.Is(err, ErrInvalidType) {
		t.Errorf("type of 2^28 bytes (64-bit) accepted: %v", err)
	}
}

func TestFuncSpill(t *testing.T) {
	u32s := func(n int) []Param {
		ps := make([]Param, n)
		for i := range ps {
			ps[i] = Param{fmt.Sprintf("p%d", i), U32}
		}
		return ps
	}
	tests := []struct {
		name        string
		params      []Param
		results     []Type
		lift, lower string
	}{
		{"nothing", nil, nil, "(func)", "(func)"},
		{"16 params flat", u32s(16), nil,
			"(func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32))",
			"(func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32))"},
		{"17 params spill", u32s(17), nil, "(func (param i32))", "(func (param i32))"},
		{"8 strings flat", []Param{{"a", String}, {"b", String}, {"c", String}, {"d", String}, {"e", String}, {"f", String}, {"g", String}, {"h", String}}, nil,
			"(func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32))",
			"(func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32))"},
		{"one u64 result flat", nil, []Type{U64}, "(func (result i64))", "(func (result i64))"},
		{"string result spills", nil, []Type{String}, "(func (result i32))", "(func (param i32))"},
		{"option<u8> result spills", u32s(1), []Type{opt(U8)}, "(func (param i32) (result i32))", "(func (param i32 i32))"},
		{"both spill", u32s(17), []Type{tup(U32, U32)}, "(func (param i32) (result i32))", "(func (param i32 i32))"},
		{"f32 param", []Param{{"x", F32}}, []Type{F64}, "(func (param f32) (result f64))", "(func (param f32) (result f64))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft, err := FuncOf(tt.params, tt.results...)
			if err != nil {
				t.Fatal(err)
			}
			if got := ft.CoreSignature(CanonLift).String(); got != tt.lift {
				t.Errorf("lift %s, want %s", got, tt.lift)
			}
			if got := ft.CoreSignature(CanonLower).String(); got != tt.lower {
				t.Errorf("lower %s, want %s", got, tt.lower)
			}
		})
	}
}

func TestFuncOf_Errors(t *testing.T) {
	r := NewResourceType("r")
	tests := []struct {
		name    string
		params  []Param
		results []Type
	}{
		{"duplicate param", []Param{{"a", U8}, {"a", U8}}, nil},
		{"nil param type", []Param{{"a", nil}}, nil},
		{"nil result", nil, []Type{nil}},
		{"borrow result", nil, []Type{Must(BorrowOf(r))}},
		{"borrow inside result", nil, []Type{opt(Must(BorrowOf(r)))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := FuncOf(tt.params, tt.results...); !errors.Is(err, ErrInvalidType) {
				t.Errorf("got %v, want ErrInvalidType", err)
			}
		})
	}
}

// The model below restates the specification's alignment, elem_size, flatten_type and
// despecialize, independently of the cached layout, for the property test.

type modelCase struct{ t Type }

func despecialize(t Type) (kind string, members []Type) {
	switch x := t.(type) {
	case *RecordType:
		for _, f := range x.fields {
			members = append(members, f.Type)
		}
		return "record", members
	case *TupleType:
		return "record", x.elems
	case *VariantType:
		return "variant", x.payloads
	case *EnumType:
		return "variant", make([]Type, len(x.names))
	case *OptionType:
		return "variant", []Type{nil, x.Elem()}
	case *ResultType:
		return "variant", []Type{x.Ok(), x.Err()}
	}
	return t.Kind().String(), nil
}

func modelDisc(n int) Type {
	switch int(math.Ceil(math.Log2(float64(n)) / 8)) {
	case 0, 1:
		return U8
	case 2:
		return U16
	}
	return U32
}

func modelAlign(t Type) uint32 {
	k, ms := despecialize(t)
	switch k {
	case "bool", "s8", "u8":
		return 1
	case "s16", "u16":
		return 2
	case "s32", "u32", "f32", "char", "own", "borrow", "string", "list":
		return 4
	case "s64", "u64", "f64":
		return 8
	case "record":
		a := uint32(1)
		for _, m := range ms {
			a = max(a, modelAlign(m))
		}
		return a
	case "variant":
		return max(modelAlign(modelDisc(len(ms))), modelMaxCaseAlign(ms))
	case "flags":
		n := t.(*FlagsType).NumLabels()
		switch {
		case n <= 8:
			return 1
		case n <= 16:
			return 2
		}
		return 4
	}
	panic(k)
}

func modelMaxCaseAlign(ms []Type) uint32 {
	a := uint32(1)
	for _, m := range ms {
		if m != nil {
			a = max(a, modelAlign(m))
		}
	}
	return a
}

func modelAlignTo(p, a uint32) uint32 { return uint32(math.Ceil(float64(p)/float64(a))) * a }

func modelSize(t Type) uint32 {
	k, ms := despecialize(t)
	switch k {
	case "string", "list":
		return 8
	case "record":
		s := uint32(0)
		for _, m := range ms {
			s = modelAlignTo(s, modelAlign(m)) + modelSize(m)
		}
		return modelAlignTo(s, modelAlign(t))
	case "variant":
		s := modelSize(modelDisc(len(ms)))
		s = modelAlignTo(s, modelMaxCaseAlign(ms))
		cs := uint32(0)
		for _, m := range ms {
			if m != nil {
				cs = max(cs, modelSize(m))
			}
		}
		return modelAlignTo(s+cs, modelAlign(t))
	case "flags":
		return modelAlign(t)
	}
	return modelAlign(t) // every other primitive's size equals its alignment
}

func modelFlat(t Type) []CoreType {
	k, ms := despecialize(t)
	switch k {
	case "s64", "u64":
		return []CoreType{CoreI64}
	case "f32":
		return []CoreType{CoreF32}
	case "f64":
		return []CoreType{CoreF64}
	case "string", "list":
		return []CoreType{CoreI32, CoreI32}
	case "record":
		var out []CoreType
		for _, m := range ms {
			out = append(out, modelFlat(m)...)
		}
		return out
	case "variant":
		var flat []CoreType
		for _, m := range ms {
			if m == nil {
				continue
			}
			for i, ft := range modelFlat(m) {
				if i < len(flat) {
					if flat[i] != ft {
						if (flat[i] == CoreI32 || flat[i] == CoreF32) && (ft == CoreI32 || ft == CoreF32) {
							flat[i] = CoreI32
						} else {
							flat[i] = CoreI64
						}
					}
				} else {
					flat = append(flat, ft)
				}
			}
		}
		return append([]CoreType{CoreI32}, flat...)
	}
	return []CoreType{CoreI32}
}

func TestLayoutMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, 4, true)
		if typ.Size() != modelSize(typ) || typ.Align() != modelAlign(typ) || !slices.Equal(typ.Flat(), modelFlat(typ)) {
			t.Fatalf("%s: size %d align %d flat %s; model %d %d %s", typ, typ.Size(), typ.Align(),
				flatString(typ.Flat()), modelSize(typ), modelAlign(typ), flatString(modelFlat(typ)))
		}
	})
}
