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
	LastOperationFailed *uint32 // own<error>
	Closed              bool
}

type (
	bytesResult = abi.Result[[]byte, streamError]
	u64Result   = abi.Result[uint64, streamError]
	unitResult  = abi.Result[struct{}, streamError]
)

// inStream is an input-stream: stdin or a file read at an offset.
type inStream struct {
	stdin  *wasi.Input
	file   wasi.File
	off    int64
	closed bool
}

// outStream is an output-stream: stdout, stderr or a file written at an offset or appended.
type outStream struct {
	w      io.Writer
	file   wasi.File
	off    int64
	append bool
	permit uint64
	closed bool
}

// failed turns err into a stream-error, or into a trap when err is the end of the call (the
// deadline) or the guest holds too many resources.
func (h *Host) failed(ctx context.Context, err error) (streamError, error) {
	if ctx.Err() != nil {
		return streamError{}, fmt.Errorf("preview2: stream: %w", context.Cause(ctx))
	}
	rep, terr := h.res.add(&ioError{err: err})
	if terr != nil {
		return streamError{}, terr
	}
	return streamError{LastOperationFailed: &rep}, nil
}

func (h *Host) read(ctx context.Context, self uint32, n uint64, block bool) (bytesResult, error) {
	s, err := get[*inStream](h, self)
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
	case s.stdin != nil:
		k, err = s.stdin.Read(ctx, buf, block)
		if errors.Is(err, wasi.EAGAIN) {
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
	s, err := get[*outStream](h, self)
	if err != nil {
		return u64Result{}, err
	}
	if s.closed {
		return abi.Err[uint64](streamError{Closed: true}), nil
	}
	s.permit = WritePermit
	return abi.Ok[uint64, streamError](WritePermit), nil
}

// write writes b, which must fit the stream's permit (a trap otherwise, as WASI 0.2 says).
func (h *Host) write(ctx context.Context, self uint32, b []byte, blocking bool) (unitResult, error) {
	s, err := get[*outStream](h, self)
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
	s, err := get[*outStream](h, self)
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
	out, err := get[*outStream](h, self)
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
	s, err := get[*inStream](h, self)
	if err != nil {
		return 0, err
	}
	if s.stdin != nil && !s.closed {
		return h.newPollable(&pollable{stdin: s.stdin})
	}
	return h.newPollable(&pollable{})
}

func (h *Host) subscribeOut(self uint32) (uint32, error) {
	if _, err := get[*outStream](h, self); err != nil {
		return 0, err
	}
	return h.newPollable(&pollable{}) // writes never wait: stdio and files are written at once
}

func (h *Host) defineStreams(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceStreams, "input-stream", dtor[*inStream](h)); err != nil {
		return err
	}
	if _, err := l.DefineResource(ifaceStreams, "output-stream", dtor[*outStream](h)); err != nil {
		return err
	}
	return defineAll(l, ifaceStreams, map[string]any{
		"[method]input-stream.read": func(ctx context.Context, self uint32, n uint64) (bytesResult, error) {
			return h.read(ctx, self, n, false)
		},
		"[method]input-stream.blocking-read": func(ctx context.Context, self uint32, n uint64) (bytesResult, error) {
			return h.read(ctx, self, n, true)
		},
		"[method]input-stream.skip": func(ctx context.Context, self uint32, n uint64) (u64Result, error) {
			return h.skip(ctx, self, n, false)
		},
		"[method]input-stream.blocking-skip": func(ctx context.Context, self uint32, n uint64) (u64Result, error) {
			return h.skip(ctx, self, n, true)
		},
		"[method]input-stream.subscribe": func(_ context.Context, self uint32) (uint32, error) {
			return h.subscribeIn(self)
		},
		"[method]output-stream.check-write": func(_ context.Context, self uint32) (u64Result, error) {
			return h.checkWrite(self)
		},
		"[method]output-stream.write": func(ctx context.Context, self uint32, b []byte) (unitResult, error) {
			return h.write(ctx, self, b, false)
		},
		"[method]output-stream.blocking-write-and-flush": func(ctx context.Context, self uint32, b []byte) (unitResult, error) {
			return h.write(ctx, self, b, true)
		},
		"[method]output-stream.flush": func(_ context.Context, self uint32) (unitResult, error) {
			return h.flush(self)
		},
		"[method]output-stream.blocking-flush": func(_ context.Context, self uint32) (unitResult, error) {
			return h.flush(self)
		},
		"[method]output-stream.subscribe": func(_ context.Context, self uint32) (uint32, error) {
			return h.subscribeOut(self)
		},
		"[method]output-stream.write-zeroes": func(ctx context.Context, self uint32, n uint64) (unitResult, error) {
			return h.writeZeroes(ctx, self, n, false)
		},
		"[method]output-stream.blocking-write-zeroes-and-flush": func(ctx context.Context, self uint32, n uint64) (unitResult, error) {
			return h.writeZeroes(ctx, self, n, true)
		},
		"[method]output-stream.splice": func(ctx context.Context, self, src uint32, n uint64) (u64Result, error) {
			return h.splice(ctx, self, src, n, false)
		},
		"[method]output-stream.blocking-splice": func(ctx context.Context, self, src uint32, n uint64) (u64Result, error) {
			return h.splice(ctx, self, src, n, true)
		},
	})
}
