package preview1

import (
	"context"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// Clock ids. The CPU-time clocks are not offered: a guest cannot measure the host's CPU use, and
// asking for them is EINVAL, as POSIX says for an unknown clock.
const (
	clockRealtime  = 0
	clockMonotonic = 1
)

func clockResGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	switch u32(s[0]) {
	case clockRealtime, clockMonotonic:
	default:
		return wasi.EINVAL
	}
	return g.putU64(u32(s[1]), uint64(max(h.clock.Resolution(), time.Nanosecond)))
}

func clockTimeGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	t, e := h.now(u32(s[0]))
	if e != 0 {
		return e
	}
	return g.putU64(u32(s[2]), t)
}

// now reads a clock in nanoseconds: the wall clock since the Unix epoch (0 before it), or the
// monotonic clock since the Host's clock origin.
func (h *Host) now(id uint32) (uint64, wasi.Errno) {
	switch id {
	case clockRealtime:
		return unixNanos(h.clock.Now()), wasi.ESUCCESS
	case clockMonotonic:
		return uint64(max(h.clock.Monotonic(), 0)), wasi.ESUCCESS
	}
	return 0, wasi.EINVAL
}

func unixNanos(t time.Time) uint64 {
	if n := t.UnixNano(); n > 0 {
		return uint64(n)
	}
	return 0
}
