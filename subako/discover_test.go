package subako

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
)

func tool(name string) map[string]any {
	return map[string]any{"name": name, "description": "d", "inputSchema": map[string]any{"type": "object"}}
}

func toolsJSON(t *testing.T, tools ...any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(tools))
	for i, x := range tools {
		b, err := json.Marshal(x)
		must(t, err)
		out[i] = b
	}
	return out
}

func TestCheckTools_Errors(t *testing.T) {
	many := func(n int) []any {
		var ts []any
		for i := 0; i < n; i++ {
			ts = append(ts, tool(fmt.Sprint("t", i)))
		}
		return ts
	}
	with := func(k string, v any) map[string]any { x := tool("x"); x[k] = v; return x }
	bigSchema := func(n int) map[string]any {
		return map[string]any{"type": "object", "description": strings.Repeat("s", n)}
	}
	var heavy []any
	for i := 0; i < 5; i++ {
		x := tool(fmt.Sprint("h", i))
		x["inputSchema"] = bigSchema(60 << 10)
		heavy = append(heavy, x)
	}
	tests := []struct {
		name  string
		tools []any
		want  string
	}{
		{"no tools", nil, "lists no tools"},
		{"65 tools", many(65), "65 tools, more than 64"},
		{"duplicate", []any{tool("a"), tool("a")}, `tool "a": name is listed twice`},
		{"upper-case name", []any{tool("Greet")}, `tool 1 ("Greet"): name must be 1 to 64 characters`},
		{"empty name", []any{tool("")}, "name must be"},
		{"long name", []any{tool(strings.Repeat("a", 65))}, "name must be"},
		{"dot in name", []any{tool("a.b")}, "name must be"},
		{"long description", []any{with("description", strings.Repeat("ä", 1025))}, `tool "x": description is 1025 characters`},
		{"no inputSchema", []any{map[string]any{"name": "x"}}, "inputSchema is missing"},
		{"inputSchema not object", []any{with("inputSchema", map[string]any{"type": "string"})}, `top level is "type": "object"`},
		{"inputSchema without type", []any{with("inputSchema", map[string]any{"properties": map[string]any{}})}, `top level is "type": "object"`},
		{"inputSchema type list", []any{with("inputSchema", map[string]any{"type": []string{"object"}})}, `top level is "type": "object"`},
		{"inputSchema invalid", []any{with("inputSchema", map[string]any{"type": "object", "properties": 5})}, "inputSchema is not a valid JSON Schema"},
		{"inputSchema remote ref", []any{with("inputSchema", map[string]any{"type": "object", "$ref": "https://example.com/s.json"})}, "inputSchema is not a valid JSON Schema"},
		{"inputSchema too large", []any{with("inputSchema", bigSchema(64<<10))}, "inputSchema is 655"},
		{"outputSchema invalid", []any{with("outputSchema", map[string]any{"minimum": "zero"})}, "outputSchema is not a valid JSON Schema"},
		{"outputSchema too large", []any{with("outputSchema", bigSchema(64<<10))}, "outputSchema is 655"},
		{"total too large", heavy, "more than 262144"},
		{"not an object", []any{"greet"}, "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckTools(toolsJSON(t, tt.tools...))
			var te *ToolError
			if !errors.As(err, &te) || !errors.Is(err, ErrDiscovery) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCheckTools(t *testing.T) {
	x := tool("get_weather-2")
	x["outputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"t": map[string]any{"type": "number"}}}
	x["annotations"] = map[string]any{"readOnlyHint": true}
	tools, err := CheckTools(toolsJSON(t, x, tool("b")))
	if err != nil || len(tools) != 2 || tools[0].Name != "get_weather-2" || !strings.Contains(string(tools[0].Raw), "readOnlyHint") {
		t.Fatalf("CheckTools = %+v, %v", tools, err)
	}
	if b, _ := json.Marshal(tools[0]); string(b) != string(tools[0].Raw) {
		t.Errorf("tool marshals to %s", b)
	}
}

func pagesAsset(t *testing.T, pages ...[]any) map[string]string {
	b, err := json.Marshal(pages)
	must(t, err)
	return map[string]string{"pages.json": string(b)}
}

func TestDiscover(t *testing.T) {
	ctx := context.Background()
	t.Run("pages", func(t *testing.T) {
		p := loadFixture(t, "everything", pagesAsset(t, []any{tool("a"), tool("b")}, []any{}, []any{tool("c")}))
		tools, err := p.Discover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, x := range tools {
			names = append(names, x.Name)
		}
		if strings.Join(names, ",") != "a,b,c" || len(p.Tools()) != 3 {
			t.Errorf("tools = %v", names)
		}
	})
	t.Run("environment: only /package, no volume, no network", func(t *testing.T) {
		p := loadFixture(t, "everything", map[string]string{"probe.txt": "x"})
		tools, err := p.Discover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := `preopens=/package args=1 env=0 http={"error":{"kind":"host_not_allowed",`
		if len(tools) != 1 || !strings.HasPrefix(tools[0].Description, want) {
			t.Errorf("discovery saw %q, want %q…", tools[0].Description, want)
		}
	})
	t.Run("16 pages", func(t *testing.T) {
		var pages [][]any
		for i := 0; i < MaxToolsPages; i++ {
			pages = append(pages, []any{tool(fmt.Sprint("t", i))})
		}
		p := loadFixture(t, "everything", pagesAsset(t, pages...))
		if tools, err := p.Discover(ctx); err != nil || len(tools) != 16 {
			t.Errorf("Discover = %d tools, %v", len(tools), err)
		}
	})

	errs := []struct {
		name   string
		assets map[string]string
		want   string
	}{
		{"17 pages", func() map[string]string {
			var pages [][]any
			for i := 0; i <= MaxToolsPages; i++ {
				pages = append(pages, []any{tool(fmt.Sprint("t", i))})
			}
			return pagesAsset(t, pages...)
		}(), "nextCursor after 16 pages"},
		{"tools across pages over 64", func() map[string]string {
			var a, b []any
			for i := 0; i < 40; i++ {
				a, b = append(a, tool(fmt.Sprint("a", i))), append(b, tool(fmt.Sprint("b", i)))
			}
			return pagesAsset(t, a, b)
		}(), "more than 64 tools"},
		{"duplicate across pages", pagesAsset(t, []any{tool("a")}, []any{tool("a")}), `tool "a": name is listed twice`},
		{"no tools", pagesAsset(t, []any{}), "lists no tools"},
		{"wrong version", map[string]string{"discover.json": `{"supportedVersions":["2025-11-25"],"capabilities":{"tools":{}}}`}, "without 2026-07-28"},
		{"no tools capability", map[string]string{"discover.json": `{"supportedVersions":["2026-07-28"],"capabilities":{"resources":{}}}`}, "tools capability"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			p := loadFixture(t, "everything", tt.assets)
			_, err := p.Discover(ctx)
			if !errors.Is(err, ErrDiscovery) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Discover = %v, want %q", err, tt.want)
			}
			if p.Tools() != nil {
				t.Errorf("a failed discovery left tools %v", p.Tools())
			}
		})
	}

	t.Run("SetTools", func(t *testing.T) {
		p := loadFixture(t, "tiny", nil)
		if err := p.SetTools([]Tool{{Name: "Bad", InputSchema: json.RawMessage(`{"type":"object"}`)}}); !errors.Is(err, ErrDiscovery) {
			t.Errorf("SetTools(bad) = %v", err)
		}
		must(t, p.SetTools([]Tool{{Name: "greet", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
		if _, err := p.Call(ctx, "other", nil, CallOptions{}); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("Call(other) = %v", err)
		}
	})
}

func TestDiscover_DefaultDeadline(t *testing.T) {
	rt, err := New(context.Background(), Config{Engine: testRuntime(t).eng})
	if err != nil {
		t.Fatal(err)
	}
	if rt.discovery.Deadline != 10*time.Second || rt.discovery.Fuel != DefaultCallLimits().Fuel {
		t.Errorf("discovery limits = %+v", rt.discovery)
	}
	if _, err := New(context.Background(), Config{DiscoveryLimits: engine.Limits{Deadline: -1}}); !errors.Is(err, ErrOptions) {
		t.Errorf("invalid discovery limits: %v", err)
	}
	// A module that never answers discovery is stopped by the deadline.
	rt2, err := New(context.Background(), Config{Engine: testRuntime(t).eng, DiscoveryLimits: limitsWith(func(l *engine.Limits) { l.Fuel = engine.MaxFuel; l.Deadline = 200 * time.Millisecond })})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt2.Load(context.Background(), writePackage(t, "spin", nil))
	if err != nil {
		t.Fatal(err)
	}
	var c *CrashError
	if _, err := p.Discover(context.Background()); !errors.As(err, &c) || c.Rule != RuleOutOfTime {
		t.Errorf("Discover = %v, want out of time", err)
	}
}

// TestDiscoverDriver_Members checks which members of the discovery results the host reads: a badly
// typed member it does not read (ttlMs, cacheScope, instructions) passes, as ABI 1 asks only for
// supportedVersions, capabilities, tools and nextCursor, and a badly typed one of those fails.
func TestDiscoverDriver_Members(t *testing.T) {
	const tools = `[{"name":"a","inputSchema":{"type":"object"}}]`
	tests := []struct {
		name           string
		discover, list string
		ok             bool
	}{
		{"minimal", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`, `{"tools":` + tools + `}`, true},
		{"unread members of any type", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"x":1},"ttlMs":"soon","cacheScope":5,"instructions":[]}`,
			`{"tools":` + tools + `,"ttlMs":1.5,"cacheScope":{},"_meta":7}`, true},
		{"supportedVersions not an array", `{"supportedVersions":"2026-07-28","capabilities":{"tools":{}}}`, "", false},
		{"a version not a string", `{"supportedVersions":["2026-07-28",5],"capabilities":{"tools":{}}}`, "", false},
		{"capabilities not an object", `{"supportedVersions":["2026-07-28"],"capabilities":[]}`, "", false},
		{"tools capability not an object", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":true}}`, "", false},
		{"tools not an array", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`, `{"tools":{}}`, false},
		{"nextCursor not a string", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`, `{"tools":` + tools + `,"nextCursor":3}`, false},
		{"nextCursor not a string after an unread error", `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`, `{"ttlMs":"x","tools":` + tools + `,"nextCursor":3}`, false},
		{"versions wrong after an unread error", `{"ttlMs":"x","supportedVersions":"2026-07-28","capabilities":{"tools":{}}}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &discoverDriver{}
			next, err := d.answer(json.RawMessage(tt.discover))
			if err == nil {
				if next == nil || next.method != "tools/list" {
					t.Fatalf("after server/discover: next %+v", next)
				}
				next, err = d.answer(json.RawMessage(tt.list))
			}
			if tt.ok && (err != nil || next != nil || len(d.tools) != 1) {
				t.Fatalf("err %v, next %+v, tools %d", err, next, len(d.tools))
			}
			if !tt.ok && !errors.Is(err, ErrDiscovery) {
				t.Fatalf("err %v, want a discovery error", err)
			}
		})
	}
}
