package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

// benchRec is calc.wasm's record rec {id: u32, name: string, score: f64}: 24 bytes in guest
// memory, the name at offset 4 and the score at 16.
type benchRec struct {
	ID    uint32
	Name  string
	Score float64
}

const (
	typedStringLen = 1 << 10
	typedRecords   = 100
)

// typedString is 1 KiB of ASCII, the common case of a string crossing the boundary.
var typedString = strings.Repeat("kobako-typed-ABI", typedStringLen/16)

func typedRecs() []benchRec {
	rs := make([]benchRec, typedRecords)
	for i := range rs {
		rs[i] = benchRec{ID: uint32(i), Name: fmt.Sprintf("item-%04d", i), Score: float64(i) / 4}
	}
	return rs
}

// bareCalc is calc.wasm's core module on bare wazero's interpreter, with the canonical ABI done by
// hand in Go: what a hand-written binding of echo would do, with no kobako in the way.
type bareCalc struct {
	mem                  api.Memory
	realloc, echo, post  api.Function
	st4, st2, st1, stOut []uint64
}

func newBareCalc(b testing.TB) (*bareCalc, func()) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	mod, err := r.InstantiateWithConfig(ctx, calcCore(b, benchEngine(b)), wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	c := &bareCalc{mem: mod.Memory(), realloc: mod.ExportedFunction("cabi_realloc"),
		echo: mod.ExportedFunction("echo"), post: mod.ExportedFunction("post"),
		st4: make([]uint64, 4), st2: make([]uint64, 2), st1: make([]uint64, 1)}
	return c, func() { _ = r.Close(ctx) }
}

func (c *bareCalc) alloc(ctx context.Context, align, size uint32) (uint32, error) {
	c.st4[0], c.st4[1], c.st4[2], c.st4[3] = 0, 0, uint64(align), uint64(size)
	if err := c.realloc.CallWithStack(ctx, c.st4); err != nil {
		return 0, err
	}
	return uint32(c.st4[0]), nil
}

// callEcho calls the core echo on (p, n) and returns the (pointer, length) it returns through its
// return area; post must follow once the result is read.
func (c *bareCalc) callEcho(ctx context.Context, p, n uint32) (uint32, uint32, uint32, error) {
	c.st2[0], c.st2[1] = uint64(p), uint64(n)
	if err := c.echo.CallWithStack(ctx, c.st2); err != nil {
		return 0, 0, 0, err
	}
	ret := uint32(c.st2[0])
	rp, ok1 := c.mem.ReadUint32Le(ret)
	rn, ok2 := c.mem.ReadUint32Le(ret + 4)
	if !ok1 || !ok2 {
		return 0, 0, 0, fmt.Errorf("return area %#x out of bounds", ret)
	}
	return ret, rp, rn, nil
}

func (c *bareCalc) callPost(ctx context.Context, ret uint32) error {
	c.st1[0] = uint64(ret)
	return c.post.CallWithStack(ctx, c.st1)
}

func (c *bareCalc) echoString(ctx context.Context, s string) (string, error) {
	p, err := c.alloc(ctx, 1, uint32(len(s)))
	if err != nil {
		return "", err
	}
	if !c.mem.WriteString(p, s) {
		return "", fmt.Errorf("string out of bounds")
	}
	ret, rp, rn, err := c.callEcho(ctx, p, uint32(len(s)))
	if err != nil {
		return "", err
	}
	b, ok := c.mem.Read(rp, rn)
	if !ok {
		return "", fmt.Errorf("result out of bounds")
	}
	out := string(b)
	return out, c.callPost(ctx, ret)
}

func (c *bareCalc) echoRecs(ctx context.Context, rs []benchRec) ([]benchRec, error) {
	p, err := c.alloc(ctx, 8, uint32(24*len(rs)))
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		np, err := c.alloc(ctx, 1, uint32(len(r.Name)))
		if err != nil {
			return nil, err
		}
		e := p + uint32(24*i)
		if !c.mem.WriteString(np, r.Name) || !c.mem.WriteUint32Le(e, r.ID) || !c.mem.WriteUint32Le(e+4, np) ||
			!c.mem.WriteUint32Le(e+8, uint32(len(r.Name))) || !c.mem.WriteFloat64Le(e+16, r.Score) {
			return nil, fmt.Errorf("record %d out of bounds", i)
		}
	}
	ret, rp, rn, err := c.callEcho(ctx, p, uint32(len(rs)))
	if err != nil {
		return nil, err
	}
	raw, ok := c.mem.Read(rp, 24*rn)
	if !ok {
		return nil, fmt.Errorf("result out of bounds")
	}
	out := make([]benchRec, rn)
	for i := range out {
		e := raw[24*i:]
		np, nn := le32(e[4:]), le32(e[8:])
		name, ok := c.mem.Read(np, nn)
		if !ok {
			return nil, fmt.Errorf("name %d out of bounds", i)
		}
		out[i] = benchRec{ID: le32(e), Name: string(name), Score: math.Float64frombits(le64(e[16:]))}
	}
	return out, c.callPost(ctx, ret)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

// BenchmarkComponentTypedEcho echoes a 1 KiB string (calc's echo) and a list of 100 records
// {id: u32, name: string, score: f64} (calc's echo-records, the same core function) through a
// typed Go function bound with Func.Bind (via=component), the same made by component.Typed1
// without reflect.MakeFunc (via=typed1), through the dynamic abi.Value path with the argument
// Value built once (via=dynamic), and through bare wazero's interpreter calling the same core
// functions with realloc and every copy written by hand in Go (via=wazero). The targets are
// component/wazero ≤ 1.3 for the string and ≤ 1.5 for the records.
func BenchmarkComponentTypedEcho(b *testing.B) {
	ctx := context.Background()
	recs := typedRecs()
	b.Run("payload=string1KiB", func(b *testing.B) {
		b.Run("via=wazero", func(b *testing.B) {
			c, done := newBareCalc(b)
			defer done()
			runTyped(b, func() error { return checkString(c.echoString(ctx, typedString)) })
		})
		b.Run("via=component", func(b *testing.B) {
			var echo func(context.Context, string) (string, error)
			bindCalc(b, "echo", &echo)
			runTyped(b, func() error { return checkString(echo(ctx, typedString)) })
		})
		b.Run("via=typed1", func(b *testing.B) {
			echo, err := component.Typed1[string, string](calcFunc(b, "echo"))
			if err != nil {
				b.Fatal(err)
			}
			runTyped(b, func() error { return checkString(echo(ctx, typedString)) })
		})
		b.Run("via=dynamic", func(b *testing.B) {
			f := calcFunc(b, "echo")
			arg := abi.StringValue(typedString)
			runTyped(b, func() error {
				r, err := f.Call(ctx, arg)
				if err != nil {
					return err
				}
				return checkString(r[0].Str(), nil)
			})
		})
	})
	b.Run("payload=records100", func(b *testing.B) {
		b.Run("via=wazero", func(b *testing.B) {
			c, done := newBareCalc(b)
			defer done()
			runTyped(b, func() error { return checkRecs(recs)(c.echoRecs(ctx, recs)) })
		})
		b.Run("via=component", func(b *testing.B) {
			var echo func(context.Context, []benchRec) ([]benchRec, error)
			bindCalc(b, "echo-records", &echo)
			runTyped(b, func() error { return checkRecs(recs)(echo(ctx, recs)) })
		})
		b.Run("via=typed1", func(b *testing.B) {
			echo, err := component.Typed1[[]benchRec, []benchRec](calcFunc(b, "echo-records"))
			if err != nil {
				b.Fatal(err)
			}
			runTyped(b, func() error { return checkRecs(recs)(echo(ctx, recs)) })
		})
		b.Run("via=dynamic", func(b *testing.B) {
			f := calcFunc(b, "echo-records")
			c, err := abi.CodecFor[[]benchRec](f.Type().Params()[0].Type)
			if err != nil {
				b.Fatal(err)
			}
			arg, err := c.ToValue(recs)
			if err != nil {
				b.Fatal(err)
			}
			runTyped(b, func() error {
				r, err := f.Call(ctx, arg)
				if err != nil {
					return err
				}
				if r[0].Len() != typedRecords {
					return fmt.Errorf("%d records back", r[0].Len())
				}
				return nil
			})
		})
	})
}

func runTyped(b *testing.B, call func() error) {
	b.ReportAllocs()
	cpu := newCPUMeter()
	defer cpu.report(b)
	for b.Loop() {
		cpu.begin()
		err := call()
		cpu.end()
		if err != nil {
			b.Fatal(err)
		}
	}
}

func calcFunc(tb testing.TB, name string) *component.Func {
	in := warmComponent(tb, benchEngine(tb), component.NewLinker(), compCalc)
	f, err := in.Func(name)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func bindCalc(tb testing.TB, name string, fnPtr any) {
	if err := calcFunc(tb, name).Bind(fnPtr); err != nil {
		tb.Fatal(err)
	}
}

func checkString(s string, err error) error {
	if err != nil {
		return err
	}
	if s != typedString {
		return fmt.Errorf("echo returned %d bytes, not the %d sent", len(s), len(typedString))
	}
	return nil
}

func checkRecs(want []benchRec) func([]benchRec, error) error {
	return func(got []benchRec, err error) error {
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("echo-records returned %d records, not the %d sent", len(got), len(want))
		}
		return nil
	}
}

// TestTypedEchoWorkloads runs BenchmarkComponentTypedEcho's calls once each with their checks.
func TestTypedEchoWorkloads(t *testing.T) {
	ctx := context.Background()
	recs := typedRecs()
	c, done := newBareCalc(t)
	defer done()
	if err := checkString(c.echoString(ctx, typedString)); err != nil {
		t.Fatal(err)
	}
	if err := checkRecs(recs)(c.echoRecs(ctx, recs)); err != nil {
		t.Fatal(err)
	}
	var echo func(context.Context, string) (string, error)
	bindCalc(t, "echo", &echo)
	if err := checkString(echo(ctx, typedString)); err != nil {
		t.Fatal(err)
	}
	var echoRecs func(context.Context, []benchRec) ([]benchRec, error)
	bindCalc(t, "echo-records", &echoRecs)
	if err := checkRecs(recs)(echoRecs(ctx, recs)); err != nil {
		t.Fatal(err)
	}
	echo1, err := component.Typed1[string, string](calcFunc(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkString(echo1(ctx, typedString)); err != nil {
		t.Fatal(err)
	}
	recs1, err := component.Typed1[[]benchRec, []benchRec](calcFunc(t, "echo-records"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkRecs(recs)(recs1(ctx, recs)); err != nil {
		t.Fatal(err)
	}
}
