package preview2

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// Defaults for a zero Config field.
const (
	// DefaultWriteBudget is the number of bytes a guest may write to files per run when
	// Config.WriteBudget is 0.
	DefaultWriteBudget = 1 << 30
	// DefaultMaxResources bounds the host resources (streams, pollables, descriptors, errors…)
	// a guest may hold at once when Config.MaxHandles is 0.
	DefaultMaxResources = 4096
	// MaxReadChunk caps the bytes one read call returns, whatever length the guest asks for.
	MaxReadChunk = 64 << 10
	// WritePermit is what check-write grants: the most bytes one write call may carry.
	WritePermit = 64 << 10
	// maxBlockingWrite is the limit WASI puts on blocking-write-and-flush's contents.
	maxBlockingWrite = 4096
)

// Config is what a guest is given: one type for both WASI hosts (see wasi.Config).
type Config = wasi.Config

// Host is the WASI 0.2 state of one component instance (of one store). Bind attaches it to the
// store; the host functions Define installs find it there through their Caller, and use it while
// the instance runs, one call at a time.
type Host struct {
	args, env []string
	clock     wasi.Clock
	random    io.Reader
	stdin     *wasi.Input
	stdout    io.Writer
	stderr    io.Writer
	budget    *wasi.Budget
	preopens  []preopen
	res       *component.ResourceTable
	http      *httpHost
	closed    bool
}

type preopen struct {
	name string
	dir  wasi.Dir
}

// Bind checks cfg, builds a Host from it and attaches it to s, for the functions Define installs
// to find when an instance in s calls them. It checks and opens the preopened directories (a host
// directory at the guest's first use of it, see wasi.HostDirOptions.Lazy), which are closed with
// the store (or earlier by Host.Close). A store takes one Host: binding again fails
// with ErrAlreadyBound. opts add what only WASI 0.2 has (WithHTTP).
func Bind(s *engine.Store, cfg Config, opts ...Option) (*Host, error) {
	if _, ok := hostKey.Get(s); ok {
		return nil, fmt.Errorf("preview2: bind: %w", ErrAlreadyBound)
	}
	h, err := NewHost(cfg, opts...)
	if err != nil {
		return nil, err
	}
	hostKey.Set(s, h)
	s.OnClose(func() { _ = h.Close() })
	return h, nil
}

// NewHost checks cfg and builds a Host from it, opening the preopened directories, without
// attaching it to a store (Bind does both). Close releases them.
func NewHost(cfg Config, opts ...Option) (*Host, error) {
	for i, a := range cfg.Args {
		if !utf8.ValidString(a) {
			return nil, fmt.Errorf("preview2: %w: argument %d is not UTF-8", ErrConfig, i)
		}
	}
	for i, e := range cfg.Env {
		if !utf8.ValidString(e) || !strings.Contains(e, "=") {
			return nil, fmt.Errorf("preview2: %w: environment entry %d (%q) is not UTF-8 KEY=VALUE", ErrConfig, i, e)
		}
	}
	if cfg.MaxHandles < 0 {
		return nil, fmt.Errorf("preview2: %w: MaxResources %d is negative", ErrConfig, cfg.MaxHandles)
	}
	budget := cfg.Budget
	if budget == nil {
		limit := cfg.WriteBudget
		if limit == 0 {
			limit = DefaultWriteBudget
		}
		var err error
		if budget, err = wasi.NewBudget(limit, cfg.MaxWriteSize); err != nil {
			return nil, fmt.Errorf("preview2: %w: %w", ErrConfig, err)
		}
	}
	h := &Host{args: cfg.Args, env: cfg.Env, clock: cfg.Clock, random: cfg.Random, budget: budget,
		stdin: wasi.NewInput(cfg.Stdin), stdout: cfg.Stdout, stderr: cfg.Stderr}
	limit := cfg.MaxHandles
	if limit == 0 {
		limit = DefaultMaxResources
	}
	h.res = component.NewResourceTable(limit)
	hh, err := newHTTPHost(collect(opts).http)
	if err != nil {
		return nil, err
	}
	h.http = hh
	if h.clock == nil {
		h.clock = wasi.SystemClock()
	}
	if h.random == nil {
		h.random = rand.Reader
	}
	if h.stdout == nil {
		h.stdout = io.Discard
	}
	if h.stderr == nil {
		h.stderr = io.Discard
	}
	for i, p := range cfg.Preopens {
		d, err := p.Open(budget)
		if err != nil {
			h.Close()
			if errors.Is(err, wasi.ErrPreopen) {
				err = fmt.Errorf("%w: %w", ErrConfig, err)
			}
			return nil, fmt.Errorf("preview2: preopen %d (%q): %w", i, p.GuestPath, err)
		}
		h.preopens = append(h.preopens, preopen{name: p.GuestPath, dir: d})
	}
	return h, nil
}

// Budget returns the write budget the guest's file writes draw on.
func (h *Host) Budget() *wasi.Budget { return h.budget }

// Close releases every resource the guest still holds, the preopens included, and stops
// reading stdin.
func (h *Host) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	h.http.cancel()
	var errs []error
	for _, r := range h.res.Drain() {
		if c, ok := r.(interface{ close() error }); ok {
			errs = append(errs, c.close())
		}
	}
	for _, p := range h.preopens {
		errs = append(errs, p.dir.Close())
	}
	h.preopens = nil
	h.stdin.Close()
	return errors.Join(errs...)
}
