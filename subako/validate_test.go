package subako

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, fx := range []string{"validate/ok_features", "tiny", "everything"} {
		b, err := os.ReadFile(filepath.Join("testdata", fx+".wasm"))
		must(t, err)
		if err := Validate(b); err != nil {
			t.Errorf("%s: %v", fx, err)
		}
	}
}

func TestValidate_Errors(t *testing.T) {
	tests := []struct {
		fixture string
		want    []string // each must appear in the error
	}{
		{"no_start", []string{"missing export _start"}},
		{"start_params", []string{"export _start is a function (i32) -> ()"}},
		{"no_memory", []string{"missing export memory"}},
		{"memory_func", []string{"export memory is a func, not a memory"}},
		{"foreign_import", []string{`import env.helper: module "env" is not provided`}},
		{"unknown_func", []string{"import wasi_snapshot_preview1.sock_open: no such function"}},
		{"bad_signature", []string{"import subako_http.request: signature (i64 i32) -> (i32) does not match the host's (i32 i32) -> (i32)"}},
		{"memory_import", []string{"import wasi_snapshot_preview1.memory is a memory; the host provides only functions", "missing export memory"}},
		{"threads", []string{"threads", "shared"}},
		{"exceptions", []string{"feature exceptions is not allowed", "used at"}},
		{"tail_call", []string{"feature tail calls is not allowed", "used at"}},
		{"memory64", []string{"memory64"}},
		{"multi_memory", []string{"multi-memory"}},
		{"relaxed_simd", []string{"feature relaxed SIMD is not allowed", "used at"}},
		{"extended_const", []string{"feature extended constant expressions is not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "validate", tt.fixture+".wasm"))
			must(t, err)
			err = Validate(b)
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidModule) {
				t.Fatalf("Validate = %v, want a *ValidationError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	t.Run("component", func(t *testing.T) {
		err := Validate([]byte("\x00asm\x0d\x00\x01\x00"))
		if err == nil || !strings.Contains(err.Error(), "component, not a core module") {
			t.Errorf("Validate(component) = %v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		if err := Validate([]byte("not wasm")); !errors.Is(err, ErrInvalidModule) {
			t.Errorf("Validate(garbage) = %v", err)
		}
	})
}
