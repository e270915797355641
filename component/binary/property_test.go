package binary

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kobako/kobako/abi"
	"pgregory.net/rapid"
)

// typeEncoder writes random value types as a component type section, one definition per
// compound node (children first), and remembers the text each should print as.
type typeEncoder struct {
	defs  [][]byte
	texts []string
}

var prims = []PrimType{Bool, S8, U8, S16, U16, S32, U32, S64, U64, F32, F64, Char, String}

// valtype draws a value type and returns its valtype encoding and its text.
func (e *typeEncoder) valtype(t *rapid.T, depth int) ([]byte, string) {
	if depth == 0 || rapid.IntRange(0, 3).Draw(t, "leaf") == 0 {
		p := rapid.SampledFrom(prims).Draw(t, "prim")
		return []byte{byte(p)}, p.String()
	}
	labels := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "l" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		return out
	}
	var def []byte
	var text string
	switch kind := rapid.IntRange(0, 8).Draw(t, "kind"); kind {
	case 0, 8: // record; a wide one of primitives flattens to about the limits (16 and 32 values)
		n := rapid.IntRange(1, 4).Draw(t, "fields")
		if kind == 8 {
			n = rapid.SampledFrom([]int{15, 16, 17, 31, 32, 33}).Draw(t, "fields")
		}
		def = append([]byte{0x72}, leb(uint32(n))...)
		text = "record {"
		for i, l := range labels(n) {
			var vt []byte
			var s string
			if kind == 8 {
				p := rapid.SampledFrom(prims[:len(prims)-1]).Draw(t, "prim") // not string: one value each
				vt, s = []byte{byte(p)}, p.String()
			} else {
				vt, s = e.valtype(t, depth-1)
			}
			def = append(append(append(def, leb(uint32(len(l)))...), l...), vt...)
			if i > 0 {
				text += ","
			}
			text += " " + l + ": " + s
		}
		text += " }"
	case 1: // variant
		n := rapid.IntRange(1, 4).Draw(t, "cases")
		def = append([]byte{0x71}, leb(uint32(n))...)
		text = "variant {"
		for i, l := range labels(n) {
			def = append(append(def, leb(uint32(len(l)))...), l...)
			if i > 0 {
				text += ","
			}
			text += " " + l
			if rapid.Bool().Draw(t, "payload") {
				vt, s := e.valtype(t, depth-1)
				def = append(append(def, 0x01), vt...)
				text += "(" + s + ")"
			} else {
				def = append(def, 0x00)
			}
			def = append(def, 0x00)
		}
		text += " }"
	case 2: // list
		vt, s := e.valtype(t, depth-1)
		def, text = append([]byte{0x70}, vt...), "list<"+s+">"
	case 3: // tuple
		n := rapid.IntRange(1, 3).Draw(t, "elems")
		def = append([]byte{0x6f}, leb(uint32(n))...)
		text = "tuple<"
		for i := 0; i < n; i++ {
			vt, s := e.valtype(t, depth-1)
			def = append(def, vt...)
			if i > 0 {
				text += ", "
			}
			text += s
		}
		text += ">"
	case 4: // option
		vt, s := e.valtype(t, depth-1)
		def, text = append([]byte{0x6b}, vt...), "option<"+s+">"
	case 5: // result
		def, text = []byte{0x6a}, "result"
		okT, errT := rapid.Bool().Draw(t, "ok"), rapid.Bool().Draw(t, "err")
		var ss []string
		for _, has := range []bool{okT, errT} {
			if has {
				vt, s := e.valtype(t, depth-1)
				def = append(append(def, 0x01), vt...)
				ss = append(ss, s)
			} else {
				def = append(def, 0x00)
				ss = append(ss, "_")
			}
		}
		switch {
		case okT && errT, !okT && errT:
			text = "result<" + ss[0] + ", " + ss[1] + ">"
		case okT:
			text = "result<" + ss[0] + ">"
		}
	case 6, 7: // flags, enum
		n := rapid.IntRange(1, 40).Draw(t, "labels")
		if rapid.Bool().Draw(t, "edge") {
			// The sizes change after 8, 16 (flags) and 256 labels (enum: a u16 discriminant).
			n = rapid.SampledFrom([]int{8, 9, 16, 17, 32, 256, 257}).Draw(t, "labels")
		}
		op, name := byte(0x6d), "enum"
		if rapid.Bool().Draw(t, "flags") && n <= 32 {
			op, name = 0x6e, "flags"
		}
		def = append([]byte{op}, leb(uint32(n))...)
		ls := labels(n)
		for _, l := range ls {
			def = append(append(def, leb(uint32(len(l)))...), l...)
		}
		text = name + " { "
		for i, l := range ls {
			if i > 0 {
				text += ", "
			}
			text += l
		}
		text += " }"
	}
	e.defs = append(e.defs, def)
	e.texts = append(e.texts, text)
	return sleb(uint32(len(e.defs) - 1)), text
}

// TestPropertyValueTypes encodes random value types, decodes them and checks that the decoded
// types print as generated, and that the layout the decoder bounds them by and the layout of the
// abi.Type they convert to are both the canonical ABI's, as specLayout computes it.
func TestPropertyValueTypes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var e typeEncoder
		e.valtype(t, 5)
		if len(e.defs) == 0 {
			return
		}
		b := append(componentHeader(), section(secType, vec(e.defs...))...)
		c, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		var conv ABITypes
		for i, it := range c.Types {
			vt := it.Type.(ValType)
			if got := typeString(vt, 100); got != e.texts[i] {
				t.Fatalf("type %d = %s, want %s", i, got, e.texts[i])
			}
			want, want64 := specLayout(vt, 4), specLayout(vt, 8)
			var wantShort []CoreValType // what a Layout keeps
			if len(want.flat) <= 32 {
				wantShort = want.flat
			}
			l := vt.info().layout
			if uint64(l.Size()) != want.size || uint64(l.Align()) != want.align || l.Size64() != want64.size ||
				l.FlatLen() != len(want.flat) || !slices.Equal(l.Flat(), wantShort) {
				t.Fatalf("%s: decoder's layout: size %d, align %d, size64 %d, %d flat %v; want %d, %d, %d, %d %v",
					vt, l.Size(), l.Align(), l.Size64(), l.FlatLen(), l.Flat(), want.size, want.align, want64.size, len(want.flat), wantShort)
			}
			at, err := conv.Value(vt)
			if err != nil {
				t.Fatalf("abi type of %s: %v", vt, err)
			}
			if uint64(at.Size()) != want.size || uint64(at.Align()) != want.align || !slices.Equal(at.Flat(), want.flat) {
				t.Fatalf("%s: abi.Type: size %d, align %d, flat %v; want %d, %d, %v", vt, at.Size(), at.Align(), at.Flat(),
					want.size, want.align, want.flat)
			}
			var offsets []uint32
			switch at := at.(type) {
			case *abi.RecordType:
				for i := range at.NumFields() {
					offsets = append(offsets, at.Offset(i))
				}
			case *abi.TupleType:
				for i := range at.NumElems() {
					offsets = append(offsets, at.Offset(i))
				}
			}
			if !slices.Equal(offsets, want.offsets) {
				t.Fatalf("%s: abi.Type's field offsets %v, want %v", vt, offsets, want.offsets)
			}
		}
	})
}

// spec is a type's layout as specLayout computes it.
type spec struct {
	size, align uint64
	flat        []CoreValType
	offsets     []uint32 // of a record's or tuple's fields
}

// specLayout transcribes the canonical ABI's definitions (elem_size, alignment, flatten_type and
// the functions they call, in definitions.py) with pointers of ptr bytes, for the property test
// to check abi.Layout's arithmetic against. It computes on the decoder's types, recursively and
// without abi, so that it shares no code with what it checks.
func specLayout(t ValType, ptr uint64) spec {
	alignTo := func(x, a uint64) uint64 { return (x + a - 1) / a * a }
	switch t := t.(type) {
	case PrimType:
		switch t {
		case Bool, S8, U8:
			return spec{size: 1, align: 1, flat: []CoreValType{CoreI32}}
		case S16, U16:
			return spec{size: 2, align: 2, flat: []CoreValType{CoreI32}}
		case S32, U32, Char:
			return spec{size: 4, align: 4, flat: []CoreValType{CoreI32}}
		case S64, U64:
			return spec{size: 8, align: 8, flat: []CoreValType{CoreI64}}
		case F32:
			return spec{size: 4, align: 4, flat: []CoreValType{CoreF32}}
		case F64:
			return spec{size: 8, align: 8, flat: []CoreValType{CoreF64}}
		case String:
			return spec{size: 2 * ptr, align: ptr, flat: []CoreValType{CoreI32, CoreI32}}
		}
	case *ListType:
		return spec{size: 2 * ptr, align: ptr, flat: []CoreValType{CoreI32, CoreI32}}
	case *OwnType, *BorrowType:
		return spec{size: 4, align: 4, flat: []CoreValType{CoreI32}}
	case *FlagsType:
		n := uint64(4)
		if len(t.Names) <= 8 {
			n = 1
		} else if len(t.Names) <= 16 {
			n = 2
		}
		return spec{size: n, align: n, flat: []CoreValType{CoreI32}}
	case *RecordType, *TupleType:
		var fields []ValType
		if r, ok := t.(*RecordType); ok {
			for _, f := range r.Fields {
				fields = append(fields, f.Type)
			}
		} else {
			fields = t.(*TupleType).Elems
		}
		out := spec{align: 1}
		for _, f := range fields {
			fs := specLayout(f, ptr)
			out.size = alignTo(out.size, fs.align)
			out.offsets = append(out.offsets, uint32(out.size))
			out.size += fs.size
			out.align = max(out.align, fs.align)
			out.flat = append(out.flat, fs.flat...)
		}
		out.size = alignTo(out.size, out.align)
		return out
	case *VariantType:
		var ps []ValType
		for _, c := range t.Cases {
			ps = append(ps, c.Type)
		}
		return specVariant(ps, ptr)
	case *EnumType:
		return specVariant(make([]ValType, len(t.Names)), ptr)
	case *OptionType:
		return specVariant([]ValType{nil, t.Elem}, ptr)
	case *ResultType:
		return specVariant([]ValType{t.OK, t.Err}, ptr)
	}
	panic(fmt.Sprintf("specLayout: %T", t))
}

// specVariant is specLayout of a variant whose cases have the given payloads (nil for none).
func specVariant(payloads []ValType, ptr uint64) spec {
	alignTo := func(x, a uint64) uint64 { return (x + a - 1) / a * a }
	disc := uint64(4) // discriminant_type
	switch n := len(payloads); {
	case n <= 256:
		disc = 1
	case n <= 65536:
		disc = 2
	}
	caseAlign, caseSize := uint64(1), uint64(0)
	var flat []CoreValType
	for _, p := range payloads {
		if p == nil {
			continue
		}
		ps := specLayout(p, ptr)
		caseAlign, caseSize = max(caseAlign, ps.align), max(caseSize, ps.size)
		for i, ft := range ps.flat {
			if i >= len(flat) {
				flat = append(flat, ft)
				continue
			}
			switch { // join
			case flat[i] == ft:
			case flat[i] == CoreI32 && ft == CoreF32, flat[i] == CoreF32 && ft == CoreI32:
				flat[i] = CoreI32
			default:
				flat[i] = CoreI64
			}
		}
	}
	align := max(disc, caseAlign)
	return spec{size: alignTo(alignTo(disc, caseAlign)+caseSize, align), align: align,
		flat: append([]CoreValType{CoreI32}, flat...)}
}
