package preview2

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/wasi"
)

const ifaceStreams = "wasi:io/streams@0.2.0"

// streamError is wasi:io/streams' stream-error variant.
type streamError struct {
	LastOperationFailed *abi.Own[*ioError]
	Closed              bool
}

type (
	bytesResult = abi.Result[[]byte, streamError]
	u64Result   = abi.Result[uint64, streamError]
	unitResult  = abi.Result[struct{}, streamError]
)

// Source is what an InputStream reads: stdin, a request body, a pipe. Read reads up to len(p)
// bytes; with block false and nothing available yet it returns 0 and wasi.EAGAIN (or 0, nil), and
// at the end of the stream 0 and io.EOF. A blocking Read must return when ctx ends (the call's
// deadline) with ctx's error. Ready and ReadyChan say when a Read would not wait (Readiness), so
// wasi:io/poll can wait on the stream's pollable. *wasi.Input is a Source for any io.Reader.
type Source interface {
	Readiness
	Read(ctx context.Context, p []byte, block bool) (int, error)
}

// InputStream is a wasi:io/streams input-stream: stdin, a file read at an offset, or a Source of
// another package's making (NewInputStream, NewReaderStream). Another host (wasi:http, say) hands
// one to the guest by pushing it into the Host's resource table (Host.Resources) and returning
// the rep as an own<input-stream>; the guest then reads and polls it with wasi:io.
type InputStream struct {
	src    Source
	owned  bool // close src when the stream is dropped
	file   wasi.File
	off    int64
	closed bool
	poll   uint32 // the rep of its pollable, while one lives
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*InputStream) ResourceName() string { return "input-stream" }

// NewInputStream returns an input-stream reading src. Dropping the stream does not close src.
func NewInputStream(src Source) *InputStream { return &InputStream{src: src} }

// NewReaderStream returns an input-stream reading r through a wasi.Input (so a guest's blocking
// read honours its deadline even when r blocks). The Input is closed when the guest drops the
// stream or the Host closes.
func NewReaderStream(r io.Reader) *InputStream {
	return &InputStream{src: wasi.NewInput(r), owned: true}
}

func (s *InputStream) close() error {
	if c, ok := s.src.(io.Closer); ok && s.owned {
		return c.Close()
	}
	return nil
}

// OutputStream is a wasi:io/streams output-stream: stdout, stderr, a file written at an offset or
// appended, or an io.Writer of another package's making (NewOutputStream).
type OutputStream struct {
	w      io.Writer
	file   wasi.File
	off    int64
	append bool
	permit uint64
	closed bool
	body   *outgoingBody // an HTTP request body
	poll   uint32        // the rep of its pollable, while one lives
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*OutputStream) ResourceName() string { return "output-stream" }

func (s *OutputStream) close() error {
	if s.body != nil {
		s.body.streamAlive = false
	}
	return nil
}

// NewOutputStream returns an output-stream writing to w. Writes are not interruptible, so w
// should not block for long.
func NewOutputStream(w io.Writer) *OutputStream { return &OutputStream{w: w} }

// failed turns err into a stream-error, or into a trap when err is the end of the call (the
// deadline) or the guest holds too many resources.
func (h *Host) failed(ctx context.Context, err error) (streamError, error) {
	if ctx.Err() != nil {
		return streamError{}, fmt.Errorf("preview2: stream: %w", context.Cause(ctx))
	}
	e, terr := push(h, &ioError{err: err})
	if terr != nil {
		return streamError{}, terr
	}
	return streamError{LastOperationFailed: &e}, nil
}

func (h *Host) read(ctx context.Context, self uint32, n uint64, block bool) (bytesResult, error) {
	s, err := get[*InputStream](h, self)
	if err != nil {
		return bytesResult{}, err
	}
	if s.closed {
		return abi.Err[[]byte](streamError{Closed: true}), nil
	}
	buf := make([]byte, min(n, MaxReadChunk))
	if len(buf) == 0 {
		return abi.Ok[[]byte, streamError](buf), nil
	}
	var k int
	switch {
	case s.src != nil:
		k, err = s.src.Read(ctx, buf, block)
		if k == 0 && (err == nil || errors.Is(err, wasi.EAGAIN)) {
			return abi.Ok[[]byte, streamError](buf[:0]), nil
		}
	case s.file != nil:
		k, err = s.file.Readv([][]byte{buf}, s.off)
		s.off += int64(k)
		if err == nil && k == 0 {
			err = io.EOF
		}
	default:
		err = io.EOF
	}
	if k > 0 {
		return abi.Ok[[]byte, streamError](buf[:k]), nil
	}
	if errors.Is(err, io.EOF) {
		s.closed = true
		return abi.Err[[]byte](streamError{Closed: true}), nil
	}
	se, terr := h.failed(ctx, err)
	if terr != nil {
		return bytesResult{}, terr
	}
	return abi.Err[[]byte](se), nil
}

func (h *Host) skip(ctx context.Context, self uint32, n uint64, block bool) (u64Result, error) {
	r, err := h.read(ctx, self, n, block)
	if err != nil {
		return u64Result{}, err
	}
	if r.IsErr {
		return abi.Err[uint64](r.Err), nil
	}
	return abi.Ok[uint64, streamError](uint64(len(r.Ok))), nil
}

func (h *Host) checkWrite(self uint32) (u64Result, error) {
	s, err := get[*OutputStream](h, self)
	if err != nil {
		return u64Result{}, err
	}
	if s.closed {
		return abi.Err[uint64](streamError{Closed: true}), nil
	}
	if s.body != nil {
		s.permit = uint64(min(s.body.pipe.free(), WritePermit))
		return abi.Ok[uint64, streamError](s.permit), nil
	}
	s.permit = WritePermit
	return abi.Ok[uint64, streamError](WritePermit), nil
}

// write writes b, which must fit the stream's permit (a trap otherwise, as WASI 0.2 says).
func (h *Host) write(ctx context.Context, self uint32, b []byte, blocking bool) (unitResult, error) {
	s, err := get[*OutputStream](h, self)
	if err != nil {
		return unitResult{}, err
	}
	if blocking {
		if len(b) > maxBlockingWrite {
			return unitResult{}, fmt.Errorf("preview2: blocking-write-and-flush: %d bytes, more than %d", len(b), maxBlockingWrite)
		}
	} else {
		if uint64(len(b)) > s.permit {
			return unitResult{}, fmt.Errorf("preview2: write: %w: %d bytes, permit %d", ErrPermit, len(b), s.permit)
		}
		s.permit -= uint64(len(b))
	}
	if s.closed {
		return abi.Err[struct{}](streamError{Closed: true}), nil
	}
	switch {
	case s.body != nil:
		if blocking {
			if err := s.body.waitFree(ctx, len(b)); err != nil {
				return unitResult{}, err
			}
		}
		err = s.body.pipe.write(b)
		var he *HTTPError
		if err != nil && !errors.As(err, &he) {
			return abi.Err[struct{}](streamError{Closed: true}), nil
		}
	case s.file != nil:
		off := s.off
		if s.append {
			off = -1
			if _, err = s.file.Seek(0, io.SeekEnd); err != nil {
				break
			}
		}
		var k int
		k, err = s.file.Writev([][]byte{b}, off)
		if !s.append {
			s.off += int64(k)
		}
	case s.w != nil:
		_, err = s.w.Write(b)
	}
	if err != nil {
		se, terr := h.failed(ctx, err)
		if terr != nil {
			return unitResult{}, terr
		}
		return abi.Err[struct{}](se), nil
	}
	return abi.Ok[struct{}, streamError](struct{}{}), nil
}

func (h *Host) flush(self uint32) (unitResult, error) {
	s, err := get[*OutputStream](h, self)
	if err != nil {
		return unitResult{}, err
	}
	if s.closed {
		return abi.Err[struct{}](streamError{Closed: true}), nil
	}
	return abi.Ok[struct{}, streamError](struct{}{}), nil
}

func (h *Host) writeZeroes(ctx context.Context, self uint32, n uint64, blocking bool) (unitResult, error) {
	limit := uint64(WritePermit)
	if blocking {
		limit = maxBlockingWrite
	}
	if n > limit {
		return unitResult{}, fmt.Errorf("preview2: write-zeroes: %w: %d bytes, at most %d", ErrPermit, n, limit)
	}
	return h.write(ctx, self, make([]byte, n), blocking)
}

func (h *Host) splice(ctx context.Context, self, src uint32, n uint64, block bool) (u64Result, error) {
	out, err := get[*OutputStream](h, self)
	if err != nil {
		return u64Result{}, err
	}
	if !block {
		n = min(n, out.permit)
	}
	r, err := h.read(ctx, src, min(n, maxBlockingWrite), block)
	if err != nil {
		return u64Result{}, err
	}
	if r.IsErr {
		return abi.Err[uint64](r.Err), nil
	}
	w, err := h.write(ctx, self, r.Ok, block)
	if err != nil {
		return u64Result{}, err
	}
	if w.IsErr {
		return abi.Err[uint64](w.Err), nil
	}
	return abi.Ok[uint64, streamError](uint64(len(r.Ok))), nil
}

func (h *Host) subscribeIn(self uint32) (uint32, error) {
	s, err := get[*InputStream](h, self)
	if err != nil {
		return 0, err
	}
	if s.src != nil && !s.closed {
		return h.sharedPollable(&s.poll, &Pollable{src: s.src})
	}
	return h.sharedPollable(&s.poll, &Pollable{})
}

func (h *Host) subscribeOut(self uint32) (uint32, error) {
	s, err := get[*OutputStream](h, self)
	if err != nil {
		return 0, err
	}
	if s.body != nil {
		return h.sharedPollable(&s.poll, &Pollable{src: bodySpace{s.body.pipe}})
	}
	return h.newPollable(&Pollable{}) // writes never wait: stdio and files are written at once
}

func defineStreams(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceStreams, "input-stream", dtor[*InputStream]()); err != nil {
		return err
	}
	if _, err := l.DefineResource(ifaceStreams, "output-stream", dtor[*OutputStream]()); err != nil {
		return err
	}
	return defineAll(l, ifaceStreams, map[string]any{
		"[method]input-stream.read": func(ctx context.Context, h *Host, self abi.Borrow[*InputStream], n uint64) (bytesResult, error) {
			return h.read(ctx, self.Rep, n, false)
		},
		"[method]input-stream.blocking-read": func(ctx context.Context, h *Host, self abi.Borrow[*InputStream], n uint64) (bytesResult, error) {
			return h.read(ctx, self.Rep, n, true)
		},
		"[method]input-stream.skip": func(ctx context.Context, h *Host, self abi.Borrow[*InputStream], n uint64) (u64Result, error) {
			return h.skip(ctx, self.Rep, n, false)
		},
		"[method]input-stream.blocking-skip": func(ctx context.Context, h *Host, self abi.Borrow[*InputStream], n uint64) (u64Result, error) {
			return h.skip(ctx, self.Rep, n, true)
		},
		"[method]input-stream.subscribe": func(_ context.Context, h *Host, self abi.Borrow[*InputStream]) (abi.Own[*Pollable], error) {
			rep, err := h.subscribeIn(self.Rep)
			return abi.Own[*Pollable]{Rep: rep}, err
		},
		"[method]output-stream.check-write": func(_ context.Context, h *Host, self abi.Borrow[*OutputStream]) (u64Result, error) {
			return h.checkWrite(self.Rep)
		},
		"[method]output-stream.write": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], b []byte) (unitResult, error) {
			return h.write(ctx, self.Rep, b, false)
		},
		"[method]output-stream.blocking-write-and-flush": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], b []byte) (unitResult, error) {
			return h.write(ctx, self.Rep, b, true)
		},
		"[method]output-stream.flush": func(_ context.Context, h *Host, self abi.Borrow[*OutputStream]) (unitResult, error) {
			return h.flush(self.Rep)
		},
		"[method]output-stream.blocking-flush": func(_ context.Context, h *Host, self abi.Borrow[*OutputStream]) (unitResult, error) {
			return h.flush(self.Rep)
		},
		"[method]output-stream.subscribe": func(_ context.Context, h *Host, self abi.Borrow[*OutputStream]) (abi.Own[*Pollable], error) {
			rep, err := h.subscribeOut(self.Rep)
			return abi.Own[*Pollable]{Rep: rep}, err
		},
		"[method]output-stream.write-zeroes": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], n uint64) (unitResult, error) {
			return h.writeZeroes(ctx, self.Rep, n, false)
		},
		"[method]output-stream.blocking-write-zeroes-and-flush": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], n uint64) (unitResult, error) {
			return h.writeZeroes(ctx, self.Rep, n, true)
		},
		"[method]output-stream.splice": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], src abi.Borrow[*InputStream], n uint64) (u64Result, error) {
			return h.splice(ctx, self.Rep, src.Rep, n, false)
		},
		"[method]output-stream.blocking-splice": func(ctx context.Context, h *Host, self abi.Borrow[*OutputStream], src abi.Borrow[*InputStream], n uint64) (u64Result, error) {
			return h.splice(ctx, self.Rep, src.Rep, n, true)
		},
	})
}
