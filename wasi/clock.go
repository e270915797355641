package wasi

import (
	"sync"
	"time"
)

// Clock is the time a guest sees: the wall clock, a monotonic clock, and the timers that guest
// sleeps wait on. Implementations must be safe for concurrent use.
type Clock interface {
	// Now returns the wall-clock time (WASI's realtime clock).
	Now() time.Time
	// Monotonic returns the time since a fixed, arbitrary origin; it never decreases.
	Monotonic() time.Duration
	// Resolution returns the granularity of both clocks.
	Resolution() time.Duration
	// After returns a channel that receives once d has passed on this clock, as time.After.
	After(d time.Duration) <-chan time.Time
}

// SystemClock returns the host's clocks. The monotonic origin is the moment SystemClock was
// called, so guests learn nothing about the host's uptime.
func SystemClock() Clock { return systemClock{start: time.Now()} }

type systemClock struct{ start time.Time }

func (c systemClock) Now() time.Time                         { return time.Now() }
func (c systemClock) Monotonic() time.Duration               { return time.Since(c.start) }
func (c systemClock) Resolution() time.Duration              { return time.Nanosecond }
func (c systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// FakeClock is a deterministic Clock for tests and reproducible runs: time moves only by Step on
// every reading and when a sleep (After) or Advance moves it, so sleeps return at once.
type FakeClock struct {
	mu      sync.Mutex
	start   time.Time
	elapsed time.Duration
	step    time.Duration
}

// NewFakeClock returns a clock whose wall time starts at start and whose monotonic time starts at
// zero; each reading of either clock advances both by step (which may be 0).
func NewFakeClock(start time.Time, step time.Duration) *FakeClock {
	return &FakeClock{start: start, step: step}
}

// Now returns the current fake wall time, then advances the clock by its step.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.start.Add(c.elapsed)
	c.elapsed += c.step
	return t
}

// Monotonic returns the fake time elapsed since the origin, then advances the clock by its step.
func (c *FakeClock) Monotonic() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.elapsed
	c.elapsed += c.step
	return e
}

// Resolution returns one nanosecond.
func (c *FakeClock) Resolution() time.Duration { return time.Nanosecond }

// After advances the clock by d and returns a channel that is ready at once.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	if d > 0 {
		c.elapsed += d
	}
	ch <- c.start.Add(c.elapsed)
	c.mu.Unlock()
	return ch
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.elapsed += d
	c.mu.Unlock()
}
