// Package sjson is the JSON data model of the ZeroClaw plugin host: a strict
// parser and a compact encoder that reproduce what the reference host (written
// in Rust on serde_json without `preserve_order` or `arbitrary_precision`)
// accepts and emits.
//
// The byte-level agreement matters because these bytes cross the guest
// boundary: a tool plugin receives the host-serialised `__config` object and a
// channel plugin the public config JSON. encoding/json differs from serde_json
// in ways a guest can observe (it escapes U+2028 and '<', keeps number
// literals as written, replaces lone surrogates and invalid UTF-8 silently,
// and has no nesting limit), so the host uses this package instead.
//
// Values are nil, bool, string, [Number], []any and map[string]any. Objects
// encode with their keys in byte order, like serde_json's BTreeMap.
package sjson

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("invalid JSON")

// MaxDepth is the deepest array/object nesting Parse accepts. serde_json's
// recursion limit is 128 levels of remaining depth, and the 128th nested
// container already fails, so 127 levels are the most that parse.
const MaxDepth = 127

type numKind uint8

const (
	numUint numKind = iota
	numInt
	numFloat
)

// Number is a JSON number as serde_json holds it: an unsigned or signed 64-bit
// integer when the literal is an integer that fits, otherwise a float64.
type Number struct {
	kind numKind
	u    uint64
	i    int64
	f    float64
}

// Uint returns a Number holding the unsigned integer v.
func Uint(v uint64) Number { return Number{kind: numUint, u: v} }

// Int returns a Number holding the integer v; non-negative values are stored
// as unsigned, as serde_json does.
func Int(v int64) Number {
	if v >= 0 {
		return Number{kind: numUint, u: uint64(v)}
	}
	return Number{kind: numInt, i: v}
}

// Float returns a Number holding v. NaN and infinities have no JSON form; the
// boolean reports whether v was finite.
func Float(v float64) (Number, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Number{}, false
	}
	return Number{kind: numFloat, f: v}, true
}

// IsInteger reports whether the number is held as a 64-bit integer (what
// serde_json's is_i64 || is_u64 answer).
func (n Number) IsInteger() bool { return n.kind != numFloat }

// Float64 returns the number as a float64.
func (n Number) Float64() float64 {
	switch n.kind {
	case numUint:
		return float64(n.u)
	case numInt:
		return float64(n.i)
	}
	return n.f
}

// String returns the number exactly as serde_json serialises it.
func (n Number) String() string {
	switch n.kind {
	case numUint:
		return strconv.FormatUint(n.u, 10)
	case numInt:
		return strconv.FormatInt(n.i, 10)
	}
	return formatFloat(n.f)
}

// formatFloat renders a finite float64 the way the ryu crate's format64 does
// (serde_json's float writer): the shortest round-trip digits, plain decimal
// notation while the decimal point sits within 16 digits (with ".0" added to
// integral values), otherwise scientific notation without a '+' in the
// exponent.
func formatFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	var sb strings.Builder
	if f < 0 {
		sb.WriteByte('-')
		f = -f
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e10, _ := strconv.Atoi(exp)
	n := len(digits)
	kk := e10 + 1 // 10^(kk-1) <= f < 10^kk
	k := kk - n
	switch {
	case k >= 0 && kk <= 16:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", k))
		sb.WriteString(".0")
	case kk > 0 && kk <= 16:
		sb.WriteString(digits[:kk])
		sb.WriteByte('.')
		sb.WriteString(digits[kk:])
	case kk > -5 && kk <= 0:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -kk))
		sb.WriteString(digits)
	case n == 1:
		sb.WriteString(digits)
		sb.WriteByte('e')
		sb.WriteString(strconv.Itoa(kk - 1))
	default:
		sb.WriteString(digits[:1])
		sb.WriteByte('.')
		sb.WriteString(digits[1:])
		sb.WriteByte('e')
		sb.WriteString(strconv.Itoa(kk - 1))
	}
	return sb.String()
}

// Parse decodes exactly one JSON value surrounded by optional whitespace. It
// rejects what serde_json rejects: invalid UTF-8, raw control characters in
// strings, unpaired surrogate escapes, numbers whose magnitude overflows
// float64, nesting deeper than MaxDepth and trailing characters. Duplicate
// object keys keep the last value.
func Parse(data []byte) (any, error) {
	p := parser{data: data}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos != len(p.data) {
		return nil, p.errorf("trailing characters")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, b := range p.data[:min(p.pos, len(p.data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%w: %s at line %d column %d", ErrSyntax, fmt.Sprintf(format, args...), line, col)
}

func (p *parser) skipWS() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("EOF while parsing a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth+1 > MaxDepth {
			return nil, p.errorf("recursion limit exceeded")
		}
		return p.object(depth + 1)
	case c == '[':
		if depth+1 > MaxDepth {
			return nil, p.errorf("recursion limit exceeded")
		}
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	default:
		return nil, p.errorf("expected value")
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf("expected ident")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	obj := map[string]any{}
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipWS()
		if p.pos >= len(p.data) {
			return nil, p.errorf("EOF while parsing an object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.errorf("key must be a string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected `:`")
		}
		p.pos++
		p.skipWS()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		obj[k.(string)] = v
		p.skipWS()
		if p.pos >= len(p.data) {
			return nil, p.errorf("EOF while parsing an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.errorf("expected `,` or `}`")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // '['
	arr := []any{}
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.skipWS()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipWS()
		if p.pos >= len(p.data) {
			return nil, p.errorf("EOF while parsing a list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.errorf("expected `,` or `]`")
		}
	}
}

func (p *parser) str() (any, error) {
	p.pos++ // opening quote
	var sb strings.Builder
	for {
		if p.pos >= len(p.data) {
			return nil, p.errorf("EOF while parsing a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return sb.String(), nil
		case c == '\\':
			p.pos++
			if err := p.escape(&sb); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, p.errorf("control character (\\u0000-\\u001F) found while parsing a string")
		case c < utf8.RuneSelf:
			sb.WriteByte(c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, p.errorf("invalid unicode code point")
			}
			sb.WriteString(string(p.data[p.pos : p.pos+size]))
			p.pos += size
		}
	}
}

func (p *parser) escape(sb *strings.Builder) error {
	if p.pos >= len(p.data) {
		return p.errorf("EOF while parsing a string")
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		sb.WriteByte(c)
	case 'b':
		sb.WriteByte('\b')
	case 'f':
		sb.WriteByte('\f')
	case 'n':
		sb.WriteByte('\n')
	case 'r':
		sb.WriteByte('\r')
	case 't':
		sb.WriteByte('\t')
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return err
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00:
			if len(p.data)-p.pos < 2 || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
				return p.errorf("unexpected end of hex escape")
			}
			p.pos += 2
			r2, err := p.hex4()
			if err != nil {
				return err
			}
			if r2 < 0xDC00 || r2 > 0xDFFF {
				return p.errorf("lone leading surrogate in hex escape")
			}
			sb.WriteRune(utf16.DecodeRune(r, r2))
		case utf16.IsSurrogate(r):
			return p.errorf("lone leading surrogate in hex escape")
		default:
			sb.WriteRune(r)
		}
	default:
		return p.errorf("invalid escape")
	}
	return nil
}

func (p *parser) hex4() (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.errorf("EOF while parsing a string")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errorf("invalid escape")
		}
		r = r<<4 | rune(d)
	}
	p.pos += 4
	return r, nil
}

func (p *parser) number() (any, error) {
	start := p.pos
	neg := false
	if p.data[p.pos] == '-' {
		neg = true
		p.pos++
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("EOF while parsing a value")
	}
	switch c := p.data[p.pos]; {
	case c == '0':
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			return nil, p.errorf("invalid number")
		}
	case c >= '1' && c <= '9':
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
	default:
		return nil, p.errorf("invalid number")
	}
	intEnd := p.pos
	isFloat := false
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		isFloat = true
		p.pos++
		digits := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == digits {
			return nil, p.errorf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		isFloat = true
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		digits := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == digits {
			return nil, p.errorf("invalid number")
		}
	}
	lit := string(p.data[start:p.pos])
	if !isFloat {
		digits := string(p.data[start:intEnd])
		if !neg {
			if u, err := strconv.ParseUint(digits, 10, 64); err == nil {
				return Uint(u), nil
			}
		} else if i, err := strconv.ParseInt(digits, 10, 64); err == nil && i < 0 {
			// serde_json turns "-0" into the float -0.0.
			return Number{kind: numInt, i: i}, nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errorf("invalid number")
	}
	if math.IsInf(f, 0) {
		return nil, p.errorf("number out of range")
	}
	return Number{kind: numFloat, f: f}, nil
}

// Marshal encodes v compactly, as serde_json::to_vec does.
func Marshal(v any) ([]byte, error) {
	var sb strings.Builder
	if err := encode(&sb, v, 0); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

// MarshalString is Marshal returning a string.
func MarshalString(v any) (string, error) {
	b, err := Marshal(v)
	return string(b), err
}

func encode(sb *strings.Builder, v any, depth int) error {
	if depth > 10_000 {
		return errors.New("sjson: value nested too deeply to encode")
	}
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case bool:
		if x {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case string:
		writeString(sb, x)
	case Number:
		sb.WriteString(x.String())
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			if err := encode(sb, e, depth+1); err != nil {
				return err
			}
		}
		sb.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeString(sb, k)
			sb.WriteByte(':')
			if err := encode(sb, x[k], depth+1); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
	default:
		return fmt.Errorf("sjson: cannot encode %T", v)
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// writeString escapes like serde_json: only '"', '\\' and C0 controls, with
// the short forms for \b \t \n \f \r. Invalid UTF-8 (possible in a Go string,
// impossible in a Rust one) becomes U+FFFD.
func writeString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				sb.WriteString("\uFFFD")
			} else {
				sb.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if c < 0x20 {
				sb.WriteString(`\u00`)
				sb.WriteByte(hexDigits[c>>4])
				sb.WriteByte(hexDigits[c&0xF])
			} else {
				sb.WriteByte(c)
			}
		}
		i++
	}
	sb.WriteByte('"')
}

// SortedKeys returns the keys of m in byte order, the order serde_json's
// BTreeMap iterates in.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Pointer resolves an RFC 6901 JSON Pointer the way serde_json's
// Value::pointer does: "" is the whole document, otherwise the pointer must
// start with '/', "~1" and "~0" are unescaped, and array indices are decimal
// without a sign or leading zeros.
func Pointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if tok == "" || tok[0] == '+' || (tok[0] == '0' && len(tok) != 1) {
				return nil, false
			}
			i, err := strconv.ParseUint(tok, 10, 64)
			if err != nil || i >= uint64(len(x)) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Equal reports whether two model values are equal (numbers compare by kind
// and value, as serde_json's PartialEq does).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Number:
		y, ok := b.(Number)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}
