package component_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// blob is the Go value behind a docs:host/api blob, kept in a store's resource table.
type blob struct{ size uint32 }

func (*blob) ResourceName() string { return "blob" }

// blobState is one store's host state: each instance its own, one Linker for all.
type blobState struct {
	res     *component.ResourceTable
	logs    []string
	dropped []uint32
}

var blobKey = engine.NewKey[*blobState]()

func blobStateOf(c *component.Caller) (*blobState, error) {
	st, ok := blobKey.Get(c.Store())
	if !ok {
		return nil, errors.New("no blob state bound to the store")
	}
	return st, nil
}

// sharedBlobLinker defines docs:host/api once, with typed handles and per-store state.
func sharedBlobLinker(t testing.TB) *component.Linker {
	t.Helper()
	const iface = "docs:host/api@0.2.1"
	l := component.NewLinker()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := l.DefineResource(iface, "blob", func(_ context.Context, c *component.Caller, rep uint32) error {
		st, err := blobStateOf(c)
		if err != nil {
			return err
		}
		if _, err := component.GetAs[*blob](st.res, rep); err != nil {
			return err
		}
		if _, err := st.res.Delete(rep); err != nil {
			return err
		}
		st.dropped = append(st.dropped, rep)
		return nil
	})
	must(err)
	must(component.DefineFuncWith(l, blobStateOf, iface, "double", func(_ context.Context, _ *blobState, x uint32) (uint32, error) {
		return 2 * x, nil
	}))
	must(component.DefineFuncWith(l, blobStateOf, iface, "log", func(_ context.Context, st *blobState, msg string) {
		st.logs = append(st.logs, msg)
	}))
	must(l.DefineFunc(iface, "name", func(_ context.Context, c *component.Caller) (string, error) {
		if c.Instance().Store() != c.Store() {
			return "", errors.New("caller's instance is in another store")
		}
		return "kobako", nil
	}))
	must(component.DefineFuncWith(l, blobStateOf, iface, "make", func(_ context.Context, st *blobState, n uint32) (abi.Own[*blob], error) {
		return component.PushOwn(st.res, &blob{size: n})
	}))
	must(component.DefineFuncWith(l, blobStateOf, iface, "[method]blob.size", func(_ context.Context, st *blobState, self abi.Borrow[*blob]) (uint32, error) {
		b, err := component.GetBorrow(st.res, self)
		if err != nil {
			return 0, err
		}
		return b.size, nil
	}))
	return l
}

// TestRuntimeCallerState serves many instances, from many goroutines, with one Linker: each
// store has its own state, found through the Caller.
func TestRuntimeCallerState(t *testing.T) {
	ctx := context.Background()
	l := sharedBlobLinker(t)
	cc := compileFixture(t, hostWasm)
	const workers, rounds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				errs <- func() error {
					s, err := testEngine(t).NewStore(ctx, engine.DefaultLimits())
					if err != nil {
						return err
					}
					defer s.Close(ctx)
					st := &blobState{res: component.NewResourceTable(16)}
					blobKey.Set(s, st)
					in, err := l.Instantiate(ctx, s, cc)
					if err != nil {
						return err
					}
					res, err := in.Call(ctx, "run", abi.U32Value(uint32(w*100+r)))
					if err != nil {
						return err
					}
					if want := uint64(2*(w*100+r) + 1); res[0].Uint() != want {
						return fmt.Errorf("run = %d, want %d", res[0].Uint(), want)
					}
					if res, err = in.Call(ctx, "greet"); err != nil || res[0].Str() != "kobako" {
						return fmt.Errorf("greet = %v, %v", res, err)
					}
					if res, err = in.Call(ctx, "make-size", abi.U32Value(uint32(r+3))); err != nil || res[0].Uint() != uint64(r+3) {
						return fmt.Errorf("make-size = %v, %v", res, err)
					}
					if !slices.Equal(st.logs, []string{"hello from guest"}) || len(st.dropped) != 1 || st.res.Len() != 0 {
						return fmt.Errorf("state: logs %q, dropped %v, %d resources left", st.logs, st.dropped, st.res.Len())
					}
					return nil
				}()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// wrongBlob names another resource, so its handles do not fit a blob.
type wrongBlob struct{}

func (*wrongBlob) ResourceName() string { return "pollable" }

func TestRuntimeTypedHandles_Errors(t *testing.T) {
	ctx := context.Background()
	const iface = "docs:host/api@0.2.1"
	tests := []struct {
		name string
		fn   any
	}{
		{"own for a borrow", func(_ context.Context, self abi.Own[*blob]) uint32 { return 0 }},
		{"another resource", func(_ context.Context, self abi.Borrow[*wrongBlob]) uint32 { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newBlobLinker(t, iface, true)
			if err := l.DefineFunc(iface, "[method]blob.size", tt.fn); err != nil {
				t.Fatal(err)
			}
			_, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), compileFixture(t, hostWasm))
			if !errors.Is(err, component.ErrLinkType) || !errors.Is(err, abi.ErrTypeMismatch) {
				t.Fatalf("err = %v, want ErrLinkType and abi.ErrTypeMismatch", err)
			}
		})
	}
}

func TestRuntimeCallerState_Errors(t *testing.T) {
	// Without state bound to the store, the getter's error traps the guest.
	l := sharedBlobLinker(t)
	in := instantiate(t, l, hostWasm)
	_, err := in.Call(context.Background(), "run", abi.U32Value(1))
	var trap *engine.Trap
	if !errors.As(err, &trap) || trap.Kind != engine.TrapHost {
		t.Fatalf("err = %v, want a host trap", err)
	}
}
