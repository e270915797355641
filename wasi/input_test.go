package wasi

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestInputRead(t *testing.T) {
	ctx := context.Background()
	in := NewInput(strings.NewReader("hello world"))
	defer in.Close()
	buf := make([]byte, 5)
	steps := []struct {
		block bool
		want  string
		err   error
	}{
		{true, "hello", nil},
		{false, " worl", nil}, // buffered: no wait needed
		{false, "d", nil},
		{true, "", io.EOF},
		{false, "", io.EOF}, // sticky
	}
	for i, s := range steps {
		n, err := in.Read(ctx, buf, s.block)
		if string(buf[:n]) != s.want || err != s.err {
			t.Fatalf("step %d: Read = %q, %v; want %q, %v", i, buf[:n], err, s.want, s.err)
		}
	}
	if !in.AtEOF() || !in.Ready() {
		t.Error("AtEOF/Ready false at end of stream")
	}
}

func TestInputNil(t *testing.T) {
	in := NewInput(nil)
	if n, err := in.Read(context.Background(), make([]byte, 1), true); n != 0 || err != io.EOF {
		t.Errorf("Read(nil reader) = %d, %v", n, err)
	}
}

// A reader that never answers must not hold a guest past its deadline.
func TestInputBlockedHonoursContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	in := NewInput(pr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, err := in.Read(ctx, make([]byte, 4), true)
	if n != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read = %d, %v; want deadline exceeded", n, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("Read waited far past its deadline")
	}
	// Non-blocking reads see no data yet.
	if _, err := in.Read(context.Background(), make([]byte, 4), false); err != EAGAIN {
		t.Fatalf("non-blocking Read = %v, want EAGAIN", err)
	}
	if in.Ready() {
		t.Fatal("Ready with nothing written")
	}
	ready := in.ReadyChan()
	go pw.Write([]byte("late"))
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		t.Fatal("ReadyChan never closed")
	}
	buf := make([]byte, 8)
	if n, err := in.Read(context.Background(), buf, false); string(buf[:n]) != "late" || err != nil {
		t.Fatalf("Read after data = %q, %v", buf[:n], err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Read(context.Background(), buf, true); err != EBADF {
		t.Errorf("Read after Close = %v, want EBADF", err)
	}
	if in.Close() != nil {
		t.Error("second Close failed")
	}
}

// Close wakes a reader waiting on a stuck Read.
func TestInputCloseWakesWaiter(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	in := NewInput(pr)
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
}

type errReader struct{ calls int }

func (r *errReader) Read(p []byte) (int, error) {
	r.calls++
	if r.calls == 1 {
		return copy(p, "ab"), errors.New("disk on fire")
	}
	return 0, nil
}

func TestInputErrors(t *testing.T) {
	ctx := context.Background()
	in := NewInput(&errReader{})
	defer in.Close()
	buf := make([]byte, 8)
	if n, err := in.Read(ctx, buf, true); string(buf[:n]) != "ab" || err != nil {
		t.Fatalf("first Read = %q, %v", buf[:n], err)
	}
	if _, err := in.Read(ctx, buf, true); err == nil || err.Error() != "disk on fire" {
		t.Fatalf("second Read = %v", err)
	}
	// A reader that only ever returns 0, nil is given up on.
	stuck := NewInput(readerFunc(func([]byte) (int, error) { return 0, nil }))
	defer stuck.Close()
	if _, err := stuck.Read(ctx, buf, true); err != io.ErrNoProgress {
		t.Fatalf("Read of a no-progress reader = %v", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

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
