package engine

import (
	"context"
	"sync/atomic"
)

// FuelProgress reports, to any goroutine, how much fuel the calls made with a context carry it
// (see WithFuelProgress) have used so far, while they run. A host shows it to a person waiting on
// a long call: `kobako mcp` turns it into MCP progress notifications.
//
// The running count is published by the refuel hook, so it moves in steps of about 10,000
// fuel (one refill of the guest's counter) and stands still while the guest waits in a host
// function. Calls that end add their exact consumption. One FuelProgress follows the calls of one
// goroutine at a time, as one store runs one call at a time; reading it is safe from anywhere.
type FuelProgress struct {
	base   uint64        // the fuel of the calls that ended; written only by the calling goroutine
	total  atomic.Uint64 // base plus the running call's fuel so far
	budget atomic.Uint64
}

// Consumed is the fuel used so far by the calls made with the context.
func (p *FuelProgress) Consumed() uint64 { return p.total.Load() }

// Budget is the fuel a call of the store gets (its Limits.Fuel); 0 before the first call starts.
func (p *FuelProgress) Budget() uint64 { return p.budget.Load() }

func (p *FuelProgress) started(budget uint64) { p.budget.Store(budget) }

func (p *FuelProgress) running(consumed uint64) { p.total.Store(p.base + consumed) }

func (p *FuelProgress) ended(consumed uint64) {
	p.base += consumed
	p.total.Store(p.base)
}

// observers are what a call's context asks the store to report to. They share one context key so
// that a top-level call looks up both with one Value walk.
type observers struct {
	listener FuelListener
	progress *FuelProgress
}

type observersKey struct{}

func observersFrom(ctx context.Context) *observers {
	o, _ := ctx.Value(observersKey{}).(*observers)
	return o
}

func withObservers(ctx context.Context, change func(*observers)) context.Context {
	var o observers
	if old := observersFrom(ctx); old != nil {
		o = *old
	}
	change(&o)
	return context.WithValue(ctx, observersKey{}, &o)
}

// WithFuelProgress returns a context whose top-level calls (and Enter frames) report their fuel to
// p as they run.
func WithFuelProgress(ctx context.Context, p *FuelProgress) context.Context {
	return withObservers(ctx, func(o *observers) { o.progress = p })
}
