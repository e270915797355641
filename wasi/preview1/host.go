package preview1

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strings"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// Defaults for a zero Config field.
const (
	// DefaultWriteBudget is the number of bytes a guest may write to files per store (per call
	// of a command) when Config.WriteBudget is 0.
	DefaultWriteBudget = 1 << 30
	// DefaultMaxOpenFiles bounds the files and directories a guest may hold open at once, beyond
	// stdio and the preopens, when Config.MaxHandles is 0. Each one holds a host descriptor.
	DefaultMaxOpenFiles = 256
)

// Config is what a guest is given: one type for both WASI hosts (see wasi.Config). Its HTTP
// field is preview 2's; preview 1 has no wasi:http (ABI 1's subako_http is package subako's).
type Config = wasi.Config

// Host is the WASI preview 1 state of one store: its descriptor table, stdio, clocks and budget.
// It is created by Bind and used by the host functions of Module while the store runs; it is not
// safe for use by other goroutines during a call.
type Host struct {
	args, env         []string
	argsSize, envSize uint32
	clock             wasi.Clock
	random            io.Reader
	stdin             *wasi.Input
	budget            *wasi.Budget
	fds               fdTable
	preopens          []preopenInfo
	closed            bool

	iov  [][]byte // scratch for iovec views
	subs []subscription
}

type preopenInfo struct {
	name string
	dir  wasi.Dir
}

// hostKey holds the Host bound to a store.
var hostKey = engine.NewKey[*Host]()

// Bind attaches WASI preview 1 state built from cfg to s, for the functions of Module to use. It
// checks the preopened directories and opens them (a host directory at the guest's first use of
// it, see wasi.HostDirOptions.Lazy); they are closed with the store (or earlier by Host.Close).
func Bind(s *engine.Store, cfg Config) (*Host, error) {
	if _, ok := hostKey.Get(s); ok {
		return nil, fmt.Errorf("preview1: bind: %w", ErrAlreadyBound)
	}
	h, err := newHost(cfg)
	if err != nil {
		return nil, err
	}
	hostKey.Set(s, h)
	s.OnClose(func() { _ = h.Close() })
	return h, nil
}

// FromStore returns the Host bound to s, if any.
func FromStore(s *engine.Store) (*Host, bool) {
	return hostKey.Get(s)
}

func newHost(cfg Config) (*Host, error) {
	argsSize, err := stringsSize("argument", cfg.Args, false)
	if err != nil {
		return nil, err
	}
	envSize, err := stringsSize("environment entry", cfg.Env, true)
	if err != nil {
		return nil, err
	}
	maxFiles := cfg.MaxHandles
	if maxFiles < 0 {
		return nil, fmt.Errorf("preview1: %w: MaxOpenFiles %d is negative", ErrConfig, maxFiles)
	}
	if maxFiles == 0 {
		maxFiles = DefaultMaxOpenFiles
	}
	budget := cfg.Budget
	if budget == nil {
		limit := cfg.WriteBudget
		if limit == 0 {
			limit = DefaultWriteBudget
		}
		if budget, err = wasi.NewBudget(limit, cfg.MaxWriteSize); err != nil {
			return nil, fmt.Errorf("preview1: %w: %w", ErrConfig, err)
		}
	}
	h := &Host{
		args: cfg.Args, env: cfg.Env, argsSize: argsSize, envSize: envSize,
		clock: cfg.Clock, random: cfg.Random, budget: budget,
		stdin: wasi.NewInput(cfg.Stdin),
	}
	if h.clock == nil {
		h.clock = wasi.SystemClock()
	}
	if h.random == nil {
		h.random = rand.Reader
	}
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	h.fds.limit = 3 + len(cfg.Preopens) + maxFiles
	// The initial descriptors come from one allocation, with room in the table for a few more.
	initial := make([]fdEntry, 3+len(cfg.Preopens))
	h.fds.entries = make([]*fdEntry, 0, min(len(initial)+4, h.fds.limit))
	h.preopens = make([]preopenInfo, 0, len(cfg.Preopens))
	initial[0] = fdEntry{kind: kindStdin, rights: stdinRights}
	initial[1] = fdEntry{kind: kindWriter, w: stdout, rights: stdoutRights}
	initial[2] = fdEntry{kind: kindWriter, w: stderr, rights: stdoutRights}
	for i := range 3 {
		h.fds.add(&initial[i])
	}
	for i, p := range cfg.Preopens {
		d, err := p.Open(budget)
		if err != nil {
			h.Close()
			if errors.Is(err, wasi.ErrPreopen) {
				err = fmt.Errorf("%w: %w", ErrConfig, err)
			}
			return nil, fmt.Errorf("preview1: preopen %d (%q): %w", i, p.GuestPath, err)
		}
		h.preopens = append(h.preopens, preopenInfo{name: p.GuestPath, dir: d})
		initial[3+i] = fdEntry{kind: kindDir, dir: d, preopen: p.GuestPath, isPreopen: true,
			rights: dirRights, inheriting: fileRights | dirRights}
		h.fds.add(&initial[3+i])
	}
	return h, nil
}

// stringsSize checks argv or environ entries and returns the bytes they take in guest memory,
// NUL terminators included, which must fit in the u32 that args_sizes_get reports.
func stringsSize(what string, list []string, needEq bool) (uint32, error) {
	var total uint64
	for i, s := range list {
		if strings.IndexByte(s, 0) >= 0 {
			return 0, fmt.Errorf("preview1: %w: %s %d contains a NUL byte", ErrConfig, what, i)
		}
		if needEq && !strings.Contains(s, "=") {
			return 0, fmt.Errorf("preview1: %w: %s %d (%q) is not KEY=VALUE", ErrConfig, what, i, s)
		}
		total += uint64(len(s)) + 1
	}
	if total > math.MaxUint32 || uint64(len(list)) > math.MaxUint32/4 {
		return 0, fmt.Errorf("preview1: %w: %ss take %d bytes, more than a 32-bit guest can hold", ErrConfig, what, total)
	}
	return uint32(total), nil
}

// Budget returns the write budget the guest's file writes draw on.
func (h *Host) Budget() *wasi.Budget { return h.budget }

// Close closes every descriptor the guest holds, the preopens included, and stops reading stdin.
// A reader stuck in Read keeps its goroutine until the Read returns (see wasi.Input).
func (h *Host) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	for fd := range h.fds.entries {
		if e := h.fds.entries[fd]; e != nil {
			if err := e.close(); err != nil {
				errs = append(errs, err)
			}
			h.fds.entries[fd] = nil
		}
	}
	h.stdin.Close()
	return errors.Join(errs...)
}

// Open opens a guest path (such as "/volume/tmp/out.bin") the way a guest would: the path is
// cleaned lexically, then opened in the preopen whose (cleaned) name is its longest prefix, with
// that preopen's sandbox, read-only setting and write budget. It is for host functions that move
// files on the guest's behalf. The caller closes the result.
func (h *Host) Open(guestPath string, flags wasi.OpenFlags) (wasi.Node, error) {
	if h.closed {
		return nil, fmt.Errorf("preview1: open %q: %w", guestPath, wasi.EBADF)
	}
	clean := path.Clean(guestPath)
	var best *preopenInfo
	var rel string
	for i := range h.preopens {
		p := &h.preopens[i]
		if r, ok := underPrefix(clean, path.Clean(p.name)); ok && (best == nil || len(p.name) > len(best.name)) {
			best, rel = p, r
		}
	}
	if best == nil {
		return nil, fmt.Errorf("preview1: open %q: %w", guestPath, ErrNotFound)
	}
	n, err := best.dir.OpenAt(rel, flags)
	if err != nil {
		return nil, fmt.Errorf("preview1: open %q: %w", guestPath, err)
	}
	return n, nil
}

// underPrefix reports whether the clean path lies in the directory named by the clean prefix
// (component-wise) and returns the rest, "." for the directory itself.
func underPrefix(p, prefix string) (string, bool) {
	switch {
	case p == prefix:
		return ".", true
	case prefix == "/":
		if strings.HasPrefix(p, "/") {
			return p[1:], true
		}
	case prefix == ".":
		if !strings.HasPrefix(p, "/") && p != ".." && !strings.HasPrefix(p, "../") {
			return p, true
		}
	case strings.HasPrefix(p, prefix+"/"):
		return p[len(prefix)+1:], true
	}
	return "", false
}
