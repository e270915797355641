package engine

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kobako/kobako/internal/wasm"
)

// The engine's DecodeLimits reach the decoder: a zero field keeps its default, a set one applies.
func TestDecodeLimits(t *testing.T) {
	if got, want := DefaultDecodeLimits(), DecodeLimits(wasm.DefaultLimits()); got != want {
		t.Fatalf("DefaultDecodeLimits() = %+v, want the decoder's %+v", got, want)
	}
	b, err := os.ReadFile("testdata/callfib.wasm")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		lim  DecodeLimits
		want string // "" means the module compiles
	}{
		{"zero value means the defaults", DecodeLimits{}, ""},
		{"module size", DecodeLimits{ModuleSize: uint64(len(b)) - 1}, "over the limit"},
		{"functions", DecodeLimits{Functions: 1}, "functions"},
		{"a generous limit", DecodeLimits{ModuleSize: uint64(len(b))}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(ctx, Config{DecodeLimits: tt.lim})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(ctx)
			_, err = e.Compile(ctx, b)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidModule) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile = %v, want an ErrInvalidModule mentioning %q", err, tt.want)
			}
		})
	}
}
