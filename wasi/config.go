package wasi

import "io"

// Config is what a guest is given, by either WASI host: its arguments and environment, stdio,
// preopened directories, time, randomness and limits. Both preview1.Config and preview2.Config
// are this type, so one value configures a module and a component alike. What only WASI 0.2 has,
// wasi:http, is configured beside it (preview2.WithHTTP), as wasmtime keeps WasiHttpCtx apart
// from WasiCtx: this package stays free of the network.
type Config struct {
	// Args is argv, program name first (preview 2: get-arguments). Each must be free of NUL
	// bytes.
	Args []string
	// Env holds "KEY=VALUE" entries, free of NUL bytes.
	Env []string
	// Stdin is read on the guest's behalf through Input, so reads honour the call's deadline
	// even when a Read never returns. Nil reads as empty.
	Stdin io.Reader
	// Stdout and Stderr receive the guest's output; nil discards it. Writes to them are not
	// interruptible, so they should not block for long (a bytes.Buffer, a capped buffer, a file).
	Stdout, Stderr io.Writer
	// Preopens are the directories the guest starts with, in this order: file descriptors 3,
	// 4, … in preview 1, get-directories in preview 2. None unless set.
	Preopens []Preopen
	// WriteBudget caps the bytes written to files (not stdout or stderr) over the store's life;
	// 0 means DefaultWriteBudget. Use math.MaxInt64 for no practical limit.
	WriteBudget int64
	// MaxWriteSize caps a single write to a file; 0 means DefaultMaxWriteSize (1 GiB, as ABI 1
	// requires).
	MaxWriteSize int64
	// Budget, when set, is used instead of WriteBudget and MaxWriteSize, so that other host
	// functions (such as a download saved to a volume) can draw on the same budget.
	Budget *Budget
	// Clock is the time the guest sees; nil means SystemClock().
	Clock Clock
	// Random is the source of random_get and wasi:random (all three interfaces); nil means
	// crypto/rand.Reader.
	Random io.Reader
	// MaxHandles bounds what the guest may hold open: the descriptors it opens beyond stdio and
	// the preopens in preview 1 (0 means preview1.DefaultMaxOpenFiles), the host resources
	// (streams, pollables, descriptors, errors…) in preview 2 (0 means
	// preview2.DefaultMaxResources).
	MaxHandles int
}
