package wave_test

import (
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
)

func Example() {
	point := abi.Must(abi.RecordOf(abi.Field{Name: "x", Type: abi.S32}, abi.Field{Name: "label", Type: abi.Must(abi.OptionOf(abi.String))}))
	v, err := wave.ParseValue(point, `{x: -3, label: "origin"}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(wave.FormatValue(point, v))

	_, err = wave.ParseValue(point, `{x: 1.5}`)
	fmt.Println(err)
	// Output:
	// {x: -3, label: some("origin")}
	// wave: 1:5: expected s32 integer, found '1.5' (integers have no fraction or exponent)
}

func ExampleParseCall() {
	call, err := wave.ParseCall(`docs:adder/add@0.1.0#add(1, 2)`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(call.Interface(), call.Name(), len(call.Args))
	// The parameter types come from the component's export.
	args, err := wave.ParseArgs([]abi.Type{abi.U32, abi.U32}, call)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum := abi.U32Value(uint32(args[0].Uint() + args[1].Uint()))
	fmt.Println(wave.FormatResults([]abi.Type{abi.U32}, []abi.Value{sum}))

	_, err = wave.ParseCall(`add(1 x)`)
	fmt.Println(err)
	// Output:
	// docs:adder/add@0.1.0 add 2
	// 3
	// wave: 1:7: expected ',' or ')' in argument list, found 'x'
}
