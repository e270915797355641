package runner

import (
	"errors"
	"strings"
	"sync"
)

// StderrTailBytes bounds the guest stderr output kept with a trap: the end of it, where a
// JavaScript exception or a Rust panic message is.
const StderrTailBytes = 4 << 10

// TrapError is a trapped call with the end of what the guest wrote to stderr before it (the
// reference discards guest stderr, so a JavaScript plugin's thrown Error otherwise shows only as
// "wasm trap: unreachable"). Error reads as the trap alone; Stderr is for the caller to show.
type TrapError struct {
	Err error
	// Stderr is at most StderrTailBytes of the guest's last stderr output, valid UTF-8.
	Stderr string
}

// Error is the trap's message.
func (e *TrapError) Error() string { return e.Err.Error() }

// Unwrap returns the trap, so errors.Is finds ErrTrapped and the engine's trap kinds.
func (e *TrapError) Unwrap() error { return e.Err }

// GuestStderr returns the guest stderr output a trap error carries, or "".
func GuestStderr(err error) string {
	var te *TrapError
	if errors.As(err, &te) {
		return te.Stderr
	}
	return ""
}

// stderrTail keeps the last StderrTailBytes written to it.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(b) >= StderrTailBytes {
		t.buf = append(t.buf[:0], b[len(b)-StderrTailBytes:]...)
		return len(b), nil
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*StderrTailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-StderrTailBytes:]...)
	}
	return len(b), nil
}

// reset forgets what was written, so a warm instance's trap shows only its own call's output.
func (t *stderrTail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = t.buf[:0]
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > StderrTailBytes {
		b = b[len(b)-StderrTailBytes:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
