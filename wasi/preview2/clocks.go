package preview2

import (
	"context"
	"math"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

const (
	ifaceMonotonic = "wasi:clocks/monotonic-clock@0.2.0"
	ifaceWall      = "wasi:clocks/wall-clock@0.2.0"
)

// datetime is wall-clock's datetime record.
type datetime = b.Datetime

func toDatetime(t time.Time) datetime {
	if t.Unix() < 0 {
		return datetime{} // WASI's datetime cannot say "before 1970"
	}
	return datetime{Seconds: uint64(t.Unix()), Nanoseconds: uint32(t.Nanosecond())}
}

// monotonic is the clock's instant in nanoseconds, never negative.
func (h *Host) monotonic() uint64 { return uint64(max(h.clock.Monotonic(), 0)) }

// monotonicFuncs are the functions of wasi:clocks/monotonic-clock.
func monotonicFuncs() map[string]any {
	return map[string]any{
		"now":        func(_ context.Context, h *Host) uint64 { return h.monotonic() },
		"resolution": func(_ context.Context, h *Host) uint64 { return uint64(max(h.clock.Resolution(), 1)) },
		"subscribe-instant": func(_ context.Context, h *Host, when uint64) (abi.Own[*Pollable], error) {
			return push(h, &Pollable{timer: true, when: time.Duration(min(when, math.MaxInt64))})
		},
		"subscribe-duration": func(_ context.Context, h *Host, d uint64) (abi.Own[*Pollable], error) {
			when := h.monotonic() + min(d, math.MaxInt64)
			return push(h, &Pollable{timer: true, when: time.Duration(min(when, math.MaxInt64))})
		},
	}
}

func defineClocks(l *component.Linker) error {
	if err := defineAll(l, ifaceMonotonic, monotonicFuncs()); err != nil {
		return err
	}
	return defineAll(l, ifaceWall, map[string]any{
		"now": func(_ context.Context, h *Host) datetime { return toDatetime(h.clock.Now()) },
		"resolution": func(_ context.Context, h *Host) datetime {
			r := max(h.clock.Resolution(), 1)
			return datetime{Seconds: uint64(r / time.Second), Nanoseconds: uint32(r % time.Second)}
		},
	})
}
