package preview2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/egress"
)

// futureResponse is a future-incoming-response: the sender's goroutine fills resp or err and
// closes done.
type futureResponse struct {
	done   chan struct{}
	resp   *http.Response
	err    error
	cancel context.CancelFunc

	mu        sync.Mutex
	taken     bool // get returned the response (or the error)
	abandoned bool // the guest dropped the future before taking the response
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*futureResponse) ResourceName() string { return "future-incoming-response" }

func (f *futureResponse) Ready() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *futureResponse) ReadyChan() <-chan struct{} { return f.done }

// close runs when the guest drops the future: a response nobody took is released.
func (f *futureResponse) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken {
		return nil
	}
	f.abandoned = true
	if f.Ready() && f.resp != nil {
		_ = f.resp.Body.Close()
	}
	f.cancel()
	return nil
}

// respBody is the state an incoming response's body shares between the incoming-body, its
// input-stream and the future-trailers: the body read ahead through a bounded buffer
// (prefetch), and its end.
type respBody struct {
	in     *prefetch
	rc     io.ReadCloser
	resp   *http.Response
	cancel context.CancelFunc
	done   chan struct{} // closed when the body has ended, at EOF or on an error
	once   sync.Once
	close1 sync.Once

	// set before done is closed
	err      error
	trailers http.Header
}

// watch is the reader wasi.Input reads: the response body, whose end it records.
type watch struct{ b *respBody }

func (w watch) Close() error { return w.b.rc.Close() }

func (w watch) Read(p []byte) (int, error) {
	n, err := w.b.rc.Read(p)
	if err != nil {
		w.b.once.Do(func() {
			if err == io.EOF {
				w.b.trailers = w.b.resp.Trailer
			} else {
				w.b.err = err
			}
			close(w.b.done)
		})
	}
	return n, err
}

func newRespBody(resp *http.Response, cancel context.CancelFunc) *respBody {
	b := &respBody{rc: resp.Body, resp: resp, cancel: cancel, done: make(chan struct{})}
	b.in = newPrefetch(watch{b})
	return b
}

// release stops reading and lets the connection go.
func (b *respBody) release() {
	b.close1.Do(func() {
		_ = b.in.Close() // closes the body
		b.cancel()
		b.once.Do(func() {
			b.err = errors.New("the response body was closed before its end")
			close(b.done)
		})
	})
}

func (b *respBody) ended() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// drain reads the rest of the body (for its trailers) on a goroutine; release ends it.
func (b *respBody) drain() {
	go func() {
		buf := make([]byte, 32<<10)
		for {
			if _, err := b.in.Read(context.Background(), buf, true); err != nil {
				return
			}
		}
	}()
}

// respStream is the source of an incoming body's input-stream: the body's buffer, and a Close
// (when the guest drops the stream) that lets the incoming-body release the response.
type respStream struct {
	*prefetch
	b *incomingBody
}

func (s respStream) Close() error {
	s.b.streamDropped()
	return nil
}

// incomingResponse is an incoming-response resource.
type incomingResponse struct {
	resp     *http.Response
	body     *respBody
	consumed bool
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*incomingResponse) ResourceName() string { return "incoming-response" }

func (r *incomingResponse) close() error {
	if !r.consumed {
		r.body.release()
	}
	return nil
}

// incomingBody is an incoming-body resource.
type incomingBody struct {
	body        *respBody
	streamTaken bool
	streamAlive bool
	dropped     bool // dropped or finished
	finished    bool
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*incomingBody) ResourceName() string { return "incoming-body" }

func (b *incomingBody) close() error {
	b.dropped = true
	if !b.streamAlive && !b.finished {
		b.body.release()
	}
	return nil
}

// streamDropped runs when the body's input-stream is dropped.
func (b *incomingBody) streamDropped() {
	b.streamAlive = false
	if b.dropped && !b.finished {
		b.body.release()
	}
}

// futureTrailers is a future-trailers resource.
type futureTrailers struct {
	body  *respBody
	taken bool
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*futureTrailers) ResourceName() string { return "future-trailers" }

func (t *futureTrailers) Ready() bool                { return t.body.ended() }
func (t *futureTrailers) ReadyChan() <-chan struct{} { return t.body.done }
func (t *futureTrailers) close() error {
	t.body.release()
	return nil
}

type (
	// handleResult is outgoing-handler.handle's result.
	handleResult = abi.Result[abi.Own[*futureResponse], httpErrorCode]
	// respResult is future-incoming-response.get's result, when there is one.
	respResult = abi.Result[abi.Result[abi.Own[*incomingResponse], httpErrorCode], struct{}]
	// trailersResult is future-trailers.get's result, when there is one.
	trailersResult = abi.Result[abi.Result[*abi.Own[*fields], httpErrorCode], struct{}]
)

func (h *Host) handle(ctx context.Context, request abi.Own[*outgoingRequest], options *abi.Own[*requestOptions]) (handleResult, error) {
	r, err := take(h, request)
	if err != nil {
		return handleResult{}, err
	}
	var ro egress.SendOptions
	if options != nil {
		o, err := take(h, *options)
		if err != nil {
			return handleResult{}, err
		}
		ro = egress.SendOptions{ConnectTimeout: optDuration(o.connect), FirstByteTimeout: optDuration(o.firstByte),
			BetweenBytesTimeout: optDuration(o.betweenBytes)}
	}
	req, herr := h.buildRequest(r)
	if herr != nil {
		if r.body != nil {
			_ = r.body.pipe.Close()
		}
		return abi.Err[abi.Own[*futureResponse]](herr.Code.toWIT()), nil
	}
	sctx, cancel := h.http.requestContext(ctx)
	f := &futureResponse{done: make(chan struct{}), cancel: cancel}
	fo, err := push(h, f)
	if err != nil {
		cancel()
		return handleResult{}, err
	}
	req = req.WithContext(sctx)
	send := h.http.send
	go func() {
		resp, err := send(sctx, req, ro)
		if err == nil && resp == nil {
			err = errors.New("the sender returned neither a response nor an error")
		}
		if err != nil && resp != nil {
			_ = resp.Body.Close()
			resp = nil
		}
		if resp != nil && resp.Body == nil {
			resp.Body = http.NoBody
		}
		f.mu.Lock()
		f.resp, f.err = resp, err
		close(f.done)
		if f.abandoned && resp != nil {
			_ = resp.Body.Close()
		}
		f.mu.Unlock()
		if err != nil {
			cancel()
		}
	}()
	return abi.Ok[abi.Own[*futureResponse], httpErrorCode](fo), nil
}

func (h *Host) futureGet(self abi.Borrow[*futureResponse]) (*respResult, error) {
	f, err := borrowed(h, self)
	if err != nil {
		return nil, err
	}
	if !f.Ready() {
		return nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken {
		r := abi.Err[abi.Result[abi.Own[*incomingResponse], httpErrorCode]](struct{}{})
		return &r, nil
	}
	f.taken = true
	if f.err != nil {
		r := abi.Ok[abi.Result[abi.Own[*incomingResponse], httpErrorCode], struct{}](abi.Err[abi.Own[*incomingResponse]](ErrorCodeOf(f.err).toWIT()))
		return &r, nil
	}
	ir := &incomingResponse{resp: f.resp, body: newRespBody(f.resp, f.cancel)}
	o, err := push(h, ir)
	if err != nil {
		ir.body.release()
		return nil, err
	}
	r := abi.Ok[abi.Result[abi.Own[*incomingResponse], httpErrorCode], struct{}](abi.Ok[abi.Own[*incomingResponse], httpErrorCode](o))
	return &r, nil
}

func httpResponseFuncs() map[string]any {
	type (
		bodyResult   = abi.Result[abi.Own[*incomingBody], struct{}]
		streamResult = abi.Result[abi.Own[*InputStream], struct{}]
	)
	return map[string]any{
		"[method]future-incoming-response.subscribe": func(_ context.Context, h *Host, self abi.Borrow[*futureResponse]) (abi.Own[*Pollable], error) {
			f, err := borrowed(h, self)
			if err != nil {
				return abi.Own[*Pollable]{}, err
			}
			return push(h, &Pollable{src: f})
		},
		"[method]future-incoming-response.get": func(_ context.Context, h *Host, self abi.Borrow[*futureResponse]) (*respResult, error) {
			return h.futureGet(self)
		},
		"[method]incoming-response.status": func(_ context.Context, h *Host, self abi.Borrow[*incomingResponse]) (uint16, error) {
			r, err := borrowed(h, self)
			if err != nil {
				return 0, err
			}
			return uint16(r.resp.StatusCode), nil
		},
		"[method]incoming-response.headers": func(_ context.Context, h *Host, self abi.Borrow[*incomingResponse]) (abi.Own[*fields], error) {
			r, err := borrowed(h, self)
			if err != nil {
				return abi.Own[*fields]{}, err
			}
			return push(h, fieldsFromHeader(r.resp.Header))
		},
		"[method]incoming-response.consume": func(_ context.Context, h *Host, self abi.Borrow[*incomingResponse]) (bodyResult, error) {
			r, err := borrowed(h, self)
			if err != nil {
				return bodyResult{}, err
			}
			if r.consumed {
				return abi.Err[abi.Own[*incomingBody]](struct{}{}), nil
			}
			o, err := push(h, &incomingBody{body: r.body})
			if err != nil {
				return bodyResult{}, err
			}
			r.consumed = true
			return abi.Ok[abi.Own[*incomingBody], struct{}](o), nil
		},
		"[method]incoming-body.stream": func(_ context.Context, h *Host, self abi.Borrow[*incomingBody]) (streamResult, error) {
			b, err := borrowed(h, self)
			if err != nil {
				return streamResult{}, err
			}
			if b.streamTaken {
				return abi.Err[abi.Own[*InputStream]](struct{}{}), nil
			}
			o, err := push(h, &InputStream{src: respStream{b.body.in, b}, owned: true})
			if err != nil {
				return streamResult{}, err
			}
			b.streamTaken, b.streamAlive = true, true
			return abi.Ok[abi.Own[*InputStream], struct{}](o), nil
		},
		"[static]incoming-body.finish": func(_ context.Context, h *Host, self abi.Own[*incomingBody]) (abi.Own[*futureTrailers], error) {
			b, err := take(h, self)
			if err != nil {
				return abi.Own[*futureTrailers]{}, err
			}
			if b.streamAlive {
				b.dropped = true
				return abi.Own[*futureTrailers]{}, fmt.Errorf("preview2: incoming-body.finish: its input-stream is still alive")
			}
			b.dropped, b.finished = true, true
			b.body.drain()
			return push(h, &futureTrailers{body: b.body})
		},
		"[method]future-trailers.subscribe": func(_ context.Context, h *Host, self abi.Borrow[*futureTrailers]) (abi.Own[*Pollable], error) {
			t, err := borrowed(h, self)
			if err != nil {
				return abi.Own[*Pollable]{}, err
			}
			return push(h, &Pollable{src: t})
		},
		"[method]future-trailers.get": func(_ context.Context, h *Host, self abi.Borrow[*futureTrailers]) (*trailersResult, error) {
			t, err := borrowed(h, self)
			if err != nil {
				return nil, err
			}
			if !t.body.ended() {
				return nil, nil
			}
			if t.taken {
				r := abi.Err[abi.Result[*abi.Own[*fields], httpErrorCode]](struct{}{})
				return &r, nil
			}
			t.taken = true
			if t.body.err != nil {
				r := abi.Ok[abi.Result[*abi.Own[*fields], httpErrorCode], struct{}](abi.Err[*abi.Own[*fields]](ErrorCodeOf(t.body.err).toWIT()))
				return &r, nil
			}
			var trailers *abi.Own[*fields]
			if len(t.body.trailers) > 0 {
				o, err := push(h, fieldsFromHeader(t.body.trailers))
				if err != nil {
					return nil, err
				}
				trailers = &o
			}
			r := abi.Ok[abi.Result[*abi.Own[*fields], httpErrorCode], struct{}](abi.Ok[*abi.Own[*fields], httpErrorCode](trailers))
			return &r, nil
		},
		"http-error-code": func(_ context.Context, h *Host, self abi.Borrow[*ioError]) (*httpErrorCode, error) {
			e, err := borrowed(h, self)
			if err != nil {
				return nil, err
			}
			var he *HTTPError
			if errors.As(e.err, &he) {
				c := he.Code.toWIT()
				return &c, nil
			}
			if code, ok := egressCode(e.err); ok {
				c := code.toWIT()
				return &c, nil
			}
			return nil, nil
		},
	}
}
