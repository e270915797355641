package engine

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// FuelProfile collects where a guest spends its fuel, by call stack, for `go tool pprof`: attach
// it to the calls' context with WithFuelListener on an engine created with
// Config.ProfileFunctions, then WriteTo a file. Each sample is a stack of wasm functions (their
// names from the module's name section, else $INDEX) and the fuel the innermost one used itself,
// its callees' fuel left out, so the samples add up to the fuel of the calls; `go tool pprof -http
// :8080 FILE` shows them as a flame graph. It is safe for concurrent calls of several stores.
type FuelProfile struct {
	mu    sync.Mutex
	self  map[string]uint64 // fuel by stack, the frames joined by "\x00", outermost first
	calls map[string]uint64 // calls by the same stacks
}

// NewFuelProfile returns an empty profile.
func NewFuelProfile() *FuelProfile {
	return &FuelProfile{self: map[string]uint64{}, calls: map[string]uint64{}}
}

// CallDone is part of FuelListener; the profile keeps only functions' fuel.
func (p *FuelProfile) CallDone(string, uint64, time.Duration) {}

// FunctionDone is part of FuelListener; the profile takes the stacks fuelFrame reports instead.
func (p *FuelProfile) FunctionDone(string, uint64) {}

// fuelFrame records a finished wasm function: the stack it ran under, itself last, and the fuel it
// used itself.
func (p *FuelProfile) fuelFrame(stack []string, self uint64) {
	key := strings.Join(stack, "\x00")
	p.mu.Lock()
	p.self[key] += self
	p.calls[key]++
	p.mu.Unlock()
}

// Total is the fuel the profile holds.
func (p *FuelProfile) Total() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n uint64
	for _, v := range p.self {
		n += v
	}
	return n
}

// WriteTo writes the profile in pprof's format (gzipped protocol buffers).
func (p *FuelProfile) WriteTo(w io.Writer) (int64, error) {
	p.mu.Lock()
	keys := make([]string, 0, len(p.self))
	for k := range p.self {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same profile writes the same bytes
	prof := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "fuel", Unit: "instructions"}, {Type: "calls", Unit: "count"}},
		PeriodType:        &profile.ValueType{Type: "fuel", Unit: "instructions"},
		Period:            1,
		DefaultSampleType: "fuel",
	}
	funcs := map[string]*profile.Location{}
	location := func(name string) *profile.Location {
		if l, ok := funcs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: name, SystemName: name}
		prof.Function = append(prof.Function, fn)
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Line: []profile.Line{{Function: fn}}}
		prof.Location = append(prof.Location, l)
		funcs[name] = l
		return l
	}
	for _, k := range keys {
		frames := strings.Split(k, "\x00")
		s := &profile.Sample{Value: []int64{int64(p.self[k]), int64(p.calls[k])}}
		for i := len(frames) - 1; i >= 0; i-- { // pprof lists the innermost frame first
			s.Location = append(s.Location, location(frames[i]))
		}
		prof.Sample = append(prof.Sample, s)
	}
	p.mu.Unlock()
	if err := prof.CheckValid(); err != nil {
		return 0, fmt.Errorf("engine: fuel profile: %w", err)
	}
	cw := &countWriter{w: w}
	err := prof.Write(cw)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
