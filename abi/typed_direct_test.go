package abi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// goTypeOf returns a Go type the typed mapping accepts for t, preferring the direct paths
// (strings, slices, structs) and falling back to Value where the mapping needs a Go type that
// cannot be built by reflection (variants, results).
func goTypeOf(t Type) reflect.Type {
	switch t.Kind() {
	case KindBool:
		return reflect.TypeFor[bool]()
	case KindS8, KindS16, KindS32, KindS64, KindU8, KindU16, KindU32, KindU64, KindF32, KindF64:
		return reflect.TypeOf(reflect.Zero(kindType[t.Kind()]).Interface())
	case KindChar:
		return reflect.TypeFor[rune]()
	case KindString:
		return reflect.TypeFor[string]()
	case KindList:
		return reflect.SliceOf(goTypeOf(t.(*ListType).elem))
	case KindRecord:
		r := t.(*RecordType)
		fs := make([]reflect.StructField, len(r.fields))
		for i, f := range r.fields {
			fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: goTypeOf(f.Type), Tag: reflect.StructTag(`wit:"` + f.Name + `"`)}
		}
		return reflect.StructOf(fs)
	case KindTuple:
		tt := t.(*TupleType)
		fs := make([]reflect.StructField, len(tt.elems))
		for i, e := range tt.elems {
			fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: goTypeOf(e)}
		}
		return reflect.StructOf(fs)
	case KindOption:
		return reflect.PointerTo(goTypeOf(t.(*OptionType).payloads[1]))
	case KindEnum, KindOwn, KindBorrow:
		return reflect.TypeFor[uint32]()
	case KindFlags:
		return reflect.TypeFor[uint32]()
	}
	return valueGoType
}

var kindType = map[Kind]reflect.Type{
	KindS8: reflect.TypeFor[int8](), KindS16: reflect.TypeFor[int16](), KindS32: reflect.TypeFor[int32](),
	KindS64: reflect.TypeFor[int64](), KindU8: reflect.TypeFor[uint8](), KindU16: reflect.TypeFor[uint16](),
	KindU32: reflect.TypeFor[uint32](), KindU64: reflect.TypeFor[uint64](), KindF32: reflect.TypeFor[float32](),
	KindF64: reflect.TypeFor[float64](),
}

// sameErr fails unless a and b are both nil or carry the same message.
func sameErr(t *rapid.T, what string, a, b error) {
	t.Helper()
	if (a == nil) != (b == nil) || (a != nil && a.Error() != b.Error()) {
		t.Fatalf("%s: typed error %v, dynamic error %v", what, a, b)
	}
}

// TestTypedDirectAgrees draws a random type, a Go type for it and a value, and checks that the
// typed direct path and the dynamic Value path agree byte for byte: storing into memory, loading
// back, flat lowering and lifting, and, after random bytes of memory or random core values are
// corrupted, in whether and how lifting fails.
func TestTypedDirectAgrees(t *testing.T) { rapid.Check(t, typedDirectAgrees) }

// FuzzTypedDirect runs TestTypedDirectAgrees's property on fuzzer-chosen draws: types, values,
// encodings, corrupted memory and core values.
func FuzzTypedDirect(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Fuzz(rapid.MakeFuzz(typedDirectAgrees))
}

func typedDirectAgrees(t *rapid.T) {
	// One draw in four is a list of records or tuples of scalars and strings, which the typed
	// path moves with a leaf plan (typed_leaf.go): the general draw reaches one rarely.
	if rapid.IntRange(0, 3).Draw(t, "leaflist") == 0 {
		typ, gt := genLeafList(t)
		agreeOn(t, typ, gt, rapid.Bool().Draw(t, "scribble"))
		return
	}
	typ := genType(t, 3, false)
	agreeOn(t, typ, goTypeOf(typ), false)
}

// agreeOn checks the property for the WIT type typ mapped to the Go type gt. With scribble, every
// realloc also overwrites the previous allocation, as a hostile guest's allocator may: both paths
// must still write the same bytes, so the typed path may not reorder writes around reallocs.
func agreeOn(t *rapid.T, typ Type, gt reflect.Type, scribble bool) {
	{
		c, err := NewCodec(gt, typ)
		if err != nil {
			t.Fatalf("NewCodec(%s, %s): %v", gt, typ, err)
		}
		dyn := genValue(t, typ)
		x := reflect.New(gt)
		if err := c.FromValue(dyn, x.Interface()); err != nil {
			t.Fatalf("FromValue: %v", err)
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		a, b := newEnv(enc), newEnv(enc)
		if scribble {
			a.scribble()
			b.scribble()
		}
		a.cx.MaxLiftBytes = rapid.SampledFrom([]uint64{0, 0, 64, 1 << 10}).Draw(t, "budget")
		b.cx.MaxLiftBytes = a.cx.MaxLiftBytes

		// Memory: store, compare every byte, load back.
		pa, errA := a.cx.alloc(typ.Align(), typ.Size())
		pb, errB := b.cx.alloc(typ.Align(), typ.Size())
		if errA != nil || errB != nil || pa != pb {
			t.Fatalf("alloc: %v %v", errA, errB)
		}
		errA = finishErr("lower", c.storeAt(a.cx, x.Elem(), pa))
		errB = b.cx.Store(typ, dyn, pb)
		sameErr(t, "store", errA, errB)
		if !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("store of %s wrote different bytes", Format(typ, dyn))
		}
		checkLoad(t, c, a, b, typ, pa)

		// Flat: lower, compare values and memory, lift back.
		fa, errA := c.lowerFlat(a.cx, x.Elem(), nil)
		fb, errB := b.cx.LowerFlat(typ, dyn)
		sameErr(t, "lower flat", finishErr("lower", errA), errB)
		if !slices.Equal(fa, fb) || !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("flat lowering of %s differs: %v against %v", Format(typ, dyn), fa, fb)
		}
		checkLiftFlat(t, c, a, b, typ, fa)

		// Corrupt the same bytes in both memories, and draw core values, then lift again.
		for range rapid.IntRange(0, 4).Draw(t, "corruptions") {
			off := rapid.IntRange(0, len(a.mem.Bytes())-1).Draw(t, "offset")
			v := byte(rapid.IntRange(0, 255).Draw(t, "byte"))
			a.mem.Bytes()[off], b.mem.Bytes()[off] = v, v
		}
		checkLoad(t, c, a, b, typ, pa)
		flat := make([]uint64, typ.FlatLen())
		for i := range flat {
			flat[i] = rapid.SampledFrom([]uint64{0, 1, 2, 7, 8, 255, 256, 4096, 0xd800, 0x110000, 1 << 31, 1<<32 - 1}).Draw(t, "core")
		}
		checkLiftFlat(t, c, a, b, typ, flat)
	}
}

func checkLoad(t *rapid.T, c *Codec, a, b *env, typ Type, ptr uint32) {
	t.Helper()
	got := reflect.New(c.gt)
	errA := finishErr("lift", c.loadAt(newLifter(a.cx), ptr, got.Elem()))
	want, errB := b.cx.Load(typ, ptr)
	sameErr(t, "load", errA, errB)
	if errA == nil {
		agree(t, c, got, want)
	}
}

func checkLiftFlat(t *rapid.T, c *Codec, a, b *env, typ Type, flat []uint64) {
	t.Helper()
	got := reflect.New(c.gt)
	errA := finishErr("lift", c.liftFlat(newLifter(a.cx), flat, got.Elem()))
	want, errB := b.cx.LiftFlat(typ, flat)
	sameErr(t, "lift flat", errA, errB)
	if errA == nil {
		agree(t, c, got, want)
	}
}

// agree checks that the Go value lifted by the typed path equals, as a Value, the one lifted
// by the dynamic path.
func agree(t *rapid.T, c *Codec, got reflect.Value, want Value) {
	t.Helper()
	gv, err := c.ToValue(got.Elem().Interface())
	if err != nil {
		t.Fatalf("ToValue of the typed lift: %v", err)
	}
	if !Equal(gv, want) {
		t.Fatalf("typed lift %s, dynamic lift %s", Format(c.t, gv), Format(c.t, want))
	}
}

// TestTypedDirect_Errors checks error cases the random property may rarely reach, with the
// sentinel each path reports.
func TestTypedDirect_Errors(t *testing.T) {
	recT := rec(Field{"id", U32}, Field{"name", String}, Field{"score", F64})
	type recGo struct {
		ID    uint32
		Name  string
		Score float64
	}
	recs := Must(CodecFor[[]recGo](lst(recT)))
	strs := Must(CodecFor[string](String))
	e := newEnv(UTF8)
	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"invalid host UTF-8", func() error { _, err := strs.LowerFlat(e.cx, "a\xffb"); return err }, ErrInvalidString},
		{"invalid guest UTF-8", func() error {
			mem := e.mem.Bytes()
			mem[100], mem[101] = 'a', 0xff
			_, err := strs.LiftFlat(e.cx, []uint64{100, 2})
			return err
		}, ErrInvalidString},
		{"string out of bounds", func() error { _, err := strs.LiftFlat(e.cx, []uint64{uint64(e.mem.Size()) - 1, 2}); return err }, ErrOutOfBounds},
		{"list misaligned", func() error { _, err := recs.LiftFlat(e.cx, []uint64{4, 1}); return err }, ErrMisaligned},
		{"list too long", func() error { _, err := recs.LiftFlat(e.cx, []uint64{8, 1 << 30}); return err }, ErrTooLong},
		{"record name out of bounds", func() error {
			mem := e.mem.Bytes()
			le.PutUint32(mem[204:], 0xfffffff0) // element 0's name pointer
			le.PutUint32(mem[208:], 4)
			_, err := recs.LiftFlat(e.cx, []uint64{200, 1})
			return err
		}, ErrOutOfBounds},
		{"load misaligned", func() error { _, err := recs.Load(e.cx, 2); return err }, ErrMisaligned},
		{"lift budget", func() error {
			cx := *e.cx
			cx.MaxLiftBytes = 10
			_, err := strs.LiftFlat(&cx, []uint64{300, 11})
			return err
		}, ErrLiftLimit},
		{"wrong flat count", func() error { _, err := strs.LiftFlat(e.cx, []uint64{1}); return err }, ErrCoreValues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *PathError", err)
			}
		})
	}
}

// TestTypedDirectAllocs checks that lowering and lifting a list of records on the typed path
// allocates little beyond the result: the slice and one string per name.
func TestTypedDirectAllocs(t *testing.T) {
	recT := rec(Field{"id", U32}, Field{"name", String}, Field{"score", F64})
	type recGo struct {
		ID    uint32
		Name  string
		Score float64
	}
	c := Must(CodecFor[[]recGo](lst(recT)))
	xs := make([]recGo, 50)
	for i := range xs {
		xs[i] = recGo{ID: uint32(i), Name: fmt.Sprint("name-", i), Score: float64(i)}
	}
	m := NewSliceMemory(1<<20, 1<<20)
	cx := &CallContext{Memory: m, Realloc: m.Realloc}
	var flat []uint64
	allocs := testing.AllocsPerRun(20, func() {
		m.Reset()
		var err error
		flat, err = c.c.lowerFlat(cx, reflect.ValueOf(xs), flat[:0])
		if err != nil {
			t.Fatal(err)
		}
		var out []recGo
		l := &cx.typedLifter
		*l = lifter{cx: cx, budget: DefaultMaxLiftBytes}
		if err := c.c.liftFlat(l, flat, reflect.ValueOf(&out).Elem()); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out, xs) {
			t.Fatal("round trip changed the records")
		}
	})
	// The slice, one string per name, and a few boxes for the reflect.Values of this test.
	if allocs > float64(len(xs)+8) {
		t.Fatalf("%v allocations for %d records; want at most %d", allocs, len(xs), len(xs)+8)
	}
}

// TestGoFuncAgrees calls random function types through GoFunc and through FuncType's dynamic
// CallExport and ServeImport, in two memories: the core values the guest sees, every byte of
// memory, the errors and the results must agree, also when the guest returns or passes
// garbage.
func TestGoFuncAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		np := rapid.IntRange(0, 18).Draw(t, "nparams")
		params := make([]Param, np)
		args := make([]Value, np)
		var pcs []*Codec
		var goArgs []reflect.Value
		for i := range params {
			params[i] = Param{Name: labels("p", np)[i], Type: genType(t, 2, false)}
			args[i] = genValue(t, params[i].Type)
			c, x := goValueOf(t, params[i].Type, args[i])
			pcs, goArgs = append(pcs, c), append(goArgs, x)
		}
		var results []Type
		var rets []Value
		var rcs []*Codec
		var goRets []reflect.Value
		if rapid.Bool().Draw(t, "hasresult") {
			rt := genType(t, 2, false)
			results, rets = []Type{rt}, []Value{genValue(t, rt)}
			c, x := goValueOf(t, rt, rets[0])
			rcs, goRets = []*Codec{c}, []reflect.Value{x}
		}
		ft, err := FuncOf(params, results...)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGoFunc(ft, pcs, rcs)
		if err != nil {
			t.Fatal(err)
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		garbage := rapid.IntRange(0, 3).Draw(t, "garbage") == 0
		var junk []uint64
		for range 4 {
			junk = append(junk, rapid.SampledFrom([]uint64{0, 1, 8, 4096, 1 << 20, 1<<32 - 1}).Draw(t, "junk"))
		}

		// Export.
		a, b := newEnv(enc), newEnv(enc)
		var seenA, seenB []uint64
		guest := func(e *env, seen *[]uint64) func([]uint64) ([]uint64, error) {
			return func(flat []uint64) ([]uint64, error) {
				*seen = slices.Clone(flat)
				if garbage {
					return junk[:len(ft.lift.Results)], nil
				}
				return lowerExportResults(t, ft, e, rets)
			}
		}
		gotA := make([]reflect.Value, len(rcs))
		for i, c := range rcs {
			gotA[i] = reflect.New(c.gt).Elem()
		}
		errA := g.CallExport(a.cx, goArgs, gotA, guest(a, &seenA))
		gotB, errB := ft.CallExport(b.cx, args, guest(b, &seenB))
		sameErr(t, "call export", errA, errB)
		if !slices.Equal(seenA, seenB) || !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("export %s: core arguments %v against %v, or memory differs", ft, seenA, seenB)
		}
		if errA == nil {
			for i, c := range rcs {
				agree(t, c, gotA[i].Addr(), gotB[i])
			}
		}

		// Import.
		a, b = newEnv(enc), newEnv(enc)
		var flatA, flatB []uint64
		for _, p := range []struct {
			e    *env
			flat *[]uint64
		}{{a, &flatA}, {b, &flatB}} {
			f, err := ft.LowerParams(p.e.cx, args)
			if err != nil {
				t.Fatal(err)
			}
			*p.flat = append(f, retptrIfSpilled(t, ft, p.e)...)
		}
		if garbage {
			for i := range flatA {
				flatA[i], flatB[i] = junk[i%len(junk)], junk[i%len(junk)]
			}
		}
		inA := make([]reflect.Value, len(pcs))
		for i, c := range pcs {
			inA[i] = reflect.New(c.gt).Elem()
		}
		var inB []Value
		outA, errA := g.ServeImport(a.cx, flatA, inA, func([]reflect.Value) ([]reflect.Value, error) { return goRets, nil })
		outB, errB := ft.ServeImport(b.cx, flatB, func(in []Value) ([]Value, error) { inB = in; return rets, nil })
		sameErr(t, "serve import", errA, errB)
		if !slices.Equal(outA, outB) || !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("import %s: core results %v against %v, or memory differs", ft, outA, outB)
		}
		if errA == nil {
			for i, c := range pcs {
				agree(t, c, inA[i].Addr(), inB[i])
			}
		}
	})
}

// goValueOf returns a codec for t and v converted to its Go type.
func goValueOf(t *rapid.T, typ Type, v Value) (*Codec, reflect.Value) {
	c, err := NewCodec(goTypeOf(typ), typ)
	if err != nil {
		t.Fatal(err)
	}
	x := reflect.New(c.gt)
	if err := c.FromValue(v, x.Interface()); err != nil {
		t.Fatal(err)
	}
	return c, x.Elem()
}

// leafKinds are the field types of a leaf plan.
var leafKinds = []Type{Bool, S8, U8, S16, U16, S32, U32, S64, U64, F32, F64, Char, String}

// genLeafList draws list<record or tuple of scalars and strings> and a Go struct for its element
// whose layout differs from the canonical one: record fields in a shuffled order, and fields the
// mapping ignores (`wit:"-"`) in between, so Go offsets and canonical offsets disagree.
func genLeafList(t *rapid.T) (Type, reflect.Type) {
	n := rapid.IntRange(1, 5).Draw(t, "nleaves")
	ts := make([]Type, n)
	for i := range ts {
		ts[i] = rapid.SampledFrom(leafKinds).Draw(t, "leaf")
	}
	fs := make([]reflect.StructField, n)
	var elem Type
	if rapid.Bool().Draw(t, "record") {
		rf := make([]Field, n)
		for i := range rf {
			rf[i] = Field{Name: fmt.Sprintf("r%d", i), Type: ts[i]}
			fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: goTypeOf(ts[i]), Tag: reflect.StructTag(`wit:"r` + fmt.Sprint(i) + `"`)}
		}
		elem = Must(RecordOf(rf...))
		perm := rapid.Permutation(fs).Draw(t, "order")
		fs = perm
	} else {
		for i := range fs {
			fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: goTypeOf(ts[i])}
		}
		elem = Must(TupleOf(ts...))
	}
	ignored := []reflect.Type{reflect.TypeFor[int8](), reflect.TypeFor[string](), reflect.TypeFor[float64](), reflect.TypeFor[[]int]()}
	var out []reflect.StructField
	for i, f := range fs {
		if rapid.IntRange(0, 2).Draw(t, "pad") == 0 {
			out = append(out, reflect.StructField{Name: fmt.Sprintf("X%d", i), Type: rapid.SampledFrom(ignored).Draw(t, "padtype"), Tag: `wit:"-"`})
		}
		out = append(out, f)
	}
	gt := reflect.StructOf(out)
	ec, err := compileCodec(gt, elem)
	if err != nil || ec.leaf == nil {
		t.Fatalf("no leaf plan for Go %s as %s: %v", gt, elem, err)
	}
	return Must(ListOf(elem)), reflect.SliceOf(gt)
}

// scribble makes every realloc of e first overwrite the previous allocation with 0xA5 bytes.
func (e *env) scribble() {
	var last, lastSize uint32
	e.cx.Realloc = func(old, oldSize, align, size uint32) (uint32, error) {
		buf := e.mem.Bytes()
		for i := uint64(last); i < uint64(last)+uint64(lastSize) && i < uint64(len(buf)); i++ {
			buf[i] = 0xA5
		}
		p, err := e.mem.Realloc(old, oldSize, align, size)
		last, lastSize = p, size
		return p, err
	}
}

// TestLeafPlanChoice checks which list elements get a leaf plan: records and tuples of scalars
// and strings, including Go named types and fields the mapping ignores, and nothing holding a
// list, an option, an enum or an abi.Value; and that a planned list round-trips with its Go
// field order differing from the record's.
func TestLeafPlanChoice(t *testing.T) {
	type id uint32
	type recGo struct {
		Skip  []int `wit:"-"`
		Score float64
		Name  string
		ID    id
	}
	type withList struct {
		ID   uint32
		Tags []string
	}
	type withValue struct {
		ID uint32
		V  Value
	}
	type withOpt struct {
		ID uint32
		N  *uint32
	}
	type pair struct {
		A rune
		B bool
	}
	recT := rec(Field{"id", U32}, Field{"name", String}, Field{"score", F64})
	for _, tc := range []struct {
		name string
		gt   reflect.Type
		t    Type
		want bool
	}{
		{"record of scalars and a string", reflect.TypeFor[recGo](), recT, true},
		{"tuple of char and bool", reflect.TypeFor[pair](), tup(Char, Bool), true},
		{"record with a list", reflect.TypeFor[withList](), rec(Field{"id", U32}, Field{"tags", lst(String)}), false},
		{"record with a Value", reflect.TypeFor[withValue](), rec(Field{"id", U32}, Field{"v", String}), false},
		{"record with an option", reflect.TypeFor[withOpt](), rec(Field{"id", U32}, Field{"n", Must(OptionOf(U32))}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := compileCodec(tc.gt, tc.t)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.leaf != nil; got != tc.want {
				t.Fatalf("leaf plan %v, want %v", got, tc.want)
			}
		})
	}

	c := Must(CodecFor[[]recGo](lst(recT)))
	xs := []recGo{{Skip: []int{1}, Score: -1.5, Name: "α", ID: 7}, {Score: 2, Name: "", ID: 1 << 31}}
	m := NewSliceMemory(1<<12, 1<<20)
	cx := &CallContext{Memory: m, Realloc: m.Realloc}
	flat, err := c.LowerFlat(cx, xs)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cx.LiftFlat(lst(recT), flat)
	if err != nil {
		t.Fatal(err)
	}
	want := ListValue(
		RecordValue(U32Value(7), StringValue("α"), F64Value(-1.5)),
		RecordValue(U32Value(1<<31), StringValue(""), F64Value(2)),
	)
	if !Equal(v, want) {
		t.Fatalf("dynamic lift of the typed lowering: %s, want %s", Format(lst(recT), v), Format(lst(recT), want))
	}
	got, err := c.LiftFlat(cx, flat)
	if err != nil {
		t.Fatal(err)
	}
	xs[0].Skip = nil // ignored, so not lifted
	if !slices.EqualFunc(got, xs, func(a, b recGo) bool {
		return a.Score == b.Score && a.Name == b.Name && a.ID == b.ID && a.Skip == nil
	}) {
		t.Fatalf("typed round trip %v, want %v", got, xs)
	}
}
