package preview1

import "errors"

// Sentinel errors of the host side. What a guest sees are WASI error numbers (wasi.Errno); these
// are for the embedder.
var (
	// ErrConfig: a Config field is invalid (an argument with a NUL byte, an environment entry
	// without '=', a preopen with no source or two, a negative size). Wrapped with the reason.
	ErrConfig = errors.New("invalid configuration")
	// ErrNotBound: a guest called a wasi_snapshot_preview1 function in a store that Bind was not
	// called for. The call traps with this error.
	ErrNotBound = errors.New("store has no WASI preview 1 state (call preview1.Bind)")
	// ErrAlreadyBound: Bind was called twice for one store.
	ErrAlreadyBound = errors.New("store already has WASI preview 1 state")
	// ErrNoStart: the module does not export a `_start` function without parameters and results.
	ErrNoStart = errors.New("module has no _start function")
	// ErrImport: a module imports from wasi_snapshot_preview1 a function that does not exist
	// there, or with the wrong signature. Wrapped with the function's name (see CheckImports).
	ErrImport = errors.New("bad WASI preview 1 import")
	// ErrNotFound: Host.Open was given a guest path that no preopen covers.
	ErrNotFound = errors.New("no preopened directory covers the path")
)
