package runner

import (
	"context"
	"errors"
	"testing"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// TestCloseReleasesCompiles: a Runner on an engine it did not make closes the components and
// snapshots it compiled when it is closed, so that the engine, which stays open, keeps none of
// them: they make no more instances.
func TestCloseReleasesCompiles(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	h := newHost(t, fixturePlugin{secretManifest("go-tool", "tool"), "gotool.wasm"})
	rt := openRuntime(t, h, config(nil), func(o *Options) { o.Engine, o.Snapshot = e, true })
	tool, err := rt.Tool(ctx, "go-tool")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := tool.Execute(ctx, []byte(`{"text":"hello"}`)); err != nil || !res.Success {
		t.Fatalf("execute = %+v, %v", res, err)
	}
	var pres []*component.InstancePre
	var sns []*component.Snapshot
	for _, c := range rt.compiled {
		pres = append(pres, c.pre)
	}
	for _, s := range rt.snapshots {
		sns = append(sns, s.sn)
	}
	if len(pres) != 1 || pres[0] == nil || len(sns) != 1 || sns[0] == nil {
		t.Fatalf("runtime holds %d compiles and %d snapshots, want one of each", len(pres), len(sns))
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatalf("the runtime closed an engine it did not make: %v", err)
	}
	defer s.Close(ctx)
	if _, err := pres[0].Instantiate(ctx, s); !errors.Is(err, component.ErrClosed) {
		t.Errorf("instantiate the closed runtime's component: %v, want component.ErrClosed", err)
	}
	if _, err := sns[0].Instantiate(ctx, s); !errors.Is(err, component.ErrClosed) {
		t.Errorf("instantiate the closed runtime's snapshot: %v, want component.ErrClosed", err)
	}
	if _, err := tool.Execute(ctx, []byte(`{"text":"hello"}`)); err == nil {
		t.Error("execute on a closed runtime succeeded")
	}
}
