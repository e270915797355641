package preview2

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

const ifacePoll = "wasi:io/poll@0.2.0"

// Readiness is what a pollable waits for. Ready reports, without blocking, whether the awaited
// event has happened; ReadyChan returns a channel that is closed (or receives) when it may have,
// or nil when it never will. Both must be safe to call from the guest's goroutine while another
// goroutine makes the source ready. *wasi.Input implements it.
type Readiness interface {
	Ready() bool
	ReadyChan() <-chan struct{}
}

// Pollable is a wasi:io/poll pollable: ready at once, at a monotonic instant of the Host's clock,
// or when a Readiness says so (a stream has data, a response has arrived). Another host mints
// one with NewPollable and pushes it into the Host's resource table (Host.Resources); poll waits
// on any number of them together.
type Pollable struct {
	timer bool
	when  time.Duration // monotonic instant, for a timer
	src   Readiness
	// A stream hands out one pollable however often it is subscribed to (guests such as
	// StarlingMonkey subscribe for every read and drop late): refs counts the handles beyond
	// the first, and slot is the stream's cache of the rep, cleared when the last handle goes.
	refs int
	slot *uint32
}

// sharedPollable returns the pollable cached in *slot with one more handle, or adds p and
// caches it.
func (h *Host) sharedPollable(slot *uint32, p *Pollable) (uint32, error) {
	if *slot != 0 {
		if q, err := component.GetAs[*Pollable](h.res, *slot); err == nil && q.slot == slot {
			q.refs++
			return *slot, nil
		}
	}
	p.slot = slot
	rep, err := h.add(p)
	if err == nil {
		*slot = rep
	}
	return rep, err
}

// dropPollable is the pollable destructor: a shared pollable lives until its last handle goes.
func dropPollable(_ context.Context, c *component.Caller, rep uint32) error {
	h, err := HostOf(c)
	if err != nil {
		return err
	}
	p, err := get[*Pollable](h, rep)
	if err != nil {
		return err
	}
	if p.refs > 0 {
		p.refs--
		return nil
	}
	if p.slot != nil && *p.slot == rep {
		*p.slot = 0
	}
	return drop[*Pollable](h, rep)
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*Pollable) ResourceName() string { return "pollable" }

// NewPollable returns a pollable that is ready when r is; a nil r is always ready.
func NewPollable(r Readiness) *Pollable { return &Pollable{src: r} }

func (h *Host) ready(p *Pollable) bool {
	switch {
	case p.timer:
		return h.clock.Monotonic() >= p.when
	case p.src != nil:
		return p.src.Ready()
	}
	return true
}

// wait blocks until one of ps is ready or ctx ends, and returns the indices of the ready ones.
// An ended ctx is the caller's deadline: it is returned as an error so that the guest traps.
func (h *Host) wait(ctx context.Context, ps []*Pollable) ([]uint32, error) {
	var cases []reflect.SelectCase // for more sources than the fixed select below takes
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
		var chans []<-chan struct{}
		next := time.Duration(math.MaxInt64)
		for _, p := range ps {
			switch {
			case p.timer:
				next = min(next, p.when)
			case p.src != nil:
				if c := p.src.ReadyChan(); c != nil && !slices.Contains(chans, c) {
					chans = append(chans, c)
				}
			}
		}
		if next != math.MaxInt64 {
			timer = h.clock.After(next - h.clock.Monotonic())
		}
		if len(chans) <= 1 {
			var c <-chan struct{}
			if len(chans) == 1 {
				c = chans[0]
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("preview2: poll: %w", context.Cause(ctx))
			case <-timer:
			case <-c:
			}
			continue
		}
		cases = append(cases[:0],
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer)})
		for _, c := range chans {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)})
		}
		if i, _, _ := reflect.Select(cases); i == 0 {
			return nil, fmt.Errorf("preview2: poll: %w", context.Cause(ctx))
		}
	}
}

func (h *Host) newPollable(p *Pollable) (uint32, error) { return h.add(p) }

func definePoll(l *component.Linker) error {
	if _, err := l.DefineResource(ifacePoll, "pollable", dropPollable); err != nil {
		return err
	}
	return defineAll(l, ifacePoll, map[string]any{
		"[method]pollable.ready": func(_ context.Context, h *Host, self abi.Borrow[*Pollable]) (bool, error) {
			p, err := get[*Pollable](h, self.Rep)
			if err != nil {
				return false, err
			}
			return h.ready(p), nil
		},
		"[method]pollable.block": func(ctx context.Context, h *Host, self abi.Borrow[*Pollable]) error {
			p, err := get[*Pollable](h, self.Rep)
			if err != nil {
				return err
			}
			_, err = h.wait(ctx, []*Pollable{p})
			return err
		},
		"poll": func(ctx context.Context, h *Host, in []abi.Borrow[*Pollable]) ([]uint32, error) {
			if len(in) == 0 {
				return nil, fmt.Errorf("preview2: poll: empty list of pollables")
			}
			ps := make([]*Pollable, len(in))
			for i, b := range in {
				p, err := get[*Pollable](h, b.Rep)
				if err != nil {
					return nil, err
				}
				ps[i] = p
			}
			return h.wait(ctx, ps)
		},
	})
}
