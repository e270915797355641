package wasm

import (
	"errors"
	"strings"
	"testing"
)

func TestFeaturesDetected(t *testing.T) {
	cases := []struct {
		file    string
		feature string
		where   string // substring of the first use's Where
	}{
		{"features/threads.wasm", FeatureThreads, "shared memory"},
		{"features/threads.wasm", FeatureThreads, `function 0 (name "load") at byte offset 0x37: opcode 0xfe 0x10 (i32.atomic.load)`},
		{"features/threads.wasm", FeatureThreads, `function 1 at byte offset 0x3e: opcode 0xfe 0x03 (atomic.fence)`},
		{"features/tailcall.wasm", FeatureTailCall, `function 0 (name "f") at byte offset 0x22: opcode 0x12 (return_call)`},
		{"features/exceptions.wasm", FeatureExceptionHandling, "tag section declares tag 0"},
		{"features/exceptions.wasm", FeatureExceptionHandling, "byte offset 0x28: opcode 0x06 (try)"},
		{"features/memory64.wasm", FeatureMemory64, "64-bit memory"},
		{"features/multimemory.wasm", FeatureMultiMemory, "2 memories"},
		{"features/multimemory.wasm", FeatureMultiMemory, "immediate of opcode 0x28 (i32.load)"},
		{"features/extconst.wasm", FeatureExtendedConst, "i32.add in a constant expression"},
		{"features/relaxedsimd.wasm", FeatureRelaxedSIMD, "opcode 0xfd 0x100 (i8x16.relaxed_swizzle)"},
		{"control.wasm", FeatureMultiValue, "type 0 has 2 results"},
		{"globals.wasm", FeatureMutableGlobal, `import "env" "counter" is a mutable global`},
		{"allops.wasm", FeatureSIMD, "uses value type v128"},
		{"allops.wasm", FeatureSignExtension, "(i32.extend8_s)"},
		{"allops.wasm", FeatureNonTrappingF2I, "(i32.trunc_sat_f32_s)"},
		{"allops.wasm", FeatureBulkMemory, "(memory.init)"},
		{"allops.wasm", FeatureReferenceTypes, "uses value type funcref"},
	}
	for _, c := range cases {
		m := mustDecode(t, readTestdata(t, c.file))
		found := false
		for _, u := range m.Features() {
			if u.Feature == c.feature && strings.Contains(u.Where, c.where) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s use at %q in %v", c.file, c.feature, c.where, m.Features())
		}
		err := m.CheckEngineFeatures()
		if engineFeatures[c.feature] {
			if err != nil && !strings.HasPrefix(c.file, "features/") {
				t.Errorf("%s: %v", c.file, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsupportedFeature) || !strings.Contains(err.Error(), c.feature+" (") {
			t.Errorf("%s: CheckEngineFeatures = %v", c.file, err)
		}
		if _, ierr := Instrument(m, testOpts); !errors.Is(ierr, ErrUnsupportedFeature) {
			t.Errorf("%s: Instrument = %v", c.file, ierr)
		}
	}
}

// TestFeaturesHandAssembled covers encodings wabt 1.0.32 cannot produce.
func TestFeaturesHandAssembled(t *testing.T) {
	cases := []struct {
		name    string
		b       []byte
		feature string
		where   string
	}{
		{"gc opcode", funcModule(0x00, 0xfb, 0x1c, 0x1a, 0x0b), FeatureGC, "opcode 0xfb 0x1c (ref.i31)"},
		{"gc struct.new", funcModule(0x00, 0xfb, 0x00, 0x00, 0x1a, 0x0b), FeatureGC, "(struct.new)"},
		{"call_ref", funcModule(0x00, 0x14, 0x00, 0x0b), FeatureFunctionRefs, "opcode 0x14 (call_ref)"},
		{"ref.as_non_null", funcModule(0x00, 0xd4, 0x0b), FeatureFunctionRefs, "(ref.as_non_null)"},
		{"br_on_null", funcModule(0x00, 0xd5, 0x00, 0x0b), FeatureFunctionRefs, "(br_on_null)"},
		{"return_call_indirect", funcModule(0x00, 0x13, 0x00, 0x00, 0x0b), FeatureTailCall, "(return_call_indirect)"},
		{"try_table", funcModule(0x00, 0x1f, 0x40, 0x01, 0x02, 0x00, 0x0b, 0x0b), FeatureExceptionHandling, "(try_table)"},
		{"throw_ref", funcModule(0x00, 0x0a, 0x0b), FeatureExceptionHandling, "(throw_ref)"},
		{"typed ref local", funcModule(0x01, 0x01, 0x64, 0x70, 0x0b), FeatureFunctionRefs, "local of type"},
		{"exnref param", module(sec(secType, 0x01, 0x60, 0x01, 0x69, 0x00)), FeatureExceptionHandling, "type 0 uses value type"},
		{"anyref block", funcModule(0x00, 0x02, 0x6e, 0x00, 0x0b, 0x0b), FeatureGC, "immediate of opcode 0x02 (block)"},
		{"memory64 offset", module(sec(secType, 0x01, 0x60, 0x00, 0x00), sec(secFunction, 0x01, 0x00), sec(secMemory, 0x01, 0x00, 0x01),
			sec(secCode, 0x01, 0x0d, 0x00, 0x41, 0x00, 0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x1a, 0x0b)), FeatureMemory64, "(i32.load)"},
		{"memory.size of memory 1", funcModule(0x00, 0x3f, 0x01, 0x1a, 0x0b), FeatureMultiMemory, "(memory.size)"},
		{"table64", module(sec(secTable, 0x01, 0x70, 0x04, 0x01)), FeatureMemory64, "64-bit table"},
		{"shared memory import", module(sec(secImport, 0x01, 0x01, 'e', 0x01, 'm', 0x02, 0x03, 0x01, 0x01)), FeatureThreads, "shared memory"},
		{"tag import", module(sec(secType, 0x01, 0x60, 0x00, 0x00), sec(secImport, 0x01, 0x01, 'e', 0x01, 't', 0x04, 0x00, 0x00)), FeatureExceptionHandling, `import "e" "t" is a tag`},
		{"relaxed simd", funcModule(0x00, 0xfd, 0x93, 0x02, 0x0b), FeatureRelaxedSIMD, "(i32x4.relaxed_dot_i8x16_i7x16_add_s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Decode(c.b, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, u := range m.Features() {
				if u.Feature == c.feature && strings.Contains(u.Where, c.where) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no %s at %q in %v", c.feature, c.where, m.Features())
			}
			if err := m.CheckEngineFeatures(); !errors.Is(err, ErrUnsupportedFeature) || !strings.Contains(err.Error(), c.feature) {
				t.Fatalf("CheckEngineFeatures = %v", err)
			}
		})
	}
}

// TestFeaturesCapped checks that a feature used a million times is recorded a few times only.
func TestFeaturesCapped(t *testing.T) {
	body := []byte{0x00}
	for i := 0; i < 10000; i++ {
		body = append(body, 0x41, 0x00, 0xc0, 0x1a) // i32.const 0; i32.extend8_s; drop
	}
	body = append(body, 0x0b)
	m := mustDecode(t, funcModule(body...))
	if n, ok := m.UsesFeature(FeatureSignExtension); !ok || n != 10000 {
		t.Fatalf("count %d", n)
	}
	if got := len(m.Features()); got != maxUsesPerFeature {
		t.Fatalf("%d uses recorded", got)
	}
	if err := m.CheckEngineFeatures(); err != nil {
		t.Fatal(err)
	}
}
