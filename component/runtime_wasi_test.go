package component_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
)

// zeroValue builds the simplest value of a decoded type, for stub host functions.
func zeroValue(t binary.ValType) abi.Value {
	switch t := t.(type) {
	case nil:
		return abi.Value{}
	case binary.PrimType:
		switch t {
		case binary.Bool:
			return abi.BoolValue(false)
		case binary.S8:
			return abi.S8Value(0)
		case binary.U8:
			return abi.U8Value(0)
		case binary.S16:
			return abi.S16Value(0)
		case binary.U16:
			return abi.U16Value(0)
		case binary.S32:
			return abi.S32Value(0)
		case binary.U32:
			return abi.U32Value(0)
		case binary.S64:
			return abi.S64Value(0)
		case binary.U64:
			return abi.U64Value(0)
		case binary.F32:
			return abi.F32Value(0)
		case binary.F64:
			return abi.F64Value(0)
		case binary.Char:
			return abi.CharValue(0)
		case binary.String:
			return abi.StringValue("")
		}
	case *binary.RecordType:
		fs := make([]abi.Value, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = zeroValue(f.Type)
		}
		return abi.RecordValue(fs...)
	case *binary.TupleType:
		es := make([]abi.Value, len(t.Elems))
		for i, e := range t.Elems {
			es[i] = zeroValue(e)
		}
		return abi.TupleValue(es...)
	case *binary.VariantType:
		return abi.VariantValue(0, zeroValue(t.Cases[0].Type))
	case *binary.ListType:
		return abi.ListValue()
	case *binary.FlagsType:
		return abi.FlagsValue(0)
	case *binary.EnumType:
		return abi.EnumValue(0)
	case *binary.OptionType:
		return abi.NoneValue()
	case *binary.ResultType:
		return abi.OkValue(zeroValue(t.OK))
	case *binary.OwnType:
		return abi.OwnValue(1)
	}
	panic("zeroValue: unexpected type")
}

// wasiStub is a minimal WASI 0.2 host for a command component: stdin, stdout and stderr as
// buffers, a fixed environment, and every other function answering the simplest value of its
// result type (the real host is package wasi/preview2).
type wasiStub struct {
	stdin          *strings.Reader
	stdout, stderr bytes.Buffer
}

const (
	repStdin = iota + 1
	repStdout
	repStderr
)

func (w *wasiStub) linker(t *testing.T, cc *component.Component) *component.Linker {
	l := component.NewLinker()
	errExit := errors.New("exit called")
	for _, im := range cc.Decoded().Imports {
		if im.Type.Sort != binary.SortInstance {
			t.Fatalf("unexpected import %s", im.Name)
		}
		iface := im.Name.Raw
		for _, d := range im.Type.Instance.Exports {
			name := d.Name.Raw
			switch d.Type.Sort {
			case binary.SortType:
				if _, ok := d.Type.Type.(*binary.ResourceType); ok {
					if _, err := l.DefineResource(iface, name, nil); err != nil {
						t.Fatal(err)
					}
				}
				continue
			case binary.SortFunc:
			default:
				continue
			}
			ft := d.Type.Func
			fn := func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
				if ft.Result == nil {
					return nil, nil
				}
				return []abi.Value{zeroValue(ft.Result)}, nil
			}
			switch im.Name.Unversioned() + "#" + name {
			case "wasi:cli/stdin#get-stdin":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.OwnValue(repStdin)}, nil
				}
			case "wasi:cli/stdout#get-stdout":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.OwnValue(repStdout)}, nil
				}
			case "wasi:cli/stderr#get-stderr":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.OwnValue(repStderr)}, nil
				}
			case "wasi:cli/environment#get-environment":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.ListValue(abi.TupleValue(abi.StringValue("HOME"), abi.StringValue("/home/kobako")))}, nil
				}
			case "wasi:cli/environment#get-arguments":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.ListValue(abi.StringValue("hello"), abi.StringValue("x"))}, nil
				}
			case "wasi:cli/exit#exit":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) { return nil, errExit }
			case "wasi:io/streams#[method]input-stream.read", "wasi:io/streams#[method]input-stream.blocking-read":
				fn = func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
					buf := make([]byte, min(args[1].Uint(), 4096))
					n, _ := w.stdin.Read(buf)
					if n == 0 {
						return []abi.Value{abi.ErrValue(abi.VariantValue(1, abi.Value{}))}, nil // closed
					}
					return []abi.Value{abi.OkValue(abi.BytesValue(buf[:n]))}, nil
				}
			case "wasi:io/streams#[method]output-stream.check-write":
				fn = func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
					return []abi.Value{abi.OkValue(abi.U64Value(4096))}, nil
				}
			case "wasi:io/streams#[method]output-stream.write", "wasi:io/streams#[method]output-stream.blocking-write-and-flush":
				fn = func(_ context.Context, _ *component.Caller, args []abi.Value) ([]abi.Value, error) {
					out := &w.stdout
					if args[0].Rep() == repStderr {
						out = &w.stderr
					}
					b, ok := args[1].Bytes()
					if !ok {
						for _, e := range args[1].Elems() {
							b = append(b, byte(e.Uint()))
						}
					}
					out.Write(b)
					return []abi.Value{abi.OkValue(abi.Value{})}, nil
				}
			}
			if err := l.Define(iface, name, fn); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l
}

// hello.wasm is a C command built with wasi-libc and the preview1 command adapter: the
// adapter's shim and fixup modules, many WASI 0.2 imports with resources, and wasi:cli/run.
func TestRuntimeWASICommand(t *testing.T) {
	ctx := context.Background()
	cc := compileFixture(t, "testdata/hello.wasm")
	w := &wasiStub{stdin: strings.NewReader("kobako\n")}
	in := instantiate(t, w.linker(t, cc), "testdata/hello.wasm")
	res, err := in.Call(ctx, "wasi:cli/run#run")
	if err != nil {
		t.Fatalf("run: %v (stdout %q, stderr %q)", err, w.stdout.String(), w.stderr.String())
	}
	if !abi.Equal(res[0], abi.OkValue(abi.Value{})) {
		t.Fatalf("run = %v", res[0])
	}
	if got := w.stdout.String(); got != "hello, kobako\n" {
		t.Fatalf("stdout = %q", got)
	}
	if got := w.stderr.String(); !strings.HasPrefix(got, "argc=2 home=/home/kobako time=") {
		t.Fatalf("stderr = %q", got)
	}
}
