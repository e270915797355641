package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/engine"
)

// TestEmptyModuleName links imports whose module name is "" (the component model's reference
// tests use it throughout) from a host module and from an instance alike.
func TestEmptyModuleName(t *testing.T) {
	e := newEngine(t, engine.Config{})
	ctx := context.Background()
	m, err := e.Compile(ctx, fixture(t, "empty_module"))
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range m.Imports() {
		if im.Module != "" {
			t.Errorf("import %q %q: module name changed", im.Module, im.Name)
		}
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	pm, err := e.Compile(ctx, fixture(t, "empty_module_provider"))
	if err != nil {
		t.Fatal(err)
	}
	provider, err := s.Instantiate(ctx, pm, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One name, one provider: the instance serves "g"; a host module cannot serve a global, so
	// "add" comes through a second module below.
	_, err = s.Instantiate(ctx, m, engine.Imports{"": provider})
	if !errors.Is(err, engine.ErrLink) || !strings.Contains(err.Error(), `import "" "add"`) {
		t.Fatalf("err = %v, want a link error naming import \"\" \"add\"", err)
	}

	add := &engine.HostModule{Name: "adder", Funcs: []engine.HostFunc{{Name: "add",
		Params: []engine.ValueType{engine.I32, engine.I32}, Results: []engine.ValueType{engine.I32},
		Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
			stack[0] = uint64(uint32(stack[0]) + uint32(stack[1]))
		}}}}
	glue, err := e.Compile(ctx, fixture(t, "empty_module_glue"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Instantiate(ctx, glue, engine.Imports{"": add, "p": provider})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Instantiate(ctx, m, engine.Imports{"": g})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Call(ctx, "run", 41)
	if err != nil {
		t.Fatal(err)
	}
	if res[0] != 42 {
		t.Fatalf("run(41) = %d, want 42", res[0])
	}
}

func TestEmptyModuleName_Errors(t *testing.T) {
	e := newEngine(t, engine.Config{})
	_, err := e.Compile(context.Background(), fixture(t, "empty_module_both"))
	if !errors.Is(err, engine.ErrInvalidModule) || !strings.Contains(err.Error(), `"kobako:empty"`) {
		t.Fatalf("err = %v, want ErrInvalidModule naming \"kobako:empty\"", err)
	}
}
