package component_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

func prepareFixture(t testing.TB, path string) *component.InstancePre {
	t.Helper()
	pre, err := component.NewLinker().Prepare(compileFixture(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return pre
}

func instantiatePre(t testing.TB, pre *component.InstancePre) *component.Instance {
	t.Helper()
	in, err := pre.Instantiate(context.Background(), newStore(t, engine.DefaultLimits()))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// The parameters of calc's add, for PrepareFunc's struct form of several parameters.
type addParams struct{ A, B uint32 }

type calcRec struct {
	ID    uint32
	Name  string
	Score float64
}

func TestPrepareFunc(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, calcWasm)
	add, err := component.PrepareFunc[addParams, uint32](pre, "docs:calc/api#add")
	if err != nil {
		t.Fatal(err)
	}
	addRoot, err := component.PrepareFunc[addParams, uint32](pre, "add")
	if err != nil {
		t.Fatal(err)
	}
	echo, err := component.PrepareFunc[string, string](pre, "echo")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := component.PrepareFunc[[]calcRec, []calcRec](pre, "echo-records")
	if err != nil {
		t.Fatal(err)
	}
	seven, err := component.PrepareFunc[struct{}, uint32](pre, "heap")
	if err != nil {
		t.Fatal(err)
	}
	spin, err := component.PrepareFunc[uint32, struct{}](pre, "spin")
	if err != nil {
		t.Fatal(err)
	}
	res, err := component.PrepareFunc[abi.Result[uint32, string], abi.Result[uint32, string]](pre, "id-result")
	if err != nil {
		t.Fatal(err)
	}
	// Every call takes a fresh instance: the binding is made once, above.
	for range 3 {
		in := instantiatePre(t, pre)
		if n, err := add.Call(ctx, in, addParams{2, 3}); err != nil || n != 5 {
			t.Fatalf("add = %d, %v", n, err)
		}
		if n, err := addRoot.Call(ctx, in, addParams{40, 2}); err != nil || n != 42 {
			t.Fatalf("root add = %d, %v", n, err)
		}
		if s, err := echo.Call(ctx, in, "héllo"); err != nil || s != "héllo" {
			t.Fatalf("echo = %q, %v", s, err)
		}
		want := []calcRec{{1, "one", 0.5}, {2, "two", 2}}
		got, err := recs.Call(ctx, in, want)
		if err != nil || len(got) != 2 || got[1] != want[1] {
			t.Fatalf("echo-records = %v, %v", got, err)
		}
		if _, err := seven.Call(ctx, in, struct{}{}); err != nil {
			t.Fatalf("heap: %v", err)
		}
		if _, err := spin.Call(ctx, in, 1); err != nil {
			t.Fatalf("spin: %v", err)
		}
		if r, err := res.Call(ctx, in, abi.Err[uint32]("no")); err != nil || !r.IsErr || r.Err != "no" {
			t.Fatalf("id-result = %+v, %v", r, err)
		}
	}
	// The instance's own Func path shares the function the prepared one found.
	in := instantiatePre(t, pre)
	if n, err := add.Call(ctx, in, addParams{1, 1}); err != nil || n != 2 {
		t.Fatalf("add = %d, %v", n, err)
	}
	vals, err := in.Call(ctx, "add", abi.U32Value(3), abi.U32Value(4))
	if err != nil || vals[0].Uint() != 7 {
		t.Fatalf("dynamic add = %v, %v", vals, err)
	}
	if add.Name() != "docs:calc/api#add" || add.Type().String() != "func(a: u32, b: u32) -> u32" {
		t.Fatalf("Name, Type = %q, %s", add.Name(), add.Type())
	}
}

func TestPrepareFunc_Errors(t *testing.T) {
	pre := prepareFixture(t, calcWasm)
	for _, tt := range []struct {
		name    string
		prepare func() error
		want    error
		names   string
	}{
		{"wrong parameter type", func() error {
			_, err := component.PrepareFunc[int32, string](pre, "echo")
			return err
		}, component.ErrBind, "echo"},
		{"wrong result type", func() error {
			_, err := component.PrepareFunc[string, uint32](pre, "echo")
			return err
		}, component.ErrBind, "echo"},
		{"missing result", func() error {
			_, err := component.PrepareFunc[string, struct{}](pre, "echo")
			return err
		}, component.ErrBind, "echo"},
		{"parameters not a struct", func() error {
			_, err := component.PrepareFunc[uint32, uint32](pre, "docs:calc/api#add")
			return err
		}, component.ErrBind, "docs:calc/api#add"},
		{"parameter field of the wrong type", func() error {
			_, err := component.PrepareFunc[struct{ A, B string }, uint32](pre, "add")
			return err
		}, component.ErrBind, "add"},
		{"parameters for a function without", func() error {
			_, err := component.PrepareFunc[uint32, uint32](pre, "heap")
			return err
		}, component.ErrBind, "heap"},
		{"record field missing", func() error {
			_, err := component.PrepareFunc[[]struct{ ID uint32 }, []calcRec](pre, "echo-records")
			return err
		}, component.ErrBind, "echo-records"},
		{"no such function", func() error {
			_, err := component.PrepareFunc[string, string](pre, "nope")
			return err
		}, component.ErrNoExport, "nope"},
		{"no such interface function", func() error {
			_, err := component.PrepareFunc[string, string](pre, "docs:calc/api#nope")
			return err
		}, component.ErrNoExport, "docs:calc/api#nope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.prepare()
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.names) {
				t.Fatalf("err = %v, want %v naming %s", err, tt.want, tt.names)
			}
		})
	}
}

func TestPreFunc_ForeignInstance(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, calcWasm)
	echo, err := component.PrepareFunc[string, string](pre, "echo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		in   *component.Instance
	}{
		{"nil instance", nil},
		{"same component, another InstancePre", instantiatePre(t, prepareFixture(t, calcWasm))},
		{"same component, Linker.Instantiate", instantiate(t, component.NewLinker(), calcWasm)},
		{"another component", instantiate(t, component.NewLinker(), counterWasm)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := echo.Call(ctx, tt.in, "x"); !errors.Is(err, component.ErrForeignInstance) {
				t.Fatalf("err = %v, want ErrForeignInstance", err)
			}
		})
	}
}

// counterRes stands for the counter resource type counter.wasm defines and exports.
type counterRes struct{}

func (counterRes) ResourceName() string { return "counter" }

// A function whose type names a resource the component defines has a type of its own in every
// instance (resource types are generative): each instance gets its plan on its first call.
func TestPrepareFunc_OwnResources(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, counterWasm)
	ctor, err := component.PrepareFunc[uint32, abi.Own[counterRes]](pre, "[constructor]counter")
	if err != nil {
		t.Fatal(err)
	}
	inc, err := component.PrepareFunc[abi.Borrow[counterRes], uint32](pre, "[method]counter.inc")
	if err != nil {
		t.Fatal(err)
	}
	consume, err := component.PrepareFunc[abi.Own[counterRes], uint32](pre, "consume")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		in := instantiatePre(t, pre)
		c, err := ctor.Call(ctx, in, 5)
		if err != nil {
			t.Fatal(err)
		}
		for want := uint32(6); want < 9; want++ {
			if n, err := inc.Call(ctx, in, abi.Borrow[counterRes]{Rep: c.Rep}); err != nil || n != want {
				t.Fatalf("inc = %d, %v; want %d", n, err, want)
			}
		}
		if n, err := consume.Call(ctx, in, c); err != nil || n != 8 {
			t.Fatalf("consume = %d, %v", n, err)
		}
	}
	if _, err := component.PrepareFunc[abi.Own[pollableRes], uint32](pre, "consume"); !errors.Is(err, component.ErrBind) {
		t.Fatalf("handle of another resource: %v, want ErrBind", err)
	}
}

type pollableRes struct{}

func (pollableRes) ResourceName() string { return "pollable" }

type preCalcAPI struct {
	Add func(context.Context, *component.Instance, uint32, uint32) (uint32, error)
	Sum func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:"add"`
	Sub func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:",optional"`
}

func TestInstancePre_BindInterface(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, calcWasm)
	var api preCalcAPI
	if err := pre.BindInterface("docs:calc/api", &api); err != nil {
		t.Fatal(err)
	}
	if api.Sub != nil {
		t.Fatal("optional Sub bound to something")
	}
	for range 2 {
		in := instantiatePre(t, pre)
		if n, err := api.Add(ctx, in, 2, 3); err != nil || n != 5 {
			t.Fatalf("Add = %d, %v", n, err)
		}
		if n, err := api.Sum(ctx, in, 4, 3); err != nil || n != 7 {
			t.Fatalf("Sum = %d, %v", n, err)
		}
	}
	other := instantiate(t, component.NewLinker(), calcWasm)
	if _, err := api.Add(ctx, other, 1, 2); !errors.Is(err, component.ErrForeignInstance) {
		t.Fatalf("Add in a foreign instance: %v", err)
	}
}

func TestInstancePre_BindInterface_Errors(t *testing.T) {
	pre := prepareFixture(t, calcWasm)
	for _, tt := range []struct {
		name  string
		iface string
		dst   any
		want  error
	}{
		{"not a pointer", "docs:calc/api", preCalcAPI{}, component.ErrBind},
		{"no such interface", "docs:calc/nope", &preCalcAPI{}, component.ErrNoExport},
		{"missing function", "docs:calc/api", &struct {
			Mul func(context.Context, *component.Instance, uint32) (uint32, error)
		}{}, component.ErrNoExport},
		{"wrong type", "docs:calc/api", &struct {
			Add func(context.Context, *component.Instance, string, uint32) (uint32, error)
		}{}, component.ErrBind},
		{"no instance parameter", "docs:calc/api", &struct {
			Add func(context.Context, uint32, uint32) (uint32, error)
		}{}, component.ErrBind},
		{"no error result", "docs:calc/api", &struct {
			Add func(context.Context, *component.Instance, uint32, uint32) uint32
		}{}, component.ErrBind},
		{"nil pointer", "docs:calc/api", (*preCalcAPI)(nil), component.ErrBind},
		{"pointer to a non-struct", "docs:calc/api", new(int), component.ErrBind},
		{"tagged function missing", "docs:calc/api", &struct {
			Times func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:"mul"`
		}{}, component.ErrNoExport},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := pre.BindInterface(tt.iface, tt.dst)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// The error of a field names the interface and the field, and says why (the exact words).
func TestInstancePre_BindInterface_ErrorMessages(t *testing.T) {
	pre := prepareFixture(t, calcWasm)
	for _, tt := range []struct {
		name string
		dst  any
		say  string
	}{
		{"missing function", &struct {
			Mul func(context.Context, *component.Instance, uint32) (uint32, error)
		}{}, `component: bind interface docs:calc/api@0.1.0: field Mul: no such export: no function "Mul" in the interface`},
		{"tagged function missing", &struct {
			Times func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:"mul"`
		}{}, `component: bind interface docs:calc/api@0.1.0: field Times: no such export: no function "mul" in the interface`},
		{"no instance parameter", &struct {
			Add func(context.Context, uint32, uint32) (uint32, error)
		}{}, "component: bind interface docs:calc/api@0.1.0: field Add: cannot bind Go function: func(context.Context, uint32, uint32) (uint32, error): the parameters must start with context.Context, *component.Instance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := pre.BindInterface("docs:calc/api", tt.dst); err == nil || err.Error() != tt.say {
				t.Fatalf("err = %v, want %q", err, tt.say)
			}
		})
	}
}

// Optional fields whose function is missing stay nil, by GoName or by tag; unexported fields and
// fields that are not funcs are left alone.
func TestInstancePre_BindInterface_LeavesAlone(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, calcWasm)
	var api struct {
		Add   func(context.Context, *component.Instance, uint32, uint32) (uint32, error)
		Sub   func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:",optional"`
		Times func(context.Context, *component.Instance, uint32, uint32) (uint32, error) `wit:"mul,optional"`
		Note  string
		add   func(context.Context, *component.Instance, uint32, uint32) (uint32, error)
	}
	api.Note = "kept"
	if err := pre.BindInterface("docs:calc/api", &api); err != nil {
		t.Fatal(err)
	}
	if api.Sub != nil || api.Times != nil || api.add != nil || api.Note != "kept" {
		t.Fatalf("Sub %v, Times %v, add %v, Note %q", api.Sub != nil, api.Times != nil, api.add != nil, api.Note)
	}
	if n, err := api.Add(ctx, instantiatePre(t, pre), 2, 3); err != nil || n != 5 {
		t.Fatalf("Add = %d, %v", n, err)
	}
}

// Binding a prepared export to a fresh instance allocates nothing: the first call on each
// instance below allocates exactly what a later call on a warm instance does, plus the
// per-instance state every call path resolves on an instance's first call (the export's core
// function and stack, measured by the same first call made through Func). Here the binding
// itself (finding the instance's function by the prepared index) is measured alone: zero.
func TestPreFunc_BindAllocs(t *testing.T) {
	ctx := context.Background()
	pre := prepareFixture(t, calcWasm)
	add, err := component.PrepareFunc[addParams, uint32](pre, "docs:calc/api#add")
	if err != nil {
		t.Fatal(err)
	}
	const runs = 20
	ins := make([]*component.Instance, runs+1)
	for i := range ins {
		ins[i] = instantiatePre(t, pre)
	}
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		if err := component.BindForTest(add, ins[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("binding a fresh instance allocates %v times, want 0", allocs)
	}
	// And the bound function works in each of them.
	for _, in := range ins {
		if n, err := add.Call(ctx, in, addParams{1, 2}); err != nil || n != 3 {
			t.Fatalf("add = %d, %v", n, err)
		}
	}
}

// BenchmarkPreFunc_FreshInstance measures what a host that instantiates per request pays on
// each fresh instance: finding the prepared function ("bind"), and the first call made through a
// PreFunc or through the per-instance path (Instance.Func, then Typed1's check and plan).
// Instances are made, and closed, in batches outside the timed region.
func BenchmarkPreFunc_FreshInstance(b *testing.B) {
	ctx := context.Background()
	pre := prepareFixture(b, calcWasm)
	echo, err := component.PrepareFunc[string, string](pre, "echo")
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, each func(in *component.Instance) error) {
		b.ReportAllocs()
		const batch = 64
		ins := make([]*component.Instance, 0, batch)
		for n := 0; n < b.N; n += batch {
			b.StopTimer()
			for _, in := range ins {
				_ = in.Close(ctx)
			}
			ins = ins[:0]
			for range min(batch, b.N-n) {
				s, err := testEngine(b).NewStore(ctx, engine.DefaultLimits())
				if err != nil {
					b.Fatal(err)
				}
				in, err := pre.Instantiate(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				ins = append(ins, in)
			}
			b.StartTimer()
			for _, in := range ins {
				if err := each(in); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		for _, in := range ins {
			_ = in.Close(ctx)
		}
	}
	b.Run("bind", func(b *testing.B) {
		run(b, func(in *component.Instance) error { return component.BindForTest(echo, in) })
	})
	b.Run("first-call/PreFunc", func(b *testing.B) {
		run(b, func(in *component.Instance) error {
			_, err := echo.Call(ctx, in, "hello")
			return err
		})
	})
	b.Run("first-call/Func+Typed1", func(b *testing.B) {
		run(b, func(in *component.Instance) error {
			f, err := in.Func("echo")
			if err != nil {
				return err
			}
			fn, err := component.Typed1[string, string](f)
			if err != nil {
				return err
			}
			_, err = fn(ctx, "hello")
			return err
		})
	})
}

// An export that wit-component nests in an instance of a type-ascribing component has no slot
// (it is found by name in each instance), but its type names no resource of the component's,
// so every fresh instance calls it with the plan made once at prepare time.
func TestPreFunc_NestedExportPlannedOnce(t *testing.T) {
	ctx := context.Background()
	l, _ := newFixtureLinker(t)
	pre, err := l.Prepare(compileFixture(t, "testdata/fixture.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	echo, err := component.PrepareFunc[[]string, []string](pre, "kobako:fixture/api#echo-list")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		in := instantiatePre(t, pre)
		got, err := echo.Call(ctx, in, []string{"a", "bc"})
		if err != nil || !slices.Equal(got, []string{"a", "bc"}) {
			t.Fatalf("echo-list = %q, %v", got, err)
		}
		if again, err := component.PlannedPerInstance(echo, in); err != nil || again {
			t.Fatalf("the call was planned again for a fresh instance (%v)", err)
		}
	}
}
