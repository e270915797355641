package preview2

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// BodyBuffer is the most request-body bytes the host holds between the guest's writes and the
// network: check-write grants only what is free, so a guest writing faster than the network
// takes its body waits (back-pressure) instead of filling host memory.
const BodyBuffer = 64 << 10

var (
	errBodyDropped = errors.New("the guest dropped the outgoing-body without finishing it")
	errBodyGone    = errors.New("the request body is no longer read: the request ended")
)

// closedChan is a channel that is always ready.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// bodyPipe carries an outgoing body from the guest (which writes without ever blocking the
// host, within the permit check-write gave) to the sender (which reads, blocking). Its buffer is
// bounded by BodyBuffer.
type bodyPipe struct {
	mu       sync.Mutex
	cond     *sync.Cond // signals the reader
	buf      []byte
	declared int64 // content-length the guest declared, or -1
	written  int64
	done     bool        // the guest finished: EOF once buf is read
	err      error       // the guest's side failed: the reader gets it once buf is read
	gone     error       // the reader stopped: the guest's writes are dropped (see Close)
	trailers http.Header // the guest's trailers, given at finish
	target   http.Header // the request's Trailer map, filled at EOF
	space    chan struct{}
}

func newBodyPipe(declared int64) *bodyPipe {
	p := &bodyPipe{declared: declared, buf: make([]byte, 0, BodyBuffer)}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// free returns how many bytes the guest may write now. Once the reader stopped, the whole
// buffer is free: writes are dropped.
func (p *bodyPipe) free() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone != nil {
		return BodyBuffer
	}
	return cap(p.buf) - len(p.buf)
}

// write adds b (at most free bytes) for the reader, or drops it once the reader stopped.
func (p *bodyPipe) write(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || p.err != nil {
		return errBodyGone
	}
	if p.declared >= 0 && p.written+int64(len(b)) > p.declared {
		n := uint64(p.written + int64(len(b)))
		err := &HTTPError{Code: ErrorCode{Kind: HTTPRequestBodySize, BodySize: &n},
			Err: errors.New("the body is longer than its content-length")}
		p.err = err
		p.cond.Broadcast()
		return err
	}
	if p.gone != nil {
		p.written += int64(len(b))
		return nil
	}
	if len(b) > cap(p.buf)-len(p.buf) {
		return ErrPermit // the caller checked the permit; this is a broken invariant guarded
	}
	p.buf = append(p.buf, b...)
	p.written += int64(len(b))
	p.cond.Broadcast()
	return nil
}

// spaceChan returns a channel closed once the guest may write (or its writes fail).
func (p *bodyPipe) spaceChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone != nil || len(p.buf) < cap(p.buf) {
		return closedChan
	}
	if p.space == nil {
		p.space = make(chan struct{})
	}
	return p.space
}

func (p *bodyPipe) wakeSpaceLocked() {
	if p.space != nil {
		close(p.space)
		p.space = nil
	}
}

// finish ends the body with trailers (nil for none). It fails when the body is shorter than
// its content-length.
func (p *bodyPipe) finish(trailers http.Header) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.declared >= 0 && p.written != p.declared {
		n := uint64(p.written)
		p.err = &HTTPError{Code: ErrorCode{Kind: HTTPRequestBodySize, BodySize: &n},
			Err: errors.New("the body is shorter than its content-length")}
		p.cond.Broadcast()
		return p.err
	}
	p.done, p.trailers = true, trailers
	p.cond.Broadcast()
	return nil
}

// abort fails the body for the reader (the guest dropped it unfinished).
func (p *bodyPipe) abort(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done && p.err == nil {
		p.err = err
		p.cond.Broadcast()
	}
}

// Read is the sender's side: it blocks until the guest writes, finishes or fails.
func (p *bodyPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.done && p.err == nil && p.gone == nil {
		p.cond.Wait()
	}
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		m := copy(p.buf, p.buf[n:])
		p.buf = p.buf[:m]
		p.wakeSpaceLocked()
		return n, nil
	}
	switch {
	case p.gone != nil:
		return 0, p.gone
	case p.err != nil:
		return 0, p.err
	}
	// net/http reads the request's Trailer map after the body's EOF.
	for k, vs := range p.trailers {
		if p.target != nil {
			p.target[k] = vs
		}
	}
	return 0, io.EOF
}

// Close is the sender's side: the body is no longer read. From then on the guest's writes
// are accepted and dropped (nothing is held), and finish succeeds: the request's outcome
// reaches the guest through its future-incoming-response, not through the body stream. A
// guest often writes its body after handle returned and before it polls the future, and a
// sender refusing the request (a private address, a failed connection) closes the body at
// once; failing those writes with stream-error.closed races the refusal against the guest, and
// a JavaScript guest (StarlingMonkey) aborts on a body write that fails instead of rejecting
// fetch() with the error-code. wasmtime's body channel only closes once the send task has
// dropped it, which a guest writing a small body nearly always outruns.
func (p *bodyPipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone == nil {
		p.gone = errBodyGone
		p.buf = p.buf[:0]
	}
	p.wakeSpaceLocked()
	p.cond.Broadcast()
	return nil
}
