package wasmcheck

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestExports(t *testing.T) {
	b, err := os.ReadFile("testdata/tool.wasm")
	if err != nil {
		t.Fatal(err)
	}
	exps, err := Exports(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Export{{"zeroclaw:plugin/plugin-info@0.1.0", "instance"}, {"zeroclaw:plugin/tool@0.1.0", "instance"}}
	if len(exps) != len(want) || exps[0] != want[0] || exps[1] != want[1] {
		t.Errorf("got %v, want %v", exps, want)
	}
	if err := Require(b, []string{"zeroclaw:plugin/tool@0.1.0", "zeroclaw:plugin/plugin-info@0.1.0"}); err != nil {
		t.Error(err)
	}
}

func TestExports_Errors(t *testing.T) {
	tool, _ := os.ReadFile("testdata/tool.wasm")
	hdr := string(Header)
	tests := []struct {
		name string
		b    string
		want error
		say  string
	}{
		{"empty", "", ErrNotComponent, "no WebAssembly header"},
		{"text", "hello world, not wasm", ErrNotComponent, "no WebAssembly header"},
		{"core module", "\x00asm\x01\x00\x00\x00", ErrNotComponent, "core module"},
		{"other layer", "\x00asm\x0e\x00\x01\x00", ErrNotComponent, "unknown WebAssembly version"},
		{"section past end", hdr + "\x0b\x10\x00", ErrMalformed, "claims 16 bytes"},
		{"bad leb", hdr + "\x0b\xff\xff\xff\xff\xff", ErrMalformed, "too long (u32) at offset 9"},
		{"huge count", hdr + "\x0b\x05\xff\xff\xff\xff\x0f", ErrMalformed, "declares"},
		{"long name", hdr + "\x0b\x06\x01\x00\xff\xff\x03\x00", ErrMalformed, "bytes long"},
		{"bad sort", hdr + "\x0b\x07\x01\x00\x01a\x09\x00\x00", ErrMalformed, "unknown sort 0x09"},
		{"bad name kind", hdr + "\x0b\x07\x01\x07\x01a\x05\x00\x00", ErrMalformed, "name kind"},
		{"trailing bytes", hdr + "\x0b\x08\x01\x00\x01a\x05\x00\x00\x00", ErrMalformed, "after its exports"},
		{"truncated", string(tool[:len(tool)-60]), ErrMalformed, ""},
	}
	for _, tt := range tests {
		_, err := Exports([]byte(tt.b))
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("%s: %v; want %v saying %q", tt.name, err, tt.want, tt.say)
		}
	}
	err := Require(tool, []string{"zeroclaw:plugin/channel@0.1.0"})
	if !errors.Is(err, ErrMissingExport) || !strings.Contains(err.Error(), "does not export zeroclaw:plugin/channel@0.1.0 (it exports zeroclaw:plugin/plugin-info@0.1.0, zeroclaw:plugin/tool@0.1.0)") {
		t.Errorf("Require channel: %v", err)
	}
}
