package wasm_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kobako/kobako/internal/wasm"
)

// Decode, check and meter a module, as the engine does before handing it to wazero.
func ExampleInstrument() {
	b, err := os.ReadFile("testdata/fib.wasm")
	if err != nil {
		panic(err)
	}
	m, err := wasm.Decode(b, wasm.DefaultLimits())
	if err != nil {
		panic(err)
	}
	if err := m.CheckEngineFeatures(); err != nil {
		panic(err)
	}
	out, err := wasm.Instrument(m, wasm.InstrumentOptions{
		FuelModule:       "kobako:fuel",
		FuelGlobal:       "remaining",
		MaxTableElements: 10_000,
	})
	if err != nil {
		panic(err)
	}
	metered, err := wasm.Decode(out, wasm.Limits{})
	if err != nil {
		panic(err)
	}
	fuel := metered.Imports[len(metered.Imports)-1]
	fmt.Println(fuel.Module, fuel.Name, fuel.Kind, fuel.Global.ValType, fuel.Global.Mutable)
	// Output: kobako:fuel remaining global i64 true
}

// With a fuel hook, the host hands out the budget in slices and gets control back whenever a slice
// runs out, even in a call-free infinite loop: there it can also check a deadline or yield.
func ExampleInstrument_fuelHook() {
	b, err := os.ReadFile("testdata/exhaust.wasm") // (func (export "spin") (loop (br 0)))
	if err != nil {
		panic(err)
	}
	m, err := wasm.Decode(b, wasm.DefaultLimits())
	if err != nil {
		panic(err)
	}
	out, err := wasm.Instrument(m, wasm.InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted"})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	const budget, slice = 10_000, 1_000
	errExhausted := errors.New("fuel exhausted")
	var fuel api.MutableGlobal
	handed, calls := int64(0), 0
	hook := func(context.Context) {
		calls++
		counter := int64(fuel.Get()) // negative: the fuel used is handed - counter
		if handed-counter > budget {
			panic(errExhausted)
		}
		give := min(budget-handed, slice-counter)
		handed += give
		fuel.Set(uint64(counter + give))
	}
	if _, err := r.NewHostModuleBuilder("kobako:fuel-host").NewFunctionBuilder().WithFunc(hook).Export("exhausted").Instantiate(ctx); err != nil {
		panic(err)
	}
	// wazero resolves each import module name to one instance, so this module exports the hook
	// next to the counter: (import "kobako:fuel-host" "exhausted" (func $h)),
	// (global (export "remaining") (mut i64) (i64.const 0)), (export "exhausted" (func $h)).
	fuelModule := []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
		0x02, 0x1e, 0x01, 0x10, 'k', 'o', 'b', 'a', 'k', 'o', ':', 'f', 'u', 'e', 'l', '-', 'h', 'o', 's', 't',
		0x09, 'e', 'x', 'h', 'a', 'u', 's', 't', 'e', 'd', 0x00, 0x00,
		0x06, 0x06, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b,
		0x07, 0x19, 0x02, 0x09, 'r', 'e', 'm', 'a', 'i', 'n', 'i', 'n', 'g', 0x03, 0x00,
		0x09, 'e', 'x', 'h', 'a', 'u', 's', 't', 'e', 'd', 0x00, 0x00,
	}
	fm, err := r.InstantiateWithConfig(ctx, fuelModule, wazero.NewModuleConfig().WithName("kobako:fuel"))
	if err != nil {
		panic(err)
	}
	fuel = fm.ExportedGlobal("remaining").(api.MutableGlobal)
	guest, err := r.Instantiate(ctx, out)
	if err != nil {
		panic(err)
	}

	handed = slice
	fuel.Set(slice)
	_, err = guest.ExportedFunction("spin").Call(ctx)
	fmt.Println(errors.Is(err, errExhausted), handed-int64(fuel.Get()), calls)
	// Output: true 10001 10
}

// An upload validator can name the features a module needs and where it uses them.
func ExampleModule_Features() {
	b, err := os.ReadFile("testdata/features/threads.wasm")
	if err != nil {
		panic(err)
	}
	m, err := wasm.Decode(b, wasm.Limits{})
	if err != nil {
		panic(err)
	}
	for _, u := range m.Features() {
		fmt.Println(u)
	}
	err = m.CheckEngineFeatures()
	fmt.Println(errors.Is(err, wasm.ErrUnsupportedFeature))
	// Output:
	// threads: byte offset 0x1b: shared memory
	// threads: function 0 (name "load") at byte offset 0x37: opcode 0xfe 0x10 (i32.atomic.load)
	// threads: function 1 at byte offset 0x3e: opcode 0xfe 0x03 (atomic.fence)
	// true
}

// Decode refuses a hostile module before anything of the declared size is allocated.
func ExampleDecode() {
	// One function declaring 10,000,000 locals in 36 bytes.
	b := []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
		0x03, 0x02, 0x01, 0x00,
		0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00,
		0x0a, 0x09, 0x01, 0x07, 0x01, 0x80, 0xad, 0xe2, 0x04, 0x7f, 0x0b,
	}
	_, err := wasm.Decode(b, wasm.DefaultLimits())
	fmt.Println(errors.Is(err, wasm.ErrLimit))
	fmt.Println(err)
	// Output:
	// true
	// wasm: decode: section code: function 0: at byte offset 0x1e: module exceeds a limit: 10000000 locals (parameters included), over the limit of 50000
}
