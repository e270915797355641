package binary

import (
	"errors"
	"math/rand"
	"testing"
)

var committedFixtures = []string{"plugin.wasm", "sections.wasm", "start.wasm", "types.wasm", "fixture.wasm", "hello.wasm"}

// checkDecodeError decodes b and, if it fails, checks that the error is a *DecodeError wrapping
// exactly the sentinels Decode documents, with an offset inside the input.
func checkDecodeError(t *testing.T, b []byte) error {
	t.Helper()
	_, err := Decode(b)
	if err == nil {
		return nil
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *DecodeError", err, err)
	}
	if de.Offset < 0 || de.Offset > len(b) {
		t.Fatalf("error offset %d outside the %d-byte input: %v", de.Offset, len(b), err)
	}
	n := 0
	for _, s := range []error{ErrMalformed, ErrInvalid, ErrUnsupported, ErrLimit, ErrNotComponent} {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %v wraps %d sentinels, want 1", err, n)
	}
	return err
}

// sectionEnds returns the offsets where the top-level sections of a component end: a prefix
// ending there is a shorter component, which may well be valid.
func sectionEnds(t *testing.T, b []byte) map[int]bool {
	ends := map[int]bool{8: true}
	r := newReader(b, 0)
	r.Pos = 8
	for !r.Done() {
		if _, err := r.Byte(); err != nil {
			t.Fatal(err)
		}
		n, err := r.U32()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Bytes(uint64(n)); err != nil {
			t.Fatal(err)
		}
		ends[r.Pos] = true
	}
	return ends
}

// coreModuleBodies returns the byte ranges of embedded core modules (past their first 64 and
// before their last 64 bytes), recursively through nested components.
func coreModuleBodies(t *testing.T, b []byte, start, end int, out [][2]int) [][2]int {
	r := newReader(b[:end], 0)
	r.Pos = start + 8
	for !r.Done() {
		id, _ := r.Byte()
		n, err := r.U32()
		if err != nil {
			t.Fatal(err)
		}
		switch id {
		case secCoreModule:
			if n > 256 {
				out = append(out, [2]int{r.Pos + 64, r.Pos + int(n) - 64})
			}
		case secComponent:
			out = coreModuleBodies(t, b, r.Pos, r.Pos+int(n), out)
		}
		r.Pos += int(n)
	}
	return out
}

// TestDecodeTruncated cuts every fixture at every byte: each prefix that ends inside a section
// must fail with a malformed-input error, and no prefix may panic. Inside the bodies of large
// embedded core modules (most of hello.wasm), which Decode skips by their section sizes, every
// 61st byte is enough and keeps the test fast.
func TestDecodeTruncated(t *testing.T) {
	for _, name := range committedFixtures {
		b := readFixture(t, name)
		t.Run(name, func(t *testing.T) {
			ends := sectionEnds(t, b)
			bodies := coreModuleBodies(t, b, 0, len(b), nil)
			sampled := func(n int) bool {
				for _, r := range bodies {
					if n >= r[0] && n < r[1] {
						return (n-r[0])%61 != 0
					}
				}
				return false
			}
			for n := 0; n < len(b); n++ {
				if sampled(n) {
					continue
				}
				err := checkDecodeError(t, b[:n:n])
				if ends[n] {
					if err != nil && errors.Is(err, ErrMalformed) {
						t.Fatalf("prefix of %d bytes ends at a section boundary but is malformed: %v", n, err)
					}
					continue
				}
				if !errors.Is(err, ErrMalformed) && !(n < 8 && errors.Is(err, ErrNotComponent)) {
					t.Fatalf("prefix of %d bytes: %v, want ErrMalformed", n, err)
				}
			}
		})
	}
}

// TestDecodeMutated flips bytes of every fixture: whatever the result, it must not panic and any
// error must be well-formed.
func TestDecodeMutated(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, name := range committedFixtures {
		b := readFixture(t, name)
		t.Run(name, func(t *testing.T) {
			m := make([]byte, len(b))
			for i := 0; i < 1500; i++ {
				copy(m, b)
				for k := 0; k < 1+rng.Intn(3); k++ {
					m[8+rng.Intn(len(m)-8)] = byte(rng.Intn(256))
				}
				checkDecodeError(t, m)
			}
		})
	}
}

func TestDecodeHeader_Errors(t *testing.T) {
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrNotComponent},
		{"not wasm", []byte("hello, world"), ErrNotComponent},
		{"core module", core, ErrNotComponent},
		{"old version", []byte{0x00, 0x61, 0x73, 0x6d, 0x0a, 0x00, 0x01, 0x00}, ErrMalformed},
		{"bad layer", []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x02, 0x00}, ErrMalformed},
		{"unknown section", append(componentHeader(), 0x0d, 0x00), ErrMalformed},
		{"section past the end", append(componentHeader(), 0x07, 0x05, 0x01), ErrMalformed},
		{"value section", append(componentHeader(), 0x0c, 0x01, 0x00), ErrUnsupported},
		{"overlong LEB", append(componentHeader(), 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00), ErrMalformed},
		{"huge count", append(componentHeader(), 0x07, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f), ErrMalformed},
		{"trailing bytes in section", append(componentHeader(), 0x07, 0x03, 0x01, 0x7f, 0x7f), ErrMalformed},
		{"module with component header", append(componentHeader(), 0x01, 0x08, 0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00), ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDecodeError(t, tt.in)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if IsComponent(core) || !IsComponent(readFixture(t, "plugin.wasm")) {
		t.Error("IsComponent")
	}
}
