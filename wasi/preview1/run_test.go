package preview1

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/engine"
)

func TestRunHello(t *testing.T) {
	var out bytes.Buffer
	code, err := Run(context.Background(), testEngine(t), readWasm(t, "hello.wasm"), Config{Stdout: &out}, engine.DefaultLimits())
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	if out.String() != "hello, world\n" {
		t.Errorf("stdout %q", out.String())
	}
}

func TestRun_Errors(t *testing.T) {
	bad := engine.DefaultLimits()
	bad.Deadline = -1 // zero would mean the default
	tests := []struct {
		name   string
		wasm   string
		cfg    Config
		limits engine.Limits
		want   error
	}{
		{"no _start", "raw.wasm", Config{}, engine.DefaultLimits(), ErrNoStart},
		{"unknown import", "unknown_import.wasm", Config{}, engine.DefaultLimits(), ErrImport},
		{"bad config", "hello.wasm", Config{Env: []string{"X"}}, engine.DefaultLimits(), ErrConfig},
		{"invalid limits", "hello.wasm", Config{}, bad, nil},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), testEngine(t), readWasm(t, tt.wasm), tt.cfg, tt.limits)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := Run(context.Background(), testEngine(t), []byte("not wasm"), Config{}, engine.DefaultLimits()); !errors.Is(err, engine.ErrInvalidModule) {
		t.Errorf("garbage module: %v", err)
	}
}

func TestUnderPrefix(t *testing.T) {
	tests := []struct {
		path, prefix, rest string
		ok                 bool
	}{
		{"/volume/tmp/a", "/volume/tmp", "a", true},
		{"/volume/tmp", "/volume/tmp", ".", true},
		{"/volume/tmpx/a", "/volume/tmp", "", false},
		{"/volume", "/volume/tmp", "", false},
		{"/a/b", "/", "a/b", true},
		{"/", "/", ".", true},
		{"a/b", ".", "a/b", true},
		{"../a", ".", "", false},
		{"/a", ".", "", false},
	}
	for _, tt := range tests {
		rest, ok := underPrefix(tt.path, tt.prefix)
		if rest != tt.rest || ok != tt.ok {
			t.Errorf("underPrefix(%q, %q) = %q, %v; want %q, %v", tt.path, tt.prefix, rest, ok, tt.rest, tt.ok)
		}
	}
}

func TestCheckImports(t *testing.T) {
	for _, name := range []string{"raw.wasm", "hello.wasm", "gofs/gofs.wasm", "cfs/cfs.wasm"} {
		if err := CheckImports(compile(t, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := CheckImports(compile(t, "unknown_import.wasm"))
	if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), "path_teleport") {
		t.Errorf("unknown import: %v", err)
	}
	err = CheckImports(compile(t, "bad_signature.wasm"))
	if !errors.Is(err, ErrImport) || !strings.Contains(err.Error(), `"fd_write" has type (i32, i32) -> (i32), WASI preview 1 defines (i32, i32, i32, i32) -> (i32)`) {
		t.Errorf("bad signature: %v", err)
	}
}
