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

// Sections the rewriter creates go before the trailing custom sections, so a name section stays
// last (found by FuzzDecode: wazero reads a malformed name subsection past its section's end).
func TestCreatedSectionsBeforeTrailingCustoms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  InstrumentOptions
		want []byte // section ids of the output
	}{
		{"only a name section", "\x00asm\x01\x00\x00\x00\x00\x07\x04name\x00\x00", testOpts, []byte{secImport, secCustom}},
		{"with the hook's type", "\x00asm\x01\x00\x00\x00\x00\x07\x04name\x00\x00", hookOpts, []byte{secType, secImport, secCustom}},
		{"only customs", "\x00asm\x01\x00\x00\x00\x00\x03\x01a\x00\x00\x07\x04name\x00\x00", testOpts, []byte{secImport, secCustom, secCustom}},
		{"custom, type, custom", "\x00asm\x01\x00\x00\x00\x00\x03\x01a\x00\x01\x01\x00\x00\x07\x04name\x00\x00", testOpts, []byte{secCustom, secType, secImport, secCustom}},
		{"empty module", "\x00asm\x01\x00\x00\x00", testOpts, []byte{secImport}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Instrument(mustDecode(t, []byte(tc.in)), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for _, s := range mustDecode(t, out).sections {
				got = append(got, s.id)
			}
			if string(got) != string(tc.want) {
				t.Fatalf("sections %v, want %v", got, tc.want)
			}
		})
	}
}
