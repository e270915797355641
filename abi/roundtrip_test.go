package abi

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

var encodings = []StringEncoding{UTF8, UTF16, Latin1UTF16}

// checkRoundTrip asserts Lift(Lower(v)) == v through memory and through flat values.
func checkRoundTrip(t *rapid.T, typ Type, v Value, enc StringEncoding) {
	e := newEnv(enc)
	if got := roundTripMemory(t, e, typ, v); !Equal(got, v) {
		t.Fatalf("memory round trip of %s (%s):\n got %s\nwant %s", typ, enc, got, v)
	}
	if got := roundTripFlat(t, e, typ, v); !Equal(got, v) {
		t.Fatalf("flat round trip of %s (%s):\n got %s\nwant %s", typ, enc, got, v)
	}
	if e.table.Len() != countBorrows(typ, v)*2 {
		// Every own was moved in and out again; borrows leave their handle (lowered) behind.
		t.Fatalf("handle table holds %d entries, want %d", e.table.Len(), countBorrows(typ, v)*2)
	}
}

// countBorrows counts borrow handles in v (each round trip, memory and flat, leaves one).
func countBorrows(t Type, v Value) int {
	switch t.Kind() {
	case KindBorrow:
		return 1
	case KindList:
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += countBorrows(t.(*ListType).elem, v.Index(i))
		}
		return n
	case KindRecord:
		n := 0
		for i, f := range t.(*RecordType).fields {
			n += countBorrows(f.Type, v.Index(i))
		}
		return n
	case KindTuple:
		n := 0
		for i, e := range t.(*TupleType).elems {
			n += countBorrows(e, v.Index(i))
		}
		return n
	case KindVariant, KindOption, KindResult:
		if p := casesOf(t).payloads[v.num]; p != nil {
			return countBorrows(p, v.Payload())
		}
	}
	return 0
}

func primitiveTypes() []Type {
	return []Type{Bool, S8, U8, S16, U16, S32, U32, S64, U64, F32, F64, Char}
}

func TestRoundTripPrimitives(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom(primitiveTypes()).Draw(t, "type")
		checkRoundTrip(t, typ, genValue(t, typ), UTF8)
	})
}

func TestRoundTripStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		checkRoundTrip(t, String, StringValue(genString(t)), enc)
	})
}

func TestRoundTripLists(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := Must(ListOf(genType(t, 2, true)))
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		checkRoundTrip(t, typ, genValue(t, typ), enc)
	})
}

func TestRoundTripRecordsAndTuples(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var typ Type
		for typ == nil || (typ.Kind() != KindRecord && typ.Kind() != KindTuple) {
			typ = genType(t, 3, true)
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		checkRoundTrip(t, typ, genValue(t, typ), enc)
	})
}

func TestRoundTripVariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var typ Type
		for casesOf(typ) == nil {
			typ = genType(t, 3, true)
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		checkRoundTrip(t, typ, genValue(t, typ), enc)
	})
}

func TestRoundTripFlags(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := Must(FlagsOf(labels("f", rapid.IntRange(1, 32).Draw(t, "n"))...))
		checkRoundTrip(t, typ, genValue(t, typ), UTF8)
	})
}

func TestRoundTripResources(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rt := rapid.SampledFrom(testResources).Draw(t, "resource")
		typ := Type(Must(OwnOf(rt)))
		if rapid.Bool().Draw(t, "borrow") {
			typ = Must(BorrowOf(rt))
		}
		if rapid.Bool().Draw(t, "inlist") {
			typ = Must(ListOf(typ))
		}
		checkRoundTrip(t, typ, genValue(t, typ), UTF8)
	})
}

func TestRoundTripAnyType(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, 4, true)
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		checkRoundTrip(t, typ, genValue(t, typ), enc)
	})
}

// TestRoundTripFunctions drives whole signatures both ways: the host calls a guest export whose
// core function lifts its arguments (as a guest would) and returns the lowered results; and a
// guest calls a host import through ServeImport. Random arity crosses both spill boundaries.
func TestRoundTripFunctions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		np := rapid.IntRange(0, 20).Draw(t, "nparams")
		params := make([]Param, np)
		args := make([]Value, np)
		for i := range params {
			params[i] = Param{Name: labels("p", np)[i], Type: genType(t, 1, false)}
			args[i] = genValue(t, params[i].Type)
		}
		var results []Type
		var rets []Value
		if rapid.Bool().Draw(t, "hasresult") {
			rt := genType(t, 2, false)
			results, rets = []Type{rt}, []Value{genValue(t, rt)}
		}
		ft, err := FuncOf(params, results...)
		if err != nil {
			t.Fatal(err)
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")

		// Export: the guest side lifts what the host lowered and lowers what it returns.
		host, guest := newEnv(enc), newEnv(enc)
		guest.mem, guest.cx.Memory, guest.cx.Realloc = host.mem, host.mem, host.mem.Realloc
		guest.table, guest.cx.Handles = host.table, host.table
		postReturned := false
		host.cx.PostReturn = func([]uint64) error { postReturned = true; return nil }
		got, err := ft.CallExport(host.cx, args, func(flat []uint64) ([]uint64, error) {
			if len(flat) != len(ft.CoreSignature(CanonLift).Params) {
				t.Fatalf("core params %d, signature %s", len(flat), ft.CoreSignature(CanonLift))
			}
			in, err := ft.LiftParams(guest.cx, append(flat, retptrIfSpilled(t, ft, host)...))
			if err != nil {
				return nil, err
			}
			for i := range in {
				if !Equal(in[i], args[i]) {
					t.Fatalf("guest saw arg %d = %s, want %s", i, in[i], args[i])
				}
			}
			// The guest returns through the lift convention: flat, or a pointer to the results.
			return lowerExportResults(t, ft, guest, rets)
		})
		if err != nil {
			t.Fatalf("CallExport %s: %v", ft, err)
		}
		if !postReturned {
			t.Fatalf("post-return not called")
		}
		if len(got) != len(rets) || (len(rets) == 1 && !Equal(got[0], rets[0])) {
			t.Fatalf("CallExport %s returned %v, want %v", ft, got, rets)
		}

		// Import: the guest lowers arguments (as for an export call of its own), the host serves.
		g := newEnv(enc)
		flat, err := ft.LowerParams(g.cx, args)
		if err != nil {
			t.Fatal(err)
		}
		flat = append(flat, retptrIfSpilled(t, ft, g)...)
		out, err := ft.ServeImport(g.cx, flat, func(in []Value) ([]Value, error) {
			for i := range in {
				if !Equal(in[i], args[i]) {
					t.Fatalf("host saw arg %d = %s, want %s", i, in[i], args[i])
				}
			}
			return rets, nil
		})
		if err != nil {
			t.Fatalf("ServeImport %s: %v", ft, err)
		}
		if len(out) != len(ft.CoreSignature(CanonLower).Results) {
			t.Fatalf("ServeImport returned %d core values, signature %s", len(out), ft.CoreSignature(CanonLower))
		}
		var back []Value
		if ft.ResultsSpilled() {
			back, err = liftValues(g.cx, results, ft.resultTuple, []uint64{flat[len(flat)-1]}, resultSteps(1))
		} else {
			back, err = ft.LiftResults(g.cx, out)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(rets) == 1 && !Equal(back[0], rets[0]) {
			t.Fatalf("import result %s, want %s", back[0], rets[0])
		}
	})
}

// retptrIfSpilled allocates a return area when results are spilled, as a guest caller would.
func retptrIfSpilled(t *rapid.T, ft *FuncType, e *env) []uint64 {
	if !ft.ResultsSpilled() {
		return nil
	}
	p, err := e.mem.Realloc(0, 0, ft.resultTuple.Align(), ft.resultTuple.Size())
	if err != nil {
		t.Fatal(err)
	}
	return []uint64{uint64(p)}
}

// lowerExportResults lowers results as the guest side of canon lift: flat, or stored in memory
// and returned as a pointer.
func lowerExportResults(t *rapid.T, ft *FuncType, e *env, rets []Value) ([]uint64, error) {
	if !ft.ResultsSpilled() {
		return ft.LowerResults(e.cx, rets, nil)
	}
	p := retptrIfSpilled(t, ft, e)
	args := make([]uint64, len(ft.CoreSignature(CanonLower).Params))
	args[len(args)-1] = p[0]
	if _, err := ft.LowerResults(e.cx, rets, args); err != nil {
		return nil, err
	}
	return p, nil
}

// TestLowerDeterministic lowers the same value twice into fresh memories: same bytes, same core
// values.
func TestLowerDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, 3, false)
		v := genValue(t, typ)
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		var mems [2][]byte
		var flats [2][]uint64
		for i := range mems {
			e := newEnv(enc)
			ptr, _ := e.mem.Realloc(0, 0, typ.Align(), typ.Size())
			if err := e.cx.Store(typ, v, ptr); err != nil {
				t.Fatal(err)
			}
			flat, err := e.cx.LowerFlat(typ, v)
			if err != nil {
				t.Fatal(err)
			}
			mems[i], flats[i] = slices.Clone(e.mem.Bytes()), flat
		}
		if !bytes.Equal(mems[0], mems[1]) || !slices.Equal(flats[0], flats[1]) {
			t.Fatalf("lowering %s as %s is not deterministic", v, typ)
		}
	})
}
