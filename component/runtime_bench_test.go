package component_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// BenchmarkCallAdd calls a lifted export on a warm instance; compare with BenchmarkCallAddCore,
// the same core function called directly through the engine.
func BenchmarkCallAdd(b *testing.B) {
	ctx := context.Background()
	in := instantiate(b, component.NewLinker(), calcWasm)
	f, err := in.Func("add")
	if err != nil {
		b.Fatal(err)
	}
	args := []abi.Value{abi.U32Value(1), abi.U32Value(2)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, args...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallAddCore(b *testing.B) {
	ctx := context.Background()
	cc := compileFixture(b, calcWasm)
	var core []byte
	for _, d := range cc.Decoded().Definitions {
		if m, ok := d.(*binary.CoreModule); ok {
			core = m.Bytes
			break
		}
	}
	m, err := testEngine(b).Compile(ctx, core)
	if err != nil {
		b.Fatal(err)
	}
	inst, err := newStore(b, engine.DefaultLimits()).Instantiate(ctx, m, nil)
	if err != nil {
		b.Fatal(err)
	}
	f, err := inst.Function("add")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, 1, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcat1MiB sends two 512 KiB strings in and gets 1 MiB back.
func BenchmarkConcat1MiB(b *testing.B) {
	ctx := context.Background()
	in := instantiate(b, component.NewLinker(), calcWasm)
	half := abi.StringValue(strings.Repeat("kobako€", 512<<10/9))
	b.SetBytes(2 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Call(ctx, "concat", half, half); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHostImports calls an export that calls two host imports (one taking a string).
func BenchmarkHostImports(b *testing.B) {
	ctx := context.Background()
	l := component.NewLinker()
	_, _ = l.DefineResource("docs:host/api@0.2.1", "blob", nil)
	for _, name := range []string{"log", "name", "make", "[method]blob.size"} {
		_ = l.Define("docs:host/api@0.2.1", name, func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) { return nil, nil })
	}
	_ = l.DefineFunc("docs:host/api@0.2.1", "double", func(_ context.Context, x uint32) uint32 { return 2 * x })
	in := instantiate(b, l, hostWasm)
	f, err := in.Func("run")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, abi.U32Value(3)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstantiate creates a fresh store and instance of a compiled component per iteration.
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	cc := compileFixture(b, calcWasm)
	l := component.NewLinker()
	b.ReportAllocs()
	for b.Loop() {
		s, err := testEngine(b).NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		in, err := l.Instantiate(ctx, s, cc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.Call(ctx, "add", abi.U32Value(1), abi.U32Value(2)); err != nil {
			b.Fatal(err)
		}
		_ = s.Close(ctx)
	}
}
