package wave

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokLabel
	tokNumber
	tokChar
	tokString
	tokPunct // one of ( ) [ ] { } , :
)

// token is one lexical token. For labels text is the label without its '%'; for chars and
// strings it is the decoded contents; for numbers and punctuation it is the source text.
type token struct {
	kind       tokKind
	start, end int
	text       string
	escaped    bool // a label written with a leading '%'
}

// keywords are the WAVE keywords; a variant or enum case spelled like one must be written %name.
var keywords = map[string]bool{"true": true, "false": true, "inf": true, "nan": true,
	"some": true, "none": true, "ok": true, "err": true}

// lexer reads tokens from src[pos:end]. Positions in errors are offsets into src, which is the
// whole text the user wrote (a single argument is lexed inside its call expression).
type lexer struct {
	src      string
	pos, end int
}

func (l *lexer) errAt(off int, kind error, format string, args ...any) *Error {
	return newError(l.src, off, kind, fmt.Sprintf(format, args...))
}

// skipSpace skips whitespace and // comments.
func (l *lexer) skipSpace() {
	for l.pos < l.end {
		switch c := l.src[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case c == '/' && l.pos+1 < l.end && l.src[l.pos+1] == '/':
			for l.pos < l.end && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

// peek returns the next token without consuming it.
func (l *lexer) peek() (token, error) {
	save := l.pos
	t, err := l.next()
	l.pos = save
	return t, err
}

// next skips space and reads one token.
func (l *lexer) next() (token, error) {
	l.skipSpace()
	start := l.pos
	if l.pos >= l.end {
		return token{kind: tokEOF, start: start, end: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case strings.IndexByte("()[]{},:", c) >= 0:
		l.pos++
		return token{kind: tokPunct, start: start, end: l.pos, text: string(c)}, nil
	case c == '%' || isLetter(c):
		return l.label()
	case c == '-' || isDigit(c):
		return l.number()
	case c == '\'':
		return l.char()
	case c == '"':
		if strings.HasPrefix(l.src[l.pos:l.end], `"""`) {
			return l.multiline()
		}
		return l.string()
	}
	return token{}, l.errAt(start, ErrSyntax, "unexpected %s", describeAt(l.src, start, l.end))
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLabelByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '-'
}

// label reads '%'? word ('-' word)*, where a word is a letter followed by letters and digits,
// all lower case or all upper case (the WIT identifier rules).
func (l *lexer) label() (token, error) {
	start := l.pos
	escaped := false
	if l.src[l.pos] == '%' {
		escaped = true
		l.pos++
	}
	ls := l.pos
	for l.pos < l.end && isLabelByte(l.src[l.pos]) {
		l.pos++
	}
	text := l.src[ls:l.pos]
	if msg := checkLabel(text); msg != "" {
		return token{}, l.errAt(start, ErrSyntax, "invalid label %s: %s", quoteText(l.src[start:l.pos]), msg)
	}
	return token{kind: tokLabel, start: start, end: l.pos, text: text, escaped: escaped}, nil
}

// checkLabel returns why s is not a kebab-case label, or "". The grammar is the component model's
// (Explainer.md, "label"): the first word starts with a letter, later ones may start with a digit
// (run-1, add-10), so that every export name can be called.
func checkLabel(s string) string {
	if s == "" {
		return "empty label"
	}
	for i, w := range strings.Split(s, "-") {
		if w == "" {
			return "empty word between hyphens"
		}
		if i == 0 && !isLetter(w[0]) {
			return "the first word must start with a letter"
		}
		lower, upper := false, false
		for i := 0; i < len(w); i++ {
			switch c := w[i]; {
			case c >= 'a' && c <= 'z':
				lower = true
			case c >= 'A' && c <= 'Z':
				upper = true
			}
		}
		if lower && upper {
			return "a word may not mix upper and lower case"
		}
	}
	return ""
}

// number reads -inf or an integer with optional fraction and exponent (JSON number syntax).
func (l *lexer) number() (token, error) {
	start := l.pos
	if l.src[l.pos] == '-' {
		l.pos++
		if strings.HasPrefix(l.src[l.pos:l.end], "inf") && (l.pos+3 >= l.end || !isLabelByte(l.src[l.pos+3])) {
			l.pos += 3
			return token{kind: tokNumber, start: start, end: l.pos, text: "-inf"}, nil
		}
	}
	digits := func() int {
		s := l.pos
		for l.pos < l.end && isDigit(l.src[l.pos]) {
			l.pos++
		}
		return l.pos - s
	}
	ds := l.pos
	n := digits()
	if n == 0 {
		return token{}, l.errAt(start, ErrSyntax, "expected digits after '-', found %s", describeAt(l.src, l.pos, l.end))
	}
	if n > 1 && l.src[ds] == '0' {
		return token{}, l.errAt(start, ErrSyntax, "number %s has a leading zero", quoteText(l.src[start:l.pos]))
	}
	if l.pos < l.end && l.src[l.pos] == '.' {
		l.pos++
		if digits() == 0 {
			return token{}, l.errAt(l.pos, ErrSyntax, "expected digits after '.', found %s", describeAt(l.src, l.pos, l.end))
		}
	}
	if l.pos < l.end && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		l.pos++
		if l.pos < l.end && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
			l.pos++
		}
		if digits() == 0 {
			return token{}, l.errAt(l.pos, ErrSyntax, "expected exponent digits, found %s", describeAt(l.src, l.pos, l.end))
		}
	}
	if l.pos < l.end && (isLabelByte(l.src[l.pos]) || l.src[l.pos] == '.') {
		return token{}, l.errAt(l.pos, ErrSyntax, "unexpected %s after number %s", describeAt(l.src, l.pos, l.end), quoteText(l.src[start:l.pos]))
	}
	return token{kind: tokNumber, start: start, end: l.pos, text: l.src[start:l.pos]}, nil
}

// escape decodes the escape sequence at l.pos, just after a backslash at off.
func (l *lexer) escape(off int) (rune, error) {
	if l.pos >= l.end {
		return 0, l.errAt(off, ErrSyntax, "unterminated escape sequence")
	}
	c := l.src[l.pos]
	l.pos++
	switch c {
	case '\'', '"', '\\':
		return rune(c), nil
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 'u':
		if l.pos >= l.end || l.src[l.pos] != '{' {
			return 0, l.errAt(off, ErrSyntax, `expected '{' after \u`)
		}
		l.pos++
		hs := l.pos
		for l.pos < l.end && l.pos-hs <= 8 && strings.IndexByte("0123456789abcdefABCDEF", l.src[l.pos]) >= 0 {
			l.pos++
		}
		hex := l.src[hs:l.pos]
		if l.pos >= l.end || l.src[l.pos] != '}' || hex == "" || len(hex) > 8 {
			return 0, l.errAt(off, ErrSyntax, `expected 1 to 8 hex digits and '}' in \u{...} escape`)
		}
		l.pos++
		n, _ := strconv.ParseUint(hex, 16, 32)
		if n > utf8.MaxRune || n >= 0xd800 && n <= 0xdfff {
			return 0, l.errAt(off, ErrSyntax, `escape \u{%s} is not a Unicode scalar value`, hex)
		}
		return rune(n), nil
	}
	return 0, l.errAt(off, ErrSyntax, `unknown escape sequence \%s`, describeRune(l.src, off+1, l.end))
}

// scalar reads one literal character (not an escape), checking UTF-8.
func (l *lexer) scalar() (rune, error) {
	r, n := utf8.DecodeRuneInString(l.src[l.pos:l.end])
	if r == utf8.RuneError && n <= 1 {
		return 0, l.errAt(l.pos, ErrSyntax, "invalid UTF-8")
	}
	l.pos += n
	return r, nil
}

func (l *lexer) char() (token, error) {
	start := l.pos
	l.pos++
	if l.pos >= l.end {
		return token{}, l.errAt(start, ErrSyntax, "unterminated char")
	}
	var r rune
	switch c := l.src[l.pos]; c {
	case '\'':
		return token{}, l.errAt(start, ErrSyntax, `empty char (write '\'' for a quote)`)
	case '\n':
		return token{}, l.errAt(l.pos, ErrSyntax, `newline in char (write '\n')`)
	case '\\':
		l.pos++
		var err error
		if r, err = l.escape(l.pos - 1); err != nil {
			return token{}, err
		}
	default:
		var err error
		if r, err = l.scalar(); err != nil {
			return token{}, err
		}
	}
	if l.pos >= l.end || l.src[l.pos] != '\'' {
		return token{}, l.errAt(start, ErrSyntax, "expected ' to close char, found %s", describeAt(l.src, l.pos, l.end))
	}
	l.pos++
	return token{kind: tokChar, start: start, end: l.pos, text: string(r)}, nil
}

func (l *lexer) string() (token, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for {
		if l.pos >= l.end {
			return token{}, l.errAt(start, ErrSyntax, "unterminated string")
		}
		switch c := l.src[l.pos]; c {
		case '"':
			l.pos++
			return token{kind: tokString, start: start, end: l.pos, text: b.String()}, nil
		case '\n':
			return token{}, l.errAt(l.pos, ErrSyntax, `newline in string (write \n, or use a """ multi-line string)`)
		case '\\':
			l.pos++
			r, err := l.escape(l.pos - 1)
			if err != nil {
				return token{}, err
			}
			b.WriteRune(r)
		default:
			r, err := l.scalar()
			if err != nil {
				return token{}, err
			}
			b.WriteRune(r)
		}
	}
}

// multiline reads a """ string: the opening """ is followed by a line break, the closing one is
// alone on its line after some spaces, and that many spaces are removed from every line.
func (l *lexer) multiline() (token, error) {
	start := l.pos
	l.pos += 3
	lineEnd := func(p int) (content, next int, ok bool) {
		i := strings.IndexByte(l.src[p:l.end], '\n')
		if i < 0 {
			return 0, 0, false
		}
		e := p + i
		c := e
		if c > p && l.src[c-1] == '\r' {
			c--
		}
		return c, e + 1, true
	}
	if c, next, ok := lineEnd(l.pos); !ok || c != l.pos {
		return token{}, l.errAt(start, ErrSyntax, `expected a line break after opening """`)
	} else {
		l.pos = next
	}
	type line struct{ s, e int }
	var lines []line
	for {
		p := l.pos
		sp := p
		for sp < l.end && l.src[sp] == ' ' {
			sp++
		}
		if strings.HasPrefix(l.src[sp:l.end], `"""`) {
			indent := sp - p
			l.pos = sp + 3
			var b strings.Builder
			for i, ln := range lines {
				if i > 0 {
					b.WriteByte('\n')
				}
				if err := l.decodeLine(&b, ln.s, ln.e, indent); err != nil {
					return token{}, err
				}
			}
			return token{kind: tokString, start: start, end: l.pos, text: b.String()}, nil
		}
		c, next, ok := lineEnd(p)
		if !ok {
			return token{}, l.errAt(start, ErrSyntax, `unterminated multi-line string (the closing """ goes on its own line)`)
		}
		if i := strings.Index(l.src[p:c], `"""`); i >= 0 {
			return token{}, l.errAt(p+i, ErrSyntax, `""" inside a multi-line string (escape one of the quotes)`)
		}
		lines = append(lines, line{p, c})
		l.pos = next
	}
}

// decodeLine appends the line src[s:e] without its indent, decoding escapes. A line of spaces
// only that is shorter than the indent counts as an empty line.
func (l *lexer) decodeLine(b *strings.Builder, s, e, indent int) error {
	for i := 0; i < indent; i++ {
		if s+i >= e {
			return nil
		}
		if l.src[s+i] != ' ' {
			return l.errAt(s+i, ErrSyntax, "multi-line string line is indented less than its closing \"\"\" (%d spaces)", indent)
		}
	}
	sub := lexer{src: l.src, pos: s + indent, end: e}
	for sub.pos < sub.end {
		if sub.src[sub.pos] == '\\' {
			sub.pos++
			r, err := sub.escape(sub.pos - 1)
			if err != nil {
				return err
			}
			b.WriteRune(r)
			continue
		}
		r, err := sub.scalar()
		if err != nil {
			return err
		}
		b.WriteRune(r)
	}
	return nil
}

// describeAt names what is at src[off:] for "found …" in messages.
func describeAt(src string, off, end int) string {
	if off >= end {
		return "end of input"
	}
	return describeRune(src, off, end)
}

func describeRune(src string, off, end int) string {
	if off >= end {
		return "end of input"
	}
	r, n := utf8.DecodeRuneInString(src[off:end])
	if r == utf8.RuneError && n <= 1 {
		return strconv.Quote(src[off:off+1]) + " (invalid UTF-8)"
	}
	return quoteText(string(r))
}

// describe names a token for "found …".
func describe(l *lexer, t token) string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return quoteText(l.src[t.start:t.end])
}

// quoteText quotes source text in single quotes, shortened and with control characters escaped.
func quoteText(s string) string {
	const max = 24
	if utf8.RuneCountInString(s) > max {
		rs := []rune(s)
		s = string(rs[:max]) + "…"
	}
	q := strconv.QuoteToGraphic(s)
	return "'" + strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`) + "'"
}
