package wasm

import (
	"testing"
)

// TestDirectExports: with DirectPrefix, each function exported through an entry-charging wrapper
// is also exported unwrapped, and EntryCharges says what the wrapper charges; exports without a
// wrapper, names whose direct name the module already exports, and instrumenting without a prefix
// get none.
func TestDirectExports(t *testing.T) {
	tests := []struct {
		name       string
		prefix     string
		wantDirect map[string]int64 // export -> entry charge
	}{
		// add: 3 instructions; p/sub is add again; sub would collide with the existing "p/sub".
		{"prefix", "p/", map[string]int64{"add": 3, "p/sub": 3}},
		{"other prefix", "kobako:direct/", map[string]int64{"add": 3, "p/sub": 3, "sub": 3}},
		{"no prefix", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustDecode(t, readTestdata(t, "direct.wasm"))
			opt := hookOpts
			opt.DirectPrefix = tc.prefix
			out, err := Instrument(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := mustDecode(t, out)
			names := map[string]Export{}
			for _, e := range got.Exports {
				names[e.Name] = e
			}
			if len(got.Exports) != 4+len(tc.wantDirect) {
				t.Errorf("%d exports, want %d: %v", len(got.Exports), 4+len(tc.wantDirect), got.Exports)
			}
			for n, charge := range tc.wantDirect {
				d, ok := names[tc.prefix+n]
				if !ok {
					t.Fatalf("no direct export for %q in %v", n, got.Exports)
				}
				if d.Index == names[n].Index {
					t.Errorf("%q: the direct export names the wrapper", n)
				}
				if c := m.EntryCharges[n]; c != charge {
					t.Errorf("EntryCharges[%q] = %d, want %d", n, c, charge)
				}
			}
			if len(m.EntryCharges) != len(tc.wantDirect) {
				t.Errorf("EntryCharges = %v, want the charges of %v", m.EntryCharges, tc.wantDirect)
			}
		})
	}
}
