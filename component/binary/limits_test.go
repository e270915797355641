package binary

import (
	"errors"
	"testing"

	"github.com/kobako/kobako/abi"
)

// A small encoder for building inputs that are impractical as text fixtures: deep nesting and
// large types.

func componentHeader() []byte { return []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00} }

func leb(v uint32) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

// sleb encodes a non-negative type index as the s33 a valtype uses.
func sleb(v uint32) []byte {
	var out []byte
	x := int64(v)
	for {
		b := byte(x & 0x7f)
		x >>= 7
		if x == 0 && b&0x40 == 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

func section(id byte, payload []byte) []byte {
	return append(append([]byte{id}, leb(uint32(len(payload)))...), payload...)
}

func vec(items ...[]byte) []byte {
	out := leb(uint32(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

// nestedComponents wraps an empty component in depth component sections.
func nestedComponents(depth int) []byte {
	b := componentHeader()
	for i := 0; i < depth; i++ {
		b = append(componentHeader(), section(secComponent, b)...)
	}
	return b
}

// listChain defines (type (list u8)) and then depth-1 types each a list of the previous one.
func listChain(depth int) []byte {
	types := [][]byte{{0x70, byte(U8)}}
	for i := 1; i < depth; i++ {
		types = append(types, append([]byte{0x70}, sleb(uint32(i-1))...))
	}
	return append(componentHeader(), section(secType, vec(types...))...)
}

// tupleDoubling defines n types, each a tuple of two copies of the previous one: a type whose
// tree grows as 2^n from n small definitions.
func tupleDoubling(n int) []byte {
	types := [][]byte{{0x6f, 0x01, byte(U8)}}
	for i := 1; i < n; i++ {
		idx := sleb(uint32(i - 1))
		types = append(types, append(append([]byte{0x6f, 0x02}, idx...), idx...))
	}
	return append(componentHeader(), section(secType, vec(types...))...)
}

// nestedInstanceTypes nests instance types depth levels deep.
func nestedInstanceTypes(depth int) []byte {
	t := []byte{0x42, 0x00}
	for i := 1; i < depth; i++ {
		// (instance (type <t>) (export "x" (instance (type 0))))
		decl := append([]byte{0x01}, t...)
		exp := []byte{0x04, 0x00, 0x01, 'x', 0x05, 0x00}
		t = append([]byte{0x42}, vec(decl, exp)...)
	}
	return append(componentHeader(), section(secType, vec(t))...)
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"nested components at the limit", nestedComponents(MaxNesting), nil},
		{"nested components over the limit", nestedComponents(MaxNesting + 1), ErrLimit},
		{"value type depth at the limit", listChain(abi.MaxTypeDepth - 1), nil},
		{"value type depth over the limit", listChain(abi.MaxTypeDepth), ErrLimit},
		{"exponential type", tupleDoubling(40), ErrLimit},
		{"instance types at the nesting limit", nestedInstanceTypes(MaxNesting - 1), nil},
		{"instance types over the nesting limit", nestedInstanceTypes(MaxNesting + 2), ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestLimits_DeepestTypeConverts checks that the decoder and abi bound nesting alike: the
// deepest value type Decode accepts converts to an abi.Type.
func TestLimits_DeepestTypeConverts(t *testing.T) {
	c, err := Decode(listChain(abi.MaxTypeDepth - 1))
	if err != nil {
		t.Fatal(err)
	}
	deepest, ok := c.Types[len(c.Types)-1].Type.(ValType)
	if !ok {
		t.Fatalf("type %T is not a value type", c.Types[len(c.Types)-1].Type)
	}
	var conv ABITypes
	if _, err := conv.Value(deepest); err != nil {
		t.Fatalf("abi refuses the deepest type the decoder accepts: %v", err)
	}
}

// TestElemSizeLimit checks the spec's bound: a value type must be smaller than 2^28 bytes.
func TestElemSizeLimit(t *testing.T) {
	// tuple of 16 of the previous, starting from u64: 8 * 16^k bytes; k = 6 gives 2^27, k = 7 2^31
	build := func(levels int) []byte {
		types := [][]byte{{0x6f, 0x01, byte(U64)}}
		for i := 1; i <= levels; i++ {
			e := []byte{0x6f, 16}
			for j := 0; j < 16; j++ {
				e = append(e, sleb(uint32(i-1))...)
			}
			types = append(types, e)
		}
		return append(componentHeader(), section(secType, vec(types...))...)
	}
	if _, err := Decode(build(4)); err != nil {
		t.Fatalf("2^19-byte type: %v", err)
	}
	_, err := Decode(build(7))
	if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrLimit) {
		t.Fatalf("2^31-byte type: err = %v, want a size error", err)
	}
}
