package preview2

import (
	"context"
	"io"
	"sync"

	"github.com/kobako/kobako/wasi"
)

// prefetch reads a response body ahead of the guest on a goroutine, into a buffer of at most
// BodyBuffer bytes: the network keeps flowing while the guest works on the previous chunk,
// and stops (back-pressure, the server's TCP window closing) when the guest falls behind, so a
// body of any size goes through a bounded buffer. It is the Source of the body's input-stream.
type prefetch struct {
	r io.ReadCloser

	mu     sync.Mutex
	buf    []byte
	err    error         // the body's end (io.EOF) or failure, once buf is drained
	ready  chan struct{} // closed when data or the end arrives; nil when none is waited for
	space  chan struct{} // closed when the guest takes data; nil when the pump is not waiting
	closed bool
}

const prefetchChunk = 32 << 10

func newPrefetch(r io.ReadCloser) *prefetch {
	p := &prefetch{r: r, buf: make([]byte, 0, BodyBuffer)}
	go p.pump()
	return p
}

func (p *prefetch) pump() {
	tmp := make([]byte, prefetchChunk)
	for {
		p.mu.Lock()
		for !p.closed && cap(p.buf)-len(p.buf) < prefetchChunk {
			if p.space == nil {
				p.space = make(chan struct{})
			}
			ch := p.space
			p.mu.Unlock()
			<-ch
			p.mu.Lock()
		}
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return
		}
		n, err := p.r.Read(tmp)
		p.mu.Lock()
		p.buf = append(p.buf, tmp[:n]...)
		if err != nil {
			p.err = err
		}
		if (n > 0 || err != nil) && p.ready != nil {
			close(p.ready)
			p.ready = nil
		}
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Read implements Source.
func (p *prefetch) Read(ctx context.Context, b []byte, block bool) (int, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return 0, wasi.EBADF
		}
		if len(p.buf) > 0 {
			n := copy(b, p.buf)
			m := copy(p.buf, p.buf[n:])
			p.buf = p.buf[:m]
			if p.space != nil {
				close(p.space)
				p.space = nil
			}
			p.mu.Unlock()
			return n, nil
		}
		if p.err != nil {
			err := p.err
			p.mu.Unlock()
			return 0, err
		}
		if !block {
			p.mu.Unlock()
			return 0, wasi.EAGAIN
		}
		ch := p.readyLocked()
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (p *prefetch) readyLocked() <-chan struct{} {
	if len(p.buf) > 0 || p.err != nil || p.closed {
		return closedChan
	}
	if p.ready == nil {
		p.ready = make(chan struct{})
	}
	return p.ready
}

// Ready implements Readiness.
func (p *prefetch) Ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf) > 0 || p.err != nil || p.closed
}

// ReadyChan implements Readiness.
func (p *prefetch) ReadyChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readyLocked()
}

// Close stops the pump and closes the body, which ends a Read the pump is blocked in.
func (p *prefetch) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.space != nil {
		close(p.space)
		p.space = nil
	}
	if p.ready != nil {
		close(p.ready)
		p.ready = nil
	}
	p.mu.Unlock()
	return p.r.Close()
}
