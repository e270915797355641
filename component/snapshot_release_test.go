package component_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/enginehook"
	"github.com/kobako/kobako/wasi/preview2"
)

// A snapshot compiles only its restored modules (the capture runs the component's own), and with
// Release it gives the replaced originals back: the engine then holds as many compiled modules as
// without a snapshot. The component instantiates only from its snapshots from then on, and a
// second snapshot compiles the originals again for its capture.
func TestSnapshotReleaseModules(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile("testdata/real/goplugin.wasm")
	if err != nil {
		t.Fatal(err)
	}
	c, err := binary.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	cc, err := component.CompileDecoded(ctx, e, c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		t.Fatal(err)
	}
	compiled := compiledModules(e)

	keep, err := pre.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), component.SnapshotOptions{Replay: stdio})
	if err != nil {
		t.Fatal(err)
	}
	replaced := compiledModules(e) - compiled
	if replaced < 1 {
		t.Fatalf("a snapshot added %d compiled modules, want its restored ones", replaced)
	}
	// No capture copy is left behind; the restored modules go with the snapshot.
	if err := keep.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := compiledModules(e); got != compiled {
		t.Fatalf("after closing the snapshot the engine holds %d compiled modules, want %d", got, compiled)
	}

	sn, err := pre.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), component.SnapshotOptions{Replay: stdio, Release: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := compiledModules(e); got != compiled {
		t.Fatalf("with Release the engine holds %d compiled modules, want %d (as without a snapshot)", got, compiled)
	}
	in, err := sn.Instantiate(ctx, deterministicStore(t, e, engine.DefaultLimits()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Call(ctx, "test:plugin/tool#execute", abi.StringValue("hi")); err != nil {
		t.Fatal(err)
	}
	if _, err := pre.Instantiate(ctx, deterministicStore(t, e, engine.DefaultLimits())); !errors.Is(err, component.ErrClosed) {
		t.Fatalf("instantiating the released component without a snapshot: %v, want ErrClosed", err)
	}
	// Another snapshot compiles the originals again for its capture and gives them back.
	sn2, err := pre.Snapshot(ctx, deterministicStore(t, e, engine.DefaultLimits()), component.SnapshotOptions{Replay: stdio, Release: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := compiledModules(e); got != compiled {
		t.Fatalf("after a second snapshot the engine holds %d compiled modules, want %d", got, compiled)
	}
	for _, s := range []*component.Snapshot{sn, sn2} {
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := cc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := compiledModules(e); got != 0 {
		t.Fatalf("after closing everything the engine holds %d compiled modules", got)
	}
}

// compiledModules is the number of compiled modules e holds (not part of engine's API).
func compiledModules(e *engine.Engine) int {
	return enginehook.Get[*engine.Engine, *engine.Module, *engine.Instance, *engine.Store]().CompiledModules(e)
}
