package abi

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

type color uint8

func (color) WITLabels() []string { return []string{"red", "green", "blue"} }

type perms uint8

func (perms) WITLabels() []string { return []string{"read", "write", "exec"} }

type pair struct {
	A uint16
	B string
}

type shape struct {
	Circle *float32
	Square *pair
	Empty  bool `wit:"none"`
	Dot    *struct{}
}

type item struct {
	Name     string
	Age      uint8
	Tags     []string
	Data     []byte
	Samples  []int32
	Score    float64
	Nick     *string
	Count    Option[uint32]
	Outcome  Result[uint64, string]
	Done     Result[struct{}, struct{}]
	Color    color
	Perms    perms
	Letter   rune
	Pair     pair
	Shape    shape
	Handle   uint32
	Any      Value
	Renamed  int64 `wit:"other-name"`
	Skipped  int   `wit:"-"`
	HTTPCode uint16
	private  int
}

var (
	pairT  = tup(U16, String)
	shapeT = vnt(Case{"circle", F32}, Case{"square", pairT}, Case{"none", nil}, Case{"dot", nil})
	itemT  = rec(
		Field{"name", String}, Field{"age", U8}, Field{"tags", lst(String)}, Field{"data", lst(U8)},
		Field{"samples", lst(S32)}, Field{"score", F64}, Field{"nick", opt(String)}, Field{"count", opt(U32)},
		Field{"outcome", res(U64, String)}, Field{"done", res(nil, nil)},
		Field{"color", Must(EnumOf("red", "green", "blue"))}, Field{"perms", Must(FlagsOf("read", "write", "exec"))},
		Field{"letter", Char}, Field{"pair", pairT}, Field{"shape", shapeT},
		Field{"handle", Must(OwnOf(testResources[0]))}, Field{"any", lst(Bool)}, Field{"other-name", S64},
		Field{"http-code", U16},
	)
)

func sampleItem() item {
	nick := "bo"
	r := float32(1.5)
	return item{
		Name: "box", Age: 7, Tags: []string{"a", "ü"}, Data: []byte{1, 2, 3}, Samples: []int32{-1, 5},
		Score: math.Inf(-1), Nick: &nick, Count: Some[uint32](9), Outcome: Err[uint64]("bad"),
		Done: Ok[struct{}, struct{}](struct{}{}), Color: 2, Perms: 5, Letter: '€',
		Pair: pair{3, "x"}, Shape: shape{Circle: &r}, Handle: 44, Any: ListValue(BoolValue(true)),
		Renamed: -9, Skipped: 1, HTTPCode: 404,
	}
}

func sampleItemValue() Value {
	return RecordValue(
		StringValue("box"), U8Value(7), ListValue(StringValue("a"), StringValue("ü")), BytesValue([]byte{1, 2, 3}),
		ListValue(S32Value(-1), S32Value(5)), F64Value(math.Inf(-1)), SomeValue(StringValue("bo")), SomeValue(U32Value(9)),
		ErrValue(StringValue("bad")), OkValue(Value{}), EnumValue(2), FlagsValue(5), CharValue('€'),
		TupleValue(U16Value(3), StringValue("x")), VariantValue(0, F32Value(1.5)), OwnValue(44),
		ListValue(BoolValue(true)), S64Value(-9), U16Value(404),
	)
}

func TestCodec(t *testing.T) {
	c, err := CodecFor[item](itemT)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.ToValue(sampleItem())
	if err != nil {
		t.Fatal(err)
	}
	if want := sampleItemValue(); !Equal(v, want) {
		t.Fatalf("ToValue:\n got %s\nwant %s", Format(itemT, v), Format(itemT, want))
	}
	back, err := c.FromValue(v)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleItem()
	want.Skipped = 0
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("FromValue:\n got %+v\nwant %+v", back, want)
	}
	// Typed and dynamic lowering produce the same bytes and core values.
	for _, enc := range encodings {
		a, b := newEnv(enc), newEnv(enc)
		fa, err := c.LowerFlat(a.cx, sampleItem())
		if err != nil {
			t.Fatal(err)
		}
		fb, err := b.cx.LowerFlat(itemT, sampleItemValue())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fa, fb) || !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("%s: typed and dynamic lowering differ", enc)
		}
		ptr, _ := a.mem.Realloc(0, 0, itemT.Align(), itemT.Size())
		if err := c.Store(a.cx, sampleItem(), ptr); err != nil {
			t.Fatal(err)
		}
		got, err := c.Load(a.cx, ptr)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Load = %+v, %v", enc, got, err)
		}
	}
	// The reflect.Type form converts the same way.
	dc, err := NewCodec(reflect.TypeFor[item](), itemT)
	if err != nil {
		t.Fatal(err)
	}
	var out item
	if err := dc.FromValue(v, &out); err != nil || !reflect.DeepEqual(out, want) {
		t.Fatalf("Codec.FromValue = %+v, %v", out, err)
	}
	if _, err := dc.ToValue(&out); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("ToValue of a pointer: %v", err)
	}
	if err := dc.FromValue(v, out); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("FromValue into a non-pointer: %v", err)
	}
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"Name": "name", "ErrorCode": "error-code", "HTTPStatus": "http-status", "ID": "id",
		"Field1": "field1", "UserID": "user-id", "A": "a", "getX": "get-x",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}

type badLabels uint8

func (badLabels) WITLabels() []string { return []string{"blue", "green", "red"} }

func TestNewCodec_Errors(t *testing.T) {
	tests := []struct {
		name string
		gt   reflect.Type
		t    Type
	}{
		{"int for u32", reflect.TypeFor[int](), U32},
		{"int32 for u32", reflect.TypeFor[int32](), U32},
		{"uint32 for char", reflect.TypeFor[uint32](), Char},
		{"string for list", reflect.TypeFor[string](), lst(U8)},
		{"missing field", reflect.TypeFor[struct{ A uint8 }](), rec(Field{"a", U8}, Field{"b", U8})},
		{"extra field", reflect.TypeFor[struct{ A, B uint8 }](), rec(Field{"a", U8})},
		{"duplicate names", reflect.TypeFor[struct {
			A uint8
			X uint8 `wit:"a"`
		}](), rec(Field{"a", U8})},
		{"field type", reflect.TypeFor[struct{ A string }](), rec(Field{"a", U8})},
		{"tuple arity", reflect.TypeFor[pair](), tup(U16)},
		{"enum labels", reflect.TypeFor[badLabels](), Must(EnumOf("red", "green", "blue"))},
		{"enum too many", reflect.TypeFor[int8](), enm(200)},
		{"enum float", reflect.TypeFor[float32](), enm(2)},
		{"flags too narrow", reflect.TypeFor[uint8](), flg(9)},
		{"flags signed", reflect.TypeFor[int32](), flg(2)},
		{"variant field not pointer", reflect.TypeFor[struct{ A uint8 }](), vnt(Case{"a", U8})},
		{"variant payload-less non-unit", reflect.TypeFor[struct{ A *uint8 }](), vnt(Case{"a", nil})},
		{"variant extra field", reflect.TypeFor[struct{ A, B *uint8 }](), vnt(Case{"a", U8})},
		{"option of wrong type", reflect.TypeFor[*string](), opt(U8)},
		{"option non-pointer", reflect.TypeFor[uint8](), opt(U8)},
		{"result plain struct", reflect.TypeFor[struct{ Ok, Err uint8 }](), res(U8, U8)},
		{"result absent payload", reflect.TypeFor[Result[uint8, uint8]](), res(nil, U8)},
		{"own signed", reflect.TypeFor[int32](), Must(OwnOf(testResources[0]))},
		{"nil type", reflect.TypeFor[uint8](), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewCodec(tt.gt, tt.t); !errors.Is(err, ErrTypeMismatch) && !errors.Is(err, ErrInvalidType) {
				t.Fatalf("NewCodec(%s, %v) = %v; want a mismatch", tt.gt, tt.t, err)
			}
		})
	}
}

func TestCodecValue_Errors(t *testing.T) {
	sc := Must(CodecFor[shape](shapeT))
	if _, err := sc.ToValue(shape{}); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("no case set: %v", err)
	}
	r := float32(1)
	if _, err := sc.ToValue(shape{Circle: &r, Empty: true}); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("two cases set: %v", err)
	}
	if v, err := sc.ToValue(shape{Dot: &struct{}{}}); err != nil || v.Case() != 3 {
		t.Errorf("dot = %v, %v", v, err)
	}
	if s, err := sc.FromValue(VariantValue(2, Value{})); err != nil || !s.Empty {
		t.Errorf("none = %+v, %v", s, err)
	}
	ec := Must(CodecFor[int](enm(3)))
	for _, bad := range []int{-1, 3} {
		if _, err := ec.ToValue(bad); !errors.Is(err, ErrDiscriminant) {
			t.Errorf("enum %d: %v", bad, err)
		}
	}
	if _, err := ec.FromValue(EnumValue(5)); !errors.Is(err, ErrDiscriminant) {
		t.Errorf("enum value 5: %v", err)
	}
	fc := Must(CodecFor[uint16](flg(9)))
	if _, err := fc.ToValue(1 << 9); !errors.Is(err, ErrFlags) {
		t.Errorf("flag bit 9: %v", err)
	}
	ic := Must(CodecFor[item](itemT))
	bad := sampleItemValue()
	bad.ref.([]Value)[2] = ListValue(StringValue("a"), U8Value(1))
	if _, err := ic.FromValue(bad); !errors.Is(err, ErrTypeMismatch) || !containsAll(err.Error(), `record field "tags"`, "list element 1") {
		t.Errorf("FromValue with a bad element: %v", err)
	}
	for _, v := range []Value{{}, U8Value(1), RecordValue()} {
		if _, err := ic.FromValue(v); !errors.Is(err, ErrTypeMismatch) {
			t.Errorf("FromValue(%s): %v", v, err)
		}
	}
}

// TestTypedAgreesWithDynamic converts random Go values both ways and through memory: the typed
// path lowers to exactly what the dynamic path lowers.
func TestTypedAgreesWithDynamic(t *testing.T) {
	c := Must(CodecFor[item](itemT))
	rapid.Check(t, func(t *rapid.T) {
		dyn := genValue(t, itemT)
		// Go values only come from the codec, so decode the random value first.
		x, err := c.FromValue(dyn)
		if err != nil {
			t.Fatalf("FromValue(%s): %v", Format(itemT, dyn), err)
		}
		v, err := c.ToValue(x)
		if err != nil || !Equal(v, dyn) {
			t.Fatalf("ToValue(FromValue(v)) = %s, %v; want %s", Format(itemT, v), err, Format(itemT, dyn))
		}
		enc := rapid.SampledFrom(encodings).Draw(t, "encoding")
		a, b := newEnv(enc), newEnv(enc)
		fa, errA := c.LowerFlat(a.cx, x)
		fb, errB := b.cx.LowerFlat(itemT, dyn)
		if errA != nil || errB != nil || !slices.Equal(fa, fb) || !slices.Equal(a.mem.Bytes(), b.mem.Bytes()) {
			t.Fatalf("typed %v %v, dynamic %v %v", fa, errA, fb, errB)
		}
		got, err := c.LiftFlat(a.cx, fa)
		if err != nil {
			t.Fatal(err)
		}
		if gv, _ := c.ToValue(got); !Equal(gv, dyn) {
			t.Fatalf("typed round trip changed the value")
		}
	})
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestCodecConcurrent builds and uses codecs from several goroutines (run with -race).
func TestCodecConcurrent(t *testing.T) {
	done := make(chan error)
	for i := 0; i < 4; i++ {
		go func() {
			c, err := CodecFor[item](itemT)
			if err == nil {
				var v Value
				if v, err = c.ToValue(sampleItem()); err == nil {
					_, err = c.FromValue(v)
				}
			}
			done <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestCodecCacheIsStructural checks that codecs for structurally equal types, made anew for each
// component instance, share one cache entry: an identity key grew the cache with every instance.
func TestCodecCacheIsStructural(t *testing.T) {
	type pair struct {
		Name  string
		Count uint32
	}
	count := func() int {
		n := 0
		codecCache.Range(func(_, _ any) bool { n++; return true })
		return n
	}
	mk := func() Type {
		r, err := RecordOf(Field{"name", String}, Field{"count", U32})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if _, err := NewCodec(reflect.TypeFor[pair](), mk()); err != nil {
		t.Fatal(err)
	}
	before := count()
	for range 100 {
		if _, err := NewCodec(reflect.TypeFor[pair](), mk()); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(); after != before {
		t.Fatalf("codec cache grew from %d to %d entries for 100 equal types", before, after)
	}
}

// file is the Go type of testResources[0] in the typed mapping.
type file struct{}

func (*file) ResourceName() string { return "file" }

// Handles map to Own and Borrow, and an option of one to a pointer to it, as any option does.
func TestHandleCodec(t *testing.T) {
	own, borrow := Must(OwnOf(testResources[0])), Must(BorrowOf(testResources[0]))
	some := func(v Value) Value { return SomeValue(v) }
	ownOf := func(rep uint32) *Own[*file] { return &Own[*file]{Rep: rep} }
	tests := []struct {
		name string
		gt   reflect.Type
		t    Type
		goV  any
		want Value
	}{
		{"own", reflect.TypeFor[Own[*file]](), own, Own[*file]{Rep: 3}, OwnValue(3)},
		{"borrow", reflect.TypeFor[Borrow[*file]](), borrow, Borrow[*file]{Rep: 4}, BorrowValue(4)},
		{"option of own as pointer", reflect.TypeFor[*Own[*file]](), opt(own), ownOf(5), some(OwnValue(5))},
		{"option of own as pointer, none", reflect.TypeFor[*Own[*file]](), opt(own), (*Own[*file])(nil), NoneValue()},
		{"option of own as Option", reflect.TypeFor[Option[Own[*file]]](), opt(own), Some(Own[*file]{Rep: 6}), some(OwnValue(6))},
		{"result of own", reflect.TypeFor[Result[Own[*file], struct{}]](), res(own, nil), Ok[Own[*file], struct{}](Own[*file]{Rep: 7}), OkValue(OwnValue(7))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCodec(tt.gt, tt.t)
			if err != nil {
				t.Fatal(err)
			}
			v, err := c.ToValue(tt.goV)
			if err != nil || !Equal(v, tt.want) {
				t.Fatalf("ToValue = %s, %v; want %s", Format(tt.t, v), err, Format(tt.t, tt.want))
			}
			back := reflect.New(tt.gt)
			if err := c.FromValue(v, back.Interface()); err != nil || !reflect.DeepEqual(back.Elem().Interface(), tt.goV) {
				t.Fatalf("FromValue = %+v, %v; want %+v", back.Elem().Interface(), err, tt.goV)
			}
		})
	}
}

// A handle type where the WIT type wants another form is a mismatch, never a panic.
func TestHandleCodec_Errors(t *testing.T) {
	own, borrow := Must(OwnOf(testResources[0])), Must(BorrowOf(testResources[0]))
	tests := []struct {
		name string
		gt   reflect.Type
		t    Type
	}{
		{"pointer to own for own", reflect.TypeFor[*Own[*file]](), own},
		{"pointer to borrow for borrow", reflect.TypeFor[*Borrow[*file]](), borrow},
		{"borrow for own", reflect.TypeFor[Borrow[*file]](), own},
		{"own for borrow", reflect.TypeFor[Own[*file]](), borrow},
		{"own of another resource", reflect.TypeFor[Own[*file]](), Must(OwnOf(testResources[1]))},
		{"own for an option of own", reflect.TypeFor[Own[*file]](), opt(own)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewCodec(tt.gt, tt.t); !errors.Is(err, ErrTypeMismatch) {
				t.Fatalf("NewCodec(%s, %v) = %v; want a mismatch", tt.gt, tt.t, err)
			}
		})
	}
}
