package engine_test

import (
	"errors"
	"testing"

	"github.com/kobako/kobako/engine"
)

func TestInspect(t *testing.T) {
	info, err := engine.Inspect(fixture(t, "hostcall"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Imports) != 3 || info.Imports[2].Module != "host" || info.Imports[2].Name != "exit" ||
		len(info.Imports[2].Params) != 1 || info.Imports[2].Params[0] != engine.I32 {
		t.Errorf("imports %+v", info.Imports)
	}
	if len(info.Exports) != 3 || info.Exports[2].Name != "exit" || info.Exports[2].Kind != engine.ExternFunc {
		t.Errorf("exports %+v", info.Exports)
	}
	info, err = engine.Inspect(fixture(t, "shared_memory"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Features) == 0 || info.Features[0].Feature != "threads" || info.Features[0].Where == "" {
		t.Errorf("features %+v", info.Features)
	}
	if len(info.Memories) != 1 || !info.Memories[0].Shared {
		t.Errorf("memories %+v", info.Memories)
	}
}

func TestInspect_Errors(t *testing.T) {
	_, err := engine.Inspect([]byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00})
	if !errors.Is(err, engine.ErrNotCoreModule) {
		t.Errorf("component: %v", err)
	}
	if _, err := engine.Inspect([]byte("not wasm")); !errors.Is(err, engine.ErrInvalidModule) {
		t.Errorf("garbage: %v", err)
	}
}
