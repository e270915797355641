package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// anyString draws strings with the characters JSON escapes: controls, quotes, HTML, U+2028 and
// invalid UTF-8.
func anyString() *rapid.Generator[string] {
	return rapid.OneOf(rapid.String(), rapid.Map(rapid.SliceOf(rapid.SampledFrom([]string{
		"a", "é", "\x00", "\x1f", "\n", "\r", "\t", "\b", "\f", `"`, `\`, "<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "\x7f",
	})), func(parts []string) string { return strings.Join(parts, "") }))
}

func TestPropAppendString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := anyString().Draw(t, "s")
		want, _ := json.Marshal(s)
		prefix := rapid.StringN(0, 4, -1).Draw(t, "prefix")
		if got := AppendString([]byte(prefix), s); string(got) != prefix+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// anyJSON draws JSON values, spaced out, with strings that need escaping.
func anyJSON(t *rapid.T, label string, str *rapid.Generator[string]) []byte {
	v := rapid.MapOf(str, rapid.OneOf(
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(str, func(s string) any { return s }),
		rapid.Map(rapid.SliceOf(rapid.Bool()), func(b []bool) any { return b }),
	)).Draw(t, label)
	b, err := json.MarshalIndent(v, " ", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPropAppendRaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		raw := anyJSON(t, "raw", anyString())
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendRaw([]byte("x"), raw)
		if err != nil || string(got) != "x"+string(want) {
			t.Fatalf("%s: got %s (%v), want %s", raw, got, err, want)
		}
	})
}

func TestAppendRaw_Errors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `1 2`, `nul`, "\"\x00\""} {
		got, err := AppendRaw([]byte("x"), []byte(in))
		if err == nil || string(got) != "x" {
			t.Errorf("%q: got %q, %v; want an error and nothing appended", in, got, err)
		}
	}
}

func TestPropAppendServerInfoMeta(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name, version := anyString().Draw(t, "name"), anyString().Draw(t, "version")
		want, _ := json.Marshal(ServerInfoMeta{ServerInfo: Implementation{Name: name, Version: version}})
		if got := AppendServerInfoMeta(nil, name, version); string(got) != string(want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}
