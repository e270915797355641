package preview2

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/wasi"
)

const ifacePoll = "wasi:io/poll@0.2.0"

// pollable is a wasi:io/poll pollable: ready at once, at a monotonic instant, or when stdin
// has data (or has ended).
type pollable struct {
	timer bool
	when  time.Duration // monotonic instant, for a timer
	stdin *wasi.Input
}

func (h *Host) ready(p *pollable) bool {
	switch {
	case p.timer:
		return h.clock.Monotonic() >= p.when
	case p.stdin != nil:
		return p.stdin.Ready()
	}
	return true
}

// wait blocks until one of ps is ready or ctx ends, and returns the indices of the ready ones.
// An ended ctx is the caller's deadline: it is returned as an error so that the guest traps.
func (h *Host) wait(ctx context.Context, ps []*pollable) ([]uint32, error) {
	for {
		var ready []uint32
		for i, p := range ps {
			if h.ready(p) {
				ready = append(ready, uint32(i))
			}
		}
		if len(ready) > 0 {
			return ready, nil
		}
		var timer <-chan time.Time
		var stdin <-chan struct{}
		next := time.Duration(math.MaxInt64)
		for _, p := range ps {
			switch {
			case p.timer:
				next = min(next, p.when)
			case p.stdin != nil:
				stdin = p.stdin.ReadyChan()
			}
		}
		if next != math.MaxInt64 {
			timer = h.clock.After(next - h.clock.Monotonic())
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("preview2: poll: %w", context.Cause(ctx))
		case <-timer:
		case <-stdin:
		}
	}
}

func (h *Host) newPollable(p *pollable) (uint32, error) { return h.res.add(p) }

func (h *Host) definePoll(l *component.Linker) error {
	if _, err := l.DefineResource(ifacePoll, "pollable", dtor[*pollable](h)); err != nil {
		return err
	}
	return defineAll(l, ifacePoll, map[string]any{
		"[method]pollable.ready": func(_ context.Context, self uint32) (bool, error) {
			p, err := get[*pollable](h, self)
			if err != nil {
				return false, err
			}
			return h.ready(p), nil
		},
		"[method]pollable.block": func(ctx context.Context, self uint32) error {
			p, err := get[*pollable](h, self)
			if err != nil {
				return err
			}
			_, err = h.wait(ctx, []*pollable{p})
			return err
		},
		"poll": func(ctx context.Context, in []uint32) ([]uint32, error) {
			if len(in) == 0 {
				return nil, fmt.Errorf("preview2: poll: empty list of pollables")
			}
			ps := make([]*pollable, len(in))
			for i, rep := range in {
				p, err := get[*pollable](h, rep)
				if err != nil {
					return nil, err
				}
				ps[i] = p
			}
			return h.wait(ctx, ps)
		},
	})
}

// defineAll defines typed host functions of one interface.
func defineAll(l *component.Linker, iface string, fns map[string]any) error {
	for name, fn := range fns {
		if err := l.DefineFunc(iface, name, fn); err != nil {
			return err
		}
	}
	return nil
}
