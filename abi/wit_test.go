package abi

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"go.bytecodealliance.org/wit"
	"pgregory.net/rapid"
)

// toWIT builds the go.bytecodealliance.org/wit equivalent of t.
func toWIT(t Type, resources map[*ResourceType]*wit.TypeDef) wit.Type {
	def := func(k wit.TypeDefKind) wit.Type { return &wit.TypeDef{Kind: k} }
	switch x := t.(type) {
	case *PrimitiveType:
		return map[Kind]wit.Type{
			KindBool: wit.Bool{}, KindS8: wit.S8{}, KindU8: wit.U8{}, KindS16: wit.S16{}, KindU16: wit.U16{},
			KindS32: wit.S32{}, KindU32: wit.U32{}, KindS64: wit.S64{}, KindU64: wit.U64{},
			KindF32: wit.F32{}, KindF64: wit.F64{}, KindChar: wit.Char{}, KindString: wit.String{},
		}[x.kind]
	case *ListType:
		return def(&wit.List{Type: toWIT(x.elem, resources)})
	case *RecordType:
		r := &wit.Record{}
		for _, f := range x.fields {
			r.Fields = append(r.Fields, wit.Field{Name: f.Name, Type: toWIT(f.Type, resources)})
		}
		return def(r)
	case *TupleType:
		tt := &wit.Tuple{}
		for _, e := range x.elems {
			tt.Types = append(tt.Types, toWIT(e, resources))
		}
		return def(tt)
	case *VariantType:
		v := &wit.Variant{}
		for i, n := range x.names {
			c := wit.Case{Name: n}
			if p := x.payloads[i]; p != nil {
				c.Type = toWIT(p, resources)
			}
			v.Cases = append(v.Cases, c)
		}
		return def(v)
	case *EnumType:
		e := &wit.Enum{}
		for _, n := range x.names {
			e.Cases = append(e.Cases, wit.EnumCase{Name: n})
		}
		return def(e)
	case *OptionType:
		return def(&wit.Option{Type: toWIT(x.Elem(), resources)})
	case *ResultType:
		r := &wit.Result{}
		if x.Ok() != nil {
			r.OK = toWIT(x.Ok(), resources)
		}
		if x.Err() != nil {
			r.Err = toWIT(x.Err(), resources)
		}
		return def(r)
	case *FlagsType:
		f := &wit.Flags{}
		for _, l := range x.labels {
			f.Flags = append(f.Flags, wit.Flag{Name: l})
		}
		return def(f)
	case *HandleType:
		rd, ok := resources[x.rt]
		if !ok {
			rd = &wit.TypeDef{Kind: &wit.Resource{}}
			resources[x.rt] = rd
		}
		if x.kind == KindOwn {
			return def(&wit.Own{Type: rd})
		}
		return def(&wit.Borrow{Type: rd})
	}
	panic(fmt.Sprintf("toWIT %T", t))
}

// witCore maps wit's flat types (WIT types standing for core types) to CoreType.
func witCore(ts []wit.Type) []CoreType {
	out := make([]CoreType, len(ts))
	for i, t := range ts {
		switch t.(type) {
		case wit.U64, wit.S64:
			out[i] = CoreI64
		case wit.F32:
			out[i] = CoreF32
		case wit.F64:
			out[i] = CoreF64
		default:
			if t.Size() != 4 {
				panic(fmt.Sprintf("unexpected flat type %T", t))
			}
			out[i] = CoreI32
		}
	}
	return out
}

func checkAgainstWIT(t interface{ Fatalf(string, ...any) }, typ Type) {
	w := toWIT(typ, map[*ResourceType]*wit.TypeDef{})
	if uint32(w.Size()) != typ.Size() || uint32(w.Align()) != typ.Align() || !slices.Equal(witCore(w.Flat()), typ.Flat()) {
		t.Fatalf("%s: abi size %d align %d flat %s; wit %d %d %s", typ, typ.Size(), typ.Align(),
			flatString(typ.Flat()), w.Size(), w.Align(), flatString(witCore(w.Flat())))
	}
}

// TestLayoutMatchesWIT cross-checks size, alignment and flattening with go.bytecodealliance.org/wit
// v0.7.0 for random types.
func TestLayoutMatchesWIT(t *testing.T) {
	if unsafe.Alignof(int64(0)) != 8 {
		// The wit package takes a primitive's alignment from the Go platform it runs on
		// (unsafe.Alignof), so on a 32-bit platform it aligns s64, u64 and f64 to 4, where the
		// canonical ABI (and abi) says 8.
		t.Skip("go.bytecodealliance.org/wit aligns 64-bit values to 4 on a 32-bit platform")
	}
	rapid.Check(t, func(t *rapid.T) { checkAgainstWIT(t, genType(t, 4, true)) })
}

// TestFuncMatchesWIT cross-checks the flattened core signatures of both directions.
func TestFuncMatchesWIT(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		np := rapid.IntRange(0, 18).Draw(t, "nparams")
		res := map[*ResourceType]*wit.TypeDef{}
		params := make([]Param, np)
		wf := &wit.Function{Name: "f", Kind: &wit.Freestanding{}}
		for i := range params {
			params[i] = Param{Name: fmt.Sprintf("p%d", i), Type: genType(t, 1, true)}
			wf.Params = append(wf.Params, wit.Param{Name: params[i].Name, Type: toWIT(params[i].Type, res)})
		}
		var results []Type
		if rapid.Bool().Draw(t, "result") {
			r := genType(t, 2, false)
			results = append(results, r)
			wf.Results = append(wf.Results, wit.Param{Type: toWIT(r, res)})
		}
		ft := Must(FuncOf(params, results...))
		for _, c := range []struct {
			ctx Context
			dir wit.Direction
		}{{CanonLift, wit.Exported}, {CanonLower, wit.Imported}} {
			core := wf.CoreFunction(c.dir)
			var wp, wr []wit.Type
			for _, p := range core.Params {
				wp = append(wp, p.Type)
			}
			for _, r := range core.Results {
				wr = append(wr, r.Type)
			}
			sig := ft.CoreSignature(c.ctx)
			if !slices.Equal(witCore(wp), sig.Params) || !slices.Equal(witCore(wr), sig.Results) {
				t.Fatalf("%s (%d): abi %s, wit params %s results %s", ft, c.ctx, sig,
					flatString(witCore(wp)), flatString(witCore(wr)))
			}
		}
	})
}
