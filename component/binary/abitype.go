package binary

import (
	"fmt"

	"github.com/kobako/kobako/abi"
)

// ABITypes converts the decoder's value and function types into abi types, whose layouts the
// canonical ABI uses to lift and lower values. Conversions are memoised, so a type shared by many
// functions is converted once.
//
// Resources are the one part of a type that depends on the instance: every instantiation of a
// component has its own resource types. Resource maps a decoded resource to the abi resource type
// of the instance at hand; when Resource is nil, each *Resource is given one abi.ResourceType of
// its own, named after it, on first use.
//
// An ABITypes is not safe for concurrent use.
type ABITypes struct {
	Resource func(*Resource) *abi.ResourceType

	memo      map[ValType]abi.Type
	resources map[*Resource]*abi.ResourceType
}

var primABI = map[PrimType]abi.Type{Bool: abi.Bool, S8: abi.S8, U8: abi.U8, S16: abi.S16, U16: abi.U16,
	S32: abi.S32, U32: abi.U32, S64: abi.S64, U64: abi.U64, F32: abi.F32, F64: abi.F64, Char: abi.Char,
	String: abi.String}

func (c *ABITypes) resource(r *Resource) *abi.ResourceType {
	if c.Resource != nil {
		if rt := c.Resource(r); rt != nil {
			return rt
		}
	}
	if c.resources == nil {
		c.resources = map[*Resource]*abi.ResourceType{}
	}
	rt, ok := c.resources[r]
	if !ok {
		name := r.Name
		if name == "" {
			name = "resource"
		}
		rt = abi.NewResourceType(name)
		c.resources[r] = rt
	}
	return rt
}

// Value converts a value type.
func (c *ABITypes) Value(t ValType) (abi.Type, error) {
	if t == nil {
		return nil, nil
	}
	if p, ok := t.(PrimType); ok {
		if at, ok := primABI[p]; ok {
			return at, nil
		}
		return nil, fmt.Errorf("component: abi type: unknown primitive %s", p)
	}
	if at, ok := c.memo[t]; ok {
		return at, nil
	}
	at, err := c.convert(t)
	if err != nil {
		return nil, fmt.Errorf("component: abi type of %s: %w", t, err)
	}
	if c.memo == nil {
		c.memo = map[ValType]abi.Type{}
	}
	c.memo[t] = at
	return at, nil
}

func (c *ABITypes) convert(t ValType) (abi.Type, error) {
	all := func(ts []ValType) ([]abi.Type, error) {
		out := make([]abi.Type, len(ts))
		for i, e := range ts {
			at, err := c.Value(e)
			if err != nil {
				return nil, err
			}
			out[i] = at
		}
		return out, nil
	}
	switch t := t.(type) {
	case *RecordType:
		fs := make([]abi.Field, len(t.Fields))
		for i, f := range t.Fields {
			at, err := c.Value(f.Type)
			if err != nil {
				return nil, err
			}
			fs[i] = abi.Field{Name: f.Name, Type: at}
		}
		return abi.RecordOf(fs...)
	case *VariantType:
		cs := make([]abi.Case, len(t.Cases))
		for i, k := range t.Cases {
			at, err := c.Value(k.Type)
			if err != nil {
				return nil, err
			}
			cs[i] = abi.Case{Name: k.Name, Type: at}
		}
		return abi.VariantOf(cs...)
	case *ListType:
		e, err := c.Value(t.Elem)
		if err != nil {
			return nil, err
		}
		return abi.ListOf(e)
	case *TupleType:
		es, err := all(t.Elems)
		if err != nil {
			return nil, err
		}
		return abi.TupleOf(es...)
	case *FlagsType:
		return abi.FlagsOf(t.Names...)
	case *EnumType:
		return abi.EnumOf(t.Names...)
	case *OptionType:
		e, err := c.Value(t.Elem)
		if err != nil {
			return nil, err
		}
		return abi.OptionOf(e)
	case *ResultType:
		ts, err := all([]ValType{t.OK, t.Err})
		if err != nil {
			return nil, err
		}
		return abi.ResultOf(ts[0], ts[1])
	case *OwnType:
		return abi.OwnOf(c.resource(t.Resource.Resource))
	case *BorrowType:
		return abi.BorrowOf(c.resource(t.Resource.Resource))
	}
	return nil, fmt.Errorf("unknown value type %T", t)
}

// Func converts a function type. Its core signature (abi.FuncType.CoreSignature) matches the
// decoder's flattening, which canon lift and lower were validated against.
func (c *ABITypes) Func(f *FuncType) (*abi.FuncType, error) {
	ps := make([]abi.Param, len(f.Params))
	for i, p := range f.Params {
		at, err := c.Value(p.Type)
		if err != nil {
			return nil, err
		}
		ps[i] = abi.Param{Name: p.Name, Type: at}
	}
	var results []abi.Type
	if f.Result != nil {
		at, err := c.Value(f.Result)
		if err != nil {
			return nil, err
		}
		results = append(results, at)
	}
	ft, err := abi.FuncOf(ps, results...)
	if err != nil {
		return nil, fmt.Errorf("component: abi type of %s: %w", f, err)
	}
	return ft, nil
}
