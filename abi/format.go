package abi

import (
	"math"
	"strconv"
	"strings"
)

// String renders v without its type: records as {a, b}, tuples as (a, b), variant and enum cases
// by number (#1(payload)), flags as a set of bit numbers ({#0, #3}). Format renders with labels.
func (v Value) String() string {
	var b strings.Builder
	writeValue(&b, nil, v)
	return b.String()
}

// Format renders v as type t in the WebAssembly value text syntax (WAVE): records as
// {name: value}, cases and flags by label, option some(x)/none, result ok(x)/err(x). Parts of v
// that do not match t are rendered as !{expected …, found …}.
func Format(t Type, v Value) string {
	var b strings.Builder
	writeValue(&b, t, v)
	return b.String()
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func writeList(b *strings.Builder, open, close string, n int, elem func(i int)) {
	b.WriteString(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		elem(i)
	}
	b.WriteString(close)
}

// writeValue renders v; t may be nil (typeless rendering).
func writeValue(b *strings.Builder, t Type, v Value) {
	if t != nil && t.Kind() != v.kind {
		b.WriteString("!{expected " + t.Kind().String() + ", found " + v.kind.String() + "}")
		return
	}
	switch v.kind {
	case KindInvalid:
		b.WriteString("<invalid>")
	case KindBool:
		b.WriteString(strconv.FormatBool(v.num != 0))
	case KindS8, KindS16, KindS32, KindS64:
		b.WriteString(strconv.FormatInt(int64(v.num), 10))
	case KindU8, KindU16, KindU32, KindU64:
		b.WriteString(strconv.FormatUint(v.num, 10))
	case KindF32:
		b.WriteString(formatFloat(float64(math.Float32frombits(uint32(v.num))), 32))
	case KindF64:
		b.WriteString(formatFloat(math.Float64frombits(v.num), 64))
	case KindChar:
		b.WriteString(strconv.QuoteRune(rune(uint32(v.num))))
	case KindString:
		s := v.str
		b.WriteString(strconv.Quote(s))
	case KindList:
		var et Type
		if t != nil {
			et = t.(*ListType).elem
		}
		writeList(b, "[", "]", v.Len(), func(i int) { writeValue(b, et, v.Index(i)) })
	case KindRecord:
		es, _ := v.ref.([]Value)
		if r, ok := t.(*RecordType); ok {
			if len(es) != len(r.fields) {
				b.WriteString("!{expected " + strconv.Itoa(len(r.fields)) + " fields, found " + strconv.Itoa(len(es)) + "}")
				return
			}
			writeList(b, "{", "}", len(es), func(i int) {
				b.WriteString(r.fields[i].Name + ": ")
				writeValue(b, r.fields[i].Type, es[i])
			})
			return
		}
		writeList(b, "{", "}", len(es), func(i int) { writeValue(b, nil, es[i]) })
	case KindTuple:
		es, _ := v.ref.([]Value)
		if tt, ok := t.(*TupleType); ok {
			if len(es) != len(tt.elems) {
				b.WriteString("!{expected " + strconv.Itoa(len(tt.elems)) + " elements, found " + strconv.Itoa(len(es)) + "}")
				return
			}
			writeList(b, "(", ")", len(es), func(i int) { writeValue(b, tt.elems[i], es[i]) })
			return
		}
		writeList(b, "(", ")", len(es), func(i int) { writeValue(b, nil, es[i]) })
	case KindVariant, KindEnum, KindOption, KindResult:
		writeCase(b, t, v)
	case KindFlags:
		var labels []string
		if f, ok := t.(*FlagsType); ok {
			labels = f.labels
		}
		b.WriteByte('{')
		first := true
		for i := 0; i < 32; i++ {
			if v.num&(1<<uint(i)) == 0 {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			if i < len(labels) {
				b.WriteString(labels[i])
			} else {
				b.WriteString("#" + strconv.Itoa(i))
			}
		}
		b.WriteByte('}')
	case KindOwn, KindBorrow:
		b.WriteString(v.kind.String() + "(" + strconv.FormatUint(v.num, 10) + ")")
	}
}

func writeCase(b *strings.Builder, t Type, v Value) {
	var name string
	var pt Type
	switch v.kind {
	case KindOption:
		name = "none"
		if v.num == 1 {
			name = "some"
		}
	case KindResult:
		name = "ok"
		if v.num == 1 {
			name = "err"
		}
	default:
		name = "#" + strconv.FormatUint(v.num, 10)
		if c := casesOf(t); c != nil && v.num < uint64(c.numCases()) {
			name = c.names[v.num]
		}
	}
	if c := casesOf(t); c != nil && v.num < uint64(c.numCases()) {
		pt = c.payloads[v.num]
	}
	b.WriteString(name)
	if p, ok := v.ref.(*Value); ok {
		b.WriteByte('(')
		writeValue(b, pt, *p)
		b.WriteByte(')')
	}
}
