package binary

import (
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
	switch rapid.IntRange(0, 7).Draw(t, "kind") {
	case 0: // record
		n := rapid.IntRange(1, 4).Draw(t, "fields")
		def = append([]byte{0x72}, leb(uint32(n))...)
		text = "record {"
		for i, l := range labels(n) {
			vt, s := e.valtype(t, depth-1)
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

// TestPropertyValueTypes encodes random value types, decodes them and checks the decoded types
// print as generated and flatten as package abi flattens them.
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
			at, err := conv.Value(vt)
			if err != nil {
				t.Fatalf("abi type of %s: %v", vt, err)
			}
			vi := vt.info()
			if vi.flatOver != (at.FlatLen() > maxFlatParams) {
				t.Fatalf("%s: flattening over %d: decoder %v, abi %d values", vt, maxFlatParams, vi.flatOver, at.FlatLen())
			}
			if !vi.flatOver {
				want := make([]CoreValType, 0, at.FlatLen())
				for _, c := range at.Flat() {
					want = append(want, map[abi.CoreType]CoreValType{abi.CoreI32: CoreI32, abi.CoreI64: CoreI64, abi.CoreF32: CoreF32, abi.CoreF64: CoreF64}[c])
				}
				if !slices.Equal(vi.flat, want) {
					t.Fatalf("%s: decoder flattens to %v, abi to %v", vt, vi.flat, want)
				}
			}
		}
	})
}
