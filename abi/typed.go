package abi

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Option is the Go form of option<T> for the typed mapping (a *T works too).
type Option[T any] struct {
	IsSome bool
	Value  T
}

// Some returns an option holding v.
func Some[T any](v T) Option[T] { return Option[T]{IsSome: true, Value: v} }

// None returns an empty option.
func None[T any]() Option[T] { return Option[T]{} }

func (Option[T]) abiOption() {}

// Result is the Go form of result<T, E> for the typed mapping. Use struct{} for an absent
// payload: Result[struct{}, string] maps result<_, string>.
type Result[T, E any] struct {
	IsErr bool
	Ok    T
	Err   E
}

// Ok returns a successful result.
func Ok[T, E any](v T) Result[T, E] { return Result[T, E]{Ok: v} }

// Err returns a failed result.
func Err[T, E any](e E) Result[T, E] { return Result[T, E]{IsErr: true, Err: e} }

func (Result[T, E]) abiResult() {}

type optionMarker interface{ abiOption() }
type resultMarker interface{ abiResult() }

// Labeled may be implemented by Go types mapped to enum or flags; the labels it returns must then
// equal the WIT type's labels, in order, so that a Go constant cannot silently mean another case.
type Labeled interface {
	WITLabels() []string
}

var (
	valueGoType   = reflect.TypeFor[Value]()
	optionMarkerT = reflect.TypeFor[optionMarker]()
	resultMarkerT = reflect.TypeFor[resultMarker]()
	labeledT      = reflect.TypeFor[Labeled]()
	handleMarkerT = reflect.TypeFor[handleMarker]()
)

// Codec converts between values of one Go type and one WIT type. It is checked once, when it is
// made. ToValue and FromValue convert through Value; TypedCodec's LowerFlat, LiftFlat, Store and
// Load, and GoFunc's calls, move strings, lists, records, tuples and scalars straight between Go
// values and guest memory, through the same checks on guest numbers as the dynamic path (a fuzz
// target and property tests hold the two to the same bytes and errors), and the other types
// through Value at their own node.
//
// The mapping, chosen by the WIT type:
//
//	bool              bool
//	s8 … s64          int8 … int64
//	u8 … u64          uint8 … uint64
//	f32, f64          float32, float64
//	char              rune (int32)
//	string            string
//	list<T>           []T ([]byte and other numeric slices are copied as one block)
//	record            struct: field "name" from the field tagged `wit:"name"`, else the Go field
//	                  name in kebab-case (ErrorCode → error-code); `wit:"-"` skips a field
//	tuple<…>          struct with one exported field per element, in order
//	variant           struct with one field per case, named as for records: *P for a case with
//	                  payload P, *struct{} or bool for a case without; exactly one is set
//	enum              any integer type: the case number
//	option<T>         *T or Option[T]
//	result<T, E>      Result[T, E], struct{} standing for an absent payload
//	flags             uint8, uint16 or uint32 wide enough: bit i is label i
//	own<R>, borrow<R> Own[G] or Borrow[G], where G.ResourceName() is R's name (checked), or
//	                  uint32 (unchecked): the resource rep
//	any type          Value: passed through unchanged
//
// Named Go types work wherever their underlying kind does; enum and flags types may implement
// Labeled.
type Codec struct {
	gt reflect.Type
	t  Type
	c  *goCodec
}

type goCodec struct {
	enc func(reflect.Value) (Value, error)
	dec func(Value, reflect.Value) error
	// The direct paths between Go values and guest memory or core values (typed_direct.go).
	store storeFn
	load  loadFn
	lower lowerFn
	lift  liftFn
	// leaf, for a record or tuple of scalars and strings, moves list elements without reflect
	// (typed_leaf.go).
	leaf *leafPlan
}

// codecKey keys the codec cache by the WIT type's structure, not its identity: every instance of
// a component has Type values of its own, so an identity key would grow the cache with every
// fresh instance (a leak for hosts that instantiate per call). A codec depends only on the
// structure and, for handles, on the resource's name without its instance suffix.
type codecKey struct {
	gt reflect.Type
	t  string
}

var codecCache sync.Map // codecKey → *goCodec

// instanceSuffix is what names a resource type of a second or later instance: "r (instance 2)".
var instanceSuffix = regexp.MustCompile(` \(instance \d+\)`)

func typeKey(t Type) string {
	s := t.String()
	if strings.Contains(s, " (instance ") {
		s = instanceSuffix.ReplaceAllString(s, "")
	}
	return s
}

// NewCodec checks that Go type gt can represent WIT type t and returns the converter.
func NewCodec(gt reflect.Type, t Type) (*Codec, error) {
	if gt == nil || isNil(t) {
		return nil, typeErr("codec", "nil type")
	}
	c, err := compileCodec(gt, t)
	if err != nil {
		return nil, finishErr("map "+gt.String()+" to "+t.Kind().String(), err)
	}
	return &Codec{gt: gt, t: t, c: c}, nil
}

// Type returns the WIT type.
func (c *Codec) Type() Type { return c.t }

// GoType returns the Go type.
func (c *Codec) GoType() reflect.Type { return c.gt }

// ToValue converts x, which must have the codec's Go type, to a Value.
func (c *Codec) ToValue(x any) (Value, error) {
	rv := reflect.ValueOf(x)
	if !rv.IsValid() || rv.Type() != c.gt {
		return Value{}, finishErr("lower", errorf(ErrTypeMismatch, "expected Go %s, found %T", c.gt, x))
	}
	v, err := c.c.enc(rv)
	return v, finishErr("lower", err)
}

// FromValue stores v into dst, which must be a non-nil pointer to the codec's Go type. Numeric
// list payloads of v may be shared with the result, not copied.
func (c *Codec) FromValue(v Value, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != c.gt {
		return finishErr("lift", errorf(ErrTypeMismatch, "expected *%s, found %T", c.gt, dst))
	}
	return finishErr("lift", c.c.dec(v, rv.Elem()))
}

// TypedCodec is a Codec for a Go type known at compile time.
type TypedCodec[T any] struct{ c *Codec }

// CodecFor returns the codec between Go type T and WIT type t.
func CodecFor[T any](t Type) (*TypedCodec[T], error) {
	c, err := NewCodec(reflect.TypeFor[T](), t)
	if err != nil {
		return nil, err
	}
	return &TypedCodec[T]{c: c}, nil
}

// Type returns the WIT type.
func (c *TypedCodec[T]) Type() Type { return c.c.t }

// ToValue converts x to a Value.
func (c *TypedCodec[T]) ToValue(x T) (Value, error) {
	v, err := c.c.c.enc(reflect.ValueOf(&x).Elem())
	return v, finishErr("lower", err)
}

// FromValue converts v to a T.
func (c *TypedCodec[T]) FromValue(v Value) (T, error) {
	var x T
	err := c.c.c.dec(v, reflect.ValueOf(&x).Elem())
	return x, finishErr("lift", err)
}

// LowerFlat lowers x to core values (see CallContext.LowerFlat), straight from the Go value.
func (c *TypedCodec[T]) LowerFlat(cx *CallContext, x T) ([]uint64, error) {
	out, err := c.c.lowerFlat(cx, reflect.ValueOf(&x).Elem(), nil)
	return out, finishErr("lower", err)
}

// LiftFlat lifts a T from core values (see CallContext.LiftFlat), straight into the Go value.
func (c *TypedCodec[T]) LiftFlat(cx *CallContext, flat []uint64) (T, error) {
	var x T
	err := c.c.liftFlat(newLifter(cx), flat, reflect.ValueOf(&x).Elem())
	if err != nil {
		var zero T
		return zero, finishErr("lift", err)
	}
	return x, nil
}

// Store lowers x into memory at ptr (see CallContext.Store), straight from the Go value.
func (c *TypedCodec[T]) Store(cx *CallContext, x T, ptr uint32) error {
	return finishErr("lower", c.c.storeAt(cx, reflect.ValueOf(&x).Elem(), ptr))
}

// Load lifts a T from memory at ptr (see CallContext.Load), straight into the Go value.
func (c *TypedCodec[T]) Load(cx *CallContext, ptr uint32) (T, error) {
	var x T
	if err := c.c.loadAt(newLifter(cx), ptr, reflect.ValueOf(&x).Elem()); err != nil {
		var zero T
		return zero, finishErr("lift", err)
	}
	return x, nil
}

// lowerFlat appends the core values of rv to out, checking what CallContext.LowerFlat checks.
func (c *Codec) lowerFlat(cx *CallContext, rv reflect.Value, out []uint64) ([]uint64, error) {
	if err := cx.checkAsync(); err != nil {
		return nil, err
	}
	if out == nil {
		out = make([]uint64, 0, min(c.t.FlatLen(), maxCachedFlat))
	}
	out, err := c.c.lower(&storer{cx: cx}, c.t, rv, out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// liftFlat lifts rv from exactly the core values of the codec's type.
func (c *Codec) liftFlat(l *lifter, flat []uint64, rv reflect.Value) error {
	if err := l.cx.checkAsync(); err != nil {
		return err
	}
	if len(flat) != c.t.FlatLen() {
		return errorf(ErrCoreValues, "%s needs %d core values, got %d", c.t.Kind(), c.t.FlatLen(), len(flat))
	}
	return c.c.lift(l, c.t, &flatReader{vals: flat}, rv)
}

// storeAt stores rv at ptr, checking what CallContext.Store checks.
func (c *Codec) storeAt(cx *CallContext, rv reflect.Value, ptr uint32) error {
	if err := cx.checkAsync(); err != nil {
		return err
	}
	t := c.t
	if err := checkAlign(ptr, t.Align(), t.Kind().String()); err != nil {
		return err
	}
	s := &storer{cx: cx}
	mem, err := cx.memory()
	if err != nil {
		return err
	}
	b, err := view(mem, ptr, uint64(t.Size()))
	if err != nil {
		return err
	}
	if t.base().hasPtr {
		b = nil
	}
	return c.c.store(s, t, rv, b, ptr)
}

// loadAt loads rv from ptr, checking what CallContext.Load checks.
func (c *Codec) loadAt(l *lifter, ptr uint32, rv reflect.Value) error {
	if err := l.cx.checkAsync(); err != nil {
		return err
	}
	t := c.t
	mem, err := l.cx.memory()
	if err != nil {
		return err
	}
	if err := checkAlign(ptr, t.Align(), t.Kind().String()); err != nil {
		return err
	}
	b, err := view(mem, ptr, uint64(t.Size()))
	if err != nil {
		return err
	}
	return c.c.load(l, t, b, rv)
}

// kebab converts a Go identifier to WIT kebab-case: ErrorCode → error-code, HTTPStatus →
// http-status, ID → id.
func kebab(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				(unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// goFields returns the exported, non-skipped fields of a struct with their WIT names.
func goFields(gt reflect.Type) (idx []int, names []string) {
	for i := 0; i < gt.NumField(); i++ {
		f := gt.Field(i)
		if !f.IsExported() {
			continue
		}
		name := kebab(f.Name)
		if tag, ok := f.Tag.Lookup("wit"); ok {
			if tag == "-" {
				continue
			}
			if tag != "" {
				name = tag
			}
		}
		idx = append(idx, i)
		names = append(names, name)
	}
	return idx, names
}

func goMismatch(gt reflect.Type, t Type) error {
	return errorf(ErrTypeMismatch, "Go %s cannot represent `%s`", gt, t)
}

var intKinds = map[Kind]reflect.Kind{
	KindS8: reflect.Int8, KindS16: reflect.Int16, KindS32: reflect.Int32, KindS64: reflect.Int64,
	KindU8: reflect.Uint8, KindU16: reflect.Uint16, KindU32: reflect.Uint32, KindU64: reflect.Uint64,
	KindF32: reflect.Float32, KindF64: reflect.Float64,
}

func checkLabeled(gt reflect.Type, want []string) error {
	if !gt.Implements(labeledT) {
		return nil
	}
	got := reflect.Zero(gt).Interface().(Labeled).WITLabels()
	if !slices.Equal(got, want) {
		return errorf(ErrTypeMismatch, "Go %s labels %q differ from %q", gt, got, want)
	}
	return nil
}

func compileCodec(gt reflect.Type, t Type) (*goCodec, error) {
	key := codecKey{gt, typeKey(t)}
	if c, ok := codecCache.Load(key); ok {
		return c.(*goCodec), nil
	}
	c, err := buildCodec(gt, t)
	if err != nil {
		return nil, err
	}
	if k := t.Kind(); k >= KindBool && k <= KindChar && gt != valueGoType && !gt.Implements(handleMarkerT) {
		scalarDirect(c, k)
	}
	viaValue(c)
	codecCache.Store(key, c)
	return c, nil
}

func buildCodec(gt reflect.Type, t Type) (*goCodec, error) {
	k := t.Kind()
	if gt == valueGoType {
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return rv.Interface().(Value), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != k {
					return mismatch(t, v)
				}
				rv.Set(reflect.ValueOf(v))
				return nil
			},
		}, nil
	}
	// Own and Borrow are structs; a pointer to one has their methods too, but is an option's
	// form (option<own<R>> as *Own[R]), handled below.
	if gt.Kind() == reflect.Struct && gt.Implements(handleMarkerT) {
		return handleCodec(gt, t)
	}
	switch k {
	case KindBool:
		if gt.Kind() != reflect.Bool {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return BoolValue(rv.Bool()), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != KindBool {
					return mismatch(t, v)
				}
				rv.SetBool(v.num != 0)
				return nil
			},
		}, nil
	case KindS8, KindS16, KindS32, KindS64:
		if gt.Kind() != intKinds[k] {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return Value{kind: k, num: uint64(rv.Int())}, nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != k {
					return mismatch(t, v)
				}
				rv.SetInt(int64(v.num))
				return nil
			},
		}, nil
	case KindU8, KindU16, KindU32, KindU64:
		if gt.Kind() != intKinds[k] {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return Value{kind: k, num: rv.Uint()}, nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != k {
					return mismatch(t, v)
				}
				rv.SetUint(v.num)
				return nil
			},
		}, nil
	case KindF32:
		if gt.Kind() != reflect.Float32 {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return F32Value(float32(rv.Float())), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != KindF32 {
					return mismatch(t, v)
				}
				rv.SetFloat(float64(math.Float32frombits(uint32(v.num))))
				return nil
			},
		}, nil
	case KindF64:
		if gt.Kind() != reflect.Float64 {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return F64Value(rv.Float()), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != KindF64 {
					return mismatch(t, v)
				}
				rv.SetFloat(math.Float64frombits(v.num))
				return nil
			},
		}, nil
	case KindChar:
		if gt.Kind() != reflect.Int32 {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return CharValue(rune(rv.Int())), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != KindChar {
					return mismatch(t, v)
				}
				rv.SetInt(int64(int32(uint32(v.num))))
				return nil
			},
		}, nil
	case KindString:
		if gt.Kind() != reflect.String {
			return nil, goMismatch(gt, t)
		}
		c := &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return StringValue(rv.String()), nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != KindString {
					return mismatch(t, v)
				}
				s := v.str
				rv.SetString(s)
				return nil
			},
		}
		stringDirect(c)
		return c, nil
	case KindList:
		return listCodec(gt, t.(*ListType))
	case KindRecord:
		return recordCodec(gt, t.(*RecordType))
	case KindTuple:
		return tupleCodec(gt, t.(*TupleType))
	case KindVariant:
		return variantCodec(gt, t.(*VariantType))
	case KindEnum:
		return enumCodec(gt, t.(*EnumType))
	case KindOption:
		return optionCodec(gt, t.(*OptionType))
	case KindResult:
		return resultCodec(gt, t.(*ResultType))
	case KindFlags:
		return flagsCodec(gt, t.(*FlagsType))
	case KindOwn, KindBorrow:
		if gt.Kind() != reflect.Uint32 {
			return nil, goMismatch(gt, t)
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) { return Value{kind: k, num: rv.Uint()}, nil },
			dec: func(v Value, rv reflect.Value) error {
				if v.kind != k {
					return mismatch(t, v)
				}
				rv.SetUint(v.num)
				return nil
			},
		}, nil
	}
	return nil, goMismatch(gt, t)
}

// handleCodec maps Own[R] and Borrow[R]: the handle kind and the resource's name must match.
func handleCodec(gt reflect.Type, t Type) (*goCodec, error) {
	m := reflect.Zero(gt).Interface().(handleMarker)
	k := t.Kind()
	if k != m.handleKind() {
		return nil, goMismatch(gt, t)
	}
	name := t.(*HandleType).Resource().Name()
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i] // "r (instance 2)": the resource type of a second instance
	}
	if name != m.resourceName() {
		return nil, errorf(ErrTypeMismatch, "expected a handle of resource %q, found Go %s (resource %q)", name, gt, m.resourceName())
	}
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) { return Value{kind: k, num: rv.Field(0).Uint()}, nil },
		dec: func(v Value, rv reflect.Value) error {
			if v.kind != k {
				return mismatch(t, v)
			}
			rv.Field(0).SetUint(v.num)
			return nil
		},
	}, nil
}

func listCodec(gt reflect.Type, lt *ListType) (*goCodec, error) {
	if gt.Kind() != reflect.Slice {
		return nil, goMismatch(gt, lt)
	}
	ek := lt.elem.Kind()
	if sz := packedSize(ek); sz != 0 && gt.Elem().Kind() == intKinds[ek] {
		return packedCodec(gt, lt, ek, sz), nil
	}
	ec, err := compileCodec(gt.Elem(), lt.elem)
	if err != nil {
		return nil, at(err, "list element")
	}
	c := &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			out := make([]Value, rv.Len())
			for i := range out {
				v, err := ec.enc(rv.Index(i))
				if err != nil {
					return Value{}, at(err, listStep(uint64(i)))
				}
				out[i] = v
			}
			return ListValue(out...), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			if v.kind != KindList {
				return mismatch(lt, v)
			}
			n := v.Len()
			s := reflect.MakeSlice(gt, n, n)
			for i := 0; i < n; i++ {
				if err := ec.dec(v.Index(i), s.Index(i)); err != nil {
					return at(err, listStep(uint64(i)))
				}
			}
			rv.Set(s)
			return nil
		},
	}
	listDirect(c, gt, lt, ec)
	return c, nil
}

// packedCodec converts numeric slices as one block of little-endian bytes. []byte is shared both
// ways; other widths are encoded element by element without building Values.
func packedCodec(gt reflect.Type, lt *ListType, ek Kind, sz uint32) *goCodec {
	c := &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			if ek == KindU8 && gt.Elem() == reflect.TypeFor[byte]() {
				return BytesValue(rv.Bytes()), nil
			}
			n := rv.Len()
			raw := make([]byte, n*int(sz))
			for i := 0; i < n; i++ {
				putPacked(ek, raw[i*int(sz):], rv.Index(i))
			}
			return packedValue(ek, raw), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			if v.kind != KindList {
				return mismatch(lt, v)
			}
			if pk, ok := v.ref.(*packed); ok && pk.elem == ek {
				if ek == KindU8 && gt.Elem() == reflect.TypeFor[byte]() {
					rv.SetBytes(pk.raw)
					return nil
				}
				n := len(pk.raw) / int(sz)
				s := reflect.MakeSlice(gt, n, n)
				for i := 0; i < n; i++ {
					getPacked(ek, pk.raw[i*int(sz):], s.Index(i))
				}
				rv.Set(s)
				return nil
			}
			n := v.Len()
			s := reflect.MakeSlice(gt, n, n)
			for i := 0; i < n; i++ {
				e := v.Index(i)
				if e.kind != ek {
					return at(mismatch(lt.elem, e), listStep(uint64(i)))
				}
				setNum(ek, s.Index(i), e.num)
			}
			rv.Set(s)
			return nil
		},
	}
	packedDirect(c, gt, lt, ek, sz)
	return c
}

func putPacked(k Kind, b []byte, rv reflect.Value) {
	switch k {
	case KindU8:
		b[0] = byte(rv.Uint())
	case KindS8:
		b[0] = byte(rv.Int())
	case KindU16:
		le.PutUint16(b, uint16(rv.Uint()))
	case KindS16:
		le.PutUint16(b, uint16(rv.Int()))
	case KindU32:
		le.PutUint32(b, uint32(rv.Uint()))
	case KindS32:
		le.PutUint32(b, uint32(rv.Int()))
	case KindU64:
		le.PutUint64(b, rv.Uint())
	case KindS64:
		le.PutUint64(b, uint64(rv.Int()))
	case KindF32:
		le.PutUint32(b, math.Float32bits(float32(rv.Float())))
	case KindF64:
		le.PutUint64(b, math.Float64bits(rv.Float()))
	}
}

func getPacked(k Kind, b []byte, rv reflect.Value) {
	setNum(k, rv, decodePacked(k, b).num)
}

func setNum(k Kind, rv reflect.Value, num uint64) {
	switch k {
	case KindU8, KindU16, KindU32, KindU64:
		rv.SetUint(num)
	case KindS8, KindS16, KindS32, KindS64:
		rv.SetInt(int64(num))
	case KindF32:
		rv.SetFloat(float64(math.Float32frombits(uint32(num))))
	case KindF64:
		rv.SetFloat(math.Float64frombits(num))
	}
}

func recordCodec(gt reflect.Type, r *RecordType) (*goCodec, error) {
	if gt.Kind() != reflect.Struct {
		return nil, goMismatch(gt, r)
	}
	idx, names := goFields(gt)
	byName := map[string]int{}
	for i, n := range names {
		if _, dup := byName[n]; dup {
			return nil, errorf(ErrTypeMismatch, "Go %s has two fields named %q", gt, n)
		}
		byName[n] = idx[i]
	}
	goIdx := make([]int, len(r.fields))
	codecs := make([]*goCodec, len(r.fields))
	for i, f := range r.fields {
		gi, ok := byName[f.Name]
		if !ok {
			return nil, errorf(ErrTypeMismatch, "Go %s has no field for record field %q", gt, f.Name)
		}
		delete(byName, f.Name)
		c, err := compileCodec(gt.Field(gi).Type, f.Type)
		if err != nil {
			return nil, at(err, fieldStep(f.Name))
		}
		goIdx[i], codecs[i] = gi, c
	}
	for _, n := range names {
		if _, extra := byName[n]; extra {
			return nil, errorf(ErrTypeMismatch, "Go %s field %q is not in the record", gt, n)
		}
	}
	return structCodec(gt, r, r.offsets, goIdx, codecs, func(i int) string { return fieldStep(r.fields[i].Name) }), nil
}

func tupleCodec(gt reflect.Type, tt *TupleType) (*goCodec, error) {
	if gt.Kind() != reflect.Struct {
		return nil, goMismatch(gt, tt)
	}
	idx, _ := goFields(gt)
	if len(idx) != len(tt.elems) {
		return nil, errorf(ErrTypeMismatch, "Go %s has %d fields for a %d-element tuple", gt, len(idx), len(tt.elems))
	}
	codecs := make([]*goCodec, len(tt.elems))
	for i, e := range tt.elems {
		c, err := compileCodec(gt.Field(idx[i]).Type, e)
		if err != nil {
			return nil, at(err, tupleStep(i))
		}
		codecs[i] = c
	}
	return structCodec(gt, tt, tt.offsets, idx, codecs, tupleStep), nil
}

func structCodec(gt reflect.Type, t Type, offsets []uint32, goIdx []int, codecs []*goCodec, step func(int) string) *goCodec {
	k := t.Kind()
	c := &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			out := make([]Value, len(codecs))
			for i, c := range codecs {
				v, err := c.enc(rv.Field(goIdx[i]))
				if err != nil {
					return Value{}, at(err, step(i))
				}
				out[i] = v
			}
			return Value{kind: k, ref: out}, nil
		},
		dec: func(v Value, rv reflect.Value) error {
			es, err := structElems(t, v, len(codecs))
			if err != nil {
				return err
			}
			for i, c := range codecs {
				if err := c.dec(es[i], rv.Field(goIdx[i])); err != nil {
					return at(err, step(i))
				}
			}
			return nil
		},
	}
	structDirect(c, offsets, goIdx, codecs, step)
	c.leaf = newLeafPlan(gt, t, offsets, goIdx, step)
	return c
}

func isUnit(gt reflect.Type) bool { return gt.Kind() == reflect.Struct && gt.NumField() == 0 }

func variantCodec(gt reflect.Type, vt *VariantType) (*goCodec, error) {
	if gt.Kind() != reflect.Struct {
		return nil, goMismatch(gt, vt)
	}
	idx, names := goFields(gt)
	byName := map[string]int{}
	for i, n := range names {
		byName[n] = idx[i]
	}
	n := len(vt.names)
	goIdx := make([]int, n)
	codecs := make([]*goCodec, n) // nil: no payload
	flag := make([]bool, n)       // case field is a bool
	for i, name := range vt.names {
		gi, ok := byName[name]
		if !ok {
			return nil, errorf(ErrTypeMismatch, "Go %s has no field for variant case %q", gt, name)
		}
		delete(byName, name)
		ft := gt.Field(gi).Type
		goIdx[i] = gi
		switch p := vt.payloads[i]; {
		case p == nil && ft.Kind() == reflect.Bool:
			flag[i] = true
		case p == nil && ft.Kind() == reflect.Pointer && isUnit(ft.Elem()):
		case p != nil && ft.Kind() == reflect.Pointer:
			c, err := compileCodec(ft.Elem(), p)
			if err != nil {
				return nil, at(err, vt.steps[i])
			}
			codecs[i] = c
		default:
			return nil, errorf(ErrTypeMismatch, "Go field %s of %s cannot hold variant case %q", gt.Field(gi).Name, gt, name)
		}
	}
	for _, name := range names {
		if _, extra := byName[name]; extra {
			return nil, errorf(ErrTypeMismatch, "Go %s field %q is not a case of the variant", gt, name)
		}
	}
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			set := -1
			for i := range vt.names {
				f := rv.Field(goIdx[i])
				if (flag[i] && f.Bool()) || (!flag[i] && !f.IsNil()) {
					if set >= 0 {
						return Value{}, errorf(ErrTypeMismatch, "Go %s sets both cases %q and %q", gt, vt.names[set], vt.names[i])
					}
					set = i
				}
			}
			if set < 0 {
				return Value{}, errorf(ErrTypeMismatch, "Go %s sets no variant case", gt)
			}
			if codecs[set] == nil {
				return VariantValue(uint32(set), Value{}), nil
			}
			p, err := codecs[set].enc(rv.Field(goIdx[set]).Elem())
			if err != nil {
				return Value{}, at(err, vt.steps[set])
			}
			return VariantValue(uint32(set), p), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			d, p, err := caseOf(vt, &vt.cases, v)
			if err != nil {
				return err
			}
			rv.SetZero()
			f := rv.Field(goIdx[d])
			switch {
			case flag[d]:
				f.SetBool(true)
			case codecs[d] == nil:
				f.Set(reflect.New(f.Type().Elem()))
			default:
				ptr := reflect.New(f.Type().Elem())
				if err := codecs[d].dec(p, ptr.Elem()); err != nil {
					return at(err, vt.steps[d])
				}
				f.Set(ptr)
			}
			return nil
		},
	}, nil
}

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

func isUint(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func enumCodec(gt reflect.Type, et *EnumType) (*goCodec, error) {
	n := uint64(len(et.names))
	zero := reflect.New(gt).Elem()
	switch {
	case isInt(gt.Kind()):
		if zero.OverflowInt(int64(n - 1)) {
			return nil, errorf(ErrTypeMismatch, "Go %s cannot number %d enum cases", gt, n)
		}
	case isUint(gt.Kind()):
		if zero.OverflowUint(n - 1) {
			return nil, errorf(ErrTypeMismatch, "Go %s cannot number %d enum cases", gt, n)
		}
	default:
		return nil, goMismatch(gt, et)
	}
	if err := checkLabeled(gt, et.names); err != nil {
		return nil, err
	}
	signed := isInt(gt.Kind())
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			c := uint64(0)
			if signed {
				x := rv.Int()
				if x < 0 {
					return Value{}, errorf(ErrDiscriminant, "enum case %d out of range (%d cases)", x, n)
				}
				c = uint64(x)
			} else {
				c = rv.Uint()
			}
			if c >= n {
				return Value{}, errorf(ErrDiscriminant, "enum case %d out of range (%d cases)", c, n)
			}
			return EnumValue(uint32(c)), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			if v.kind != KindEnum {
				return mismatch(et, v)
			}
			if v.num >= n {
				return errorf(ErrDiscriminant, "enum case %d out of range (%d cases)", v.num, n)
			}
			if signed {
				rv.SetInt(int64(v.num))
			} else {
				rv.SetUint(v.num)
			}
			return nil
		},
	}, nil
}

func flagsCodec(gt reflect.Type, ft *FlagsType) (*goCodec, error) {
	switch gt.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
	default:
		return nil, goMismatch(gt, ft)
	}
	if gt.Bits() < len(ft.labels) {
		return nil, errorf(ErrTypeMismatch, "Go %s has %d bits for %d flags", gt, gt.Bits(), len(ft.labels))
	}
	if err := checkLabeled(gt, ft.labels); err != nil {
		return nil, err
	}
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			bits := rv.Uint()
			if uint32(bits)&^flagsMask(len(ft.labels)) != 0 {
				return Value{}, errorf(ErrFlags, "bits %#x set beyond the %d declared flags", bits, len(ft.labels))
			}
			return FlagsValue(uint32(bits)), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			if v.kind != KindFlags {
				return mismatch(ft, v)
			}
			if _, err := flagBits(ft, v); err != nil {
				return err
			}
			rv.SetUint(v.num)
			return nil
		},
	}, nil
}

func optionCodec(gt reflect.Type, ot *OptionType) (*goCodec, error) {
	elem := ot.payloads[1]
	if gt.Kind() == reflect.Pointer {
		c, err := compileCodec(gt.Elem(), elem)
		if err != nil {
			return nil, at(err, "option some")
		}
		return &goCodec{
			enc: func(rv reflect.Value) (Value, error) {
				if rv.IsNil() {
					return NoneValue(), nil
				}
				v, err := c.enc(rv.Elem())
				if err != nil {
					return Value{}, at(err, "option some")
				}
				return SomeValue(v), nil
			},
			dec: func(v Value, rv reflect.Value) error {
				d, p, err := caseOf(ot, &ot.cases, v)
				if err != nil {
					return err
				}
				if d == 0 {
					rv.SetZero()
					return nil
				}
				ptr := reflect.New(gt.Elem())
				if err := c.dec(p, ptr.Elem()); err != nil {
					return at(err, "option some")
				}
				rv.Set(ptr)
				return nil
			},
		}, nil
	}
	if gt.Kind() != reflect.Struct || !gt.Implements(optionMarkerT) {
		return nil, goMismatch(gt, ot)
	}
	vf, _ := gt.FieldByName("Value")
	c, err := compileCodec(vf.Type, elem)
	if err != nil {
		return nil, at(err, "option some")
	}
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			if !rv.Field(0).Bool() {
				return NoneValue(), nil
			}
			v, err := c.enc(rv.Field(1))
			if err != nil {
				return Value{}, at(err, "option some")
			}
			return SomeValue(v), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			d, p, err := caseOf(ot, &ot.cases, v)
			if err != nil {
				return err
			}
			rv.SetZero()
			if d == 0 {
				return nil
			}
			rv.Field(0).SetBool(true)
			if err := c.dec(p, rv.Field(1)); err != nil {
				return at(err, "option some")
			}
			return nil
		},
	}, nil
}

func resultCodec(gt reflect.Type, rt *ResultType) (*goCodec, error) {
	if gt.Kind() != reflect.Struct || !gt.Implements(resultMarkerT) {
		return nil, goMismatch(gt, rt)
	}
	var codecs [2]*goCodec
	for i, name := range []string{"Ok", "Err"} {
		f, _ := gt.FieldByName(name)
		p := rt.payloads[i]
		switch {
		case p == nil && isUnit(f.Type):
		case p == nil:
			return nil, errorf(ErrTypeMismatch, "Go %s field %s must be struct{} for an absent payload", gt, name)
		default:
			c, err := compileCodec(f.Type, p)
			if err != nil {
				return nil, at(err, rt.steps[i])
			}
			codecs[i] = c
		}
	}
	return &goCodec{
		enc: func(rv reflect.Value) (Value, error) {
			d := 0
			if rv.Field(0).Bool() {
				d = 1
			}
			if codecs[d] == nil {
				return payloadValue(KindResult, uint64(d), Value{}), nil
			}
			v, err := codecs[d].enc(rv.Field(1 + d))
			if err != nil {
				return Value{}, at(err, rt.steps[d])
			}
			return payloadValue(KindResult, uint64(d), v), nil
		},
		dec: func(v Value, rv reflect.Value) error {
			d, p, err := caseOf(rt, &rt.cases, v)
			if err != nil {
				return err
			}
			rv.SetZero()
			rv.Field(0).SetBool(d == 1)
			if codecs[d] != nil {
				if err := codecs[d].dec(p, rv.Field(1+int(d))); err != nil {
					return at(err, rt.steps[d])
				}
			}
			return nil
		},
	}, nil
}

// String implements fmt.Stringer for Codec, naming both types.
func (c *Codec) String() string { return fmt.Sprintf("%s ↔ %s", c.gt, c.t) }
