package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// frameContext is the context of a top-level call (or an Enter frame): it carries the store and
// the call's deadline. It replaces context.WithTimeout plus wazero's close-on-context-done, which
// cost a timer and a watcher goroutine on every call — most of a short call's time. The guest
// side needs neither: the injected fuel checks call the refuel hook at least every fuelSlice
// instructions, and the hook checks Err. Only a host function that blocks needs a channel that
// closes at the deadline; Done creates it then, once per call at most.
//
// Like a context.WithTimeout that is canceled when the call returns, a frame ends with its call:
// a host function that kept it (in a goroutine, say) sees Done closed and Err set from then on.
type frameContext struct {
	parent   context.Context
	store    *Store
	deadline time.Duration // on the monotonic clock, since clockBase (see now)
	hostMark uint64        // the store's host-call count when the frame began (see release)

	mu    sync.Mutex                 // serialises making the timer with ending the frame
	timer atomic.Pointer[frameTimer] // made by the first Done; read without the lock
	ended atomic.Bool                // the call returned (set only on frames a host function saw)
}

type frameTimer struct {
	ctx    context.Context // context.WithDeadline(parent, deadline)
	cancel context.CancelFunc
}

// clockBase anchors the monotonic readings frames compare: time.Since(clockBase) reads only the
// monotonic clock, half the cost of time.Now (which reads the wall clock too) — and a short
// call reads the clock once.
var clockBase = time.Now()

func now() time.Duration { return time.Since(clockBase) }

// endedContext stands in for the timer of a frame that ended before anyone asked for Done.
var endedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

func newFrameContext(parent context.Context, s *Store) *frameContext {
	d := now() + s.limits.Deadline
	if pd, ok := parent.Deadline(); ok {
		d = min(d, pd.Sub(clockBase))
	}
	fc := s.spareFrame
	if fc == nil {
		fc = &frameContext{}
	}
	s.spareFrame = nil
	fc.parent, fc.store, fc.deadline, fc.hostMark = parent, s, d, s.hostCalls
	return fc
}

func (c *frameContext) Deadline() (time.Time, bool) { return clockBase.Add(c.deadline), true }

func (c *frameContext) Done() <-chan struct{} { return c.timed().Done() }

// Err reports the end of the call: the parent's cancellation, the deadline once it has passed, or
// the call's return. Once the deadline has passed, Err also closes Done (by making the timer
// context, which is born expired), so the two never disagree.
func (c *frameContext) Err() error {
	if t := c.timer.Load(); t != nil {
		if err := t.ctx.Err(); err != nil || now() < c.deadline {
			return err
		}
		// The deadline has passed but a loaded machine has not run the timer yet: wait for it
		// (it is due, so this is short) rather than answer nil after the deadline, and Done
		// closes with it, so the two still agree.
		<-t.ctx.Done()
		return t.ctx.Err()
	}
	if c.ended.Load() {
		return context.Canceled
	}
	if c.parent.Err() == nil && now() < c.deadline {
		return nil
	}
	return c.timed().Err()
}

func (c *frameContext) Value(key any) any {
	if key == (storeKey{}) {
		return c.store
	}
	if t := c.timer.Load(); t != nil {
		// The timer context answers for itself (context's own keys) and asks the parent otherwise.
		return t.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// timed returns the context whose Done and Err the frame reports once someone waits: a timer
// context for the deadline, or, after the frame ended, one that is already canceled.
func (c *frameContext) timed() context.Context {
	if t := c.timer.Load(); t != nil {
		return t.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timer.Load(); t != nil {
		return t.ctx
	}
	if c.ended.Load() {
		return endedContext
	}
	t := &frameTimer{}
	t.ctx, t.cancel = context.WithDeadline(c.parent, clockBase.Add(c.deadline))
	c.timer.Store(t)
	return t.ctx
}

// release ends the frame; its calls have returned. A frame no host function saw (the store
// counts their calls) cannot have been kept by anyone, so the store keeps it for its next call,
// and a short call allocates no context at all. Any other frame ends for good.
func (c *frameContext) release() {
	s := c.store
	if s.hostCalls == c.hostMark && c.timer.Load() == nil {
		c.parent = nil
		s.spareFrame = c
		return
	}
	c.mu.Lock()
	c.ended.Store(true)
	t := c.timer.Load()
	c.mu.Unlock()
	if t != nil {
		t.cancel()
	}
}

// expired reports whether a host function saw the call end: Done was made and has closed, or
// the parent was canceled. A call that returns normally after that did not complete in time.
// (It does not read the clock: a call that merely finished late, unobserved, completed.)
func (c *frameContext) expired() error {
	if t := c.timer.Load(); t != nil {
		return t.ctx.Err()
	}
	return c.parent.Err()
}
