package preview2

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/wasi"
)

func newTestHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	h, err := NewHost(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestNewHostConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"env without =", Config{Env: []string{"HOME"}}, "KEY=VALUE"},
		{"env not UTF-8", Config{Env: []string{"A=\xff"}}, "KEY=VALUE"},
		{"arg not UTF-8", Config{Args: []string{"\xff"}}, "argument 0"},
		{"negative MaxResources", Config{MaxHandles: -1}, "MaxResources"},
		{"negative budget", Config{WriteBudget: -1}, "invalid configuration"},
		{"preopen with two sources", Config{Preopens: []wasi.Preopen{{GuestPath: "/a", HostDir: ".", FS: fstest.MapFS{}}}}, "exactly one"},
		{"preopen without source", Config{Preopens: []wasi.Preopen{{GuestPath: "/a"}}}, "exactly one"},
		{"preopen without name", Config{Preopens: []wasi.Preopen{{FS: fstest.MapFS{}}}}, "guest path"},
		{"preopen missing dir", Config{Preopens: []wasi.Preopen{{GuestPath: "/a", HostDir: "/does/not/exist"}}}, "preopen 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHost(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// A write must fit the permit of the last check-write (WASI 0.2 makes anything else a trap),
// and blocking-write-and-flush takes at most 4096 bytes.
func TestWritePermit(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		check    bool
		writes   []int
		blocking bool
		wantErr  error
		wantOut  int
	}{
		{"without check-write", false, []int{1}, false, ErrPermit, 0},
		{"empty write needs no permit", false, []int{0}, false, nil, 0},
		{"within permit", true, []int{WritePermit}, false, nil, WritePermit},
		{"permit is used up", true, []int{WritePermit, 1}, false, ErrPermit, WritePermit},
		{"over permit", true, []int{WritePermit + 1}, false, ErrPermit, 0},
		{"blocking 4096", false, []int{4096, 4096}, true, nil, 8192},
		{"blocking 4097", false, []int{4097}, true, errors.New("more than 4096"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			h := newTestHost(t, Config{Stdout: &out})
			rep, err := h.add(&OutputStream{w: h.stdout})
			if err != nil {
				t.Fatal(err)
			}
			if tt.check {
				if r, err := h.checkWrite(rep); err != nil || r.IsErr || r.Ok != WritePermit {
					t.Fatalf("check-write = %+v, %v", r, err)
				}
			}
			for _, n := range tt.writes {
				_, err = h.write(ctx, rep, make([]byte, n), tt.blocking)
				if err != nil {
					break
				}
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != nil && err == nil:
				t.Fatalf("no error, want %v", tt.wantErr)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr) && !strings.Contains(err.Error(), tt.wantErr.Error()):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if out.Len() != tt.wantOut {
				t.Fatalf("wrote %d bytes, want %d", out.Len(), tt.wantOut)
			}
		})
	}
}

// A file write past the budget fails with last-operation-failed, whose error maps to quota, and
// writes nothing; a read-only FS preopen cannot be written at all.
func TestFileStreamBudget(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, Config{WriteBudget: 10, Preopens: []wasi.Preopen{
		{GuestPath: "/rw", HostDir: t.TempDir()},
		{GuestPath: "/ro", FS: fstest.MapFS{"f.txt": {Data: []byte("data")}}},
	}})
	dirs, err := h.getDirectories()
	if err != nil || len(dirs) != 2 || dirs[0].Path != "/rw" || dirs[1].Path != "/ro" {
		t.Fatalf("get-directories = %v, %v", dirs, err)
	}
	f, err := h.openAt(lend(dirs[0].Desc), 0, "f", 1|8, flagWrite)
	if err != nil || f.IsErr {
		t.Fatalf("open-at = %+v, %v", f, err)
	}
	s, err := h.writeStream(lend(f.Ok), 0, false)
	if err != nil || s.IsErr {
		t.Fatalf("write-via-stream = %+v, %v", s, err)
	}
	h.checkWrite(s.Ok.Rep)
	if r, err := h.write(ctx, s.Ok.Rep, []byte("12345678"), false); err != nil || r.IsErr {
		t.Fatalf("write within budget = %+v, %v", r, err)
	}
	r, err := h.write(ctx, s.Ok.Rep, []byte("123"), false)
	if err != nil || !r.IsErr || r.Err.LastOperationFailed == nil {
		t.Fatalf("write past budget = %+v, %v; want last-operation-failed", r, err)
	}
	e, err := get[*ioError](h, r.Err.LastOperationFailed.Rep)
	if err != nil || toCode(e.err) != codeQuota {
		t.Fatalf("error %v maps to %d, want quota", e, toCode(e.err))
	}
	if h.budget.Used() != 8 {
		t.Fatalf("budget used %d, want 8", h.budget.Used())
	}

	// The read-only tree: no mutate-directory, so opening for writing is not-permitted; reading
	// works.
	if r, err := h.openAt(lend(dirs[1].Desc), 0, "f.txt", 0, flagWrite); err != nil || !r.IsErr || r.Err != codeNotPermitted {
		t.Fatalf("open-at for write in a read-only preopen = %+v, %v", r, err)
	}
	rf, err := h.openAt(lend(dirs[1].Desc), 0, "f.txt", 0, flagRead)
	if err != nil || rf.IsErr {
		t.Fatalf("open-at for read = %+v, %v", rf, err)
	}
	in, err := h.readStream(lend(rf.Ok), 1)
	if err != nil || in.IsErr {
		t.Fatalf("read-via-stream = %+v, %v", in, err)
	}
	got, err := h.read(ctx, in.Ok.Rep, 100, true)
	if err != nil || got.IsErr || string(got.Ok) != "ata" {
		t.Fatalf("read = %+v, %v", got, err)
	}
	if got, _ := h.read(ctx, in.Ok.Rep, 100, true); !got.IsErr || !got.Err.Closed {
		t.Fatalf("read at end = %+v, want closed", got)
	}
	// Escaping the preopen is not-permitted, as in preview 1.
	if r, _ := h.openAt(lend(dirs[0].Desc), 0, "../x", 0, flagRead); !r.IsErr || r.Err != codeNotPermitted {
		t.Fatalf("open-at ../x = %+v, want not-permitted", r)
	}
}

func TestResourceChecks(t *testing.T) {
	h := newTestHost(t, Config{MaxHandles: 2})
	a, err1 := h.newPollable(&Pollable{})
	_, err2 := h.newPollable(&Pollable{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := h.newPollable(&Pollable{}); !errors.Is(err, ErrTooManyResources) {
		t.Fatalf("third resource: %v, want ErrTooManyResources", err)
	}
	if _, err := get[*OutputStream](h, a); !errors.Is(err, ErrHandle) {
		t.Fatalf("pollable used as output-stream: %v, want ErrHandle", err)
	}
	if _, err := get[*Pollable](h, 999); !errors.Is(err, ErrHandle) {
		t.Fatalf("unknown rep: %v, want ErrHandle", err)
	}
	if err := drop[*Pollable](h, a); err != nil {
		t.Fatal(err)
	}
	if err := drop[*Pollable](h, a); !errors.Is(err, ErrHandle) {
		t.Fatalf("double drop: %v, want ErrHandle", err)
	}
	if _, err := h.newPollable(&Pollable{}); err != nil {
		t.Fatalf("after a drop: %v", err)
	}
}

func TestPoll(t *testing.T) {
	clock := wasi.NewFakeClock(time.Unix(0, 0), 0)
	h := newTestHost(t, Config{Clock: clock})
	later := &Pollable{timer: true, when: time.Hour}
	now := &Pollable{}
	ready, err := h.wait(context.Background(), []*Pollable{later, now, later})
	if err != nil || len(ready) != 1 || ready[0] != 1 {
		t.Fatalf("poll = %v, %v; want [1]", ready, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := blocked{make(chan struct{})}
	defer close(r.c)
	h2 := newTestHost(t, Config{Stdin: r})
	if _, err := h2.wait(ctx, []*Pollable{{src: h2.stdin}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("poll with an ended context: %v", err)
	}
}

type blocked struct{ c chan struct{} }

func (b blocked) Read([]byte) (int, error) { <-b.c; return 0, nil }

func TestRandom(t *testing.T) {
	h := newTestHost(t, Config{Random: bytes.NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9})})
	v, err := h.randomU64()
	if err != nil || v != 0x0807060504030201 {
		t.Fatalf("u64 = %#x, %v", v, err)
	}
	if _, err := h.randomBytes(2); err == nil {
		t.Fatal("a short source must fail, not return fewer bytes")
	}
	if _, err := h.randomBytes(MaxRandomBytes + 1); err == nil {
		t.Fatal("more than MaxRandomBytes must fail")
	}
}

func TestErrorCodes(t *testing.T) {
	tests := []struct {
		err  error
		want errorCode
	}{
		{wasi.EDQUOT, codeQuota},
		{wasi.ENOENT, codeNoEntry},
		{wasi.EPERM, codeNotPermitted},
		{wasi.EXDEV, codeCrossDevice},
		{wasi.EACCES, codeAccess},
		{wasi.ENOTSUP, codeUnsupported},
		{errors.New("other"), codeIO},
	}
	for _, tt := range tests {
		if got := toCode(tt.err); got != tt.want {
			t.Errorf("toCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// lend turns an own handle the test holds into a borrow of it for a call, as the component's
// handle table does when a guest passes a borrow of a handle it owns: the rep is the same.
func lend[R abi.Resource](o abi.Own[R]) abi.Borrow[R] { return abi.Borrow[R]{Rep: o.Rep} }
