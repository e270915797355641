package preview2

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kobako/kobako/component"
)

const (
	ifaceRandom       = "wasi:random/random@0.2.0"
	ifaceInsecure     = "wasi:random/insecure@0.2.0"
	ifaceInsecureSeed = "wasi:random/insecure-seed@0.2.0"
	// MaxRandomBytes caps one get-random-bytes call: a guest asking for more traps rather than
	// making the host allocate what it names.
	MaxRandomBytes = 1 << 20
)

func (h *Host) randomBytes(n uint64) ([]byte, error) {
	if n > MaxRandomBytes {
		return nil, fmt.Errorf("preview2: random: %d bytes asked for, at most %d", n, MaxRandomBytes)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(h.random, b); err != nil {
		return nil, fmt.Errorf("preview2: random: %w", err)
	}
	return b, nil
}

func (h *Host) randomU64() (uint64, error) {
	b, err := h.randomBytes(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// seed is insecure-seed's tuple<u64, u64>.
type seed struct{ A, B uint64 }

func defineRandom(l *component.Linker) error {
	// One source serves all three: Config.Random is the embedder's choice of randomness (a
	// deterministic one in tests), and crypto/rand is good enough for the insecure ones too.
	bytes := func(_ context.Context, h *Host, n uint64) ([]byte, error) { return h.randomBytes(n) }
	u64 := func(_ context.Context, h *Host) (uint64, error) { return h.randomU64() }
	for _, iface := range []struct{ name, bytes, u64 string }{
		{ifaceRandom, "get-random-bytes", "get-random-u64"},
		{ifaceInsecure, "get-insecure-random-bytes", "get-insecure-random-u64"},
	} {
		if err := defineAll(l, iface.name, map[string]any{iface.bytes: bytes, iface.u64: u64}); err != nil {
			return err
		}
	}
	return defineFunc(l, ifaceInsecureSeed, "insecure-seed", func(_ context.Context, h *Host) (seed, error) {
		a, err := h.randomU64()
		if err != nil {
			return seed{}, err
		}
		b, err := h.randomU64()
		return seed{a, b}, err
	})
}
