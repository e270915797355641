package preview2

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// flag is a Readiness another goroutine sets.
type flag struct {
	mu    sync.Mutex
	ready bool
	ch    chan struct{}
}

func newFlag() *flag { return &flag{ch: make(chan struct{})} }

func (f *flag) Ready() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready
}

func (f *flag) ReadyChan() <-chan struct{} { return f.ch }

func (f *flag) set() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ready {
		f.ready = true
		close(f.ch)
	}
}

// TestMintedStreams reads and polls streams and pollables made with the exported constructors
// and pushed into the Host's resource table, as wasi:http or zeroclaw would.
func TestMintedStreams(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, Config{})
	in, err := h.Resources().Push(NewReaderStream(strings.NewReader("body")))
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.read(ctx, in, 100, true)
	if err != nil || r.IsErr || string(r.Ok) != "body" {
		t.Fatalf("read = %+v, %v", r, err)
	}
	if r, _ := h.read(ctx, in, 100, true); !r.IsErr || !r.Err.Closed {
		t.Fatalf("read at the end = %+v, want closed", r)
	}
	var sb strings.Builder
	out, err := h.Resources().Push(NewOutputStream(&sb))
	if err != nil {
		t.Fatal(err)
	}
	if w, err := h.write(ctx, out, []byte("sent"), true); err != nil || w.IsErr || sb.String() != "sent" {
		t.Fatalf("write = %+v, %v; wrote %q", w, err, sb.String())
	}
	// poll waits on any number of sources: five flags, the fourth set later.
	flags := make([]*flag, 5)
	ps := make([]*Pollable, len(flags))
	for i := range flags {
		flags[i] = newFlag()
		ps[i] = NewPollable(flags[i])
	}
	ps = append(ps, &Pollable{timer: true, when: h.clock.Monotonic() + time.Hour})
	go func() {
		time.Sleep(10 * time.Millisecond)
		flags[3].set()
	}()
	ready, err := h.wait(ctx, ps)
	if err != nil || len(ready) != 1 || ready[0] != 3 {
		t.Fatalf("wait = %v, %v; want [3]", ready, err)
	}
	if err := drop[*InputStream](h, in); err != nil {
		t.Fatal(err)
	}
	if h.Resources().Len() != 1 {
		t.Fatalf("%d resources left, want 1", h.Resources().Len())
	}
}
