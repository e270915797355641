package wasm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// tinyStateModule is (module (memory 1) (global (mut i32) (i32.const 0)) (global f64 ...)) with an
// empty name section last: no export, data or start section for the edits to create or drop.
var tinyStateModule = []byte{
	0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
	0x05, 0x03, 0x01, 0x00, 0x01,
	0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b,
	0x00, 0x05, 0x04, 'n', 'a', 'm', 'e',
}

func TestRestoreStateCreatesSections(t *testing.T) {
	m := mustDecode(t, tinyStateModule)
	capBytes, err := AddStateExports(m, "p/")
	if err != nil {
		t.Fatal(err)
	}
	c := mustDecode(t, capBytes)
	if len(c.Exports) != 2 || c.Exports[0].Name != "p/global/0" || c.Exports[1].Name != "p/memory/0" {
		t.Fatalf("exports %+v", c.Exports)
	}
	if n := c.CustomSectionNames(); len(n) != 1 || c.sections[len(c.sections)-1].id != secCustom {
		t.Fatalf("the name section is not last: %v", n)
	}

	img := make([]byte, 2*SnapshotPageSize)
	img[10], img[11], img[SnapshotPageSize+3] = 1, 2, 3
	out, err := RestoreState(m, State{Globals: map[uint32]uint64{0: 0xffffffff}, Memories: [][]byte{img}}, false)
	if err != nil {
		t.Fatal(err)
	}
	r := mustDecode(t, out)
	if r.Memories[0].Min != 2 {
		t.Fatalf("memory minimum %d, want 2", r.Memories[0].Min)
	}
	if want := []byte{opI32Const, 0x7f, opEnd}; !bytes.Equal(r.Globals[0].Init, want) {
		t.Fatalf("global init % x, want % x", r.Globals[0].Init, want)
	}
	if len(r.Data) != 2 || !bytes.Equal(r.Data[0].Data, []byte{1, 2}) || !bytes.Equal(r.Data[1].Data, []byte{3}) {
		t.Fatalf("data segments %+v", r.Data)
	}
	if r.sections[len(r.sections)-1].id != secCustom {
		t.Fatal("the name section is not last")
	}
}

func TestRestoreState_Errors(t *testing.T) {
	m := mustDecode(t, tinyStateModule)
	page := make([]byte, SnapshotPageSize)
	for _, st := range []State{
		{Globals: map[uint32]uint64{0: 1}},                                      // no memory image
		{Memories: [][]byte{page}},                                              // no global value
		{Globals: map[uint32]uint64{0: 1}, Memories: [][]byte{page[:100]}},      // not whole pages
		{Globals: map[uint32]uint64{0: 1}, Memories: [][]byte{page, page}},      // one image too many
		{Globals: map[uint32]uint64{0: 1}, Memories: [][]byte{make([]byte, 0)}}, // below the minimum
	} {
		if _, err := RestoreState(m, st, false); !errors.Is(err, ErrSnapshot) {
			t.Errorf("%d images: %v, want ErrSnapshot", len(st.Memories), err)
		}
	}
}

// NonZeroRuns covers every non-zero byte, with runs in order, apart, and starting and ending on
// non-zero bytes: writing the runs into zeroed memory gives the image back.
func TestNonZeroRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		img := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 0, 0, 0, 1, 255}), 0, 300).Draw(t, "img")
		got := make([]byte, len(img))
		last := -1
		for _, r := range NonZeroRuns(img) {
			if r[0] <= last || r[0] >= r[1] || img[r[0]] == 0 || img[r[1]-1] == 0 {
				t.Fatalf("bad run %v after %d", r, last)
			}
			copy(got[r[0]:r[1]], img[r[0]:r[1]])
			last = r[1]
		}
		if !bytes.Equal(got, img) {
			t.Fatal("runs do not rebuild the image")
		}
	})
}

// RestoreState keeps the original data segments only when code can read them (memory.init),
// as passive ones ahead of the image's, and writes no image segment with ImagesOutside; the
// data count always matches the segments left.
func TestRestoreStateDataSegments(t *testing.T) {
	img := make([]byte, SnapshotPageSize)
	copy(img[8:], "abc")
	img[40000] = 9
	for _, tc := range []struct {
		fixture string
		outside bool
		want    []string // each segment: "passive:<bytes>" or "active:<bytes>"
	}{
		{"snapdata", false, []string{"active:abc", "active:\x09"}},
		{"snapdata", true, nil},
		{"snapdatainit", false, []string{"passive:abc", "passive:passive", "active:abc", "active:\x09"}},
		{"snapdatainit", true, []string{"passive:abc", "passive:passive"}},
	} {
		t.Run(fmt.Sprintf("%s/outside=%v", tc.fixture, tc.outside), func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tc.fixture + ".wasm")
			if err != nil {
				t.Fatal(err)
			}
			m := mustDecode(t, b)
			out, err := RestoreState(m, State{Globals: map[uint32]uint64{}, Memories: [][]byte{img}, ImagesOutside: tc.outside}, false)
			if err != nil {
				t.Fatal(err)
			}
			r := mustDecode(t, out)
			var got []string
			for _, s := range r.Data {
				mode := "active"
				if s.Mode != ModeActive {
					mode = "passive"
				}
				got = append(got, mode+":"+string(s.Data))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("segments %q, want %q", got, tc.want)
			}
			if m.DataCount != nil && (r.DataCount == nil || int(*r.DataCount) != len(r.Data)) {
				t.Fatalf("data count %v for %d segments", r.DataCount, len(r.Data))
			}
			if r.Memories[0].Min != 1 || r.StartFunc != nil {
				t.Fatalf("memory %+v, start %v", r.Memories[0], r.StartFunc)
			}
		})
	}
}

// With StatePrefix, Instrument exports the state AddStateExports would, at the globals' shifted
// indices, and none when the module already uses the prefix.
func TestInstrumentStatePrefix(t *testing.T) {
	opt := InstrumentOptions{FuelModule: "fuel", FuelGlobal: "g", StatePrefix: "p/"}
	out, err := Instrument(mustDecode(t, tinyStateModule), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := mustDecode(t, out)
	got := map[string]Export{}
	for _, ex := range r.Exports {
		got[ex.Name] = ex
	}
	// The fuel counter is imported global 0, so the module's global 0 is now global 1.
	if g, ok := got["p/global/0"]; !ok || g.Kind != ExternGlobal || g.Index != 1 {
		t.Fatalf("exports %+v: no p/global/0 naming global 1", r.Exports)
	}
	if m, ok := got["p/memory/0"]; !ok || m.Kind != ExternMemory || m.Index != 0 {
		t.Fatalf("exports %+v: no p/memory/0", r.Exports)
	}

	opt.StatePrefix = "p"
	capBytes, err := AddStateExports(mustDecode(t, tinyStateModule), "p/")
	if err != nil {
		t.Fatal(err)
	}
	out, err = Instrument(mustDecode(t, capBytes), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := mustDecode(t, out); len(r.Exports) != 2 {
		t.Fatalf("a module exporting names with the prefix got state exports: %+v", r.Exports)
	}
}
