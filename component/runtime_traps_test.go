package component_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

func TestDefineUnknownImportsAsTraps(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, hostWasm)
	// The linker defines only name, at a semver-compatible version: the stand-ins must join that
	// definition rather than shadow it with an exact-version one.
	l := component.NewLinker()
	if err := l.Define("docs:host/api@0.2.0", "name", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
		return []abi.Value{abi.StringValue("kobako")}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc); !errors.Is(err, component.ErrMissingImport) {
		t.Fatalf("instantiate before the stand-ins: %v, want ErrMissingImport", err)
	}
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := in.Call(ctx, "greet"); err != nil || res[0].Str() != "kobako" {
		t.Fatalf("greet (defined import) = %v, %v", res, err)
	}
	tests := []struct {
		fn   string
		args []abi.Value
		want string
	}{
		{"run", []abi.Value{abi.U32Value(1)}, "docs:host/api@0.2.1#log"},
		{"make-size", []abi.Value{abi.U32Value(3)}, "docs:host/api@0.2.1#make"},
		{"keep", []abi.Value{abi.U32Value(3)}, "docs:host/api@0.2.1#make"},
	}
	for _, tc := range tests {
		t.Run(tc.fn, func(t *testing.T) {
			in, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = in.Call(ctx, tc.fn, tc.args...)
			if !errors.Is(err, component.ErrUnknownImport) || !errors.Is(err, engine.ErrHost) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err = %v, want a host trap wrapping ErrUnknownImport naming %s", tc.fn, err, tc.want)
			}
		})
	}
	// A trap leaves defined imports working in a fresh instance, and a second call adds nothing.
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
		t.Fatal(err)
	}
	in, err = l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := in.Call(ctx, "greet"); err != nil || res[0].Str() != "kobako" {
		t.Fatalf("greet after a second DefineUnknownImportsAsTraps = %v, %v", res, err)
	}
}

func TestDefineUnknownImportsAsTraps_KeepsDefinitions(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, hostWasm)
	l, h := newBlobLinker(t, "docs:host/api@0.2.1", false)
	if err := l.DefineUnknownImportsAsTraps(cc); err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := in.Call(ctx, "run", abi.U32Value(20)); err != nil || res[0].Uint() != 41 || len(h.logs) != 1 {
		t.Fatalf("run = %v, %v (logs %q)", res, err, h.logs)
	}
	if got, err := in.Call(ctx, "use-blob", abi.BorrowValue(1)); err != nil || got[0].Uint() != 11 {
		t.Fatalf("use-blob = %v, %v: the host's blob type must stay bound", got, err)
	}
}

func TestDefineUnknownImportsAsTraps_Nil(t *testing.T) {
	if err := component.NewLinker().DefineUnknownImportsAsTraps(nil); err == nil {
		t.Fatal("nil component accepted")
	}
}

// TestRuntimeCanonicalABITrap checks the one failure vocabulary: a guest's canonical ABI breach,
// in an export's results or in the arguments it passes an import, is an *engine.Trap of kind
// TrapCanonicalABI whose cause is the abi error, and it discards the store.
func TestRuntimeCanonicalABITrap(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, path, fn string
		args           []abi.Value
		linker         func(t *testing.T) *component.Linker
		cause          error
		function       string
	}{
		{"export result", calcWasm, "bad-char", nil, func(*testing.T) *component.Linker { return component.NewLinker() },
			abi.ErrInvalidChar, "bad-char"},
		{"import argument", hostWasm, "bad-handle", nil, func(t *testing.T) *component.Linker {
			l, _ := newBlobLinker(t, "docs:host/api@0.2.1", false)
			return l
		}, abi.ErrHandle, "canon lower [method]blob.size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := instantiate(t, tt.linker(t), tt.path)
			_, err := in.Call(ctx, tt.fn, tt.args...)
			var trap *engine.Trap
			if !errors.As(err, &trap) || trap.Kind != engine.TrapCanonicalABI || !errors.Is(err, engine.ErrCanonicalABI) {
				t.Fatalf("err = %v, want a canonical ABI trap", err)
			}
			if !errors.Is(trap.Cause, tt.cause) || !strings.Contains(trap.Function, tt.function) {
				t.Fatalf("trap %+v: want cause %v in a function naming %q", trap, tt.cause, tt.function)
			}
			if _, err := in.Call(ctx, tt.fn, tt.args...); !errors.Is(err, engine.ErrInstanceUnavailable) {
				t.Fatalf("call after the breach: %v, want ErrInstanceUnavailable", err)
			}
		})
	}
}
