package wave

import (
	"strings"

	"github.com/kobako/kobako/abi"
)

// Call is a function call expression, name(arg, …), as given to `kobako run --invoke`. The
// arguments are kept as text until the function, and so the parameter types, are known.
type Call struct {
	// Func is the function's name: a plain export ("add") or an interface-qualified one
	// ("docs:adder/add@0.1.0#add", the version optional; "label#func" for an export named by a
	// plain label).
	Func string
	// Args are the arguments' texts, in order.
	Args []RawArg

	src   string // the whole expression, for error positions
	close int    // offset of the closing ')'
}

// RawArg is the text of one argument and where it starts in the call expression.
type RawArg struct {
	Text   string
	Offset int
}

// Interface returns the interface part of an interface-qualified function name ("docs:adder/add@0.1.0"
// for "docs:adder/add@0.1.0#add"), or "" for a plain name.
func (c Call) Interface() string {
	if i := strings.LastIndexByte(c.Func, '#'); i >= 0 {
		return c.Func[:i]
	}
	return ""
}

// Name returns the function's own name, after any '#'.
func (c Call) Name() string {
	return c.Func[strings.LastIndexByte(c.Func, '#')+1:]
}

// ParseCall splits s, a call expression such as `add(1, 2)` or
// `docs:adder/add@0.1.0#add("x", [1, 2])`, into the function name and the argument texts. It
// checks the name and that the arguments are balanced, comma-separated WAVE tokens (a trailing
// comma is allowed); ParseArgs parses them once their types are known.
func ParseCall(s string) (Call, error) {
	l := &lexer{src: s, end: len(s)}
	l.skipSpace()
	start := l.pos
	for l.pos < l.end && isNameByte(s[l.pos]) {
		l.pos++
	}
	name := s[start:l.pos]
	if name == "" {
		return Call{}, l.errAt(start, ErrSyntax, "expected a function name, found %s", describeAt(s, start, l.end))
	}
	if msg := checkFuncName(name); msg != "" {
		return Call{}, l.errAt(start, ErrSyntax, "invalid function name %s: %s", quoteText(name), msg)
	}
	c := Call{Func: name, src: s}
	p := &parser{*l}
	if _, err := p.expectPunct("(", "after the function name"); err != nil {
		return Call{}, err
	}
	for {
		tok, err := p.peek()
		if err != nil {
			return Call{}, err
		}
		if tok.kind == tokPunct && tok.text == ")" {
			c.close = tok.start
			p.pos = tok.end
			break
		}
		argStart, argEnd, err := p.skipValue()
		if err != nil {
			return Call{}, err
		}
		c.Args = append(c.Args, RawArg{Text: s[argStart:argEnd], Offset: argStart})
		tok, err = p.next()
		if err != nil {
			return Call{}, err
		}
		if tok.kind == tokPunct && tok.text == ")" {
			c.close = tok.start
			break
		}
		if tok.kind != tokPunct || tok.text != "," {
			return Call{}, p.errAt(tok.start, ErrSyntax, "expected ',' or ')' in argument list, found %s", describe(&p.lexer, tok))
		}
	}
	tok, err := p.next()
	if err != nil {
		return Call{}, err
	}
	if tok.kind != tokEOF {
		return Call{}, p.errAt(tok.start, ErrSyntax, "expected end of input after ')', found %s", describe(&p.lexer, tok))
	}
	return c, nil
}

func isNameByte(c byte) bool {
	return isLabelByte(c) || strings.IndexByte(":/@.+#%[]", c) >= 0
}

// checkFuncName accepts a label, or an instance name and '#' and a label, where the instance
// name is a label or ns:pkg/iface with an optional @version.
func checkFuncName(name string) string {
	inst, fn, qualified := strings.Cut(name, "#")
	if !qualified {
		fn, inst = name, ""
	}
	if msg := checkLabel(fn); msg != "" {
		return "function " + quoteText(fn) + ": " + msg
	}
	if !qualified {
		return ""
	}
	base, version, hasVersion := strings.Cut(inst, "@")
	if hasVersion {
		if version == "" {
			return "empty version after '@'"
		}
		for i := 0; i < len(version); i++ {
			if c := version[i]; !isLabelByte(c) && c != '.' && c != '+' {
				return "version " + quoteText(version) + " has a character outside [0-9A-Za-z.+-]"
			}
		}
	}
	ns, rest, hasNS := strings.Cut(base, ":")
	if !hasNS {
		if hasVersion {
			return "a version needs an interface name ns:pkg/iface"
		}
		if msg := checkLabel(base); msg != "" {
			return "instance " + quoteText(base) + ": " + msg
		}
		return ""
	}
	pkg, iface, ok := strings.Cut(rest, "/")
	if !ok {
		return "expected ns:pkg/iface before '#'"
	}
	for _, part := range []string{ns, pkg, iface} {
		if msg := checkLabel(part); msg != "" {
			return quoteText(part) + ": " + msg
		}
	}
	return ""
}

// skipValue skips one value without knowing its type: a number, char or string; a label with an
// optional parenthesised payload; or a bracketed group, checked only for balance.
func (p *parser) skipValue() (start, end int, err error) {
	tok, err := p.next()
	if err != nil {
		return 0, 0, err
	}
	start = tok.start
	switch {
	case tok.kind == tokNumber || tok.kind == tokChar || tok.kind == tokString:
		return start, tok.end, nil
	case tok.kind == tokLabel:
		next, err := p.peek()
		if err != nil {
			return 0, 0, err
		}
		if next.kind != tokPunct || next.text != "(" {
			return start, tok.end, nil
		}
		p.pos = next.end
		end, err := p.skipGroup(')')
		return start, end, err
	case tok.kind == tokPunct && strings.Contains("([{", tok.text):
		end, err := p.skipGroup(closer(tok.text[0]))
		return start, end, err
	}
	return 0, 0, p.errAt(tok.start, ErrSyntax, "expected an argument value, found %s", describe(&p.lexer, tok))
}

func closer(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// skipGroup skips tokens up to and including the bracket close that matches an open bracket
// already consumed, checking that brackets inside nest properly. It keeps its own stack, so
// deep nesting costs memory in proportion to the input, never Go stack.
func (p *parser) skipGroup(close byte) (end int, err error) {
	stack := []byte{close}
	for {
		tok, err := p.next()
		if err != nil {
			return 0, err
		}
		want := stack[len(stack)-1]
		switch {
		case tok.kind == tokEOF:
			return 0, p.errAt(tok.start, ErrSyntax, "expected '%c', found end of input", want)
		case tok.kind != tokPunct:
		case strings.Contains("([{", tok.text):
			stack = append(stack, closer(tok.text[0]))
		case strings.Contains(")]}", tok.text):
			if tok.text[0] != want {
				return 0, p.errAt(tok.start, ErrSyntax, "expected '%c', found %s", want, describe(&p.lexer, tok))
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return tok.end, nil
			}
		}
	}
}

// ParseArgs parses the arguments of c as values of the parameter types. Trailing arguments of
// option type may be left out; they are none.
func ParseArgs(types []abi.Type, c Call) ([]abi.Value, error) {
	if len(c.Args) > len(types) {
		a := c.Args[len(types)]
		return nil, errIn(c, a, ErrValue, "too many arguments: %s takes %d", c.Func, len(types))
	}
	vals := make([]abi.Value, len(types))
	for i, t := range types {
		if t == nil {
			return nil, newError(c.src, c.close, ErrValue, sprintf("parameter %d of %s has no type", i+1, c.Func))
		}
		if i >= len(c.Args) {
			if t.Kind() != abi.KindOption {
				return nil, newError(c.src, c.close, ErrValue,
					sprintf("missing argument %d of type %s: %s takes %d", i+1, t, c.Func, len(types)))
			}
			vals[i] = abi.NoneValue()
			continue
		}
		a := c.Args[i]
		// A Call built by hand has no source: positions are then within the argument's own text.
		p := &parser{lexer{src: a.Text, end: len(a.Text)}}
		if c.src != "" && a.Offset >= 0 && a.Offset+len(a.Text) <= len(c.src) && c.src[a.Offset:a.Offset+len(a.Text)] == a.Text {
			p = &parser{lexer{src: c.src, pos: a.Offset, end: a.Offset + len(a.Text)}}
		}
		v, err := p.value(t)
		if err != nil {
			return nil, err
		}
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if tok.kind != tokEOF {
			return nil, p.errAt(tok.start, ErrSyntax, "expected ',' or ')' in argument list, found %s", describe(&p.lexer, tok))
		}
		vals[i] = v
	}
	return vals, nil
}

func errIn(c Call, a RawArg, kind error, format string, args ...any) *Error {
	if c.src != "" && a.Offset >= 0 && a.Offset <= len(c.src) {
		return newError(c.src, a.Offset, kind, sprintf(format, args...))
	}
	return newError(a.Text, 0, kind, sprintf(format, args...))
}
