package wave

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
)

var (
	optU8     = abi.Must(abi.OptionOf(abi.U8))
	optOptU8  = abi.Must(abi.OptionOf(optU8))
	listU8    = abi.Must(abi.ListOf(abi.U8))
	listStr   = abi.Must(abi.ListOf(abi.String))
	tupU8Str  = abi.Must(abi.TupleOf(abi.U8, abi.String))
	point     = abi.Must(abi.RecordOf(abi.Field{Name: "x", Type: abi.S32}, abi.Field{Name: "y-pos", Type: abi.S32}))
	example   = abi.Must(abi.RecordOf(abi.Field{Name: "must-have", Type: abi.U8}, abi.Field{Name: "optional", Type: optU8}))
	allOpt    = abi.Must(abi.RecordOf(abi.Field{Name: "optional", Type: optU8}))
	response  = abi.Must(abi.VariantOf(abi.Case{Name: "empty"}, abi.Case{Name: "body", Type: listU8}, abi.Case{Name: "err", Type: abi.String}))
	status    = abi.Must(abi.EnumOf("ok", "not-found", "HTTP3"))
	perms     = abi.Must(abi.FlagsOf("read", "write", "exec"))
	resU8     = abi.Must(abi.ResultOf(abi.U8, nil))
	resErrStr = abi.Must(abi.ResultOf(nil, abi.String))
	resBare   = abi.Must(abi.ResultOf(nil, nil))
	resBoth   = abi.Must(abi.ResultOf(abi.String, abi.String))
	resOpt    = abi.Must(abi.ResultOf(optU8, nil))
	optBool   = abi.Must(abi.OptionOf(abi.Bool))
	ownT      = abi.Must(abi.OwnOf(abi.NewResourceType("thing")))
	digits    = abi.Must(abi.EnumOf("go-1", "go-2B"))
)

// TestParseFormat parses each input, compares with the expected value and checks the printed
// (canonical) form.
func TestParseFormat(t *testing.T) {
	tests := []struct {
		name string
		typ  abi.Type
		in   string
		want abi.Value
		out  string // canonical form; "" means the same as in
	}{
		{"true", abi.Bool, "true", abi.BoolValue(true), ""},
		{"false", abi.Bool, " false // comment", abi.BoolValue(false), "false"},
		{"s8 min", abi.S8, "-128", abi.S8Value(-128), ""},
		{"s16", abi.S16, "-300", abi.S16Value(-300), ""},
		{"s32", abi.S32, "2147483647", abi.S32Value(math.MaxInt32), ""},
		{"s64", abi.S64, "-9223372036854775808", abi.S64Value(math.MinInt64), ""},
		{"u8", abi.U8, "255", abi.U8Value(255), ""},
		{"u16", abi.U16, "65535", abi.U16Value(65535), ""},
		{"u32", abi.U32, "0", abi.U32Value(0), ""},
		{"u64 max", abi.U64, "18446744073709551615", abi.U64Value(math.MaxUint64), ""},
		{"u8 minus zero", abi.U8, "-0", abi.U8Value(0), "0"},
		{"f32", abi.F32, "3.14", abi.F32Value(3.14), ""},
		{"f32 exponent", abi.F32, "1e10", abi.F32Value(1e10), "10000000000"},
		{"f64", abi.F64, "6.022e+23", abi.F64Value(6.022e23), "602200000000000000000000"},
		{"f64 negative fraction", abi.F64, "-0.5", abi.F64Value(-0.5), ""},
		{"f64 minus zero", abi.F64, "-0", abi.F64Value(math.Copysign(0, -1)), ""},
		{"f32 too large is inf", abi.F32, "3.4028234664e39", abi.F32Value(float32(math.Inf(1))), "inf"},
		{"f32 largest", abi.F32, "3.4028234664e38", abi.F32Value(math.MaxFloat32), "340282350000000000000000000000000000000"},
		{"f32 too small is zero", abi.F32, "1.4012984643e-46", abi.F32Value(0), "0"},
		{"f64 zero exponent", abi.F64, "-0.0e-0", abi.F64Value(math.Copysign(0, -1)), "-0"},
		{"f64 nan", abi.F64, "nan", abi.F64Value(math.NaN()), ""},
		{"f64 inf", abi.F64, "inf", abi.F64Value(math.Inf(1)), ""},
		{"f32 -inf", abi.F32, "-inf", abi.F32Value(float32(math.Inf(-1))), ""},
		{"char", abi.Char, "'x'", abi.CharValue('x'), ""},
		{"char snowman", abi.Char, "'☃'", abi.CharValue('☃'), ""},
		{"char quote", abi.Char, `'\''`, abi.CharValue('\''), ""},
		{"char double quote raw", abi.Char, `'"'`, abi.CharValue('"'), `'\"'`},
		{"char unicode escape", abi.Char, `'\u{0}'`, abi.CharValue(0), ""},
		{"char unicode escape upper", abi.Char, `'\u{1F600}'`, abi.CharValue('😀'), "'😀'"},
		{"char newline", abi.Char, `'\n'`, abi.CharValue('\n'), ""},
		{"char control", abi.Char, "'\x07'", abi.CharValue(7), `'\u{7}'`},
		{"string", abi.String, `"abc\t123"`, abi.StringValue("abc\t123"), ""},
		{"string escapes", abi.String, `"a\"b\\c\'d\r\n"`, abi.StringValue("a\"b\\c'd\r\n"), ""},
		{"string raw single quote", abi.String, `"it's"`, abi.StringValue("it's"), `"it\'s"`},
		{"string empty", abi.String, `""`, abi.StringValue(""), ""},
		{"string emoji", abi.String, `"👋 hi"`, abi.StringValue("👋 hi"), ""},
		{"multiline", abi.String, "\"\"\"\nA single line\n\"\"\"", abi.StringValue("A single line"), `"A single line"`},
		{"multiline indent", abi.String, "\"\"\"\n    Indentation determined\n      by ending delimiter\n  \"\"\"",
			abi.StringValue("  Indentation determined\n    by ending delimiter"), `"  Indentation determined\n    by ending delimiter"`},
		{"multiline escapes", abi.String, "\"\"\"\r\n  Must escape: \\r\n  triplets: \"\"\\\"\"\n  \"\"\"",
			abi.StringValue("Must escape: \r\ntriplets: \"\"\"\""), `"Must escape: \r\ntriplets: \"\"\"\""`},
		{"multiline blank line", abi.String, "\"\"\"\n  a\n\n  b\n  \"\"\"", abi.StringValue("a\n\nb"), `"a\n\nb"`},
		{"list", listU8, "[1, 2, 3]", abi.ListValue(abi.U8Value(1), abi.U8Value(2), abi.U8Value(3)), ""},
		{"list bytes", listU8, "[1,2,3,]", abi.BytesValue([]byte{1, 2, 3}), "[1, 2, 3]"},
		{"list empty", listStr, "[ ]", abi.ListValue(), "[]"},
		{"tuple", tupU8Str, `(123, "abc")`, abi.TupleValue(abi.U8Value(123), abi.StringValue("abc")), ""},
		{"tuple trailing comma", tupU8Str, `(1,"a",)`, abi.TupleValue(abi.U8Value(1), abi.StringValue("a")), `(1, "a")`},
		{"record", point, "{x: 1, y-pos: -2}", abi.RecordValue(abi.S32Value(1), abi.S32Value(-2)), ""},
		{"record any order", point, "{y-pos: 2, %x: 1,}", abi.RecordValue(abi.S32Value(1), abi.S32Value(2)), "{x: 1, y-pos: 2}"},
		{"record option omitted", example, "{must-have: 123}", abi.RecordValue(abi.U8Value(123), abi.NoneValue()), ""},
		{"record option none", example, "{must-have: 123, optional: none,}", abi.RecordValue(abi.U8Value(123), abi.NoneValue()), "{must-have: 123}"},
		{"record option some", example, "{must-have: 1, optional: 2}", abi.RecordValue(abi.U8Value(1), abi.SomeValue(abi.U8Value(2))), "{must-have: 1, optional: some(2)}"},
		{"record all omitted", allOpt, "{:}", abi.RecordValue(abi.NoneValue()), ""},
		{"record all none", allOpt, "{optional: none}", abi.RecordValue(abi.NoneValue()), "{:}"},
		{"variant no payload", response, "empty", abi.VariantValue(0, abi.Value{}), ""},
		{"variant payload", response, "body([79, 75])", abi.VariantValue(1, abi.BytesValue([]byte("OK"))), ""},
		{"variant keyword case", response, `%err("oops")`, abi.VariantValue(2, abi.StringValue("oops")), ""},
		{"enum keyword", status, "%ok", abi.EnumValue(0), ""},
		{"enum", status, "not-found", abi.EnumValue(1), ""},
		{"enum upper", status, "HTTP3", abi.EnumValue(2), ""},
		{"enum digit words", digits, "go-2B", abi.EnumValue(1), ""},
		{"enum escaped non-keyword", status, "%not-found", abi.EnumValue(1), "not-found"},
		{"option some", optU8, "some(1)", abi.SomeValue(abi.U8Value(1)), ""},
		{"option flat", optU8, "123", abi.SomeValue(abi.U8Value(123)), "some(123)"},
		{"option none", optU8, "none", abi.NoneValue(), ""},
		{"option bool flat", optBool, "true", abi.SomeValue(abi.BoolValue(true)), "some(true)"},
		{"option option", optOptU8, "some(none)", abi.SomeValue(abi.NoneValue()), ""},
		{"option option flat inner", optOptU8, "some(5)", abi.SomeValue(abi.SomeValue(abi.U8Value(5))), "some(some(5))"},
		{"result flat ok", resU8, "123", abi.OkValue(abi.U8Value(123)), "ok(123)"},
		{"result ok", resU8, "ok(1)", abi.OkValue(abi.U8Value(1)), ""},
		{"result err no payload", resU8, "err", abi.ErrValue(abi.Value{}), ""},
		{"result ok no payload", resErrStr, "ok", abi.OkValue(abi.Value{}), ""},
		{"result err", resErrStr, `err("oops")`, abi.ErrValue(abi.StringValue("oops")), ""},
		{"result bare", resBare, "err", abi.ErrValue(abi.Value{}), ""},
		{"result both", resBoth, `"flat"`, abi.OkValue(abi.StringValue("flat")), `ok("flat")`},
		{"result of option", resOpt, "ok(none)", abi.OkValue(abi.NoneValue()), ""},
		{"flags", perms, "{write, read,}", abi.FlagsValue(3), "{read, write}"},
		{"flags empty", perms, "{}", abi.FlagsValue(0), ""},
		{"flags escaped", perms, "{%exec}", abi.FlagsValue(4), "{exec}"},
		{"comments and space", point, "{ // a point\n x : 1 ,\n\t y-pos : 2 }", abi.RecordValue(abi.S32Value(1), abi.S32Value(2)), "{x: 1, y-pos: 2}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseValue(tt.typ, tt.in)
			if err != nil {
				t.Fatalf("ParseValue(%s, %q): %v", tt.typ, tt.in, err)
			}
			if !abi.Equal(got, tt.want) {
				t.Fatalf("ParseValue(%s, %q) = %s, want %s", tt.typ, tt.in, got, tt.want)
			}
			out := tt.out
			if out == "" {
				out = tt.in
			}
			if s := FormatValue(tt.typ, got); s != out {
				t.Fatalf("FormatValue = %s, want %s", s, out)
			}
			back, err := ParseValue(tt.typ, out)
			if err != nil || !abi.Equal(back, tt.want) {
				t.Fatalf("ParseValue(%q) = %s, %v; want %s", out, back, err, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  abi.Type
		in   string
		kind error
		msg  string
	}{
		{"empty", abi.U8, "", ErrValue, "wave: 1:1: expected u8 integer, found end of input"},
		{"trailing", abi.U8, "1 2", ErrSyntax, "wave: 1:3: expected end of input after the value, found '2'"},
		{"u8 range", abi.U8, "256", ErrValue, "wave: 1:1: number '256' out of range for u8"},
		{"u8 negative", abi.U8, "-1", ErrValue, "wave: 1:1: number '-1' out of range for u8"},
		{"s8 range", abi.S8, "-129", ErrValue, "wave: 1:1: number '-129' out of range for s8"},
		{"int fraction", abi.U32, "1.5", ErrValue, "wave: 1:1: expected u32 integer, found '1.5' (integers have no fraction or exponent)"},
		{"leading zero", abi.U32, "01", ErrSyntax, "wave: 1:1: number '01' has a leading zero"},
		{"float bad", abi.F64, "1.", ErrSyntax, "wave: 1:3: expected digits after '.', found end of input"},
		{"float junk", abi.F64, "1x", ErrSyntax, "wave: 1:2: unexpected 'x' after number '1'"},
		{"nan escaped", abi.F64, "%nan", ErrValue, "wave: 1:1: expected f64 number (or nan, inf, -inf), found '%nan'"},
		{"bool", abi.Bool, "yes", ErrValue, "wave: 1:1: expected bool (true or false), found 'yes'"},
		{"char empty", abi.Char, "''", ErrSyntax, `wave: 1:1: empty char (write '\'' for a quote)`},
		{"char bare word", abi.Char, "x", ErrValue, "wave: 1:1: expected a char in single quotes (such as 'a'), found the bare word x"},
		{"char string", abi.Char, `"x"`, ErrValue, "wave: 1:1: expected a char in single quotes (such as 'a'), found a string; a char is written in single quotes"},
		{"enum unknown case", status, "gone", ErrValue, "wave: 1:1: enum { ok, not-found, HTTP3 } has no case 'gone'"},
		{"enum not a label", status, "1", ErrValue, "wave: 1:1: expected a case of enum { ok, not-found, HTTP3 }, found '1'"},
		{"char two", abi.Char, "'ab'", ErrSyntax, "wave: 1:1: expected ' to close char, found 'b'"},
		{"char surrogate", abi.Char, `'\u{d800}'`, ErrSyntax, `wave: 1:2: escape \u{d800} is not a Unicode scalar value`},
		{"char too big", abi.Char, `'\u{110000}'`, ErrSyntax, `wave: 1:2: escape \u{110000} is not a Unicode scalar value`},
		{"bad escape", abi.String, `"a\qb"`, ErrSyntax, `wave: 1:3: unknown escape sequence \'q'`},
		{"unterminated string", abi.String, `"abc`, ErrSyntax, "wave: 1:1: unterminated string"},
		{"newline in string", abi.String, "\"a\nb\"", ErrSyntax, `wave: 1:3: newline in string (write \n, or use a """ multi-line string)`},
		{"invalid utf8", abi.String, "\"a\xffb\"", ErrSyntax, "wave: 1:3: invalid UTF-8"},
		{"multiline no break", abi.String, `"""abc"""`, ErrSyntax, `wave: 1:1: expected a line break after opening """`},
		{"multiline unterminated", abi.String, "\"\"\"\nabc\n", ErrSyntax, `wave: 1:1: unterminated multi-line string (the closing """ goes on its own line)`},
		{"multiline dedent", abi.String, "\"\"\"\n a\n  \"\"\"", ErrSyntax, `wave: 2:2: multi-line string line is indented less than its closing """ (2 spaces)`},
		{"multiline triple", abi.String, "\"\"\"\na\"\"\"b\n\"\"\"", ErrSyntax, `wave: 2:2: """ inside a multi-line string (escape one of the quotes)`},
		{"list separator", listU8, "[1 2]", ErrSyntax, "wave: 1:4: expected ',' or ']' in list, found '2'"},
		{"list unclosed", listU8, "[1,", ErrValue, "wave: 1:4: expected u8 integer, found end of input"},
		{"list element line col", listU8, "[\n  1,\n  300]", ErrValue, "wave: 3:3: number '300' out of range for u8"},
		{"tuple short", tupU8Str, "(1)", ErrValue, "wave: 1:1: tuple tuple<u8, string> needs 2 elements, found 1"},
		{"tuple long", tupU8Str, `(1, "a", 2)`, ErrValue, "wave: 1:10: too many elements for tuple<u8, string>: expected ')'"},
		{"record missing", point, "{x: 1}", ErrValue, "wave: 1:1: record is missing field 'y-pos'"},
		{"record unknown", point, "{x: 1, z: 2}", ErrValue, "wave: 1:8: record has no field 'z' (fields: x, y-pos)"},
		{"record twice", point, "{x: 1, x: 2}", ErrValue, "wave: 1:8: field 'x' given twice"},
		{"record empty braces", allOpt, "{}", ErrValue, "wave: 1:2: expected a field label or ':' in record, found '}' (a record with every field left out is written {:})"},
		{"record colon", point, "{x 1}", ErrSyntax, "wave: 1:4: expected ':' after field label, found '1'"},
		{"label mixed case", point, "{Xy: 1}", ErrSyntax, "wave: 1:2: invalid label 'Xy': a word may not mix upper and lower case"},
		{"label double hyphen", point, "{x--y: 1}", ErrSyntax, "wave: 1:2: invalid label 'x--y': empty word between hyphens"},
		{"variant unknown", response, "full", ErrValue, "wave: 1:1: variant has no case 'full' (cases: empty, body, err)"},
		{"variant keyword", response, `err("x")`, ErrSyntax, "wave: 1:1: case 'err' is spelled like a keyword and must be written %err"},
		{"variant missing payload", response, "body", ErrSyntax, "wave: 1:5: expected '(' for the payload of case 'body', found end of input"},
		{"variant extra payload", response, "empty(1)", ErrValue, "wave: 1:6: case 'empty' has no payload"},
		{"enum keyword", status, "ok", ErrSyntax, "wave: 1:1: case 'ok' is spelled like a keyword and must be written %ok"},
		{"enum payload", status, "%ok(1)", ErrValue, "wave: 1:4: enum case 'ok' has no payload"},
		{"option flat of option", optOptU8, "5", ErrValue, "wave: 1:1: expected some(...) or none for option<option<u8>>, found '5'"},
		{"option none payload", optU8, "none(1)", ErrValue, "wave: 1:5: case 'none' has no payload"},
		{"result no flat", resErrStr, `"x"`, ErrValue, `wave: 1:1: expected ok or err for result<_, string>, found '"x"'`},
		{"result ok payload missing", resU8, "ok", ErrSyntax, "wave: 1:3: expected '(' for the payload of case 'ok', found end of input"},
		{"flags unknown", perms, "{read, run}", ErrValue, "wave: 1:8: unknown flag 'run' (flags: read, write, exec)"},
		{"flags twice", perms, "{read, read}", ErrValue, "wave: 1:8: flag 'read' given twice"},
		{"flags record form", perms, "{read: true}", ErrSyntax, "wave: 1:6: expected ',' or '}' in flags, found ':'"},
		{"own", ownT, "1", ErrUnsupported, "wave: 1:1: cannot write a own<thing> value: resource handles have no text form"},
		{"unexpected char", abi.U8, "#", ErrSyntax, "wave: 1:1: unexpected '#'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseValue(tt.typ, tt.in)
			if err == nil {
				t.Fatalf("ParseValue(%s, %q) = %s, want error", tt.typ, tt.in, v)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %v does not match %v", err, tt.kind)
			}
			if err.Error() != tt.msg {
				t.Errorf("error\n got %s\nwant %s", err, tt.msg)
			}
			var we *Error
			if !errors.As(err, &we) || we.Offset < 0 || we.Offset > len(tt.in) {
				t.Errorf("error %#v has no valid offset", err)
			}
		})
	}
}

func TestParseCall(t *testing.T) {
	tests := []struct {
		in    string
		fn    string
		iface string
		args  []string
	}{
		{"add(1, 2)", "add", "", []string{"1", "2"}},
		{"  add ( 1 , 2 , ) ", "add", "", []string{"1", "2"}},
		{"run()", "run", "", nil},
		{"docs:adder/add@0.1.0#add(1, 2)", "docs:adder/add@0.1.0#add", "docs:adder/add@0.1.0", []string{"1", "2"}},
		{"docs:adder/add#add(1)", "docs:adder/add#add", "docs:adder/add", []string{"1"}},
		{"wasi:cli/run@0.2.0-rc.1+build#run()", "wasi:cli/run@0.2.0-rc.1+build#run", "wasi:cli/run@0.2.0-rc.1+build", nil},
		{"api#get-point()", "api#get-point", "api", nil},
		// Later words may start with a digit (the component model's label grammar).
		{"run-1(10)", "run-1", "", []string{"10"}},
		{"add-10(5)", "add-10", "", []string{"5"}},
		{"log-at-1(0)", "log-at-1", "", []string{"0"}},
		{"docs:adder/add-2#get-2nd()", "docs:adder/add-2#get-2nd", "docs:adder/add-2", nil},
		{`f({a: [1, (2, "x)")], b: some(none)}, 'y', "z,", body([1]))`, "f", "",
			[]string{`{a: [1, (2, "x)")], b: some(none)}`, `'y'`, `"z,"`, "body([1])"}},
		{"f(\"\"\"\n  a, b)\n  \"\"\", x)", "f", "", []string{"\"\"\"\n  a, b)\n  \"\"\"", "x"}},
	}
	for _, tt := range tests {
		c, err := ParseCall(tt.in)
		if err != nil {
			t.Errorf("ParseCall(%q): %v", tt.in, err)
			continue
		}
		if c.Func != tt.fn || c.Interface() != tt.iface {
			t.Errorf("ParseCall(%q) = %q (interface %q), want %q (%q)", tt.in, c.Func, c.Interface(), tt.fn, tt.iface)
		}
		var args []string
		for _, a := range c.Args {
			args = append(args, a.Text)
			if tt.in[a.Offset:a.Offset+len(a.Text)] != a.Text {
				t.Errorf("ParseCall(%q): argument %q has offset %d", tt.in, a.Text, a.Offset)
			}
		}
		if strings.Join(args, "|") != strings.Join(tt.args, "|") {
			t.Errorf("ParseCall(%q) args = %q, want %q", tt.in, args, tt.args)
		}
	}
}

func TestParseCallErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "wave: 1:1: expected a function name, found end of input"},
		{"add", "wave: 1:4: expected '(' after the function name, found end of input"},
		{"add(1 x)", "wave: 1:7: expected ',' or ')' in argument list, found 'x'"},
		{"add(1, 2", "wave: 1:9: expected ',' or ')' in argument list, found end of input"},
		{"add(1,,2)", "wave: 1:7: expected an argument value, found ','"},
		{"add(,)", "wave: 1:5: expected an argument value, found ','"},
		{"add([1, 2)", "wave: 1:10: expected ']', found ')'"},
		{"add({a: 1)", "wave: 1:10: expected '}', found ')'"},
		{"add(1) x", "wave: 1:8: expected end of input after ')', found 'x'"},
		{"Add-x(1)", "wave: 1:1: invalid function name 'Add-x': function 'Add-x': a word may not mix upper and lower case"},
		{"1-run()", "wave: 1:1: invalid function name '1-run': function '1-run': the first word must start with a letter"},
		{"run-1xY()", "wave: 1:1: invalid function name 'run-1xY': function 'run-1xY': a word may not mix upper and lower case"},
		{"docs:adder#add(1)", "wave: 1:1: invalid function name 'docs:adder#add': expected ns:pkg/iface before '#'"},
		{"adder@1.0#add(1)", "wave: 1:1: invalid function name 'adder@1.0#add': a version needs an interface name ns:pkg/iface"},
		{"docs:adder/add@#add(1)", "wave: 1:1: invalid function name 'docs:adder/add@#add': empty version after '@'"},
		{"f(\"abc)", "wave: 1:3: unterminated string"},
		{"f(1)\n\n  )", "wave: 3:3: expected end of input after ')', found ')'"},
	}
	for _, tt := range tests {
		_, err := ParseCall(tt.in)
		if err == nil {
			t.Errorf("ParseCall(%q) succeeded, want %s", tt.in, tt.msg)
			continue
		}
		if err.Error() != tt.msg || !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCall(%q)\n got %v\nwant %s", tt.in, err, tt.msg)
		}
	}
}

func TestParseArgs(t *testing.T) {
	types := []abi.Type{abi.U32, point, optU8, optU8}
	tests := []struct {
		in   string
		want []abi.Value
		msg  string
	}{
		{in: "f(1, {x: 1, y-pos: 2}, 3, none)", want: []abi.Value{abi.U32Value(1), abi.RecordValue(abi.S32Value(1), abi.S32Value(2)),
			abi.SomeValue(abi.U8Value(3)), abi.NoneValue()}},
		{in: "f(1, {x: 1, y-pos: 2}, some(3))", want: []abi.Value{abi.U32Value(1), abi.RecordValue(abi.S32Value(1), abi.S32Value(2)),
			abi.SomeValue(abi.U8Value(3)), abi.NoneValue()}},
		{in: "f(1, {x: 1, y-pos: 2})", want: []abi.Value{abi.U32Value(1), abi.RecordValue(abi.S32Value(1), abi.S32Value(2)),
			abi.NoneValue(), abi.NoneValue()}},
		{in: "f(1)", msg: "wave: 1:4: missing argument 2 of type record { x: s32, y-pos: s32 }: f takes 4"},
		{in: "f(1, {x: 1, y-pos: 2}, none, none, 5)", msg: "wave: 1:36: too many arguments: f takes 4"},
		{in: "f(1, {x: 1, y-pos: 2.5})", msg: "wave: 1:20: expected s32 integer, found '2.5' (integers have no fraction or exponent)"},
		{in: "f(-1, {x: 1, y-pos: 2})", msg: "wave: 1:3: number '-1' out of range for u32"},
		{in: "f(some(1), {x: 1, y-pos: 2})", msg: "wave: 1:3: expected u32 integer, found 'some'"},
	}
	for _, tt := range tests {
		c, err := ParseCall(tt.in)
		if err != nil {
			t.Fatalf("ParseCall(%q): %v", tt.in, err)
		}
		got, err := ParseArgs(types, c)
		if tt.msg != "" {
			if err == nil || err.Error() != tt.msg {
				t.Errorf("ParseArgs(%q)\n got %v\nwant %s", tt.in, err, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseArgs(%q): %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Fatalf("ParseArgs(%q) = %v", tt.in, got)
		}
		for i := range got {
			if !abi.Equal(got[i], tt.want[i]) {
				t.Errorf("ParseArgs(%q)[%d] = %s, want %s", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

// A Call assembled by hand has no source text; errors are then placed within the argument.
func TestParseArgsHandMade(t *testing.T) {
	c := Call{Func: "f", Args: []RawArg{{Text: "[1, x]"}}}
	_, err := ParseArgs([]abi.Type{listU8}, c)
	if err == nil || err.Error() != "wave: 1:5: expected u8 integer, found 'x'" {
		t.Fatalf("got %v", err)
	}
	if c.Name() != "f" || c.Interface() != "" {
		t.Fatalf("Name, Interface = %q, %q", c.Name(), c.Interface())
	}
}

func TestFormatResults(t *testing.T) {
	tests := []struct {
		types []abi.Type
		vals  []abi.Value
		want  string
	}{
		{nil, nil, "()"},
		{[]abi.Type{abi.String}, []abi.Value{abi.StringValue("x")}, `"x"`},
		{[]abi.Type{resErrStr}, []abi.Value{abi.OkValue(abi.Value{})}, "ok"},
		{[]abi.Type{abi.U8, abi.String}, []abi.Value{abi.U8Value(1), abi.StringValue("a")}, `(1, "a")`},
		{[]abi.Type{ownT}, []abi.Value{abi.OwnValue(7)}, "own(7)"},
	}
	for _, tt := range tests {
		if got := FormatResults(tt.types, tt.vals); got != tt.want {
			t.Errorf("FormatResults = %s, want %s", got, tt.want)
		}
	}
}

func TestFormatMismatch(t *testing.T) {
	if got := FormatValue(abi.U8, abi.StringValue("x")); got != "!{expected u8, found string}" {
		t.Fatalf("got %s", got)
	}
	if got := FormatValue(point, abi.RecordValue(abi.S32Value(1))); got != "!{expected 2 fields, found record}" {
		t.Fatalf("got %s", got)
	}
}

// TestRejects lists inputs that wasm-wave's own test suite rejects; each must fail here too.
func TestRejects(t *testing.T) {
	tests := []struct {
		typ abi.Type
		in  []string
	}{
		{abi.F32, []string{"-nan", "NaN", "infinity", "-infinity", "INFINITY", "Infinity", "Inf", "-Inf", "INF", "-INF", "1.", ".5", "+1", "1e", "0x10"}},
		{abi.Char, []string{"''", "'ab'", "'☃☃'", `'\n\n'`, `'\z'`, `'\x1f'`, `'\u1f'`, `'\u{1f'`, `'\u1f}'`, `'\u{}'`, `'\u{x}'`,
			`'\u{12345678}'`, `'\u{110000}'`, `'\u{D800}'`, `'\u{DFFF}'`, "'", "x'", "'x", `'\'`, "'''", "'\n'"}},
		{abi.String, []string{`"\u{d800}"`, `"\u{dbff}"`, `"\u{dc00}"`, `"\u{110000}"`, `"\u{ffffffff}"`, `"\u{80000000}"`, `"\u{-1}"`, `"\u{+1}"`,
			`"""`, `"\"`, "\"\n\"", `""""""`, `""" """`, "\"\"\"\"\n\"\"\"", "\"\"\"\n\"\"", "\"\"\"\n\"\"\"\"", "\"\"\"extra\n\"\"\"",
			"\"\"\"\nextra\"\"\"", "\"\"\"\n  \"\"\"\n  \"\"\"", "\"\"\"\n  Between \"\"\" words\n  \"\"\"", "\"\"\"\nbad: \\u{d800}\n\"\"\"",
			"\"\"\"\nbad: \\j\n\"\"\"", ""}},
		{optU8, []string{"some", "some()", "some(some)", "some(some())", "some(some(0))", "none()", "some(none())", "none(0)", "none(some(0))"}},
		{resU8, []string{"ok", "ok()", "o(0)", "err(0)"}},
		{abi.Must(abi.ResultOf(nil, abi.U8)), []string{"err", "err()", "e(0)", "ok(0)"}},
		{resBare, []string{"ok()", "o(0)", "ok(0)", "err()", "e(0)", "err(0)"}},
		{abi.Must(abi.ResultOf(abi.U8, abi.U8)), []string{"ok", "ok()", "o(0)", "err", "err()", "e(0)"}},
		{example, []string{"{optional: none}", "{optional: some(0)}", "{must-have: 0, must-have: 0}", "{must-have: 0, optional: none, optional: none}",
			"{must-have: 0,,}", "{, must-have: 0}", "{,, must-have: 0}"}},
		{allOpt, []string{"{}"}},
		{perms, []string{"{read,,}", "{,read}", "{read write}", "{READ}", "{read: true}"}},
		{listU8, []string{"[,]", "[1,,]", "[1 2]", "[", "]", "(1)"}},
		{status, []string{"ok", "Not-found", "not_found", "not-found()"}},
	}
	for _, tt := range tests {
		for _, in := range tt.in {
			if v, err := ParseValue(tt.typ, in); err == nil {
				t.Errorf("ParseValue(%s, %q) = %s, want an error", tt.typ, in, FormatValue(tt.typ, v))
			}
		}
	}
}
