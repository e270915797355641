package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// FuzzInstantiateComponent compiles and instantiates arbitrary component bytes against a linker
// that defines every import the component asks for, then calls each root export that takes no
// parameters, under small fuel and deadline limits. Seeded with the component fixtures. Nothing
// may panic or hang; failures must be errors.
func FuzzInstantiateComponent(f *testing.F) {
	for _, pattern := range []string{"*.wasm", "runtime/*.wasm"} {
		files, _ := filepath.Glob(filepath.Join("..", "component", "testdata", pattern))
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			if len(b) <= 1<<14 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := binary.Decode(b)
		if err != nil {
			return
		}
		ctx := context.Background()
		e, err := engine.New(ctx, engine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close(ctx)
		cc, err := component.CompileDecoded(ctx, e, c)
		if err != nil {
			return
		}
		l := stubLinker(c)
		lim := engine.DefaultLimits()
		lim.Fuel = 1_000_000
		lim.Deadline = 2 * time.Second
		lim.MemoryBytes = 16 << 20
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(ctx)
		in, err := l.Instantiate(ctx, s, cc)
		if err != nil {
			return
		}
		for _, ex := range c.Exports {
			if ex.Sort != binary.SortFunc {
				continue
			}
			f, err := in.Func(ex.Name.Raw)
			if err != nil || len(f.Type().Params()) != 0 {
				continue
			}
			_, _ = f.Call(ctx)
		}
	})
}

// stubLinker defines every function and resource a component imports; the functions fail,
// which traps the guest, except those without results, which do nothing.
func stubLinker(c *binary.Component) *component.Linker {
	l := component.NewLinker()
	define := func(iface, name string, et binary.ExternType) {
		switch et.Sort {
		case binary.SortFunc:
			ft := et.Func
			_ = l.Define(iface, name, func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
				if ft.Result != nil {
					return nil, errStub
				}
				return nil, nil
			})
		case binary.SortType:
			if _, ok := et.Type.(*binary.ResourceType); ok {
				_, _ = l.DefineResource(iface, name, nil)
			}
		}
	}
	for _, im := range c.Imports {
		if im.Type.Sort == binary.SortInstance {
			for _, d := range im.Type.Instance.Exports {
				define(im.Name.Raw, d.Name.Raw, d.Type)
			}
			continue
		}
		define("", im.Name.Raw, im.Type)
	}
	return l
}

type stubError struct{}

func (stubError) Error() string { return "stub host function" }

var errStub error = stubError{}
