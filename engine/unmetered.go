package engine

import (
	"context"

	"github.com/tetratelabs/wazero/sys"
)

// Unmetered stores.
//
// An unmetered store's modules are compiled in the engine's second runtime, where wazero's
// close-on-context-done puts a check of "is this instance closed?" at every loop header (one
// interpreter dispatch and an atomic load) and watches the context of every call into the guest,
// closing the called instance when the context ends. That alone would leave two ways to run past
// the deadline, which the engine closes:
//
//   - A recursion without loops meets no loop header: wasm.Unmetered starts every function that
//     calls with an empty loop, which the interpreter checks like any other.
//   - wazero's check reads the instance of the calling function (of the called one, at the top of
//     a call), and its watcher closes only the instance the call entered: a guest spinning in
//     another instance of the store (a component's second core module, say) would never see it.
//     So the store watches each top-level call too (watch), and at its end closes every instance
//     of the store the way wazero's watcher does.

// interrupter is the method wazero's module instances have beside api.Module that starts its
// per-call watcher: once ctx is done, it marks the instance closed with ctx's exit code, and the
// guest's own goroutine stops at its next check and releases the instance's resources then. A
// plain CloseWithExitCode from the watching goroutine would release them (the linear memory
// among them) under the running guest.
type interrupter interface {
	CloseModuleOnCanceledOrTimeout(ctx context.Context) context.CancelFunc
}

// watch arranges for every instance of the store to be interrupted when fc ends by its deadline
// or its parent's cancellation. The returned stop must be called before fc is released, whose
// normal end would otherwise look like a cancellation.
func (s *Store) watch(fc *frameContext) (stop func() bool) {
	t := fc.timed()
	return context.AfterFunc(t, func() {
		mods := s.mods.Load()
		if mods == nil {
			return
		}
		for _, m := range *mods {
			if in, ok := m.(interrupter); ok {
				in.CloseModuleOnCanceledOrTimeout(t) // t is done: the watcher closes m and returns
			}
		}
	})
}

// interruptedTrap returns the trap of an unmetered store's call that wazero stopped at its
// deadline or cancellation (it closed the instance with one of its context exit codes), or nil.
func (s *Store) interruptedTrap(se *sys.ExitError, fn string) *Trap {
	if !s.unmetered || s.exitCode != nil {
		return nil // only unmetered stores run where wazero interrupts; a guest's exit is its own
	}
	switch se.ExitCode() {
	case sys.ExitCodeDeadlineExceeded:
		return &Trap{Kind: TrapDeadlineExceeded, Function: fn, Cause: context.DeadlineExceeded}
	case sys.ExitCodeContextCanceled:
		return &Trap{Kind: TrapCanceled, Function: fn, Cause: context.Canceled}
	}
	return nil
}
