package wasi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// memPipe is a PollableReader fed by Write, as a host feeds a guest's stdin from memory. Its
// blocking Read lets plainReader put the very same stream on Input's goroutine path, so that
// both paths can be held to the same expectations.
type memPipe struct {
	mu    sync.Mutex
	buf   []byte
	end   error // io.EOF or the error the stream ended with; nil while it goes on
	ready chan struct{}
}

var _ PollableReader = (*memPipe)(nil)

func (p *memPipe) Write(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	p.wakeLocked()
}

func (p *memPipe) CloseWithError(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end == nil {
		p.end = err
	}
	p.wakeLocked()
}

func (p *memPipe) wakeLocked() {
	if p.ready != nil {
		close(p.ready)
		p.ready = nil
	}
}

func (p *memPipe) TryRead(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) == 0 {
		if p.end != nil {
			return 0, p.end
		}
		return 0, EAGAIN
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	return n, nil
}

func (p *memPipe) Read(b []byte) (int, error) {
	for {
		if n, err := p.TryRead(b); err != EAGAIN {
			return n, err
		}
		<-p.ReadyChan()
	}
}

func (p *memPipe) Buffered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf)
}

func (p *memPipe) ReadyChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 || p.end != nil {
		return closedChan
	}
	if p.ready == nil {
		p.ready = make(chan struct{})
	}
	return p.ready
}

// plainReader hides every method but Read, which sends Input down its goroutine path.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// inputPaths puts one memPipe behind each of Input's two ways of reading.
var inputPaths = []struct {
	name   string
	direct bool
	wrap   func(*memPipe) io.Reader
}{
	{"direct", true, func(p *memPipe) io.Reader { return p }},
	{"goroutine", false, func(p *memPipe) io.Reader { return plainReader{p} }},
}

// checkPath fails unless in read the way it should: the direct path never starts a goroutine
// nor allocates a buffer.
func checkPath(t *testing.T, in *Input, direct bool) {
	t.Helper()
	in.mu.Lock()
	defer in.mu.Unlock()
	if got := in.pr != nil; got != direct {
		t.Fatalf("direct path = %v, want %v", got, direct)
	}
	if direct && (in.started || in.buf != nil) {
		t.Fatalf("direct path started a goroutine (%v) or allocated a buffer (%d bytes)", in.started, len(in.buf))
	}
}

type inputState struct {
	ready, atEOF bool
	buffered     int
}

// stateOf reports in's state. The goroutine path learns what comes next only after a read it
// starts has returned, so when the state should be ready it is given until ReadyChan closes; the
// direct path must know at once.
func stateOf(t interface {
	Helper()
	Fatal(...any)
}, in *Input, want inputState) inputState {
	t.Helper()
	if want.ready && in.pr == nil {
		select {
		case <-in.ReadyChan():
		case <-time.After(5 * time.Second):
			t.Fatal("ReadyChan never closed")
		}
	}
	r := in.Ready()
	return inputState{ready: r, atEOF: in.AtEOF(), buffered: in.Buffered()}
}

func checkState(t testing.TB, in *Input, when string, want inputState) {
	t.Helper()
	if got := stateOf(t, in, want); got != want {
		t.Fatalf("state %s: %+v, want %+v", when, got, want)
	}
}

func partlyRead[R io.Reader](r R, skip int) R {
	r.Read(make([]byte, skip))
	return r
}

// Every reader reads "hello world" alike, whichever path Input takes for it.
func TestInputRead(t *testing.T) {
	const text = "hello world"
	filled := func(err error) *memPipe {
		p := &memPipe{}
		p.Write([]byte(text))
		p.CloseWithError(err)
		return p
	}
	tests := []struct {
		name   string
		r      io.Reader
		direct bool
	}{
		{"strings.Reader", strings.NewReader(text), true},
		{"strings.Reader partly read", partlyRead(strings.NewReader("xy"+text), 2), true},
		{"bytes.Reader", bytes.NewReader([]byte(text)), true},
		{"bytes.Reader partly read", partlyRead(bytes.NewReader([]byte("xyz"+text)), 3), true},
		// bytes.Buffer's Len is its unread part, never what was written in all.
		{"bytes.Buffer", bytes.NewBufferString(text), true},
		{"bytes.Buffer partly read", partlyRead(bytes.NewBufferString("abcd"+text), 4), true},
		{"PollableReader", filled(io.EOF), true},
		{"plain reader", plainReader{strings.NewReader(text)}, false},
		{"plain pipe", plainReader{filled(io.EOF)}, false},
	}
	buf := make([]byte, 5)
	steps := []struct {
		block bool
		want  string
		err   error
		state inputState
	}{
		{true, "hello", nil, inputState{ready: true, buffered: 6}},
		{false, " worl", nil, inputState{ready: true, buffered: 1}}, // buffered: no wait needed
		{false, "d", nil, inputState{ready: true, atEOF: true}},
		{true, "", io.EOF, inputState{ready: true, atEOF: true}},
		{false, "", io.EOF, inputState{ready: true, atEOF: true}}, // sticky
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			in := NewInput(tt.r)
			defer in.Close()
			for i, s := range steps {
				n, err := in.Read(ctx, buf, s.block)
				if string(buf[:n]) != s.want || err != s.err {
					t.Fatalf("step %d: Read = %q, %v; want %q, %v", i, buf[:n], err, s.want, s.err)
				}
				if n, err := in.Read(ctx, nil, true); n != 0 || err != nil && err != io.EOF {
					t.Fatalf("step %d: empty Read = %d, %v", i, n, err)
				}
				if got := stateOf(t, in, s.state); got != s.state {
					t.Fatalf("step %d: state %+v, want %+v", i, got, s.state)
				}
				select {
				case <-in.ReadyChan():
				default:
					t.Fatalf("step %d: ReadyChan open while Ready", i)
				}
			}
			checkPath(t, in, tt.direct)
			in.Close()
			if _, err := in.Read(ctx, buf, true); err != EBADF {
				t.Errorf("Read after Close = %v, want EBADF", err)
			}
		})
	}
}

// Nil readers, typed or not, are empty streams rather than panics.
func TestInputNil(t *testing.T) {
	for _, r := range []io.Reader{nil, (*bytes.Reader)(nil), (*strings.Reader)(nil), (*bytes.Buffer)(nil)} {
		in := NewInput(r)
		if n, err := in.Read(context.Background(), make([]byte, 1), true); n != 0 || err != io.EOF {
			t.Errorf("Read(%T(nil)) = %d, %v", r, n, err)
		}
		if !in.AtEOF() || !in.Ready() || in.Buffered() != 0 {
			t.Errorf("%T(nil): AtEOF %v, Ready %v, Buffered %d", r, in.AtEOF(), in.Ready(), in.Buffered())
		}
		in.Close()
	}
}

// A live stream: nothing yet, a wait that ends with its context, data that wakes a waiter, the
// end, and Close; both paths alike.
func TestInputLive(t *testing.T) {
	for _, path := range inputPaths {
		t.Run(path.name, func(t *testing.T) {
			bg := context.Background()
			p := &memPipe{}
			in := NewInput(path.wrap(p))
			defer in.Close()
			buf := make([]byte, 8)
			read := func(ctx context.Context, block bool) (string, error) {
				n, err := in.Read(ctx, buf, block)
				return string(buf[:n]), err
			}

			if s, err := read(bg, false); s != "" || err != EAGAIN {
				t.Fatalf("non-blocking Read of nothing = %q, %v; want EAGAIN", s, err)
			}
			checkState(t, in, "with nothing written", inputState{})

			// A reader that never answers must not hold a guest past its deadline.
			ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
			start := time.Now()
			s, err := read(ctx, true)
			cancel()
			if s != "" || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Read = %q, %v; want deadline exceeded", s, err)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatal("Read waited far past its deadline")
			}
			ctx, cancel = context.WithCancel(bg)
			time.AfterFunc(10*time.Millisecond, cancel)
			if s, err := read(ctx, true); s != "" || !errors.Is(err, context.Canceled) {
				t.Fatalf("Read = %q, %v; want canceled", s, err)
			}

			ready := in.ReadyChan()
			select {
			case <-ready:
				t.Fatal("ReadyChan closed with nothing written")
			default:
			}
			p.Write([]byte("late"))
			select {
			case <-ready:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadyChan never closed")
			}
			checkState(t, in, "after a write", inputState{ready: true, buffered: 4})
			if s, err := read(bg, false); s != "late" || err != nil {
				t.Fatalf("Read after data = %q, %v", s, err)
			}

			// A blocked Read is woken by data.
			got := make(chan string, 1)
			go func() {
				s, err := read(bg, true)
				if err != nil {
					s = err.Error()
				}
				got <- s
			}()
			time.Sleep(10 * time.Millisecond)
			p.Write([]byte("wake"))
			select {
			case s := <-got:
				if s != "wake" {
					t.Fatalf("woken Read = %q", s)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("data did not wake the blocked Read")
			}

			// Partial reads, then the end, then the reader's error forever.
			p.Write([]byte("0123456789"))
			boom := errors.New("disk on fire")
			p.CloseWithError(boom)
			for i, want := range []string{"01234567", "89"} {
				if s, err := read(bg, true); s != want || err != nil {
					t.Fatalf("read %d = %q, %v; want %q", i, s, err, want)
				}
			}
			for _, block := range []bool{true, false, true} {
				if s, err := read(bg, block); s != "" || err != boom {
					t.Fatalf("Read at the end = %q, %v; want %v", s, err, boom)
				}
			}
			checkState(t, in, "at the end", inputState{ready: true, atEOF: true})

			checkPath(t, in, path.direct)
			if err := in.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := read(bg, true); err != EBADF {
				t.Errorf("Read after Close = %v, want EBADF", err)
			}
			if !in.Ready() || in.Buffered() != 0 {
				t.Errorf("after Close: Ready %v, Buffered %d", in.Ready(), in.Buffered())
			}
			<-in.ReadyChan()
			if in.Close() != nil {
				t.Error("second Close failed")
			}
		})
	}
}

// Close wakes a Read waiting for data that never comes, and leaves what was written unread.
func TestInputCloseWakesWaiter(t *testing.T) {
	for _, path := range inputPaths {
		t.Run(path.name, func(t *testing.T) {
			p := &memPipe{}
			in := NewInput(path.wrap(p))
			done := make(chan error, 1)
			go func() {
				_, err := in.Read(context.Background(), make([]byte, 1), true)
				done <- err
			}()
			time.Sleep(10 * time.Millisecond)
			in.Close()
			select {
			case err := <-done:
				if err != EBADF {
					t.Errorf("woken Read = %v, want EBADF", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not wake the reader")
			}
			p.Write([]byte("x"))
			if _, err := in.Read(context.Background(), make([]byte, 1), true); err != EBADF {
				t.Errorf("Read after Close and a write = %v, want EBADF", err)
			}
			p.CloseWithError(io.EOF) // lets the goroutine path's pump go
		})
	}
}

type errReader struct{ calls int }

func (r *errReader) Read(p []byte) (int, error) {
	r.calls++
	if r.calls == 1 {
		return copy(p, "ab"), errors.New("disk on fire")
	}
	return 0, nil
}

// pollFunc is a PollableReader that TryReads with a function and is always ready.
type pollFunc func([]byte) (int, error)

func (f pollFunc) Read(p []byte) (int, error)    { return f(p) }
func (f pollFunc) TryRead(p []byte) (int, error) { return f(p) }
func (pollFunc) Buffered() int                   { return 0 }
func (pollFunc) ReadyChan() <-chan struct{}      { return closedChan }

// Faulty readers end the stream with an error instead of spinning or crashing, on both paths.
func TestInputErrors(t *testing.T) {
	type reader func([]byte) (int, error)
	tests := []struct {
		name  string
		r     func() reader
		first string // what the first Read returns before the error
		err   error
	}{
		{"data with an error", func() reader { return (&errReader{}).Read }, "ab", errors.New("disk on fire")},
		{"no progress", func() reader { return func([]byte) (int, error) { return 0, nil } }, "", io.ErrNoProgress},
		{"count too large", func() reader { return func(p []byte) (int, error) { return len(p) + 1, nil } }, "", errInvalidRead},
		{"negative count", func() reader { return func([]byte) (int, error) { return -1, nil } }, "", errInvalidRead},
	}
	for _, tt := range tests {
		for _, direct := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/direct=%v", tt.name, direct), func(t *testing.T) {
				ctx := context.Background()
				var r io.Reader = readerFunc(tt.r())
				if direct {
					r = pollFunc(tt.r())
				}
				in := NewInput(r)
				defer in.Close()
				buf := make([]byte, 8)
				if tt.first != "" {
					if n, err := in.Read(ctx, buf, true); string(buf[:n]) != tt.first || err != nil {
						t.Fatalf("first Read = %q, %v", buf[:n], err)
					}
				}
				for range 2 {
					if n, err := in.Read(ctx, buf, true); n != 0 || err == nil || err.Error() != tt.err.Error() {
						t.Fatalf("Read = %d, %v; want %v", n, err, tt.err)
					}
				}
				if !in.AtEOF() {
					t.Error("AtEOF false after the error")
				}
				checkPath(t, in, direct)
			})
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// Readers, writers and pollers at once, on both paths: every byte arrives exactly once.
func TestInputConcurrent(t *testing.T) {
	const total, readers = 1 << 16, 4
	for _, path := range inputPaths {
		t.Run(path.name, func(t *testing.T) {
			p := &memPipe{}
			in := NewInput(path.wrap(p))
			defer in.Close()
			var counts [readers][256]int
			var wg sync.WaitGroup
			for r := range readers {
				wg.Go(func() {
					buf := make([]byte, 1+r*97)
					for {
						n, err := in.Read(context.Background(), buf, r%2 == 0)
						for _, b := range buf[:n] {
							counts[r][b]++
						}
						switch {
						case err == io.EOF:
							return
						case err == EAGAIN:
							<-in.ReadyChan()
						case err != nil:
							t.Errorf("reader %d: %v", r, err)
							return
						}
					}
				})
			}
			stop := make(chan struct{})
			var pollers sync.WaitGroup
			pollers.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					in.Ready()
					if in.Buffered() < 0 {
						t.Error("negative Buffered")
					}
					in.AtEOF()
				}
			})
			want := [256]int{}
			for i := 0; i < total; {
				n := min(1+i%1000, total-i)
				chunk := make([]byte, n)
				for j := range chunk {
					chunk[j] = byte(i + j)
					want[byte(i+j)]++
				}
				p.Write(chunk)
				i += n
			}
			p.CloseWithError(io.EOF)
			wg.Wait()
			close(stop)
			pollers.Wait()
			var got [256]int
			for r := range readers {
				for b, c := range counts[r] {
					got[b] += c
				}
			}
			if got != want {
				t.Fatal("the readers between them did not read every byte exactly once")
			}
			checkPath(t, in, path.direct)
		})
	}
}

// Any interleaving of writes, reads of any size (waiting or not) and polls through the direct
// path delivers exactly the bytes written, in order, and Ready, Buffered and AtEOF agree with
// what is left.
func TestInputDirectDeliversInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := &memPipe{}
		in := NewInput(p)
		defer in.Close()
		ctx := context.Background()
		var wrote, read, pending []byte
		ended := false
		readInto := func(size int, block bool) {
			buf := make([]byte, size)
			n, err := in.Read(ctx, buf, block)
			switch {
			case size == 0:
				if n != 0 || err != nil {
					t.Fatalf("empty Read = %d, %v", n, err)
				}
			case len(pending) > 0:
				if want := min(size, len(pending)); n != want || err != nil || !bytes.Equal(buf[:n], pending[:n]) {
					t.Fatalf("Read(%d) = %q, %v; want %q", size, buf[:n], err, pending[:want])
				}
			case ended:
				if n != 0 || err != io.EOF {
					t.Fatalf("Read at the end = %d, %v", n, err)
				}
			default:
				if n != 0 || err != EAGAIN {
					t.Fatalf("Read of nothing = %d, %v; want EAGAIN", n, err)
				}
			}
			read = append(read, buf[:n]...)
			pending = pending[n:]
		}
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for range steps {
			switch op := rapid.IntRange(0, 4).Draw(t, "op"); {
			case op == 0 && !ended:
				b := rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "write")
				p.Write(b)
				wrote = append(wrote, b...)
				pending = append(pending, b...)
			case op == 1:
				block := len(pending) > 0 || ended // a wait with no writer would never end
				readInto(rapid.IntRange(0, 50).Draw(t, "size"), block && rapid.Bool().Draw(t, "block"))
			case op == 2 && !ended && len(pending) == 0:
				// A waiting Read woken by a writer on another goroutine.
				b := rapid.SliceOfN(rapid.Byte(), 1, 40).Draw(t, "late write")
				size := rapid.IntRange(1, 50).Draw(t, "size")
				done := make(chan struct{})
				buf := make([]byte, size)
				var n int
				var err error
				go func() {
					defer close(done)
					n, err = in.Read(ctx, buf, true)
				}()
				p.Write(b)
				<-done
				want := min(size, len(b))
				if n != want || err != nil || !bytes.Equal(buf[:n], b[:n]) {
					t.Fatalf("woken Read(%d) = %q, %v; want %q", size, buf[:n], err, b[:want])
				}
				wrote = append(wrote, b...)
				read = append(read, b[:n]...)
				pending = append(pending, b[n:]...)
			case op == 3 && rapid.IntRange(0, 9).Draw(t, "end?") == 0:
				p.CloseWithError(io.EOF)
				ended = true
			default:
				want := inputState{ready: len(pending) > 0 || ended, atEOF: ended && len(pending) == 0, buffered: len(pending)}
				if got := stateOf(t, in, want); got != want {
					t.Fatalf("state %+v, want %+v", got, want)
				}
			}
		}
		p.CloseWithError(io.EOF)
		ended = true
		for len(pending) > 0 {
			readInto(rapid.IntRange(1, 50).Draw(t, "drain"), true)
		}
		readInto(1, true)
		if !bytes.Equal(read, wrote) {
			t.Fatalf("read %q, wrote %q", read, wrote)
		}
	})
}

func TestFakeClock(t *testing.T) {
	start := time.Unix(1000, 0)
	c := NewFakeClock(start, time.Millisecond)
	if got := c.Now(); !got.Equal(start) {
		t.Errorf("Now = %v", got)
	}
	if got := c.Monotonic(); got != time.Millisecond {
		t.Errorf("Monotonic = %v", got)
	}
	<-c.After(time.Second)
	if got := c.Monotonic(); got != 2*time.Millisecond+time.Second {
		t.Errorf("Monotonic after sleep = %v", got)
	}
	c.Advance(time.Hour)
	if got := c.Now(); !got.Equal(start.Add(time.Hour + time.Second + 3*time.Millisecond)) {
		t.Errorf("Now after Advance = %v", got)
	}
	if c.Resolution() != time.Nanosecond {
		t.Error("resolution")
	}
	s := SystemClock()
	m1 := s.Monotonic()
	<-s.After(time.Millisecond)
	if m2 := s.Monotonic(); m2 < m1+time.Millisecond {
		t.Errorf("system monotonic %v then %v", m1, m2)
	}
	if d := time.Since(s.Now()); d < 0 || d > time.Minute {
		t.Errorf("system Now off by %v", d)
	}
}
