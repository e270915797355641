package fuzz

import (
	"errors"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
)

// FuzzWAVE parses arbitrary text against a small type decoded from the fuzz input: parsing never
// panics, every failure is a *wave.Error with an in-range offset, and whatever parses prints
// back to text that parses to an equal value and prints the same again.
func FuzzWAVE(f *testing.F) {
	seeds := []struct {
		typ  []byte
		text string
	}{
		{[]byte{6}, "42"},
		{[]byte{12}, `"a\u{1F600}\n"`},
		{[]byte{13 + 6, 1, 2}, "{f0: 1, f1: 'x'}"},
		{[]byte{13 + 9, 13 + 10, 1, 0}, "some(ok(true))"},
		{[]byte{13 + 8, 2, 1, 12, 0}, `c0("x")`},
		{[]byte{13 + 1, 3}, "{f0, f2,}"},
		{[]byte{13 + 4, 10}, "[1.5, nan, -inf, 1e300]"},
		{[]byte{12}, "\"\"\"\n  multi\n  line\n  \"\"\""},
		{[]byte{13 + 7, 1, 7, 11}, "(1, '\\'')"},
	}
	for _, s := range seeds {
		f.Add(s.typ, s.text)
	}
	f.Fuzz(func(t *testing.T, typeBytes []byte, text string) {
		typ := typeFrom(&byteSource{b: typeBytes}, 3)
		v, err := wave.ParseValue(typ, text)
		if err != nil {
			checkWaveError(t, err, len(text))
			return
		}
		s := wave.FormatValue(typ, v)
		back, err := wave.ParseValue(typ, s)
		if err != nil {
			t.Fatalf("%q parsed as %s and printed as %s, which does not parse: %v", text, typ, s, err)
		}
		if !abi.Equal(back, v) {
			t.Fatalf("%q parsed as %s printed as %s, which parses to another value", text, typ, s)
		}
		if s2 := wave.FormatValue(typ, back); s2 != s {
			t.Fatalf("printing is not stable: %s then %s", s, s2)
		}
	})
}

// FuzzWAVECall splits arbitrary call expressions and parses their arguments against fuzzed
// parameter types.
func FuzzWAVECall(f *testing.F) {
	f.Add([]byte{6, 12}, `add(1, "two")`)
	f.Add([]byte{13 + 9, 6}, `docs:adder/add@0.1.0#add(some(1), [)`)
	f.Add([]byte{}, "f(\n)")
	f.Fuzz(func(t *testing.T, typeBytes []byte, text string) {
		c, err := wave.ParseCall(text)
		if err != nil {
			checkWaveError(t, err, len(text))
			return
		}
		for _, a := range c.Args {
			if a.Offset < 0 || a.Offset+len(a.Text) > len(text) || text[a.Offset:a.Offset+len(a.Text)] != a.Text {
				t.Fatalf("argument %q at offset %d is not in %q", a.Text, a.Offset, text)
			}
		}
		src := &byteSource{b: typeBytes}
		types := make([]abi.Type, int(src.next()%5))
		for i := range types {
			types[i] = typeFrom(src, 2)
		}
		vals, err := wave.ParseArgs(types, c)
		if err != nil {
			checkWaveError(t, err, len(text))
			return
		}
		if len(vals) != len(types) {
			t.Fatalf("ParseArgs returned %d values for %d types", len(vals), len(types))
		}
	})
}

func checkWaveError(t *testing.T, err error, n int) {
	t.Helper()
	var we *wave.Error
	if !errors.As(err, &we) {
		t.Fatalf("error %v (%T) is not a *wave.Error", err, err)
	}
	if we.Offset < 0 || we.Offset > n || we.Line < 1 || we.Column < 1 {
		t.Fatalf("error %v has position %d (%d:%d) outside the input of %d bytes", err, we.Offset, we.Line, we.Column, n)
	}
	if !errors.Is(err, wave.ErrSyntax) && !errors.Is(err, wave.ErrValue) && !errors.Is(err, wave.ErrUnsupported) {
		t.Fatalf("error %v matches no sentinel", err)
	}
}
