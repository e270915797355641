package signature

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"

	"github.com/kobako/kobako/zeroclaw/manifest"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "no signature fields: text kept, final newline dropped",
			in:   "name = \"p\"\nversion = \"1\"\n",
			want: "name = \"p\"\nversion = \"1\"",
		},
		{
			name: "root fields removed wherever they sit among root keys",
			in:   "name = \"p\"\nsignature = \"abc\"\nversion = \"1\"\npublisher_key = \"dead\"\ncapabilities = [\"tool\"]\n",
			want: "name = \"p\"\nversion = \"1\"\ncapabilities = [\"tool\"]",
		},
		{
			name: "comments and blank lines above a removed key go with it, same-line comment too",
			in:   "name = \"p\" # the name\n\n# signed below\nsignature = \"abc\" # sig\n# keep me\nversion = \"1\"\n",
			want: "name = \"p\" # the name\n# keep me\nversion = \"1\"",
		},
		{
			name: "leading comments belong to the first key",
			in:   "# header\nsignature = \"abc\"\nname = \"p\"\n",
			want: "name = \"p\"",
		},
		{
			name: "nested and similar keys stay",
			in: "name = \"p\"\nsignature_algorithm = \"ed25519\"\nsignature = \"x\"\n\n[config_schema.properties.signature]\ntype = \"string\"\n" +
				"[config_schema.properties.publisher_key]\ntype = \"string\"\n",
			want: "name = \"p\"\nsignature_algorithm = \"ed25519\"\n\n[config_schema.properties.signature]\ntype = \"string\"\n" +
				"[config_schema.properties.publisher_key]\ntype = \"string\"",
		},
		{
			name: "a signature under a table header is covered",
			in:   "name = \"p\"\n[meta]\nsignature = \"x\"\n",
			want: "name = \"p\"\n[meta]\nsignature = \"x\"",
		},
		{
			name: "quoted keys name the same entry",
			in:   "\"signature\" = \"x\"\n'publisher_key' = \"y\"\n\"sig\\u006eature_note\" = 1\nname = \"p\"\n",
			want: "\"sig\\u006eature_note\" = 1\nname = \"p\"",
		},
		{
			name: "dotted root keys under signature are the same root entry",
			in:   "name = \"p\"\nsignature.a = 1\nsignature . b = 2\nversion = \"1\"\n",
			want: "name = \"p\"\nversion = \"1\"",
		},
		{
			name: "multi-line values are skipped whole",
			in: "name = \"p\"\ndescription = \"\"\"\nsignature = \"fake\"\n\"\"\"\nsignature = [\n  \"a\", # c\n  \"b\",\n]\n" +
				"notes = '''\npublisher_key = 1'''\nq = \"\"\"a\"\"\"\"\"\nversion = \"1\"\n",
			want: "name = \"p\"\ndescription = \"\"\"\nsignature = \"fake\"\n\"\"\"\nnotes = '''\npublisher_key = 1'''\nq = \"\"\"a\"\"\"\"\"\nversion = \"1\"",
		},
		{
			name: "CRLF becomes LF and trailing blank lines go",
			in:   "name = \"p\"\r\nsignature = \"x\"\r\nversion = \"1\"\r\n\r\n  \t\r\n\r\n",
			want: "name = \"p\"\nversion = \"1\"",
		},
		{
			name: "leading blank lines stay, trailing comment lines stay",
			in:   "\n\nname = \"p\"\n# end\n\n",
			want: "\n\nname = \"p\"\n# end",
		},
		{
			name: "BOM is not part of the canonical bytes",
			in:   "\xef\xbb\xbfname = \"p\"\n",
			want: "name = \"p\"",
		},
		{
			name: "no trailing newline, signature last",
			in:   "name = \"p\"\nsignature = \"x\"",
			want: "name = \"p\"",
		},
		{
			name: "inline table values",
			in:   "name = \"p\"\nsignature = { a = \"}\", b = [1, 2] }\nversion = \"1\"\n",
			want: "name = \"p\"\nversion = \"1\"",
		},
		{
			name: "escaped quotes in strings",
			in:   "name = \"p\\\"# not a comment\"\nsignature = 'c:\\'\nversion = \"1\"\n",
			want: "name = \"p\\\"# not a comment\"\nversion = \"1\"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("Canonicalize =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestCanonicalize_Errors(t *testing.T) {
	for _, in := range []string{"name = \"unterminated", "a = 1\na = 2", "\xff = 1"} {
		if _, err := Canonicalize(in); !errors.Is(err, manifest.ErrInvalidManifest) || !strings.Contains(err.Error(), "invalid TOML") {
			t.Errorf("Canonicalize(%q) = %v", in, err)
		}
	}
}

// genManifest builds varied but valid TOML manifests: root keys in random
// order with comments, blank lines, CRLF, optional signature fields and
// multi-line values, then tables.
func genManifest() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		nl := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "nl")
		var lines []string
		keys := []string{"name = \"p\"", "version = \"1.0\"", "capabilities = [\"tool\"]", "wasm_path = \"p.wasm\"",
			"description = \"\"\"" + nl + "multi" + nl + "signature = 'no'\"\"\"", "permissions = [" + nl + "  \"config_read\", # c" + nl + "]",
			"signature = \"sig\"", "publisher_key = \"key\"", "signature_algorithm = \"ed25519\"", "provides = \"x\" # trailing"}
		perm := rapid.Permutation(keys).Draw(t, "order")
		n := rapid.IntRange(0, len(perm)).Draw(t, "n")
		for _, k := range perm[:n] {
			for range rapid.IntRange(0, 2).Draw(t, "decor") {
				lines = append(lines, rapid.SampledFrom([]string{"", "# comment", "   ", "\t# indented"}).Draw(t, "d"))
			}
			lines = append(lines, k)
		}
		if rapid.Bool().Draw(t, "table") {
			lines = append(lines, "", "[config_schema.properties.signature]", "type = \"string\"")
		}
		for range rapid.IntRange(0, 2).Draw(t, "tail") {
			lines = append(lines, rapid.SampledFrom([]string{"", "# end", " "}).Draw(t, "t"))
		}
		text := strings.Join(lines, nl)
		if rapid.Bool().Draw(t, "final newline") {
			text += nl
		}
		return text
	})
}

func TestCanonicalize_Idempotent_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genManifest().Draw(t, "manifest")
		c1, err := Canonicalize(text)
		if err != nil {
			t.Fatalf("Canonicalize(%q): %v", text, err)
		}
		c2, err := Canonicalize(string(c1))
		if err != nil {
			t.Fatalf("canonical text no longer parses: %q: %v", c1, err)
		}
		if string(c1) != string(c2) {
			t.Fatalf("not idempotent:\n%q\n%q", c1, c2)
		}
		var doc map[string]any
		if _, err := toml.Decode(string(c1), &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc["signature"]; ok {
			t.Fatalf("root signature survived: %q", c1)
		}
		if _, ok := doc["publisher_key"]; ok {
			t.Fatalf("root publisher_key survived: %q", c1)
		}
	})
}
