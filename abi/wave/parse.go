package wave

import (
	"math"
	"strconv"
	"strings"

	"github.com/kobako/kobako/abi"
)

// ParseValue parses s, a WAVE text with optional surrounding whitespace and comments, as a value
// of type t.
//
// Options and results also accept their flat forms (123 for some(123) and for ok(123)) where the
// payload is not itself an option or result; record fields of option type may be left out (they
// are none) and a record whose fields are all left out is written {:}. Own and borrow handles have
// no text form and fail with ErrUnsupported.
func ParseValue(t abi.Type, s string) (abi.Value, error) {
	if t == nil {
		return abi.Value{}, newError(s, 0, ErrValue, "no type to parse against")
	}
	p := &parser{lexer{src: s, end: len(s)}}
	v, err := p.value(t)
	if err != nil {
		return abi.Value{}, err
	}
	tok, err := p.next()
	if err != nil {
		return abi.Value{}, err
	}
	if tok.kind != tokEOF {
		return abi.Value{}, p.errAt(tok.start, ErrSyntax, "expected end of input after the value, found %s", describe(&p.lexer, tok))
	}
	return v, nil
}

type parser struct {
	lexer
}

// expectPunct consumes the punctuation c or fails with "expected c in what".
func (p *parser) expectPunct(c, what string) (token, error) {
	tok, err := p.next()
	if err != nil {
		return tok, err
	}
	if tok.kind != tokPunct || tok.text != c {
		return tok, p.errAt(tok.start, ErrSyntax, "expected '%s' %s, found %s", c, what, describe(&p.lexer, tok))
	}
	return tok, nil
}

// isPunct reports whether the next token is the punctuation c, consuming it if so.
func (p *parser) acceptPunct(c string) (bool, error) {
	tok, err := p.peek()
	if err != nil {
		return false, err
	}
	if tok.kind == tokPunct && tok.text == c {
		p.pos = tok.end
		return true, nil
	}
	return false, nil
}

// seq parses the comma-separated items between an open bracket (already consumed) and close,
// allowing a trailing comma. what names the construct for messages.
func (p *parser) seq(close, what string, item func(i int) error) error {
	for i := 0; ; i++ {
		ok, err := p.acceptPunct(close)
		if err != nil || ok {
			return err
		}
		if err := item(i); err != nil {
			return err
		}
		tok, err := p.next()
		if err != nil {
			return err
		}
		if tok.kind == tokPunct && tok.text == close {
			return nil
		}
		if tok.kind != tokPunct || tok.text != "," {
			return p.errAt(tok.start, ErrSyntax, "expected ',' or '%s' in %s, found %s", close, what, describe(&p.lexer, tok))
		}
	}
}

func (p *parser) value(t abi.Type) (abi.Value, error) {
	switch t.Kind() {
	case abi.KindBool:
		tok, err := p.next()
		if err != nil {
			return abi.Value{}, err
		}
		if tok.kind == tokLabel && !tok.escaped && (tok.text == "true" || tok.text == "false") {
			return abi.BoolValue(tok.text == "true"), nil
		}
		return abi.Value{}, p.errAt(tok.start, ErrValue, "expected bool (true or false), found %s", describe(&p.lexer, tok))
	case abi.KindS8, abi.KindS16, abi.KindS32, abi.KindS64, abi.KindU8, abi.KindU16, abi.KindU32, abi.KindU64:
		return p.integer(t.Kind())
	case abi.KindF32, abi.KindF64:
		return p.float(t.Kind())
	case abi.KindChar:
		tok, err := p.next()
		if err != nil {
			return abi.Value{}, err
		}
		if tok.kind != tokChar {
			found := describe(&p.lexer, tok)
			switch tok.kind {
			case tokLabel:
				found = "the bare word " + strings.Trim(quoteText(tok.text), "'") // quoted, it would look like the char it should be
			case tokString:
				found = "a string; a char is written in single quotes"
			}
			return abi.Value{}, p.errAt(tok.start, ErrValue, "expected a char in single quotes (such as 'a'), found %s", found)
		}
		r := []rune(tok.text)
		return abi.CharValue(r[0]), nil
	case abi.KindString:
		tok, err := p.next()
		if err != nil {
			return abi.Value{}, err
		}
		if tok.kind != tokString {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "expected string (\"...\"), found %s", describe(&p.lexer, tok))
		}
		return abi.StringValue(tok.text), nil
	case abi.KindList:
		return p.list(t.(*abi.ListType))
	case abi.KindTuple:
		return p.tuple(t.(*abi.TupleType))
	case abi.KindRecord:
		return p.record(t.(*abi.RecordType))
	case abi.KindFlags:
		return p.flags(t.(*abi.FlagsType))
	case abi.KindEnum:
		e := t.(*abi.EnumType)
		tok, c, err := p.caseLabel(e.Labels(), t.String())
		if err != nil {
			return abi.Value{}, err
		}
		if ok, err := p.acceptPunct("("); err != nil {
			return abi.Value{}, err
		} else if ok {
			return abi.Value{}, p.errAt(p.pos-1, ErrValue, "enum case %s has no payload", quoteText(tok.text))
		}
		return abi.EnumValue(uint32(c)), nil
	case abi.KindVariant:
		return p.variant(t.(*abi.VariantType))
	case abi.KindOption:
		return p.option(t.(*abi.OptionType))
	case abi.KindResult:
		return p.result(t.(*abi.ResultType))
	case abi.KindOwn, abi.KindBorrow:
		tok, _ := p.peek()
		return abi.Value{}, p.errAt(tok.start, ErrUnsupported, "cannot write a %s value: resource handles have no text form", t)
	}
	return abi.Value{}, p.errAt(p.pos, ErrUnsupported, "unsupported type %s", t)
}

var intBits = map[abi.Kind]int{abi.KindS8: 8, abi.KindS16: 16, abi.KindS32: 32, abi.KindS64: 64,
	abi.KindU8: 8, abi.KindU16: 16, abi.KindU32: 32, abi.KindU64: 64}

func (p *parser) integer(k abi.Kind) (abi.Value, error) {
	tok, err := p.next()
	if err != nil {
		return abi.Value{}, err
	}
	if tok.kind != tokNumber || tok.text == "-inf" {
		return abi.Value{}, p.errAt(tok.start, ErrValue, "expected %s integer, found %s", k, describe(&p.lexer, tok))
	}
	if strings.ContainsAny(tok.text, ".eE") {
		return abi.Value{}, p.errAt(tok.start, ErrValue, "expected %s integer, found %s (integers have no fraction or exponent)", k, quoteText(tok.text))
	}
	bits := intBits[k]
	signed := k == abi.KindS8 || k == abi.KindS16 || k == abi.KindS32 || k == abi.KindS64
	if signed {
		n, err := strconv.ParseInt(tok.text, 10, bits)
		if err != nil {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "number %s out of range for %s", quoteText(tok.text), k)
		}
		switch k {
		case abi.KindS8:
			return abi.S8Value(int8(n)), nil
		case abi.KindS16:
			return abi.S16Value(int16(n)), nil
		case abi.KindS32:
			return abi.S32Value(int32(n)), nil
		}
		return abi.S64Value(n), nil
	}
	text := tok.text
	if text == "-0" {
		text = "0"
	}
	n, err := strconv.ParseUint(text, 10, bits)
	if err != nil {
		return abi.Value{}, p.errAt(tok.start, ErrValue, "number %s out of range for %s", quoteText(tok.text), k)
	}
	switch k {
	case abi.KindU8:
		return abi.U8Value(uint8(n)), nil
	case abi.KindU16:
		return abi.U16Value(uint16(n)), nil
	case abi.KindU32:
		return abi.U32Value(uint32(n)), nil
	}
	return abi.U64Value(n), nil
}

func (p *parser) float(k abi.Kind) (abi.Value, error) {
	tok, err := p.next()
	if err != nil {
		return abi.Value{}, err
	}
	var f float64
	switch {
	case tok.kind == tokLabel && !tok.escaped && tok.text == "nan":
		f = math.NaN()
	case tok.kind == tokLabel && !tok.escaped && tok.text == "inf":
		f = math.Inf(1)
	case tok.kind == tokNumber && tok.text == "-inf":
		f = math.Inf(-1)
	case tok.kind == tokNumber:
		bits := 64
		if k == abi.KindF32 {
			bits = 32
		}
		// Beyond the largest finite float ParseFloat returns ±inf with ErrRange; wasm-wave reads
		// such numbers as infinity too, and the lexer has already checked the syntax.
		f, err = strconv.ParseFloat(tok.text, bits)
		if err != nil && !math.IsInf(f, 0) {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "malformed %s number %s", k, quoteText(tok.text))
		}
	default:
		return abi.Value{}, p.errAt(tok.start, ErrValue, "expected %s number (or nan, inf, -inf), found %s", k, describe(&p.lexer, tok))
	}
	if k == abi.KindF32 {
		return abi.F32Value(float32(f)), nil
	}
	return abi.F64Value(f), nil
}

func (p *parser) list(t *abi.ListType) (abi.Value, error) {
	if _, err := p.expectPunct("[", "to open list "+t.String()); err != nil {
		return abi.Value{}, err
	}
	var elems []abi.Value
	err := p.seq("]", "list", func(int) error {
		v, err := p.value(t.Elem())
		elems = append(elems, v)
		return err
	})
	if err != nil {
		return abi.Value{}, err
	}
	return abi.ListValue(elems...), nil
}

func (p *parser) tuple(t *abi.TupleType) (abi.Value, error) {
	open, err := p.expectPunct("(", "to open tuple "+t.String())
	if err != nil {
		return abi.Value{}, err
	}
	n := t.NumElems()
	elems := make([]abi.Value, 0, n)
	err = p.seq(")", "tuple", func(i int) error {
		if i >= n {
			tok, _ := p.peek()
			return p.errAt(tok.start, ErrValue, "too many elements for %s: expected ')'", t)
		}
		v, err := p.value(t.Elem(i))
		elems = append(elems, v)
		return err
	})
	if err != nil {
		return abi.Value{}, err
	}
	if len(elems) != n {
		return abi.Value{}, p.errAt(open.start, ErrValue, "tuple %s needs %d elements, found %d", t, n, len(elems))
	}
	return abi.TupleValue(elems...), nil
}

func (p *parser) record(t *abi.RecordType) (abi.Value, error) {
	open, err := p.expectPunct("{", "to open record")
	if err != nil {
		return abi.Value{}, err
	}
	fields := t.Fields()
	vals := make([]abi.Value, len(fields))
	seen := make([]bool, len(fields))
	if ok, err := p.acceptPunct(":"); err != nil {
		return abi.Value{}, err
	} else if ok {
		if _, err := p.expectPunct("}", "after '{:'"); err != nil {
			return abi.Value{}, err
		}
	} else {
		tok, err := p.peek()
		if err != nil {
			return abi.Value{}, err
		}
		if tok.kind == tokPunct && tok.text == "}" {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "expected a field label or ':' in record, found '}' (a record with every field left out is written {:})")
		}
		err = p.seq("}", "record", func(int) error {
			lt, err := p.next()
			if err != nil {
				return err
			}
			if lt.kind != tokLabel {
				return p.errAt(lt.start, ErrSyntax, "expected a field label in record, found %s", describe(&p.lexer, lt))
			}
			i := indexOf(fields, lt.text)
			if i < 0 {
				return p.errAt(lt.start, ErrValue, "record has no field %s (fields: %s)", quoteText(lt.text), fieldNames(fields))
			}
			if seen[i] {
				return p.errAt(lt.start, ErrValue, "field %s given twice", quoteText(lt.text))
			}
			seen[i] = true
			if _, err := p.expectPunct(":", "after field label"); err != nil {
				return err
			}
			v, err := p.value(fields[i].Type)
			vals[i] = v
			return err
		})
		if err != nil {
			return abi.Value{}, err
		}
	}
	for i, f := range fields {
		if seen[i] {
			continue
		}
		if f.Type.Kind() != abi.KindOption {
			return abi.Value{}, p.errAt(open.start, ErrValue, "record is missing field %s", quoteText(f.Name))
		}
		vals[i] = abi.NoneValue()
	}
	return abi.RecordValue(vals...), nil
}

func indexOf(fields []abi.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func fieldNames(fields []abi.Field) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func (p *parser) flags(t *abi.FlagsType) (abi.Value, error) {
	if _, err := p.expectPunct("{", "to open flags"); err != nil {
		return abi.Value{}, err
	}
	labels := t.Labels()
	var bits uint32
	err := p.seq("}", "flags", func(int) error {
		tok, err := p.next()
		if err != nil {
			return err
		}
		if tok.kind != tokLabel {
			return p.errAt(tok.start, ErrSyntax, "expected a flag label, found %s", describe(&p.lexer, tok))
		}
		i := indexString(labels, tok.text)
		if i < 0 {
			return p.errAt(tok.start, ErrValue, "unknown flag %s (flags: %s)", quoteText(tok.text), strings.Join(labels, ", "))
		}
		if bits&(1<<uint(i)) != 0 {
			return p.errAt(tok.start, ErrValue, "flag %s given twice", quoteText(tok.text))
		}
		bits |= 1 << uint(i)
		return nil
	})
	if err != nil {
		return abi.Value{}, err
	}
	return abi.FlagsValue(bits), nil
}

func indexString(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// caseLabel reads a case label of a variant or enum with the given case names.
func (p *parser) caseLabel(names []string, what string) (token, int, error) {
	tok, err := p.next()
	if err != nil {
		return tok, 0, err
	}
	if tok.kind != tokLabel {
		return tok, 0, p.errAt(tok.start, ErrValue, "expected a case of %s, found %s", what, describe(&p.lexer, tok))
	}
	i := indexString(names, tok.text)
	if i < 0 {
		if strings.Contains(what, "{") { // an enum's type already lists its cases
			return tok, 0, p.errAt(tok.start, ErrValue, "%s has no case %s", what, quoteText(tok.text))
		}
		return tok, 0, p.errAt(tok.start, ErrValue, "%s has no case %s (cases: %s)", what, quoteText(tok.text), strings.Join(names, ", "))
	}
	if keywords[tok.text] && !tok.escaped {
		return tok, 0, p.errAt(tok.start, ErrSyntax, "case %s is spelled like a keyword and must be written %%%s", quoteText(tok.text), tok.text)
	}
	return tok, i, nil
}

func (p *parser) variant(t *abi.VariantType) (abi.Value, error) {
	cases := t.Cases()
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.Name
	}
	tok, i, err := p.caseLabel(names, "variant")
	if err != nil {
		return abi.Value{}, err
	}
	payload, err := p.payload(cases[i].Type, tok.text)
	if err != nil {
		return abi.Value{}, err
	}
	return abi.VariantValue(uint32(i), payload), nil
}

// payload reads "(value)" after a case label when pt is not nil, and checks that no payload
// follows when it is.
func (p *parser) payload(pt abi.Type, name string) (abi.Value, error) {
	if pt == nil {
		tok, err := p.peek()
		if err != nil {
			return abi.Value{}, err
		}
		if tok.kind == tokPunct && tok.text == "(" {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "case %s has no payload", quoteText(name))
		}
		return abi.Value{}, nil
	}
	if _, err := p.expectPunct("(", "for the payload of case "+quoteText(name)); err != nil {
		return abi.Value{}, err
	}
	v, err := p.value(pt)
	if err != nil {
		return abi.Value{}, err
	}
	if _, err := p.expectPunct(")", "after the payload of case "+quoteText(name)); err != nil {
		return abi.Value{}, err
	}
	return v, nil
}

// keywordNext reports whether the next token is one of the unescaped keywords given.
func (p *parser) keywordNext(kws ...string) (token, bool, error) {
	tok, err := p.peek()
	if err != nil {
		return tok, false, err
	}
	if tok.kind == tokLabel && !tok.escaped {
		for _, k := range kws {
			if tok.text == k {
				return tok, true, nil
			}
		}
	}
	return tok, false, nil
}

// flatAllowed reports whether a payload of type t may stand for some(x) or ok(x) on its own.
func flatAllowed(t abi.Type) bool {
	return t != nil && t.Kind() != abi.KindOption && t.Kind() != abi.KindResult
}

func (p *parser) option(t *abi.OptionType) (abi.Value, error) {
	tok, kw, err := p.keywordNext("some", "none")
	if err != nil {
		return abi.Value{}, err
	}
	if !kw {
		if !flatAllowed(t.Elem()) {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "expected some(...) or none for %s, found %s", t, describe(&p.lexer, tok))
		}
		v, err := p.value(t.Elem())
		if err != nil {
			return abi.Value{}, err
		}
		return abi.SomeValue(v), nil
	}
	p.pos = tok.end
	if tok.text == "none" {
		if _, err := p.payload(nil, "none"); err != nil {
			return abi.Value{}, err
		}
		return abi.NoneValue(), nil
	}
	v, err := p.payload(t.Elem(), "some")
	if err != nil {
		return abi.Value{}, err
	}
	return abi.SomeValue(v), nil
}

func (p *parser) result(t *abi.ResultType) (abi.Value, error) {
	tok, kw, err := p.keywordNext("ok", "err")
	if err != nil {
		return abi.Value{}, err
	}
	if !kw {
		if !flatAllowed(t.Ok()) {
			return abi.Value{}, p.errAt(tok.start, ErrValue, "expected ok or err for %s, found %s", t, describe(&p.lexer, tok))
		}
		v, err := p.value(t.Ok())
		if err != nil {
			return abi.Value{}, err
		}
		return abi.OkValue(v), nil
	}
	p.pos = tok.end
	if tok.text == "ok" {
		v, err := p.payload(t.Ok(), "ok")
		if err != nil {
			return abi.Value{}, err
		}
		return abi.OkValue(v), nil
	}
	v, err := p.payload(t.Err(), "err")
	if err != nil {
		return abi.Value{}, err
	}
	return abi.ErrValue(v), nil
}
