package tomldepth

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	deep := func(open string, n int) string { return "a = " + strings.Repeat(open, n) }
	tests := []struct {
		text string
		ok   bool
	}{
		{"a = [[1], {b = [2]}]\n[t]\n[[u]]\n", true},
		{deep("[", Max), true},
		{deep("[", Max+1), false},
		{deep("{b=", Max+1), false},
		{"a = \"" + strings.Repeat("[", 1000) + "\"", true},
		{"a = '''" + strings.Repeat("{", 1000) + "'''", true},
		{"a = \"\"\"x\\\"\"\"" + strings.Repeat("[", 10) + "\"\"\"", true},
		{"# " + strings.Repeat("[", 1000) + "\nb = 1", true},
		{"a = 'it''s'" + strings.Repeat("[", Max+1), false},
		{strings.Repeat("a.", Max-2) + "b = 1", true},
		{strings.Repeat("a.", Max) + "b = 1", false},
		{"[" + strings.Repeat("a.", Max) + "b]", false},
		{"x = {" + strings.Repeat("a.", Max) + "b = 1}", false},
		{"x = [" + strings.Repeat("1.5, ", 1000) + "]\nt = 07:32:00.999\n\"a.b\".c = 1\n" + strings.Repeat("k.", 30) + "z = 2.5", true},
		{"k = \"" + strings.Repeat(".", 1000) + "\"", true},
	}
	many := strings.Repeat("k = "+strings.Repeat("{b=", 39)+"1"+strings.Repeat("}", 39)+"\n", 2000)
	tests = append(tests, struct {
		text string
		ok   bool
	}{many, false})
	for _, tt := range tests {
		if err := Check(tt.text, Max); (err == nil) != tt.ok {
			t.Errorf("Check(%.40q…) = %v, want ok=%v", tt.text, err, tt.ok)
		}
	}
}
