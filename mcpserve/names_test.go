package mcpserve

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("a", 40)
	tests := []struct {
		source, tool, want string
	}{
		{"hello", "greet", "hello__greet"},
		{"my pkg", "get.weather", "my_pkg__get_weather"},
		{"天気", "予報", "______"}, // one '_' per character, then the separator
		{"", "x", "___x"},
		{"A-b_C", "Z", "A-b_C__Z"},
	}
	for _, tt := range tests {
		if got := ToolName(tt.source, tt.tool); got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.source, tt.tool, got, tt.want)
		}
	}
	// Long names are cut with a stable hash suffix that tells apart names sharing the first 55.
	a, b := ToolName(long, long+"x"), ToolName(long, long+"y")
	if len(a) != MaxToolName || len(b) != MaxToolName || a == b || a[:55] != b[:55] || a != ToolName(long, long+"x") {
		t.Fatalf("long names %q and %q: want two stable 64-character names sharing 55 characters", a, b)
	}
	for _, n := range []string{a, b, ToolName("ü/ß", "\x00\xff")} {
		if !validName.MatchString(n) {
			t.Errorf("%q is not a valid tool name", n)
		}
	}
	if got := BareToolName("pkg", "greet"); got != "greet" {
		t.Errorf("BareToolName = %q", got)
	}
}

func TestCheckCollisions_Errors(t *testing.T) {
	a := origin{kind: "package", source: "x y", where: "/a", tool: "t"}
	b := origin{kind: "plugin", source: "x_y", where: "/b", tool: "t"}
	err := checkCollisions(map[string][]origin{"x_y__t": {a, b}, "ok__t": {a}})
	if !errors.Is(err, ErrCollision) || !strings.Contains(err.Error(), `package "x y" (/a)`) || !strings.Contains(err.Error(), `plugin "x_y" (/b)`) {
		t.Fatalf("err = %v, want a collision naming both tools", err)
	}
	if err := checkCollisions(map[string][]origin{"a": {a}, "b": {b}}); err != nil {
		t.Fatal(err)
	}
}

// FuzzToolName: whatever a package or plugin calls itself and its tools (guest-controlled
// strings), the listed name is a valid MCP and Claude tool name, the same every time, and tells
// apart tools whose sanitized names differ.
func FuzzToolName(f *testing.F) {
	f.Add("hello", "greet")
	f.Add("天気", "予報")
	f.Add(strings.Repeat("x", 100), "\xff\x00")
	f.Fuzz(func(t *testing.T, source, tool string) {
		for _, n := range []string{ToolName(source, tool), BareToolName(source, tool)} {
			if !validName.MatchString(n) {
				t.Fatalf("%q, %q: %q is not a valid tool name", source, tool, n)
			}
		}
		if ToolName(source, tool) != ToolName(source, tool) {
			t.Fatal("not stable")
		}
		if full := sanitize(source) + "__" + sanitize(tool); len(full) <= MaxToolName && ToolName(source, tool) != full {
			t.Fatalf("a short name was changed: %q", ToolName(source, tool))
		}
	})
}
