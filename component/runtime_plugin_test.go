package component_test

import (
	"context"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

func TestRuntimePlugins(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file, name string
		upper      bool // the C plugin upper-cases its input
	}{
		{"testdata/plugin.wasm", "wat-plugin", false},
		{"testdata/runtime/plugin.wasm", "c-plugin", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := instantiate(t, component.NewLinker(), tc.file)
			var name func(context.Context) (string, error)
			if err := in.Bind("test:plugin/tool#name", &name); err != nil {
				t.Fatal(err)
			}
			if got, err := name(ctx); err != nil || got != tc.name {
				t.Fatalf("name = %q, %v", got, err)
			}
			var execute func(context.Context, string) (abi.Result[string, string], error)
			if err := in.Bind("test:plugin/tool#execute", &execute); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 100; i++ {
				got, err := execute(ctx, `{"q":"héllo"}`)
				if err != nil {
					t.Fatal(err)
				}
				want := `{"q":"héllo"}`
				if tc.upper {
					want = `{"Q":"HéLLO"}`
				}
				if got.IsErr || got.Ok != want {
					t.Fatalf("execute = %+v, want ok(%q)", got, want)
				}
			}
			if tc.upper {
				got, err := execute(ctx, "fail: no")
				if err != nil || !got.IsErr || got.Err != "fail: no" {
					t.Fatalf("execute(fail) = %+v, %v", got, err)
				}
			}
		})
	}
}
