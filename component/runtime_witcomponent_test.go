package component_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

// fixture.wasm is wit-component output: lowered imports go through a shim module's table that a
// fixup module fills after the main module is instantiated, and resource destructors are
// called indirectly the same way.
func newFixtureLinker(t *testing.T) (*component.Linker, *[]string) {
	t.Helper()
	var calls []string
	const iface = "kobako:fixture/host@0.1.0"
	l := component.NewLinker()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := l.DefineResource(iface, "logger", func(_ context.Context, _ *component.Caller, rep uint32) error {
		calls = append(calls, fmt.Sprintf("drop logger %d", rep))
		return nil
	})
	must(err)
	next := uint32(500)
	must(l.DefineFunc(iface, "log", func(_ context.Context, msg string) { calls = append(calls, "log "+msg) }))
	must(l.DefineFunc(iface, "fetch", func(_ context.Context, url string) (abi.Result[[]byte, string], error) {
		calls = append(calls, "fetch "+url)
		return abi.Ok[[]byte, string]([]byte("body")), nil
	}))
	type point struct{ X, Y int32 }
	must(l.DefineFunc(iface, "get-point", func(context.Context) point {
		calls = append(calls, "get-point")
		return point{3, 4}
	}))
	must(l.DefineFunc(iface, "[constructor]logger", func(_ context.Context, name string) uint32 {
		next++
		calls = append(calls, fmt.Sprintf("new logger %d", next))
		return next
	}))
	must(l.DefineFunc(iface, "[method]logger.log", func(_ context.Context, self uint32, msg string) {
		calls = append(calls, fmt.Sprintf("logger %d log", self))
	}))
	must(l.DefineFunc(iface, "take", func(_ context.Context, lg uint32) uint32 {
		calls = append(calls, fmt.Sprintf("take %d", lg))
		return 99
	}))
	must(l.DefineFunc("", "now", func(context.Context) uint64 { return 1234 }))
	return l, &calls
}

func TestRuntimeWitComponentFixture(t *testing.T) {
	ctx := context.Background()
	l, calls := newFixtureLinker(t)
	in := instantiate(t, l, "testdata/fixture.wasm")
	res, err := in.Call(ctx, "kobako:fixture/api@0.1.0#pair")
	if err != nil {
		t.Fatal(err)
	}
	if want := abi.TupleValue(abi.StringValue(""), abi.U64Value(1234)); !abi.Equal(res[0], want) {
		t.Fatalf("pair = %v, want %v", res[0], want)
	}
	res, err = in.Call(ctx, "kobako:fixture/api#echo-list", abi.ListValue(abi.StringValue("a"), abi.StringValue("bc")))
	if err != nil {
		t.Fatal(err)
	}
	if want := abi.ListValue(abi.StringValue("a"), abi.StringValue("bc")); !abi.Equal(res[0], want) {
		t.Fatalf("echo-list = %v", res[0])
	}
	c, err := in.Call(ctx, "kobako:fixture/api#[constructor]counter", abi.U32Value(5))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := in.Call(ctx, "kobako:fixture/api#[method]counter.get", abi.BorrowValue(c[0].Rep())); err != nil || got[0].Uint() != 5 {
		t.Fatalf("counter.get = %v, %v", got, err)
	}
	// run calls every import; the handle it drops as a counter is its logger, and the
	// resource table refuses it by type.
	_, err = in.Call(ctx, "run")
	if !errors.Is(err, abi.ErrHandle) || !strings.Contains(err.Error(), "not a counter") {
		t.Fatalf("run: %v", err)
	}
	want := []string{"log ", "fetch ", "get-point", "new logger 501", "logger 501 log"}
	if !slices.Equal(*calls, want) {
		t.Fatalf("host calls = %q, want %q", *calls, want)
	}
}

func TestRuntimeWitComponentBorrowLeak_Errors(t *testing.T) {
	ctx := context.Background()
	l, calls := newFixtureLinker(t)
	in := instantiate(t, l, "testdata/fixture.wasm")
	// use-logger never drops the borrow handle it was given.
	_, err := in.Call(ctx, "use-logger", abi.BorrowValue(7))
	if !errors.Is(err, abi.ErrBorrowOutstanding) {
		t.Fatalf("use-logger: %v", err)
	}
	if !slices.Equal(*calls, []string{"logger 7 log"}) {
		t.Fatalf("host calls = %q", *calls)
	}
}
