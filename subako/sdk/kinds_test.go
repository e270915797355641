package sdk

import (
	"context"
	"encoding/json"
	"testing"
)

// Input and output types other than plain structs: pointers and maps are objects too.
func TestToolTypeKinds(t *testing.T) {
	ptr := Tool("ptr", "", func(_ context.Context, in *addIn) (*addOut, error) {
		if in == nil {
			return nil, Errorf("nil input")
		}
		return &addOut{Sum: in.A + in.B}, nil
	})
	m := Tool("map", "", func(_ context.Context, in map[string]int) (map[string]int, error) {
		return map[string]int{"n": len(in)}, nil
	})
	type named string
	str := Tool("named", "", func(context.Context, struct{}) (named, error) { return "plain text", nil })
	p := &Package{Name: "kinds", Tools: []ToolDef{ptr, m, str}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args, text, structured string
	}{
		{"ptr", `{"a":1,"b":2}`, `{"sum":3}`, `{"sum":3}`},
		{"map", `{"x":1,"y":2}`, `{"n":2}`, `{"n":2}`},
		{"named", `{}`, "plain text", ""},
	}
	for _, tt := range tests {
		msgs := serve(t, p, req(1, MethodToolsCall, `"name":"`+tt.tool+`","arguments":`+tt.args)+"\n")
		r := result(t, msgs[0])
		if r["isError"] != nil || firstText(t, r) != tt.text {
			t.Errorf("%s: %v", tt.tool, r)
		}
		sc, _ := json.Marshal(r["structuredContent"])
		if tt.structured != "" && string(sc) != tt.structured {
			t.Errorf("%s: structuredContent %s", tt.tool, sc)
		}
	}
	for _, tool := range p.Tools {
		var s map[string]any
		if err := json.Unmarshal(tool.InputSchema(), &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: input schema %s", tool.Name(), tool.InputSchema())
		}
	}
	if ptr.OutputSchema() == nil || m.OutputSchema() == nil || str.OutputSchema() != nil {
		t.Errorf("output schemas: ptr %s map %s named %s", ptr.OutputSchema(), m.OutputSchema(), str.OutputSchema())
	}
}
