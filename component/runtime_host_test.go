package component_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

const hostWasm = "testdata/runtime/host.wasm"

// blobHost implements docs:host/api: blobs are sizes kept by the host under reps it chooses.
type blobHost struct {
	next    uint32
	sizes   map[uint32]uint32
	dropped []uint32
	logs    []string
}

func newBlobLinker(t *testing.T, iface string, typed bool) (*component.Linker, *blobHost) {
	t.Helper()
	h := &blobHost{next: 100, sizes: map[uint32]uint32{}}
	l := component.NewLinker()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := l.DefineResource(iface, "blob", func(_ context.Context, _ *component.Caller, rep uint32) error {
		if _, ok := h.sizes[rep]; !ok {
			return fmt.Errorf("unknown blob %d", rep)
		}
		delete(h.sizes, rep)
		h.dropped = append(h.dropped, rep)
		return nil
	})
	must(err)
	make := func(n uint32) uint32 {
		h.next++
		h.sizes[h.next] = n
		return h.next
	}
	if typed {
		must(l.DefineFunc(iface, "double", func(_ context.Context, x uint32) (uint32, error) { return 2 * x, nil }))
		must(l.DefineFunc(iface, "log", func(_ context.Context, msg string) { h.logs = append(h.logs, msg) }))
		must(l.DefineFunc(iface, "name", func(context.Context) string { return "kobako" }))
	} else {
		must(l.Define(iface, "double", func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
			return []abi.Value{abi.U32Value(2 * uint32(args[0].Uint()))}, nil
		}))
		must(l.Define(iface, "log", func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
			h.logs = append(h.logs, args[0].Str())
			return nil, nil
		}))
		must(l.Define(iface, "name", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
			return []abi.Value{abi.StringValue("kobako")}, nil
		}))
	}
	must(l.Define(iface, "make", func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
		return []abi.Value{abi.OwnValue(make(uint32(args[0].Uint())))}, nil
	}))
	must(l.Define(iface, "[method]blob.size", func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
		n, ok := h.sizes[args[0].Rep()]
		if !ok {
			return nil, fmt.Errorf("unknown blob %d", args[0].Rep())
		}
		return []abi.Value{abi.U32Value(n)}, nil
	}))
	h.sizes[1] = 11 // a blob the tests pass in
	h.sizes[2] = 22
	return l, h
}

func TestRuntimeHostImports(t *testing.T) {
	ctx := context.Background()
	for _, typed := range []bool{false, true} {
		t.Run(fmt.Sprint("typed=", typed), func(t *testing.T) {
			l, h := newBlobLinker(t, "docs:host/api@0.2.1", typed)
			in := instantiate(t, l, hostWasm)
			res, err := in.Call(ctx, "run", abi.U32Value(20))
			if err != nil {
				t.Fatal(err)
			}
			if res[0].Uint() != 41 || !slices.Equal(h.logs, []string{"hello from guest"}) {
				t.Fatalf("run = %v, logs %q", res, h.logs)
			}
			// The host lowers its string result by calling the guest's realloc while the
			// guest waits in the import.
			for range 3 {
				res, err = in.Call(ctx, "greet")
				if err != nil || res[0].Str() != "kobako" {
					t.Fatalf("greet = %v, %v", res, err)
				}
			}
		})
	}
}

func TestRuntimeHostResources(t *testing.T) {
	ctx := context.Background()
	l, h := newBlobLinker(t, "docs:host/api@0.2.1", false)
	in := instantiate(t, l, hostWasm)
	call := func(fn string, args ...abi.Value) []abi.Value {
		t.Helper()
		res, err := in.Call(ctx, fn, args...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return res
	}
	if got := call("use-blob", abi.BorrowValue(1))[0].Uint(); got != 11 {
		t.Fatalf("use-blob = %d", got)
	}
	if got := call("make-size", abi.U32Value(5))[0].Uint(); got != 5 || len(h.dropped) != 1 {
		t.Fatalf("make-size = %d, dropped %v", got, h.dropped)
	}
	call("take-blob", abi.OwnValue(2))
	if h.dropped[len(h.dropped)-1] != 2 {
		t.Fatalf("take-blob did not run the destructor: %v", h.dropped)
	}
	kept := call("keep", abi.U32Value(9))[0]
	if h.sizes[kept.Rep()] != 9 {
		t.Fatalf("keep returned rep %d", kept.Rep())
	}
	if in.Handles() != 0 {
		t.Fatalf("%d handles left in the guest table", in.Handles())
	}
	if got := call("size-own", kept)[0].Uint(); got != 9 || in.Handles() != 1 {
		t.Fatalf("size-own = %d with %d handles", got, in.Handles())
	}
}

func TestRuntimeHostResources_Errors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		fn   string
		args []abi.Value
		want error
		msg  string
	}{
		{"leak-blob", []abi.Value{abi.BorrowValue(1)}, abi.ErrBorrowOutstanding, "not dropped"},
		{"double-drop", []abi.Value{abi.OwnValue(1)}, abi.ErrHandle, "does not exist"},
		{"bad-handle", nil, abi.ErrHandle, "handle 99 does not exist"},
		{"drop-borrow-twice", []abi.Value{abi.BorrowValue(1)}, abi.ErrHandle, "does not exist"},
		{"use-blob", []abi.Value{abi.OwnValue(1)}, abi.ErrTypeMismatch, ""},
	}
	for _, tc := range tests {
		t.Run(tc.fn, func(t *testing.T) {
			l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
			in := instantiate(t, l, hostWasm)
			_, err := in.Call(ctx, tc.fn, tc.args...)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestRuntimeReentrance_Errors(t *testing.T) {
	ctx := context.Background()
	l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
	var in *component.Instance
	var inner error
	if err := l.Define("docs:host/api@0.2.1", "double", func(ctx context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
		_, inner = in.Call(ctx, "run", abi.U32Value(1))
		return nil, inner
	}); err != nil {
		t.Fatal(err)
	}
	in = instantiate(t, l, hostWasm)
	_, err := in.Call(ctx, "run", abi.U32Value(1))
	if !errors.Is(inner, component.ErrReentrance) || !errors.Is(err, component.ErrReentrance) {
		t.Fatalf("inner call: %v; outer call: %v", inner, err)
	}
	if !errors.Is(err, engine.ErrHost) {
		t.Fatalf("the guest should trap in the host function: %v", err)
	}
}

func TestRuntimeLink_Errors(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, hostWasm)
	tests := []struct {
		name  string
		setup func(t *testing.T) *component.Linker
		want  error
		msg   string
	}{
		{"empty linker", func(*testing.T) *component.Linker { return component.NewLinker() }, component.ErrMissingImport, "docs:host/api@0.2.1"},
		{"incompatible minor", func(t *testing.T) *component.Linker {
			l, _ := newBlobLinker(t, "docs:host/api@0.3.0", false)
			return l
		}, component.ErrMissingImport, "docs:host/api@0.3.0"},
		{"incompatible major", func(t *testing.T) *component.Linker {
			l, _ := newBlobLinker(t, "docs:host/api@1.2.1", false)
			return l
		}, component.ErrMissingImport, ""},
		{"missing function", func(t *testing.T) *component.Linker {
			l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
			l2 := component.NewLinker()
			_, _ = l2.DefineResource("docs:host/api@0.2.1", "blob", nil)
			_ = l2.Define("docs:host/api@0.2.1", "double", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) { return nil, nil })
			_ = l
			return l2
		}, component.ErrMissingImport, "docs:host/api@0.2.1#log"},
		{"missing resource", func(t *testing.T) *component.Linker {
			l := component.NewLinker()
			_ = l.Define("docs:host/api@0.2.1", "double", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) { return nil, nil })
			return l
		}, component.ErrMissingImport, "blob"},
		{"typed mismatch", func(t *testing.T) *component.Linker {
			l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
			_ = l.DefineFunc("docs:host/api@0.2.1", "double", func(_ context.Context, s string) uint32 { return 0 })
			return l
		}, component.ErrLinkType, "double"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.setup(t).Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestRuntimeSemverMatch(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{"0.2.0", "0.2.1", "0.2.9"} {
		t.Run(v, func(t *testing.T) {
			l, _ := newBlobLinker(t, "docs:host/api@"+v, false)
			in := instantiate(t, l, hostWasm)
			if res, err := in.Call(ctx, "run", abi.U32Value(1)); err != nil || res[0].Uint() != 3 {
				t.Fatalf("run = %v, %v", res, err)
			}
		})
	}
}

func TestRuntimeInstanceLimitCountsCoreInstances(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, hostWasm)
	l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
	lim := engine.DefaultLimits()
	lim.Instances = 3 // host.wasm needs 4: memory module, import bundle, realloc module, main module
	if _, err := l.Instantiate(ctx, newStore(t, lim), cc); !errors.Is(err, engine.ErrInstanceLimit) {
		t.Fatalf("err = %v, want ErrInstanceLimit", err)
	}
	lim.Instances = 4
	if _, err := l.Instantiate(ctx, newStore(t, lim), cc); err != nil {
		t.Fatal(err)
	}
}

func TestRuntimeMayLeave_Errors(t *testing.T) {
	ctx := context.Background()
	l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
	in := instantiate(t, l, hostWasm)
	_, err := in.Call(ctx, "evil-len", abi.StringValue("abc"))
	if !errors.Is(err, component.ErrReentrance) || !strings.Contains(err.Error(), "may_leave") {
		t.Fatalf("evil-len: %v", err)
	}
}

// Host imports lowered with each string encoding: the guest passes UTF-16 and Latin-1 (tagged
// either way) strings out and receives the host's strings in its own encoding.
func TestRuntimeHostStringEncodings(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"kobako", "κόσμε 😀", "café"} {
		t.Run(name, func(t *testing.T) {
			l, h := newBlobLinker(t, "docs:host/api@0.2.1", false)
			if err := l.Define("docs:host/api@0.2.1", "name", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
				return []abi.Value{abi.StringValue(name)}, nil
			}); err != nil {
				t.Fatal(err)
			}
			in := instantiate(t, l, hostWasm)
			if _, err := in.Call(ctx, "run-encodings"); err != nil {
				t.Fatal(err)
			}
			if want := []string{"hé€", "café", "hé€"}; !slices.Equal(h.logs, want) {
				t.Fatalf("logs = %q, want %q", h.logs, want)
			}
			for _, fn := range []string{"greet", "greet16", "greetlatin"} {
				res, err := in.Call(ctx, fn)
				if err != nil || res[0].Str() != name {
					t.Fatalf("%s = %v, %v", fn, res, err)
				}
			}
		})
	}
}
