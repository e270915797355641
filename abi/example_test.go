package abi_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kobako/kobako/abi"
)

// A value is lowered into a guest's linear memory and lifted back out. SliceMemory stands in for
// the guest memory and its allocator.
func Example() {
	person := abi.Must(abi.RecordOf(
		abi.Field{Name: "name", Type: abi.String},
		abi.Field{Name: "age", Type: abi.U8},
		abi.Field{Name: "tags", Type: abi.Must(abi.ListOf(abi.String))},
	))
	fmt.Println(person, "size", person.Size(), "align", person.Align(), "flat", person.Flat())

	mem := abi.NewSliceMemory(1<<16, 1<<16)
	cx := &abi.CallContext{Memory: mem, Realloc: mem.Realloc, Encoding: abi.UTF16}
	v := abi.RecordValue(
		abi.StringValue("Ada"),
		abi.U8Value(36),
		abi.ListValue(abi.StringValue("math"), abi.StringValue("engines")),
	)
	ptr, _ := mem.Realloc(0, 0, person.Align(), person.Size())
	if err := cx.Store(person, v, ptr); err != nil {
		fmt.Println(err)
		return
	}
	back, err := cx.Load(person, ptr)
	fmt.Println(abi.Format(person, back), err, abi.Equal(v, back))

	// Guest-controlled numbers are checked: corrupt the name's length.
	mem.Write(ptr+4, []byte{0xff, 0xff, 0xff, 0x7f})
	_, err = cx.Load(person, ptr)
	fmt.Println(err)
	fmt.Println(errors.Is(err, abi.ErrTooLong))
	// Output:
	// record { name: string, age: u8, tags: list<string> } size 20 align 4 flat [i32 i32 i32 i32 i32]
	// {name: "Ada", age: 36, tags: ["math", "engines"]} <nil> true
	// lift record field "name": utf16 string of 4294967294 bytes is above 2^28-1: length exceeds limit
	// true
}

// The host calls a guest export. The core function here plays the guest: it reads its string
// argument from memory, writes an upper-cased copy, and returns a pointer to the (pointer,
// length) pair, since a string result does not fit the single flat result.
func ExampleFuncType_CallExport() {
	shout := abi.Must(abi.FuncOf([]abi.Param{{Name: "s", Type: abi.String}}, abi.String))
	fmt.Println(shout.CoreSignature(abi.CanonLift))

	mem := abi.NewSliceMemory(1<<16, 1<<16)
	cx := &abi.CallContext{Memory: mem, Realloc: mem.Realloc,
		PostReturn: func(flat []uint64) error { fmt.Println("post-return", len(flat)); return nil }}
	guestExport := func(flat []uint64) ([]uint64, error) {
		in, _ := mem.Read(uint32(flat[0]), uint32(flat[1]))
		out := strings.ToUpper(string(in))
		p, _ := mem.Realloc(0, 0, 1, uint32(len(out)))
		mem.Write(p, []byte(out))
		ret, _ := mem.Realloc(0, 0, 4, 8)
		mem.Write(ret, []byte{byte(p), byte(p >> 8), 0, 0, byte(len(out)), 0, 0, 0})
		return []uint64{uint64(ret)}, nil
	}
	res, err := shout.CallExport(cx, []abi.Value{abi.StringValue("hello")}, guestExport)
	fmt.Println(res[0].Str(), err)
	// Output:
	// (func (param i32 i32) (result i32))
	// post-return 1
	// HELLO <nil>
}

// A guest calls a host import. The guest passes its string as (pointer, length) and, because
// the result is spilled, a return pointer; ServeImport lifts, calls the host function and writes
// the result through the return pointer.
func ExampleFuncType_ServeImport() {
	count := abi.Must(abi.FuncOf([]abi.Param{{Name: "text", Type: abi.String}},
		abi.Must(abi.ResultOf(abi.U32, abi.String))))
	fmt.Println(count.CoreSignature(abi.CanonLower))

	mem := abi.NewSliceMemory(1<<16, 1<<16)
	mem.Write(1000, []byte("a few words"))
	cx := &abi.CallContext{Memory: mem, Realloc: mem.Realloc}
	const retptr = 2000
	out, err := count.ServeImport(cx, []uint64{1000, 11, retptr}, func(args []abi.Value) ([]abi.Value, error) {
		n := len(strings.Fields(args[0].Str()))
		return []abi.Value{abi.OkValue(abi.U32Value(uint32(n)))}, nil
	})
	fmt.Println(len(out), err)
	res, _ := cx.Load(count.Results()[0], retptr)
	fmt.Println(abi.Format(count.Results()[0], res))
	// Output:
	// (func (param i32 i32 i32))
	// 0 <nil>
	// ok(3)
}

type Level uint8

func (Level) WITLabels() []string { return []string{"debug", "info", "warn"} }

type LogEntry struct {
	Level   Level
	Message string
	Fields  []string `wit:"attrs"`
	Code    *uint16
}

// A Codec maps a Go type to a WIT type once, then converts through Value.
func ExampleCodecFor() {
	entry := abi.Must(abi.RecordOf(
		abi.Field{Name: "level", Type: abi.Must(abi.EnumOf("debug", "info", "warn"))},
		abi.Field{Name: "message", Type: abi.String},
		abi.Field{Name: "attrs", Type: abi.Must(abi.ListOf(abi.String))},
		abi.Field{Name: "code", Type: abi.Must(abi.OptionOf(abi.U16))},
	))
	codec, err := abi.CodecFor[LogEntry](entry)
	if err != nil {
		fmt.Println(err)
		return
	}
	code := uint16(7)
	v, _ := codec.ToValue(LogEntry{Level: 2, Message: "disk low", Fields: []string{"sda"}, Code: &code})
	fmt.Println(abi.Format(entry, v))

	mem := abi.NewSliceMemory(1<<16, 1<<16)
	cx := &abi.CallContext{Memory: mem, Realloc: mem.Realloc}
	flat, _ := codec.LowerFlat(cx, LogEntry{Level: 1, Message: "ok"})
	back, _ := codec.LiftFlat(cx, flat)
	fmt.Printf("%d %+v\n", len(flat), back)

	_, err = abi.CodecFor[LogEntry](abi.Must(abi.RecordOf(abi.Field{Name: "level", Type: abi.U8})))
	fmt.Println(err)
	// Output:
	// {level: warn, message: "disk low", attrs: ["sda"], code: some(7)}
	// 7 {Level:1 Message:ok Fields:[] Code:<nil>}
	// map abi_test.LogEntry to record: Go abi_test.LogEntry field "message" is not in the record: type mismatch
}

// The canonical ABI's layout of record { a: u8, b: string } and of option<f32>, computed without
// building the types.
func ExampleRecordLayout() {
	rec := abi.RecordLayout(abi.KindU8.Layout(), abi.KindString.Layout())
	fmt.Println(rec.Size(), rec.Align(), rec.Size64(), rec.Flat())
	opt := abi.VariantLayout(2, abi.KindF32.Layout())
	fmt.Println(opt.Size(), opt.Align(), opt.Flat())
	// Output:
	// 12 4 24 [i32 i32 i32]
	// 8 4 [i32 f32]
}
