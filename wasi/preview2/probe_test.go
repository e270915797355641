package preview2_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/bindings"
)

// probe instantiates testdata/probe.wasm against a Host built from cfg, in a store with limits.
func probe(t *testing.T, cfg preview2.Config, limits engine.Limits) (*component.Instance, *preview2.Host) {
	t.Helper()
	ctx := context.Background()
	e := newEngine(t)
	cc, err := component.Compile(ctx, e, readFixture(t, "testdata/probe.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	h, err := preview2.Bind(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		t.Fatal(err)
	}
	return in, h
}

func TestExit(t *testing.T) {
	tests := []struct {
		call string
		args []abi.Value
		want uint32
	}{
		{"exit-ok", nil, 0},
		{"exit-err", nil, 1},
		{"exit-code", []abi.Value{abi.U8Value(0)}, 0},
		{"exit-code", []abi.Value{abi.U8Value(42)}, 42},
		{"exit-code", []abi.Value{abi.U8Value(255)}, 255},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			in, _ := probe(t, preview2.Config{}, engine.DefaultLimits())
			_, err := in.Call(context.Background(), tt.call, tt.args...)
			var ee *engine.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("%s: err %v, want an ExitError", tt.call, err)
			}
			if ee.Code != tt.want {
				t.Fatalf("%s: exit code %d, want %d", tt.call, ee.Code, tt.want)
			}
		})
	}
}

// blockingReader never returns from Read until released: a stdin that has no data yet.
type blockingReader struct{ release chan struct{} }

func (r blockingReader) Read([]byte) (int, error) { <-r.release; return 0, io.EOF }

func TestReadStdin(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		len   uint64
		want  uint32
	}{
		{"data", "hello", 100, 5},
		{"short", "hello", 2, 2},
		{"zero length", "hello", 0, 0},
		{"huge length is capped, not allocated", "abc", 1 << 62, 3},
		{"closed at end", "", 100, 1001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := probe(t, preview2.Config{Stdin: strings.NewReader(tt.stdin)}, engine.DefaultLimits())
			res, err := in.Call(context.Background(), "read-stdin", abi.U64Value(tt.len))
			if err != nil {
				t.Fatal(err)
			}
			if got := uint32(res[0].Uint()); got != tt.want {
				t.Fatalf("read-stdin(%d) = %d, want %d", tt.len, got, tt.want)
			}
		})
	}
}

// The store's deadline interrupts blocking-read and pollable.block: the guest traps with the
// deadline error instead of hanging.
func TestDeadlineInterruptsBlocking(t *testing.T) {
	limits := engine.DefaultLimits()
	limits.Deadline = 50 * time.Millisecond
	tests := []struct {
		call string
		arg  abi.Value
	}{
		{"read-stdin", abi.U64Value(10)},
		{"sleep", abi.U64Value(uint64(time.Hour))},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			r := blockingReader{release: make(chan struct{})}
			defer close(r.release)
			in, _ := probe(t, preview2.Config{Stdin: r}, limits)
			done := make(chan error, 1)
			go func() {
				_, err := in.Call(context.Background(), tt.call, tt.arg)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, engine.ErrDeadlineExceeded) {
					t.Fatalf("err = %v, want the deadline", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the deadline did not interrupt the call")
			}
		})
	}
}

// A sleep waits on the guest's clock: a fake clock jumps forward to the wake-up time, the
// system clock takes at least that long.
func TestSleep(t *testing.T) {
	fake := wasi.NewFakeClock(time.Unix(0, 0), 0)
	tests := []struct {
		name  string
		clock wasi.Clock
		d     time.Duration
	}{
		{"fake clock", fake, time.Hour},
		{"system clock", nil, 20 * time.Millisecond},
		{"zero", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := probe(t, preview2.Config{Clock: tt.clock}, engine.DefaultLimits())
			start := time.Now()
			if _, err := in.Call(context.Background(), "sleep", abi.U64Value(uint64(tt.d))); err != nil {
				t.Fatal(err)
			}
			if tt.clock != nil {
				if got := fake.Monotonic(); got < tt.d {
					t.Fatalf("fake clock at %v after sleeping %v", got, tt.d)
				}
			} else if el := time.Since(start); el < tt.d {
				t.Fatalf("sleep(%v) returned after %v", tt.d, el)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		preopen  bool
		readOnly bool
		budget   int64
		n        uint32
		want     uint32
		wantSize int64
	}{
		{"no preopens unless configured", false, false, 0, 10, 200, -1},
		{"writes", true, false, 0, 100, 0, 100},
		{"budget exceeded is EDQUOT, nothing written", true, false, 50, 100, 300, 0},
		{"read-only preopen refuses", true, true, 0, 10, 100 + 31, -1}, // not-permitted
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := preview2.Config{WriteBudget: tt.budget}
			if tt.preopen {
				cfg.Preopens = []wasi.Preopen{{GuestPath: "/data", HostDir: dir, ReadOnly: tt.readOnly}}
			}
			in, h := probe(t, cfg, engine.DefaultLimits())
			res, err := in.Call(context.Background(), "write-file", abi.U32Value(tt.n))
			if err != nil {
				t.Fatal(err)
			}
			if got := uint32(res[0].Uint()); got != tt.want {
				t.Fatalf("write-file = %d, want %d", got, tt.want)
			}
			st, err := os.Stat(filepath.Join(dir, "out.txt"))
			switch {
			case tt.wantSize < 0 && err == nil:
				t.Fatalf("out.txt exists")
			case tt.wantSize >= 0 && err != nil:
				t.Fatal(err)
			case tt.wantSize >= 0 && st.Size() != tt.wantSize:
				t.Fatalf("out.txt has %d bytes, want %d", st.Size(), tt.wantSize)
			}
			if tt.want == 0 && h.Budget().Used() != int64(tt.n) {
				t.Fatalf("budget used %d, want %d", h.Budget().Used(), tt.n)
			}
		})
	}
}

// wasi:sockets is served with no network: create-tcp-socket (imported at 0.2.0 by the probe,
// served by the bindings generated from 0.2.12) answers access-denied, not a trap.
func TestSocketsAccessDenied(t *testing.T) {
	in, h := probe(t, preview2.Config{}, engine.DefaultLimits())
	before := h.Resources().Len()
	res, err := in.Call(context.Background(), "tcp-socket")
	if err != nil {
		t.Fatal(err)
	}
	const want = 100 + uint32(bindings.NetworkErrorCodeAccessDenied)
	if got := uint32(res[0].Uint()); got != want {
		t.Fatalf("tcp-socket = %d, want %d (100 + access-denied)", got, want)
	}
	if after := h.Resources().Len(); after != before {
		t.Fatalf("the refused socket left %d resources behind", after-before)
	}
}
