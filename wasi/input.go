package wasi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
)

// DefaultInputBuffer is the size of the chunks Input reads from a reader it reads in a goroutine
// (one that is not a PollableReader or an in-memory reader).
const DefaultInputBuffer = 64 << 10

// PollableReader is a reader that can say, without blocking, whether a read would block. Input
// reads one on the guest's own goroutine, with neither a goroutine of its own nor a buffer, so a
// host that feeds a guest's stdin from memory (a pipe it writes requests into) should implement
// it. Its methods must be safe to call concurrently with whatever feeds the reader, and none of
// them may block.
type PollableReader interface {
	io.Reader

	// TryRead reads up to len(p) bytes that are available now. With none available while the
	// stream goes on it returns 0, EAGAIN; at the end of the stream it returns 0 and io.EOF, or
	// the error that ended it. An empty p reads nothing but reports the same way: nil when bytes
	// are available, EAGAIN, or the end.
	TryRead(p []byte) (int, error)

	// Buffered returns how many bytes TryRead can return now.
	Buffered() int

	// ReadyChan returns a channel that is closed once TryRead would not return EAGAIN (bytes
	// are available or the stream has ended); when that is so already, the channel is closed
	// already. A reader that never blocks may return one closed channel every time.
	ReadyChan() <-chan struct{}
}

// Input lets a guest read an io.Reader (typically its stdin) without ever blocking past its call's
// deadline.
//
// A PollableReader, and a *bytes.Reader, *strings.Reader or *bytes.Buffer (which never block),
// is read directly by the goroutine that calls Read: a guest that waits for data waits on the
// reader's ReadyChan or its context, whichever comes first, and nothing is buffered in between.
// Close wakes a waiting Read; a channel ReadyChan already returned is the reader's own, though,
// and closes only when the reader is ready (every waiter should watch its context as well).
//
// Any other reader may block in Read, which cannot be interrupted, so Input reads it in a
// goroutine of its own: a guest that waits gives up as soon as its context ends, and the goroutine
// is abandoned while the Read is stuck. It exits when the Read returns (the reader is not used
// after that), or at once if it was idle when Close was called. To let it go, close or end the
// reader after Close. Input reads only when a guest asks for data (Read, Ready or ReadyChan with
// nothing buffered), one chunk of at most DefaultInputBuffer bytes at a time, so at most one chunk
// the guest never consumed is taken from the reader.
//
// Input is safe for concurrent use.
type Input struct {
	r    io.Reader
	pr   PollableReader // non-nil for the direct path; r and the fields below it are then unused
	size int

	mu      sync.Mutex
	buf     []byte
	data    []byte        // unread part of buf
	err     error         // returned once data is drained; sticky
	pending chan struct{} // non-nil while a read is outstanding; closed when it completes
	req     chan struct{}
	done    chan struct{}
	started bool
	closed  bool
}

// NewInput returns an Input over r. A nil r, or a nil *bytes.Reader, *strings.Reader or
// *bytes.Buffer, reads as an empty stream.
func NewInput(r io.Reader) *Input {
	in := &Input{r: r, size: DefaultInputBuffer, done: make(chan struct{})}
	switch r := r.(type) {
	case nil:
		in.err = io.EOF
	case PollableReader:
		in.pr = r
	case *bytes.Reader:
		in.pr = memReaderOf(r)
	case *strings.Reader:
		in.pr = memReaderOf(r)
	case *bytes.Buffer:
		in.pr = memReaderOf(r)
	}
	if in.pr == nil && in.err == nil {
		in.req = make(chan struct{}, 1)
	}
	return in
}

// memReaderOf adapts an in-memory reader, whose Len is always its unread part (bytes.Buffer's
// included), to PollableReader. A nil pointer has nothing to read; it is caught here because its
// methods would panic.
func memReaderOf[R interface {
	*bytes.Reader | *strings.Reader | *bytes.Buffer
	io.Reader
	Len() int
}](r R) PollableReader {
	if r == nil {
		return memReader{emptyReader{}}
	}
	return memReader{r}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyReader) Len() int                 { return 0 }

// memReader never blocks: whatever it does not hold now it never will, so being empty is the end.
type memReader struct {
	r interface {
		io.Reader
		Len() int
	}
}

func (m memReader) Read(p []byte) (int, error) { return m.TryRead(p) }

func (m memReader) TryRead(p []byte) (int, error) {
	if m.r.Len() == 0 {
		// Checked first: an empty bytes.Buffer answers an empty p with nil, not the end.
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	return m.r.Read(p)
}

func (m memReader) Buffered() int              { return m.r.Len() }
func (m memReader) ReadyChan() <-chan struct{} { return closedChan }

// errInvalidRead is the sticky error of a reader that claims to have read more than it was
// given (or a negative count), which would otherwise crash whoever slices by it.
var errInvalidRead = errors.New("wasi: input: reader returned an invalid count")

// Read copies buffered bytes into p. With nothing buffered it starts a read and, when block is
// set, waits for it or for ctx; when block is not set it returns EAGAIN instead of waiting. At
// the end of the stream it returns 0, io.EOF, and afterwards the reader's error, if any, forever.
// After Close it returns EBADF.
func (in *Input) Read(ctx context.Context, p []byte, block bool) (int, error) {
	if in.pr != nil {
		return in.readDirect(ctx, p, block)
	}
	for {
		in.mu.Lock()
		if in.closed {
			in.mu.Unlock()
			return 0, EBADF
		}
		if len(in.data) > 0 || len(p) == 0 {
			n := copy(p, in.data)
			in.data = in.data[n:]
			in.mu.Unlock()
			return n, nil
		}
		if in.err != nil {
			err := in.err
			in.mu.Unlock()
			return 0, err
		}
		ch := in.startLocked()
		in.mu.Unlock()
		if !block {
			return 0, EAGAIN
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// readDirect is Read over a PollableReader. The lock is held across TryRead (which never
// blocks) so that concurrent Reads see the reader's end exactly once and then Input's sticky
// error, as on the goroutine path.
func (in *Input) readDirect(ctx context.Context, p []byte, block bool) (int, error) {
	empty := 0
	for {
		in.mu.Lock()
		if in.closed {
			in.mu.Unlock()
			return 0, EBADF
		}
		if len(p) == 0 {
			in.mu.Unlock()
			return 0, nil
		}
		if in.err != nil {
			err := in.err
			in.mu.Unlock()
			return 0, err
		}
		n, err := in.pr.TryRead(p)
		switch {
		case n < 0 || n > len(p):
			n, err = 0, errInvalidRead
		case n > 0 && errors.Is(err, EAGAIN):
			err = nil // bytes are bytes: the next TryRead will say whether it would block
		case n == 0 && err == nil:
			// A reader breaking its contract gets as many tries as on the goroutine path.
			if empty++; empty > maxEmptyReads {
				err = io.ErrNoProgress
			}
		}
		if err != nil && !errors.Is(err, EAGAIN) {
			in.err = err
			if n == 0 {
				in.mu.Unlock()
				return 0, err
			}
			err = nil // the error is sticky: the next Read reports it
		}
		in.mu.Unlock()
		if n > 0 {
			return n, nil
		}
		if err == nil {
			continue
		}
		if !block {
			return 0, EAGAIN
		}
		select {
		case <-in.pr.ReadyChan():
		case <-in.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// Ready reports whether Read would return without waiting; if not, on the goroutine path, it
// starts a read.
func (in *Input) Ready() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || len(in.data) > 0 || in.err != nil {
		return true
	}
	if in.pr != nil {
		select {
		case <-in.pr.ReadyChan():
			return true
		default:
			return false
		}
	}
	in.startLocked()
	return false
}

// Buffered returns the number of bytes Read can return without reading from the reader (for a
// PollableReader, how many it holds). It is 0 after Close.
func (in *Input) Buffered() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.closed:
		return 0
	case in.pr == nil:
		return len(in.data)
	case in.err != nil:
		return 0
	}
	return max(in.pr.Buffered(), 0)
}

// AtEOF reports whether the stream has ended with nothing left to read.
func (in *Input) AtEOF() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.pr != nil && !in.closed && in.err == nil {
		if _, err := in.pr.TryRead(nil); err != nil && !errors.Is(err, EAGAIN) {
			in.err = err
		}
	}
	return len(in.data) == 0 && in.err != nil
}

// ReadyChan returns a channel that is closed once Read would return without waiting, starting a
// read if needed on the goroutine path.
func (in *Input) ReadyChan() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || len(in.data) > 0 || in.err != nil {
		return closedChan
	}
	if in.pr != nil {
		return in.pr.ReadyChan()
	}
	return in.startLocked()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// startLocked asks the reading goroutine for one chunk unless a request is outstanding, and
// returns the channel that closes when it arrives.
func (in *Input) startLocked() chan struct{} {
	if in.pending != nil {
		return in.pending
	}
	in.pending = make(chan struct{})
	if in.buf == nil {
		in.buf = make([]byte, in.size)
	}
	if !in.started {
		in.started = true
		go in.pump()
	}
	in.req <- struct{}{}
	return in.pending
}

// maxEmptyReads bounds how often a reader may return 0, nil in a row before it is treated as
// broken (io.ErrNoProgress), so that a faulty reader cannot spin the goroutine forever.
const maxEmptyReads = 100

func (in *Input) pump() {
	for {
		select {
		case <-in.req:
		case <-in.done:
			return
		}
		select {
		case <-in.done:
			return // closed while the request was queued: do not touch the reader again
		default:
		}
		var n int
		var err error
		for tries := 0; ; tries++ {
			n, err = in.r.Read(in.buf)
			if n < 0 || n > len(in.buf) {
				n, err = 0, errInvalidRead
			}
			if n > 0 || err != nil {
				break
			}
			if tries >= maxEmptyReads {
				err = io.ErrNoProgress
				break
			}
		}
		in.mu.Lock()
		in.data = in.buf[:n]
		in.err = err
		ch := in.pending
		in.pending = nil
		in.mu.Unlock()
		if ch != nil { // nil when Close already woke the waiters
			close(ch)
		}
	}
}

// Close stops the Input: later reads fail with EBADF and the reading goroutine ends (after its
// current Read, if one is stuck).
func (in *Input) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	in.closed = true
	close(in.done)
	if in.pending != nil {
		// Wake waiters; the abandoned read's result is dropped.
		close(in.pending)
		in.pending = nil
	}
	return nil
}
