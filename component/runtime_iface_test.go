package component_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

func TestGoName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"get-channel-capabilities", "GetChannelCapabilities"},
		{"[method]fields.append", "FieldsAppend"},
		{"[method]output-stream.blocking-write-and-flush", "OutputStreamBlockingWriteAndFlush"},
		{"[static]fields.from-list", "FieldsFromList"},
		{"[constructor]fields", "NewFields"},
		{"run", "Run"},
		{"get-URL", "GetURL"},
	} {
		if got := component.GoName(tt.in); got != tt.want {
			t.Errorf("GoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// blobAPI serves docs:host/api from its methods, with per-store state through the Caller.
type blobAPI struct{}

func (blobAPI) Double(_ context.Context, x uint32) uint32 { return 2 * x }

func (blobAPI) Log(_ context.Context, c *component.Caller, msg string) error {
	st, err := blobStateOf(c)
	if err != nil {
		return err
	}
	st.logs = append(st.logs, msg)
	return nil
}

func (blobAPI) Name(context.Context) string { return "kobako" }

func (blobAPI) Make(_ context.Context, c *component.Caller, n uint32) (abi.Own[*blob], error) {
	st, err := blobStateOf(c)
	if err != nil {
		return abi.Own[*blob]{}, err
	}
	return component.PushOwn(st.res, &blob{size: n})
}

func (blobAPI) BlobSize(_ context.Context, c *component.Caller, self abi.Borrow[*blob]) (uint32, error) {
	st, err := blobStateOf(c)
	if err != nil {
		return 0, err
	}
	b, err := component.GetBorrow(st.res, self)
	if err != nil {
		return 0, err
	}
	return b.size, nil
}

func blobInterfaceLinker(t *testing.T, api any) *component.Linker {
	t.Helper()
	const iface = "docs:host/api@0.2.1"
	l := component.NewLinker()
	if _, err := l.DefineResource(iface, "blob", func(_ context.Context, c *component.Caller, rep uint32) error {
		st, err := blobStateOf(c)
		if err != nil {
			return err
		}
		_, err = st.res.Delete(rep)
		st.dropped = append(st.dropped, rep)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.DefineInterface(iface, api); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestInstancePreInterface links host.wasm once against an interface served by a Go value and
// instantiates it in several stores.
func TestInstancePreInterface(t *testing.T) {
	ctx := context.Background()
	pre, err := blobInterfaceLinker(t, blobAPI{}).Prepare(compileFixture(t, hostWasm))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s := newStore(t, engine.DefaultLimits())
		st := &blobState{res: component.NewResourceTable(8)}
		blobKey.Set(s, st)
		in, err := pre.Instantiate(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := in.Call(ctx, "run", abi.U32Value(uint32(i)))
		if err != nil || res[0].Uint() != uint64(2*i+1) {
			t.Fatalf("run = %v, %v", res, err)
		}
		if res, err = in.Call(ctx, "make-size", abi.U32Value(6)); err != nil || res[0].Uint() != 6 {
			t.Fatalf("make-size = %v, %v", res, err)
		}
		if len(st.logs) != 1 || len(st.dropped) != 1 || st.res.Len() != 0 {
			t.Fatalf("state %+v", st)
		}
	}
}

// shortAPI lacks BlobSize; badAPI's Double takes a string.
type shortAPI struct{}

func (shortAPI) Double(_ context.Context, x uint32) uint32 { return x }
func (shortAPI) Log(context.Context, string)               {}
func (shortAPI) Name(context.Context) string               { return "" }
func (shortAPI) Make(context.Context, uint32) uint32       { return 0 }

type badAPI struct{ shortAPI }

func (badAPI) Double(_ context.Context, x string) uint32              { return 0 }
func (badAPI) BlobSize(_ context.Context, x abi.Borrow[*blob]) uint32 { return 0 }

type noCtxAPI struct{ shortAPI }

func (noCtxAPI) BlobSize(x abi.Borrow[*blob]) uint32 { return 0 }

func TestInstancePreInterface_Errors(t *testing.T) {
	cc := compileFixture(t, hostWasm)
	for _, tt := range []struct {
		name string
		api  any
		want error
	}{
		{"missing method", shortAPI{}, component.ErrMissingImport},
		{"mistyped method", badAPI{}, component.ErrLinkType},
		{"method without context", noCtxAPI{}, component.ErrLinkType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := blobInterfaceLinker(t, tt.api).Prepare(cc)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Prepare: %v, want %v", err, tt.want)
			}
		})
	}
	if err := component.NewLinker().DefineInterface("docs:host/api@0.2.1", struct{}{}); !errors.Is(err, component.ErrBind) {
		t.Fatalf("DefineInterface without methods: %v", err)
	}
}

type calcAPI struct {
	Add func(context.Context, uint32, uint32) (uint32, error)
	Sub func(context.Context, uint32, uint32) (uint32, error) `wit:",optional"`
	Sum func(context.Context, uint32, uint32) (uint32, error) `wit:"add"`
}

func TestBindInterface(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	var api calcAPI
	if err := in.BindInterface("docs:calc/api", &api); err != nil {
		t.Fatal(err)
	}
	if api.Sub != nil {
		t.Fatal("optional Sub bound to something")
	}
	if n, err := api.Add(ctx, 2, 3); err != nil || n != 5 {
		t.Fatalf("Add = %d, %v", n, err)
	}
	if n, err := api.Sum(ctx, 4, 3); err != nil || n != 7 {
		t.Fatalf("Sum = %d, %v", n, err)
	}
}

func TestBindInterface_Errors(t *testing.T) {
	in := instantiate(t, component.NewLinker(), calcWasm)
	for _, tt := range []struct {
		name  string
		iface string
		dst   any
		want  error
	}{
		{"not a pointer", "docs:calc/api", calcAPI{}, component.ErrBind},
		{"no such interface", "docs:calc/nope", &calcAPI{}, component.ErrNoExport},
		{"missing function", "docs:calc/api", &struct {
			Sub func(context.Context, uint32) (uint32, error)
		}{}, component.ErrNoExport},
		{"wrong type", "docs:calc/api", &struct {
			Add func(context.Context, string, uint32) (uint32, error)
		}{}, component.ErrBind},
		{"nil pointer", "docs:calc/api", (*calcAPI)(nil), component.ErrBind},
		{"pointer to a non-struct", "docs:calc/api", new(int), component.ErrBind},
		{"tagged function missing", "docs:calc/api", &struct {
			Times func(context.Context, uint32, uint32) (uint32, error) `wit:"mul"`
		}{}, component.ErrNoExport},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := in.BindInterface(tt.iface, tt.dst); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// The error of a field names the interface and the field, and says why (the exact words).
func TestBindInterface_ErrorMessages(t *testing.T) {
	in := instantiate(t, component.NewLinker(), calcWasm)
	for _, tt := range []struct {
		name string
		dst  any
		say  string
	}{
		{"missing function", &struct {
			Sub func(context.Context, uint32) (uint32, error)
		}{}, `component: bind interface docs:calc/api@0.1.0: field Sub: no such export: no function "Sub" (GoName) in the interface`},
		{"tagged function missing", &struct {
			Times func(context.Context, uint32, uint32) (uint32, error) `wit:"mul"`
		}{}, `component: bind interface docs:calc/api@0.1.0: field Times: component: export "docs:calc/api@0.1.0#mul": no such export: instance has no function "mul"`},
		{"wrong type", &struct {
			Add func(context.Context, string, uint32) (uint32, error)
		}{}, "component: bind interface docs:calc/api@0.1.0: field Add: component: bind docs:calc/api@0.1.0#add: cannot bind Go function: parameter 0 (a): map string to u32: Go string cannot represent `u32`: type mismatch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := in.BindInterface("docs:calc/api", tt.dst); err == nil || err.Error() != tt.say {
				t.Fatalf("err = %v, want %q", err, tt.say)
			}
		})
	}
}

// Optional fields whose function is missing stay nil, by GoName or by tag; unexported fields and
// fields that are not funcs are left alone.
func TestBindInterface_LeavesAlone(t *testing.T) {
	ctx := context.Background()
	in := instantiate(t, component.NewLinker(), calcWasm)
	var api struct {
		Add   func(context.Context, uint32, uint32) (uint32, error)
		Sub   func(context.Context, uint32, uint32) (uint32, error) `wit:",optional"`
		Times func(context.Context, uint32, uint32) (uint32, error) `wit:"mul,optional"`
		Note  string
		add   func(context.Context, uint32, uint32) (uint32, error)
	}
	api.Note = "kept"
	if err := in.BindInterface("docs:calc/api", &api); err != nil {
		t.Fatal(err)
	}
	if api.Sub != nil || api.Times != nil || api.add != nil || api.Note != "kept" {
		t.Fatalf("Sub %v, Times %v, add %v, Note %q", api.Sub != nil, api.Times != nil, api.add != nil, api.Note)
	}
	if n, err := api.Add(ctx, 2, 3); err != nil || n != 5 {
		t.Fatalf("Add = %d, %v", n, err)
	}
}
