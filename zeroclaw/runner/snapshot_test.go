package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kobako/kobako/internal/race"
	"testing"

	"github.com/kobako/kobako/zeroclaw"
)

// TestSnapshotOption runs the same executes on a runtime with Options.Snapshot and on one
// without, and compares every result and error.
func TestSnapshotOption(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		fixture, tool string
		manifest      string
		entry         zeroclaw.EntryConfig
		args          []string
	}{
		{"gotool.wasm", "go-tool", secretManifest("go-tool", "tool"),
			zeroclaw.EntryConfig{Name: "", Config: map[string]string{"binding_label": "main", "api_token": "tok-main"}},
			[]string{`{"text":"hello"}`, `{"text":"x","secret":"api_token"}`, `{"fail":"boom"}`, `{"tool_error":"bad"}`, `{"log":"a line"}`, `{"text":"小箱"}`}},
		{"configecho.wasm", "tool-fixture", fixtureManifest,
			zeroclaw.EntryConfig{Name: fixtureKey, Config: operatorValues},
			[]string{`{"text":"hello"}`, `{"text":"abcdefgh"}`, `{"secret":"api_key"}`, `{"log":"m"}`}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			if tc.fixture == "configecho.wasm" && (race.Enabled || testing.Short()) {
				t.Skip("compiles the 12 MB JS component")
			}
			h := newHost(t, fixturePlugin{tc.manifest, tc.fixture})
			entry := tc.entry
			if entry.Name == "" {
				entry.Name = toolKey(t, tc.tool, tc.tool)
			}
			var outs [2][]string
			for i, snap := range []bool{false, true} {
				rt := openRuntime(t, h, config(nil, entry), func(o *Options) { o.Snapshot = snap })
				tool, err := rt.Tool(ctx, tc.tool)
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = append(outs[i], tool.Description())
				for _, a := range tc.args {
					res, err := tool.Execute(ctx, []byte(a))
					j, _ := json.Marshal(res)
					outs[i] = append(outs[i], fmt.Sprintf("%s %v", j, err))
				}
			}
			for j := range outs[0] {
				if outs[0][j] != outs[1][j] {
					t.Errorf("result %d: without snapshot %s\nwith snapshot    %s", j, outs[0][j], outs[1][j])
				}
			}
		})
	}
}
