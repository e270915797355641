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

const counterWasm = "testdata/runtime/counter.wasm"

func TestRuntimeGuestResource(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), counterWasm)
	call := func(fn string, args ...abi.Value) abi.Value {
		t.Helper()
		res, err := in.Call(ctx, fn, args...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		if len(res) == 0 {
			return abi.Value{}
		}
		return res[0]
	}
	c := call("[constructor]counter", abi.U32Value(5))
	if in.Handles() != 0 {
		t.Fatalf("the own handle moved to the host, but %d handles remain in the guest", in.Handles())
	}
	// A borrow of the instance's own resource type reaches it as the rep.
	for want := uint64(6); want <= 7; want++ {
		if got := call("[method]counter.inc", abi.BorrowValue(c.Rep())).Uint(); got != want {
			t.Fatalf("inc = %d, want %d", got, want)
		}
	}
	if got := call("consume", c).Uint(); got != 7 {
		t.Fatalf("consume = %d", got)
	}
	if got := call("dropped").Uint(); got != 1 {
		t.Fatalf("dropped after consume = %d: the destructor did not run", got)
	}
	// The host drops an own it holds: the guest destructor runs.
	c2 := call("[constructor]counter", abi.U32Value(1))
	rt, err := in.ResourceType("counter")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.DropResource(ctx, rt, c2.Rep()); err != nil {
		t.Fatal(err)
	}
	if got := call("dropped").Uint(); got != 2 {
		t.Fatalf("dropped after DropResource = %d", got)
	}
	// Passing an own in leaves a handle in the guest's table until the guest drops it.
	c3 := call("[constructor]counter", abi.U32Value(1))
	if got := call("rep-of", c3).Uint(); got != uint64(c3.Rep()) || in.Handles() != 1 {
		t.Fatalf("rep-of = %d (rep %d), %d handles", got, c3.Rep(), in.Handles())
	}
}

func TestRuntimeGuestResource_Errors(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), counterWasm)
	if _, err := in.ResourceType("nope"); !errors.Is(err, component.ErrNoExport) {
		t.Fatalf("ResourceType(nope): %v", err)
	}
	foreign := abi.NewResourceType("counter")
	if err := in.DropResource(ctx, foreign, 1); !errors.Is(err, component.ErrNoExport) {
		t.Fatalf("DropResource of a foreign type: %v", err)
	}
	// Resource types are generative: another instance's counter is a different type.
	other := instantiate(t, component.NewLinker(), counterWasm)
	rt1, _ := in.ResourceType("counter")
	rt2, _ := other.ResourceType("counter")
	if rt1 == nil || rt1 == rt2 {
		t.Fatalf("instances share resource type %p", rt1)
	}
	if err := other.DropResource(ctx, rt1, 1); !errors.Is(err, component.ErrNoExport) {
		t.Fatalf("DropResource with another instance's type: %v", err)
	}
}

// One compiled component, many stores, used concurrently: run with -race.
func TestRuntimeConcurrentInstances(t *testing.T) {
	ctx := context.Background()
	calc := compileFixture(t, calcWasm)
	host := compileFixture(t, hostWasm)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := testEngine(t).NewStore(ctx, engine.DefaultLimits())
			if err != nil {
				errs <- err
				return
			}
			defer s.Close(ctx)
			var in *component.Instance
			if g%2 == 0 {
				in, err = component.NewLinker().Instantiate(ctx, s, calc)
			} else {
				l := component.NewLinker()
				_, _ = l.DefineResource("docs:host/api@0.2.0", "blob", nil)
				for _, f := range []string{"double", "log", "name", "make", "[method]blob.size"} {
					_ = l.Define("docs:host/api@0.2.0", f, func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
						if len(args) == 1 && args[0].Kind() == abi.KindU32 {
							return []abi.Value{abi.U32Value(uint32(2 * args[0].Uint()))}, nil
						}
						return nil, nil
					})
				}
				in, err = l.Instantiate(ctx, s, host)
			}
			if err != nil {
				errs <- err
				return
			}
			for i := range 200 {
				if g%2 == 0 {
					res, err := in.Call(ctx, "concat", abi.StringValue(fmt.Sprint(g)), abi.StringValue(fmt.Sprint(i)))
					if err != nil || res[0].Str() != fmt.Sprint(g)+fmt.Sprint(i) {
						errs <- fmt.Errorf("concat: %v %v", res, err)
						return
					}
				} else {
					res, err := in.Call(ctx, "run", abi.U32Value(uint32(i)))
					if err != nil || res[0].Uint() != uint64(2*i+1) {
						errs <- fmt.Errorf("run: %v %v", res, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Goroutines sharing one instance never run in it at once: a call that finds it running fails
// with ErrReentrance instead (run with -race).
func TestRuntimeSharedInstanceIsSerialised(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				res, err := in.Call(ctx, "concat", abi.StringValue(fmt.Sprint(g)), abi.StringValue(fmt.Sprint(i)))
				mu.Lock()
				switch {
				case err == nil && res[0].Str() == fmt.Sprint(g)+fmt.Sprint(i):
					ok++
				case errors.Is(err, component.ErrReentrance):
					refused++
				default:
					t.Errorf("concat: %v, %v", res, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok == 0 || ok+refused != 1200 {
		t.Fatalf("%d calls succeeded, %d refused", ok, refused)
	}
}

// An export ascribed (sub resource) is a new abstract type for the validator, but the same
// resource at run time: handles lifted as own<r2> are handles of the resource r1 names.
func TestRuntimeAscribedResource(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), "testdata/runtime/ascribe-fresh.wasm")
	r1, err := in.ResourceType("r1")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := in.ResourceType("r2")
	if err != nil {
		t.Fatal(err)
	}
	if r1 != r2 {
		t.Fatalf("r1 is %v and r2 is %v at run time, want one resource", r1, r2)
	}
	fn, err := in.Func("make")
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := fn.Type().Results()[0].(*abi.HandleType); !ok || h.Resource() != r1 {
		t.Fatalf("make returns %v, want own<%v>", fn.Type().Results()[0], r1)
	}
	res, err := fn.Call(ctx, abi.U32Value(7))
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Rep(); got != 7 {
		t.Fatalf("make(7) = own rep %d, want 7", got)
	}
	if err := in.DropResource(ctx, r1, 7); err != nil {
		t.Fatal(err)
	}
}

// A resource imported under several names (an (eq …) export in the same instance or in another
// one, as wasi:http/types names fields headers and trailers) is the resource of the first name:
// its handles are typed with that name, so one Go type serves them all, and the first name's
// destructor runs, whichever name the handle was made under.
func TestRuntimeAliasedHostResource(t *testing.T) {
	ctx := context.Background()
	const ifaceA, ifaceB = "docs:alias/a@0.1.0", "docs:alias/b@0.1.0"
	res := component.NewResourceTable(8)
	var dropped []string
	l := component.NewLinker()
	for _, r := range []struct{ iface, name string }{{ifaceA, "blob"}, {ifaceA, "blob-view"}, {ifaceB, "thing"}} {
		if _, err := l.DefineResource(r.iface, r.name, func(_ context.Context, _ *component.Caller, rep uint32) error {
			if _, err := res.Delete(rep); err != nil {
				return err
			}
			dropped = append(dropped, r.name)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.DefineFunc(ifaceB, "make", func(_ context.Context, _ *component.Caller, n uint32) (abi.Own[*blob], error) {
		return component.PushOwn(res, &blob{size: n})
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.DefineFunc(ifaceA, "[method]blob.size", func(_ context.Context, _ *component.Caller, self abi.Borrow[*blob]) (uint32, error) {
		b, err := component.GetBorrow(res, self)
		if err != nil {
			return 0, err
		}
		return b.size, nil
	}); err != nil {
		t.Fatal(err)
	}
	in := instantiate(t, l, "testdata/runtime/alias-resource.wasm")
	got, err := in.Call(ctx, "run", abi.U32Value(7))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Uint() != 7 {
		t.Fatalf("run(7) = %v, want 7", got[0])
	}
	if !slices.Equal(dropped, []string{"blob"}) || res.Len() != 0 {
		t.Fatalf("destructors run: %v with %d entries left, want [blob] and none", dropped, res.Len())
	}
}
