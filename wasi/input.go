package wasi

import (
	"context"
	"io"
	"sync"
)

// DefaultInputBuffer is the size of the chunks Input reads from its reader.
const DefaultInputBuffer = 64 << 10

// Input lets a guest read an io.Reader (typically its stdin) without ever blocking past its call's
// deadline. A Go Read cannot be interrupted, so Input reads in a goroutine of its own: a guest
// that waits gives up as soon as its context ends, and the goroutine is abandoned while the
// Read is stuck. It exits when the Read returns (the reader is not used after that), or at once
// if it was idle when Close was called. To let it go, close or end the reader after Close.
//
// Input reads only when a guest asks for data (Read, Ready or ReadyChan with nothing buffered),
// one chunk of at most DefaultInputBuffer bytes at a time, so at most one chunk the guest never
// consumed is taken from the reader. Input is safe for concurrent use.
type Input struct {
	r    io.Reader
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

// NewInput returns an Input over r. A nil r reads as an empty stream.
func NewInput(r io.Reader) *Input {
	in := &Input{r: r, size: DefaultInputBuffer, req: make(chan struct{}, 1), done: make(chan struct{})}
	if r == nil {
		in.err = io.EOF
	}
	return in
}

// Read copies buffered bytes into p. With nothing buffered it starts a read and, when block is
// set, waits for it or for ctx; when block is not set it returns EAGAIN instead of waiting. At
// the end of the stream it returns 0, io.EOF, and afterwards the reader's error, if any, forever.
// After Close it returns EBADF.
func (in *Input) Read(ctx context.Context, p []byte, block bool) (int, error) {
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

// Ready reports whether Read would return without waiting; if not, it starts a read.
func (in *Input) Ready() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || len(in.data) > 0 || in.err != nil {
		return true
	}
	in.startLocked()
	return false
}

// Buffered returns the number of bytes Read can return without reading from the reader.
func (in *Input) Buffered() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.data)
}

// AtEOF reports whether the stream has ended with nothing left to read.
func (in *Input) AtEOF() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.data) == 0 && in.err != nil
}

// ReadyChan returns a channel that is closed once Read would return without waiting, starting a
// read if needed.
func (in *Input) ReadyChan() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || len(in.data) > 0 || in.err != nil {
		return closedChan
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
