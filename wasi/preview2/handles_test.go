package preview2

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
)

// u32Numbers are the struct fields of the WIT types wasi:filesystem and wasi:http pass whose u32
// is a number of the interface, not a resource handle.
var u32Numbers = map[string]bool{
	"Datetime.Nanoseconds":                     true,
	"FieldSizePayload.FieldSize":               true,
	"ErrorCode.HTTPRequestHeaderSectionSize":   true,
	"ErrorCode.HTTPRequestTrailerSectionSize":  true,
	"ErrorCode.HTTPResponseHeaderSectionSize":  true,
	"ErrorCode.HTTPResponseTrailerSectionSize": true,
}

// bareU32 returns where a uint32 hides in t (a parameter or result of a host function), outside
// abi.Own and abi.Borrow and the fields of u32Numbers: the place a resource handle would sit
// unchecked, for the typed mapping maps own<R> and borrow<R> to a plain uint32 as well.
func bareU32(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	switch t.Kind() {
	case reflect.Uint32:
		return []string{path}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return bareU32(t.Elem(), path+"[]", seen)
	case reflect.Struct:
		if t.PkgPath() == "github.com/kobako/kobako/abi" && (strings.HasPrefix(t.Name(), "Own[") || strings.HasPrefix(t.Name(), "Borrow[")) {
			return nil
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		var out []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if t.Name() != "" && u32Numbers[t.Name()+"."+f.Name] {
				continue
			}
			out = append(out, bareU32(f.Type, path+"."+f.Name, seen)...)
		}
		return out
	}
	return nil
}

// handleFindings lists the bare uint32s in the parameters and results of a host function,
// which takes the context and the Host first.
func handleFindings(t *testing.T, name string, fn any) []string {
	t.Helper()
	ft := reflect.TypeOf(fn)
	if ft.Kind() != reflect.Func || ft.NumIn() < 2 || ft.In(0) != reflect.TypeFor[context.Context]() || ft.In(1) != reflect.TypeFor[*Host]() {
		t.Fatalf("%s: %s is not a host function taking (context.Context, *Host, …)", name, ft)
	}
	var out []string
	for i := 2; i < ft.NumIn(); i++ {
		out = append(out, bareU32(ft.In(i), name+" parameter "+string(rune('0'+i-2)), map[reflect.Type]bool{})...)
	}
	for i := 0; i < ft.NumOut(); i++ {
		out = append(out, bareU32(ft.Out(i), name+" result", map[reflect.Type]bool{})...)
	}
	return out
}

// The host functions of wasi:filesystem, wasi:http, the monotonic clock and the terminals name every resource with abi.Own or
// abi.Borrow of its Go type, which binding checks against the WIT, and never with a bare rep.
func TestHostFuncsTakeTypedHandles(t *testing.T) {
	tests := []struct {
		iface string
		fns   map[string]any
		want  int // every function of the interface at 0.2.0, so that none is left unchecked
	}{
		{ifaceTypes, filesystemFuncs(), 29},
		{ifacePreopens, preopensFuncs(), 1},
		{ifaceHTTPTypes, httpTypesFuncs(), 51},
		{ifaceHTTPOutgoing, httpOutgoingFuncs(), 1},
		{ifaceMonotonic, monotonicFuncs(), 4},
		{ifaceTerminalStdin, terminalFuncs()[ifaceTerminalStdin], 1},
		{ifaceTerminalStdout, terminalFuncs()[ifaceTerminalStdout], 1},
		{ifaceTerminalStderr, terminalFuncs()[ifaceTerminalStderr], 1},
	}
	for _, tt := range tests {
		t.Run(tt.iface, func(t *testing.T) {
			if len(tt.fns) != tt.want {
				t.Fatalf("%d functions, want %d", len(tt.fns), tt.want)
			}
			for name, fn := range tt.fns {
				if found := handleFindings(t, name, fn); len(found) > 0 {
					t.Errorf("a bare uint32 where a handle may be: %s", strings.Join(found, ", "))
				}
			}
		})
	}
}

// The check finds a rep wherever the typed mapping would take one.
func TestHostFuncsTakeTypedHandles_Finds(t *testing.T) {
	tests := []struct {
		name string
		fn   any
		want []string
	}{
		{"typed", func(context.Context, *Host, abi.Borrow[*descriptor], newTimestamp) (fsResult[abi.Own[*descriptor]], error) {
			return fsResult[abi.Own[*descriptor]]{}, nil
		}, nil},
		{"error-code numbers", func(context.Context, *Host, abi.Borrow[*ioError]) (*httpErrorCode, error) { return nil, nil }, nil},
		{"self", func(context.Context, *Host, uint32) error { return nil }, []string{"f parameter 0"}},
		{"option", func(context.Context, *Host, abi.Own[*outgoingBody], *uint32) error { return nil }, []string{"f parameter 1[]"}},
		{"result", func(context.Context, *Host) (abi.Result[uint32, struct{}], error) {
			return abi.Result[uint32, struct{}]{}, nil
		},
			[]string{"f result.Ok"}},
		{"tuple in a list", func(context.Context, *Host) ([]struct {
			Desc uint32
			Path string
		}, error) {
			return nil, nil
		}, []string{"f result[].Desc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handleFindings(t, "f", tt.fn); !slices.Equal(got, tt.want) {
				t.Fatalf("found %q, want %q", got, tt.want)
			}
		})
	}
}
