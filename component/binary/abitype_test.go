package binary

import (
	"slices"
	"testing"

	"github.com/kobako/kobako/abi"
)

// TestABITypesAgreeOnFlattening converts the function type of every canon lift and lower in the
// fixtures to an abi.FuncType and checks that package abi flattens it to the core signature the
// decoder validated: the two implementations of flatten_functype must agree.
func TestABITypesAgreeOnFlattening(t *testing.T) {
	coreOf := func(ts []CoreValType) []abi.CoreType {
		out := []abi.CoreType{}
		for _, c := range ts {
			out = append(out, map[CoreValType]abi.CoreType{CoreI32: abi.CoreI32, CoreI64: abi.CoreI64, CoreF32: abi.CoreF32, CoreF64: abi.CoreF64}[c])
		}
		return out
	}
	checked := 0
	for _, name := range committedFixtures {
		c := decodeFixture(t, name)
		var conv ABITypes
		var walk func(c *Component)
		walk = func(c *Component) {
			for _, d := range c.Definitions {
				if n, ok := d.(*NestedComponent); ok {
					walk(n.Component)
				}
				cn, ok := d.(*Canon)
				if !ok || (cn.Kind != CanonLift && cn.Kind != CanonLower) {
					continue
				}
				ft, err := conv.Func(cn.Func)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, cn.Func, err)
				}
				ctx := abi.CanonLift
				if cn.Kind == CanonLower {
					ctx = abi.CanonLower
				}
				got := ft.CoreSignature(ctx)
				if !slices.Equal(got.Params, coreOf(cn.CoreType.Params)) || !slices.Equal(got.Results, coreOf(cn.CoreType.Results)) {
					t.Errorf("%s: canon %s of %s: abi flattens to %s, decoder to %s", name, cn.Kind, cn.Func, got, cn.CoreType)
				}
				checked++
			}
		}
		walk(c)
	}
	if checked < 40 {
		t.Errorf("only %d canonical definitions checked", checked)
	}
}

func TestABITypesResources(t *testing.T) {
	c := decodeFixture(t, "fixture.wasm")
	api, _ := c.Type.Export("kobako:fixture/api@0.1.0")
	merge, _ := api.Type.Instance.Export("[static]counter.merge")
	mine := abi.NewResourceType("counter-of-this-instance")
	conv := ABITypes{Resource: func(r *Resource) *abi.ResourceType {
		if r.Local {
			return mine
		}
		return nil
	}}
	ft, err := conv.Func(merge.Type.Func)
	if err != nil {
		t.Fatal(err)
	}
	if got := ft.String(); got != "func(a: borrow<counter-of-this-instance>, b: borrow<counter-of-this-instance>) -> own<counter-of-this-instance>" {
		t.Errorf("merge = %s", got)
	}
	host := c.Imports[0].Type.Instance
	ctor, _ := host.Export("[constructor]logger")
	log, _ := host.Export("[method]logger.log")
	a, err := conv.Func(ctor.Type.Func)
	if err != nil {
		t.Fatal(err)
	}
	b, err := conv.Func(log.Type.Func)
	if err != nil {
		t.Fatal(err)
	}
	own := a.Results()[0].(*abi.HandleType)
	borrow := b.Params()[0].Type.(*abi.HandleType)
	if own.Resource() != borrow.Resource() || own.Resource() == mine || own.Resource().Name() != "logger" {
		t.Errorf("logger handles map to %v and %v", own.Resource(), borrow.Resource())
	}
}
