package sjson

import (
	"errors"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseEncode(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`true`, `true`},
		{` null `, `null`},
		{`"a\u00e9\ud83d\ude00"`, `"aé😀"`},
		{`"\u2028<>&"`, "\"\u2028<>&\""}, // serde_json does not escape these
		{`"\b\f\n\r\t\"\\\/"`, `"\b\f\n\r\t\"\\/"`},
		{`"\u001f\u007f"`, "\"\\u001f\u007f\""},
		{`{"b":1,"a":[1,2,{"z":null,"y":false}]}`, `{"a":[1,2,{"y":false,"z":null}],"b":1}`},
		{`{"k":1,"k":2}`, `{"k":2}`},
		{`5`, `5`},
		{`-5`, `-5`},
		{`-0`, `-0.0`},
		{`18446744073709551615`, `18446744073709551615`},
		{`18446744073709551616`, `1.8446744073709552e19`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`-9223372036854775809`, `-9.223372036854776e18`},
		{`5.0`, `5.0`},
		{`1e2`, `100.0`},
		{`1.5`, `1.5`},
		{`0.5`, `0.5`},
		{`1e15`, `1000000000000000.0`},
		{`1e16`, `1e16`},
		{`1.5e16`, `1.5e16`},
		{`123456789012345678`, `123456789012345678`},
		{`0.0001`, `0.0001`},
		{`0.00001`, `0.00001`},
		{`0.000001`, `1e-6`},
		{`1.25e-7`, `1.25e-7`},
		{`1e-400`, `0.0`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got, err := MarshalString(v)
		if err != nil || got != tt.want {
			t.Errorf("Parse+Marshal(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, in := range []string{
		``, ` `, `tru`, `nul`, `01`, `1.`, `.5`, `1e`, `+1`, `-`, `1 2`, `[1,]`, `{"a":1,}`, `{a:1}`,
		`{"a" 1}`, `"abc`, "\"a\x01\"", `"\x"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00"`, `"\u12"`,
		"\"\xff\"", `1e400`, `-1e400`, `[1 2]`, `NaN`, deep,
	} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error = %v, want ErrSyntax", in, err)
		}
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("Parse(%d nested arrays): %v", MaxDepth, err)
	}
}

func TestNumberKinds(t *testing.T) {
	for in, integer := range map[string]bool{`5`: true, `-5`: true, `5.0`: false, `5.5`: false, `-0`: false, `1e2`: false, `99999999999999999999`: false} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.(Number).IsInteger(); got != integer {
			t.Errorf("%s IsInteger = %v, want %v", in, got, integer)
		}
	}
	if _, ok := Float(math.NaN()); ok {
		t.Error("Float(NaN) accepted")
	}
	if _, ok := Float(math.Inf(1)); ok {
		t.Error("Float(+Inf) accepted")
	}
}

func TestPointer(t *testing.T) {
	doc, _ := Parse([]byte(`{"a":{"b/c":[10,20],"~":1},"":2}`))
	tests := []struct {
		ptr  string
		want string
		ok   bool
	}{
		{"", `{"":2,"a":{"b/c":[10,20],"~":1}}`, true},
		{"/a/b~1c/1", `20`, true},
		{"/a/~0", `1`, true},
		{"/", `2`, true},
		{"/a/b~1c/01", ``, false},
		{"/a/b~1c/+1", ``, false},
		{"/a/b~1c/2", ``, false},
		{"a", ``, false},
		{"/x", ``, false},
	}
	for _, tt := range tests {
		v, ok := Pointer(doc, tt.ptr)
		if ok != tt.ok {
			t.Errorf("Pointer(%q) ok = %v", tt.ptr, ok)
			continue
		}
		if ok {
			if got, _ := MarshalString(v); got != tt.want {
				t.Errorf("Pointer(%q) = %s, want %s", tt.ptr, got, tt.want)
			}
		}
	}
}

func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 7).Draw(t, "kind")
		if depth <= 0 && kind >= 6 {
			kind = 0
		}
		switch kind {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return rapid.String().Draw(t, "string")
		case 3:
			return Int(rapid.Int64().Draw(t, "int"))
		case 4:
			return Uint(rapid.Uint64().Draw(t, "uint"))
		case 5:
			f := rapid.Float64().Draw(t, "float")
			n, ok := Float(f)
			if !ok {
				return nil
			}
			return n
		case 6:
			return rapid.SliceOfN(genValue(depth-1), 0, 4).Draw(t, "array")
		default:
			return rapid.MapOfN(rapid.String(), genValue(depth-1), 0, 4).Draw(t, "object")
		}
	})
}

// Encoding then parsing gives back an equal value (floats round-trip
// through the shortest representation), and re-encoding is stable.
func TestRoundTrip_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(3).Draw(t, "v")
		enc, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(enc)
		if err != nil {
			t.Fatalf("Parse(%s): %v", enc, err)
		}
		if !Equal(normalizeFloats(v), back) {
			t.Fatalf("round trip of %s changed the value", enc)
		}
		enc2, _ := Marshal(back)
		if string(enc) != string(enc2) {
			t.Fatalf("re-encoding changed %s to %s", enc, enc2)
		}
	})
}

// normalizeFloats is the value after an encode/parse trip: floats survive
// (every float prints with '.' or 'e', so it parses back as a float), and
// invalid UTF-8 in strings encodes as U+FFFD.
func normalizeFloats(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeFloats(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[strings.ToValidUTF8(k, "\uFFFD")] = normalizeFloats(e)
		}
		return out
	}
	return v
}

func TestFormatFloat_MatchesGoShortest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.Float64().Draw(t, "f")
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Skip("JSON has no NaN or infinity")
		}
		s := formatFloat(f)
		v, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("formatFloat(%v) = %q does not parse: %v", f, s, err)
		}
		if got := v.(Number).Float64(); got != f {
			t.Fatalf("formatFloat(%v) = %q parses to %v", f, s, got)
		}
	})
}
