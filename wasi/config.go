package wasi

import (
	"io"

	"github.com/kobako/kobako/egress"
)

// Config is what a guest is given, by either WASI host: its arguments and environment, stdio,
// preopened directories, time, randomness and limits, and for WASI 0.2 its wasi:http. Both
// preview1.Config and preview2.Config are this type, so one value configures a module and a
// component alike.
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
	// HTTP configures wasi:http, which only preview 2 has (preview2.DefineHTTP); with a nil
	// HTTP.Send every request the guest makes answers HTTP-request-denied.
	HTTP HTTPConfig
}

// HTTPConfig configures the wasi:http of one preview 2 host. It does not decide whether
// wasi:http is linked (preview2.DefineHTTP on the Linker does): a nil Send denies every request,
// which the guest sees as HTTP-request-denied, so a component that imports wasi:http but is
// given no network still instantiates and runs. To keep wasi:http from a component altogether,
// leave DefineHTTP off its Linker; the component then fails to instantiate naming the import.
type HTTPConfig struct {
	// Send performs every request the guest hands to outgoing-handler.handle. It is the one
	// place an embedder decides what reaches the network, and the same type ABI 1's
	// subako_http takes, so one function can guard both (see egress.Sender). It receives req
	// already validated (method, scheme, authority, path and header syntax) while the guest
	// may still be writing the body: req.Body reads what the guest writes to the
	// outgoing-body stream and ends when the guest finishes it, req.Trailer is then filled
	// with the guest's trailers. It runs on a goroutine of its own; its ctx ends when the guest
	// drops the request or its response, when the host closes, or at the deadline of the call
	// that sent the request. The options carry the guest's request-options only.
	//
	// A failure, of the send or of a response body read, answers the guest the error-code of
	// a *preview2.HTTPError in its chain, else the one egress's Reason maps to (an
	// *egress.Error from egress.NewSender, or egress.Deny's veto: HTTP-request-denied), else
	// internal-error. The response body is read as the guest reads it (a bounded buffer in
	// between, so a large body streams), and resp.Trailer is read after it ends. Package
	// wasi/preview2/httpegress provides the egress-policy sender kobako uses.
	Send egress.Sender
	// ForbiddenHeader reports the header names (lower-case) the guest may not set in any fields
	// resource: fields.from-list, set and append refuse them with header-error.forbidden. Nil
	// means preview2.IsForbiddenHeader.
	ForbiddenHeader func(name string) bool
	// MaxFieldsBytes bounds the names and values one fields resource may hold; 0 means
	// preview2.DefaultMaxFieldsBytes. Exceeding it is header-error.invalid-syntax, as the guest
	// cannot send such a header anyway.
	MaxFieldsBytes int
}
