package wave

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/kobako/kobako/abi"
)

// FormatValue renders v, a value of type t, as WAVE text the way wasm-wave's writer does: option
// and result cases always in their explicit form (some(1), ok), record fields holding none left
// out ({:} when all are), cases spelled like keywords escaped with '%', strings and chars escaped
// so that ParseValue(t, FormatValue(t, v)) equals v.
//
// Own and borrow handles print as own(REP) and borrow(REP), which is for reading only: they do
// not parse back. Parts of v that do not have the shape of t print as !{…} notes, also not
// parseable; values produced by ParseValue or by lifting always have the shape of their type.
func FormatValue(t abi.Type, v abi.Value) string {
	var b strings.Builder
	writeValue(&b, t, v)
	return b.String()
}

// FormatResults renders the results of a call as wasmtime's --invoke prints them: a single
// result as its value, any other number as a parenthesised, comma-separated sequence.
func FormatResults(types []abi.Type, vals []abi.Value) string {
	if len(types) == 1 && len(vals) == 1 {
		return FormatValue(types[0], vals[0])
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		var t abi.Type
		if i < len(types) {
			t = types[i]
		}
		writeValue(&b, t, v)
	}
	b.WriteByte(')')
	return b.String()
}

func mismatch(b *strings.Builder, want string, v abi.Value) {
	b.WriteString("!{expected " + want + ", found " + v.Kind().String() + "}")
}

func writeValue(b *strings.Builder, t abi.Type, v abi.Value) {
	if t == nil {
		b.WriteString("!{no type}")
		return
	}
	if t.Kind() != v.Kind() {
		mismatch(b, t.Kind().String(), v)
		return
	}
	switch t.Kind() {
	case abi.KindBool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case abi.KindS8, abi.KindS16, abi.KindS32, abi.KindS64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case abi.KindU8, abi.KindU16, abi.KindU32, abi.KindU64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case abi.KindF32:
		writeFloat(b, v.Float(), 32)
	case abi.KindF64:
		writeFloat(b, v.Float(), 64)
	case abi.KindChar:
		b.WriteByte('\'')
		writeChar(b, v.Char())
		b.WriteByte('\'')
	case abi.KindString:
		b.WriteByte('"')
		for _, r := range v.Str() {
			writeChar(b, r)
		}
		b.WriteByte('"')
	case abi.KindList:
		et := t.(*abi.ListType).Elem()
		b.WriteByte('[')
		for i, n := 0, v.Len(); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, et, v.Index(i))
		}
		b.WriteByte(']')
	case abi.KindTuple:
		tt := t.(*abi.TupleType)
		if v.Len() != tt.NumElems() {
			mismatch(b, strconv.Itoa(tt.NumElems())+" elements", v)
			return
		}
		b.WriteByte('(')
		for i := 0; i < tt.NumElems(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, tt.Elem(i), v.Index(i))
		}
		b.WriteByte(')')
	case abi.KindRecord:
		rt := t.(*abi.RecordType)
		if v.Len() != rt.NumFields() {
			mismatch(b, strconv.Itoa(rt.NumFields())+" fields", v)
			return
		}
		b.WriteByte('{')
		n := 0
		for i := 0; i < rt.NumFields(); i++ {
			f, fv := rt.Field(i), v.Index(i)
			if fv.Kind() == abi.KindOption && !fv.IsSome() {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(f.Name + ": ")
			writeValue(b, f.Type, fv)
		}
		if n == 0 {
			b.WriteByte(':')
		}
		b.WriteByte('}')
	case abi.KindFlags:
		labels := t.(*abi.FlagsType).Labels()
		b.WriteByte('{')
		n := 0
		for i := 0; i < 32; i++ {
			if v.FlagBits()&(1<<uint(i)) == 0 {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			if i < len(labels) {
				b.WriteString(labels[i])
			} else {
				b.WriteString("!{bit " + strconv.Itoa(i) + "}")
			}
		}
		b.WriteByte('}')
	case abi.KindEnum:
		labels := t.(*abi.EnumType).Labels()
		if int64(v.Case()) >= int64(len(labels)) {
			b.WriteString("!{case " + strconv.FormatUint(uint64(v.Case()), 10) + "}")
			return
		}
		writeLabel(b, labels[v.Case()])
	case abi.KindVariant:
		cases := t.(*abi.VariantType).Cases()
		if int64(v.Case()) >= int64(len(cases)) {
			b.WriteString("!{case " + strconv.FormatUint(uint64(v.Case()), 10) + "}")
			return
		}
		c := cases[v.Case()]
		writeLabel(b, c.Name)
		writePayload(b, c.Type, v.Payload())
	case abi.KindOption:
		if !v.IsSome() {
			b.WriteString("none")
			return
		}
		b.WriteString("some")
		writePayload(b, t.(*abi.OptionType).Elem(), v.Payload())
	case abi.KindResult:
		rt := t.(*abi.ResultType)
		if v.IsErr() {
			b.WriteString("err")
			writePayload(b, rt.Err(), v.Payload())
		} else {
			b.WriteString("ok")
			writePayload(b, rt.Ok(), v.Payload())
		}
	case abi.KindOwn, abi.KindBorrow:
		b.WriteString(t.Kind().String() + "(" + strconv.FormatUint(uint64(v.Rep()), 10) + ")")
	default:
		mismatch(b, t.String(), v)
	}
}

func writePayload(b *strings.Builder, pt abi.Type, p abi.Value) {
	if pt == nil {
		if p.IsValid() {
			b.WriteString("(!{unexpected payload})")
		}
		return
	}
	b.WriteByte('(')
	writeValue(b, pt, p)
	b.WriteByte(')')
}

func writeLabel(b *strings.Builder, name string) {
	if keywords[name] {
		b.WriteByte('%')
	}
	b.WriteString(name)
}

// writeFloat prints the shortest decimal that reads back as the same float, without an exponent,
// as Rust's Display (and so wasmtime) does.
func writeFloat(b *strings.Builder, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		b.WriteString("nan")
	case math.IsInf(f, 1):
		b.WriteString("inf")
	case math.IsInf(f, -1):
		b.WriteString("-inf")
	default:
		b.WriteString(strconv.FormatFloat(f, 'f', -1, bits))
	}
}

func writeChar(b *strings.Builder, r rune) {
	switch r {
	case '\\', '"', '\'':
		b.WriteByte('\\')
		b.WriteRune(r)
	case '\t':
		b.WriteString(`\t`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	default:
		if r == ' ' || unicode.IsPrint(r) && !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
			return
		}
		b.WriteString(`\u{` + strconv.FormatUint(uint64(r), 16) + `}`)
	}
}
