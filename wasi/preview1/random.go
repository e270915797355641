package preview1

import (
	"context"
	"io"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// random_get(buf, len) fills guest memory straight from Config.Random.
func randomGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	b, e := g.read(u32(s[0]), u32(s[1]))
	if e != 0 {
		return e
	}
	if _, err := io.ReadFull(h.random, b); err != nil {
		return wasi.EIO
	}
	return wasi.ESUCCESS
}
