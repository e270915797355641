package engine

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

type frameKey struct{}

// The frame context must behave as context.WithTimeout did, although it makes its timer only
// when a host function asks for Done.
func TestFrameContext(t *testing.T) {
	s := &Store{limits: DefaultLimits()}
	s.limits.Deadline = 20 * time.Millisecond
	tests := []struct {
		name    string
		parent  func() (context.Context, context.CancelFunc)
		useDone bool // touch Done before the end, as a blocking host function does
		wait    time.Duration
		want    error
	}{
		{"in time", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, false, 0, nil},
		{"in time, Done made", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, true, 0, nil},
		{"store deadline", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, false, 40 * time.Millisecond, context.DeadlineExceeded},
		{"store deadline, Done made", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, true, 40 * time.Millisecond, context.DeadlineExceeded},
		{"earlier parent deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Millisecond)
		}, false, 10 * time.Millisecond, context.DeadlineExceeded},
		{"parent canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, false, 0, context.Canceled},
		{"parent canceled, Done made", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, true, 0, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancel := tc.parent()
			defer cancel()
			parent = context.WithValue(parent, frameKey{}, "v")
			fc := newFrameContext(parent, s)
			defer fc.release()
			if d, ok := fc.Deadline(); !ok || d.After(time.Now().Add(s.limits.Deadline)) {
				t.Fatalf("Deadline = %v, %v", d, ok)
			}
			if fc.Value(storeKey{}) != s || fc.Value(frameKey{}) != "v" {
				t.Fatal("Value lost the store or the parent's value")
			}
			if tc.useDone {
				_ = fc.Done()
			}
			time.Sleep(tc.wait)
			err := fc.Err()
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Err = %v, want %v", err, tc.want)
			}
			// Err and Done agree: once Err is set, Done is closed, and a child sees the end too.
			child, ccancel := context.WithCancel(fc)
			defer ccancel()
			select {
			case <-fc.Done():
				if err == nil {
					t.Fatal("Done closed but Err is nil")
				}
				if child.Err() == nil {
					t.Fatal("child not canceled with its parent")
				}
			default:
				if err != nil {
					t.Fatal("Err set but Done open")
				}
			}
			if fc.Value(frameKey{}) != "v" || fc.Value(storeKey{}) != s {
				t.Fatal("Value changed once the timer exists")
			}
		})
	}
}

// A blocking host function wakes at the deadline, and a child context made from the frame (as
// net/http makes one) ends with it.
func TestFrameContextWakesWaiter(t *testing.T) {
	s := &Store{limits: DefaultLimits()}
	s.limits.Deadline = 10 * time.Millisecond
	fc := newFrameContext(context.Background(), s)
	defer fc.release()
	child, cancel := context.WithCancel(fc)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("child of the frame context did not end at the deadline")
	}
	if !errors.Is(fc.expired(), context.DeadlineExceeded) {
		t.Fatalf("expired = %v", fc.expired())
	}
}

// A context a host function kept ends with its call, as a WithTimeout context canceled on
// return would, and stays ended through later calls of the store; a call no host function saw
// leaves its frame for the next call to reuse.
func TestFrameKeptByHostEnds(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	var kept []context.Context
	host := &HostModule{Name: "host", Funcs: []HostFunc{
		{Name: "block", Fn: func(ctx context.Context, c *Caller, stack []uint64) { kept = append(kept, ctx) }},
		{Name: "fail", Fn: func(ctx context.Context, c *Caller, stack []uint64) {
			kept = append(kept, ctx)
			<-ctx.Done() // made the timer; must not be reused either
		}},
		{Name: "exit", Params: []ValueType{I32}, Fn: func(ctx context.Context, c *Caller, stack []uint64) {}},
	}}
	load := func(name string) *Module {
		b, err := os.ReadFile("testdata/" + name + ".wasm")
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Compile(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	lim := DefaultLimits()
	lim.Deadline = 50 * time.Millisecond
	s, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	hc, err := s.Instantiate(ctx, load("hostcall"), Imports{"host": host})
	if err != nil {
		t.Fatal(err)
	}
	fib, err := s.Instantiate(ctx, load("fib"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Call(ctx, "block"); err != nil {
		t.Fatal(err)
	}
	if s.spareFrame != nil {
		t.Fatal("a frame a host function saw was kept for reuse")
	}
	if _, err := fib.Call(ctx, "fib", 10); err != nil {
		t.Fatal(err)
	}
	spare := s.spareFrame
	if spare == nil {
		t.Fatal("a call without host functions left no frame to reuse")
	}
	if _, err := fib.Call(ctx, "fib", 10); err != nil || s.spareFrame != spare {
		t.Fatalf("the next call did not reuse the frame: %v", err)
	}
	for _, k := range kept {
		if k == context.Context(spare) {
			t.Fatal("a kept context was reused")
		}
		if !errors.Is(k.Err(), context.Canceled) {
			t.Fatalf("kept context: Err = %v after its call, want Canceled", k.Err())
		}
		select {
		case <-k.Done():
		default:
			t.Fatal("kept context: Done open after its call")
		}
		if k.Value(storeKey{}) != s {
			t.Fatal("kept context lost its store")
		}
	}
	// A host function that waited on Done: its call traps at the deadline, and its frame too stays
	// ended.
	if _, err := hc.Call(ctx, "fail"); err == nil {
		t.Fatal("blocked host call returned without a trap")
	}
	if k := kept[len(kept)-1]; !errors.Is(k.Err(), context.DeadlineExceeded) {
		t.Fatalf("waited context: Err = %v", k.Err())
	}
}

// TestRefuelSlices checks the slices the refuel hook hands out: fuelSlice while the deadline is
// far, fuelSliceNear once it is near.
func TestRefuelSlices(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	refuel := func(deadline time.Duration) (counter uint64, expired bool) {
		lim := DefaultLimits()
		lim.Deadline = deadline
		s, err := e.NewStore(ctx, lim)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(ctx)
		fc := newFrameContext(ctx, s)
		defer fc.release()
		defer func() {
			if r := recover(); r != nil {
				if tr, ok := r.(*Trap); !ok || tr.Kind != TrapDeadlineExceeded {
					panic(r)
				}
				expired = true // a loaded machine let the deadline pass first: try again
			}
		}()
		s.fuel.Set(^uint64(0)) // -1, as a check finds it
		s.refuel(fc)
		return s.fuel.Get(), false
	}
	if got, _ := refuel(time.Minute); got != fuelSlice-1 {
		t.Errorf("far from the deadline: counter %d, want %d", got, fuelSlice-1)
	}
	for i := 0; ; i++ {
		got, expired := refuel(nearDeadline - nearDeadline/20)
		if expired && i < 20 {
			continue
		}
		if got != fuelSliceNear-1 {
			t.Errorf("near the deadline: counter %d (expired %v), want %d", got, expired, fuelSliceNear-1)
		}
		break
	}
}
