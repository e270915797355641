package runner

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/kobako/kobako/internal/race"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
)

const fixtureKey = "zpi1_WyJ0b29sLWZpeHR1cmUiLCJ0b29sIiwidG9vbC1maXh0dXJlIl0"

var operatorValues = map[string]string{"label": "masked", "uppercase": "true", "max_len": "5"}

// TestReferenceFixture runs the reference host's reference_plugin.rs assertions against the
// config-echo component (componentize-js).
func TestReferenceFixture(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	ctx := context.Background()
	h := newHost(t, fixturePlugin{fixtureManifest, "configecho.wasm"})
	rt := openRuntime(t, h, config(nil, zeroclaw.EntryConfig{Name: fixtureKey, Config: operatorValues}))
	tool, err := rt.Tool(ctx, "tool-fixture")
	if err != nil {
		t.Fatal(err)
	}
	// 1. Metadata.
	if tool.Name() != "config-echo" || tool.Description() != "Echo the caller's text after applying the plugin's typed config." {
		t.Fatalf("metadata %q %q", tool.Name(), tool.Description())
	}
	var schema struct {
		Schema     string `json:"$schema"`
		Properties struct {
			Text struct{ Type string } `json:"text"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.ParametersSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" || schema.Properties.Text.Type != "string" {
		t.Fatalf("schema %s", tool.ParametersSchema())
	}
	exec := func(t *testing.T, tool *Tool, args string) string {
		t.Helper()
		res, err := tool.Execute(ctx, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Success {
			t.Fatalf("unsuccessful: %+v", res)
		}
		return res.Output
	}
	// 2. Granted: typed operator values reach the guest.
	if got := exec(t, tool, `{"text":"hello world"}`); got != "label=masked|uppercase=true|max_len=5|keys=3|text=HELLO" {
		t.Errorf("granted: %s", got)
	}
	// 4. A caller-forged __config is stripped (and replaced by the host's).
	if got := exec(t, tool, `{"text":"hi","__config":{"label":"forged","bogus":1}}`); got != "label=masked|uppercase=true|max_len=5|keys=3|text=HI" {
		t.Errorf("forged with grant: %s", got)
	}

	// 3. The grant withheld: operator values are never read.
	p, _ := h.Plugin("tool-fixture")
	scope, err := instance.PackageScope(p.Manifest, manifest.CapabilityTool, instance.NewGrants())
	if err != nil {
		t.Fatal(err)
	}
	withheld, err := rt.ToolWithScope(ctx, p, scope)
	if err != nil {
		t.Fatal(err)
	}
	if got := exec(t, withheld, `{"text":"hello world"}`); got != "label=unset|uppercase=false|max_len=0|keys=0|text=hello world" {
		t.Errorf("withheld: %s", got)
	}
	// 4. Forged __config stripped without a grant.
	if got := exec(t, withheld, `{"text":"hi","__config":{"label":"forged"}}`); got != "label=unset|uppercase=false|max_len=0|keys=0|text=hi" {
		t.Errorf("forged: %s", got)
	}

	// 5. Granted but nothing configured.
	empty := openRuntime(t, h, config(nil))
	et, err := empty.Tool(ctx, "tool-fixture")
	if err != nil {
		t.Fatal(err)
	}
	if got := exec(t, et, `{"text":"hi"}`); got != "label=unset|uppercase=false|max_len=0|keys=0|text=hi" {
		t.Errorf("unconfigured: %s", got)
	}
}

// TestReferenceFixtureInvalidConfig is assertion 6: ill-typed operator values fail resolution
// with the reference's messages, and the plugin works again with valid config.
func TestReferenceFixtureInvalidConfig(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	ctx := context.Background()
	h := newHost(t, fixturePlugin{fixtureManifest, "configecho.wasm"})
	tests := []struct {
		values map[string]string
		want   string
	}{
		{map[string]string{"max_len": "not-a-number"}, "config property 'max_len' must contain valid JSON"},
		{map[string]string{"max_len": "5.5"}, "config property 'max_len' must be a JSON integer"},
		{map[string]string{"uppercase": "yes"}, "config property 'uppercase' must contain valid JSON"},
		{map[string]string{"colour": "red"}, "config contains a property absent from config_schema"},
	}
	for _, tc := range tests {
		rt := openRuntime(t, h, config(nil, zeroclaw.EntryConfig{Name: fixtureKey, Config: tc.values}))
		_, err := rt.Tool(ctx, "tool-fixture")
		if !errors.Is(err, pluginconfig.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.values, err, tc.want)
		}
	}
	cfg := config(nil, zeroclaw.EntryConfig{Name: fixtureKey, Config: map[string]string{"max_len": "not-a-number"}})
	rt := openRuntime(t, h, cfg)
	if _, err := rt.Tool(ctx, "tool-fixture"); err == nil {
		t.Fatal("bad config registered")
	}
	cfg.Entries[0].Config = map[string]string{"max_len": "2"}
	tool, err := rt.Tool(ctx, "tool-fixture")
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(ctx, []byte(`{"text":"hello"}`))
	if err != nil || res.Output != "label=unset|uppercase=false|max_len=2|keys=1|text=he" {
		t.Fatalf("after fixing the config: %+v %v", res, err)
	}
}

// TestReferenceFixtureLimits is assertions 7 and 8: fuel 1 and a 1-byte memory cap fail.
func TestReferenceFixtureLimits(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	ctx := context.Background()
	h := newHost(t, fixturePlugin{fixtureManifest, "configecho.wasm"})
	rt := openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.CallFuel = 1 }))
	tool, err := rt.Tool(ctx, "tool-fixture")
	if err == nil {
		_, err = tool.Execute(ctx, []byte(`{"text":"x"}`))
	}
	if err == nil || !strings.Contains(err.Error(), "fuel") {
		t.Errorf("fuel 1: %v", err)
	}
	// max_memory_mb counts MiB; the smallest cap is 1 MiB, far below what the JS engine needs.
	rt = openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.MaxMemoryMB = 1 }))
	if _, err := rt.Tool(ctx, "tool-fixture"); err == nil {
		t.Error("1 MiB memory cap: instantiation succeeded")
	}
}
