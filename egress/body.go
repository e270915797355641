package egress

import (
	"context"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
)

var (
	errBodyShort    = errors.New("request body ended before its declared length")
	errBodyLong     = errors.New("request body is longer than its declared length")
	errBodyDetached = errors.New("request body is no longer available to this exchange")
)

// bodySource is the caller's request body across the hops of one Do. Each hop reads it
// through its own attemptBody; before a hop replays the body (307/308), the previous
// attemptBody is detached, which waits for any Read net/http still has in progress, so the
// caller's reader is never read by two hops at once nor read after Do's exchange ends.
type bodySource struct {
	r      io.Reader
	length int64 // -1: unknown
	seeker io.Seeker
	start  int64
	cur    *attemptBody
}

func newBodySource(r io.Reader, length int64) *bodySource {
	b := &bodySource{r: r, length: length}
	if s, ok := r.(io.Seeker); ok {
		if off, err := s.Seek(0, io.SeekCurrent); err == nil {
			b.seeker, b.start = s, off
		}
	}
	return b
}

// empty reports whether there is no body to send.
func (b *bodySource) empty() bool { return b == nil || b.r == nil || b.length == 0 }

// canReplay reports whether the body can be sent again from its start.
func (b *bodySource) canReplay() bool { return b.empty() || b.seeker != nil }

// next returns the reader for the next hop, rewinding when an earlier hop read the body.
func (b *bodySource) next() (io.ReadCloser, error) {
	if b.empty() {
		return nil, nil
	}
	if b.cur != nil {
		b.cur.detach()
		if b.seeker == nil {
			return nil, errBodyDetached
		}
		if _, err := b.seeker.Seek(b.start, io.SeekStart); err != nil {
			return nil, err
		}
	}
	b.cur = &attemptBody{r: b.r, remaining: b.length}
	return b.cur, nil
}

// detach ends every use of the caller's reader.
func (b *bodySource) detach() {
	if b != nil && b.cur != nil {
		b.cur.detach()
	}
}

// attemptBody enforces the declared length and can be cut off from the caller's reader.
type attemptBody struct {
	mu        sync.Mutex
	r         io.Reader
	remaining int64 // -1: unknown
	detached  bool
}

func (a *attemptBody) Read(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.detached {
		return 0, errBodyDetached
	}
	if a.remaining == 0 {
		// The declared length is reached: anything more is a caller error, not data to drop.
		var probe [1]byte
		n, err := a.r.Read(probe[:])
		if n > 0 {
			return 0, errBodyLong
		}
		if err == nil || err == io.EOF {
			return 0, io.EOF
		}
		return 0, err
	}
	if a.remaining > 0 && int64(len(p)) > a.remaining {
		p = p[:a.remaining]
	}
	n, err := a.r.Read(p)
	if a.remaining > 0 {
		a.remaining -= int64(n)
		if err == io.EOF && a.remaining > 0 {
			return n, errBodyShort
		}
		if err == io.EOF {
			err = nil // the next Read probes for extra bytes
		}
	}
	return n, err
}

// Close does not close the caller's reader: the caller owns it.
func (a *attemptBody) Close() error { return nil }

func (a *attemptBody) detach() {
	a.mu.Lock()
	a.detached = true
	a.mu.Unlock()
}

// responseBody is Response.Body: it caps the bytes delivered, classifies read errors, and on
// Close releases the connection, the request's deadline and the caller's request body. Close
// may run concurrently with a blocked Read (that is how a reader is aborted), so the sticky
// error is guarded; the underlying Read itself is not, so Close can interrupt it.
type responseBody struct {
	rc     io.ReadCloser
	max    int64 // <0: no cap
	n      int64 // bytes delivered; touched only by Read
	ctx    context.Context
	cancel context.CancelFunc
	source *bodySource
	origin Origin
	once   sync.Once

	mu  sync.Mutex
	err error // sticky
}

func (b *responseBody) sticky() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// setErr records err unless an error is already recorded, and returns the recorded one.
func (b *responseBody) setErr(err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
	}
	return b.err
}

func (b *responseBody) Read(p []byte) (int, error) {
	if err := b.sticky(); err != nil {
		return 0, err
	}
	if b.max >= 0 {
		if b.n >= b.max {
			// At the cap: one more byte means the body is too large; EOF means it fits.
			var probe [1]byte
			n, err := b.rc.Read(probe[:])
			if n > 0 {
				err := b.setErr(tooLarge(b.max))
				_ = b.rc.Close()
				return 0, err
			}
			if err == nil {
				return 0, nil
			}
			return 0, b.fail(err)
		}
		if int64(len(p)) > b.max-b.n {
			p = p[:b.max-b.n]
		}
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if err != nil {
		return n, b.fail(err)
	}
	return n, nil
}

func (b *responseBody) fail(err error) error {
	if err == io.EOF {
		return b.setErr(io.EOF)
	}
	return b.setErr(classify(b.ctx, err, b.origin, true))
}

// Close may be called more than once; only the first call does anything.
func (b *responseBody) Close() error {
	var err error
	b.once.Do(func() {
		b.setErr(errorf(ReasonCancelled, nil, "response body is closed"))
		err = b.rc.Close()
		b.cancel()
		b.source.detach()
	})
	return err
}

func tooLarge(max int64) *Error {
	e := errorf(ReasonBodyTooLarge, nil, "response body is larger than the %d-byte limit", max)
	e.Limit = max
	return e
}

// ReadAll reads the whole body (within the request's MaxResponseBytes) and closes it.
func (r *Response) ReadAll() ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

// Text reads the whole body like ReadAll and returns it as a string, or a KindNotText error
// when it is not valid UTF-8. This is the ABI 1 "inline" output.
func (r *Response) Text() (string, error) {
	b, err := r.ReadAll()
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errorf(ReasonNotText, nil, "response body is not UTF-8 text; save it to a file instead")
	}
	return string(b), nil
}
