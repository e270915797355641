package preview1

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

type sub struct {
	userdata uint64
	tag      uint8
	clockID  uint32 // or fd
	timeout  uint64
	flags    uint16
}

const (
	subsAt   = 1000
	eventsAt = 20000
	neventAt = 900
)

func (r *raw) subs(ss ...sub) {
	for i, s := range ss {
		b := make([]byte, subscriptionSize)
		put64(b[0:], s.userdata)
		b[8] = s.tag
		put32(b[16:], s.clockID)
		put64(b[24:], s.timeout)
		put16(b[40:], s.flags)
		r.write(subsAt+uint32(i)*subscriptionSize, b)
	}
}

type event struct {
	userdata uint64
	errno    wasi.Errno
	tag      uint8
	nbytes   uint64
	flags    uint16
}

func (r *raw) poll(n int) ([]event, wasi.Errno) {
	r.t.Helper()
	r.write(eventsAt, make([]byte, n*eventSize))
	e := r.call("poll_oneoff", subsAt, eventsAt, uint64(n), neventAt)
	if e != 0 {
		return nil, e
	}
	var evs []event
	for i := range r.u32(neventAt) {
		b := r.read(eventsAt+i*eventSize, eventSize)
		evs = append(evs, event{le64(b), wasi.Errno(uint16(b[8]) | uint16(b[9])<<8), b[10], le64(b[16:]), uint16(b[24]) | uint16(b[25])<<8})
	}
	return evs, 0
}

func TestPollClocks(t *testing.T) {
	clk := wasi.NewFakeClock(time.Unix(1_700_000_000, 0), 0)
	r := newRaw(t, Config{Clock: clk})
	ms := uint64(time.Millisecond)
	tests := []struct {
		name    string
		subs    []sub
		want    []event
		elapsed time.Duration // fake time the call must take
	}{
		{"relative", []sub{{userdata: 1, tag: eventtypeClock, clockID: clockMonotonic, timeout: 10 * ms}},
			[]event{{userdata: 1, tag: eventtypeClock}}, 10 * time.Millisecond},
		{"earliest of two", []sub{
			{userdata: 1, tag: eventtypeClock, clockID: clockMonotonic, timeout: 30 * ms},
			{userdata: 2, tag: eventtypeClock, clockID: clockRealtime, timeout: 20 * ms}},
			[]event{{userdata: 2, tag: eventtypeClock}}, 20 * time.Millisecond},
		{"absolute in the past", []sub{{userdata: 3, tag: eventtypeClock, clockID: clockMonotonic, timeout: 1, flags: subclockAbstime}},
			[]event{{userdata: 3, tag: eventtypeClock}}, 0},
		{"absolute realtime", []sub{{userdata: 4, tag: eventtypeClock, clockID: clockRealtime, flags: subclockAbstime,
			timeout: uint64(time.Unix(1_700_000_000, 0).Add(time.Hour).UnixNano())}},
			[]event{{userdata: 4, tag: eventtypeClock}}, 0}, // elapsed checked below: an hour minus the time already passed
		{"zero timeout", []sub{{userdata: 5, tag: eventtypeClock, clockID: clockMonotonic}},
			[]event{{userdata: 5, tag: eventtypeClock}}, 0},
		{"bad clock is an event error", []sub{
			{userdata: 6, tag: eventtypeClock, clockID: 9, timeout: 10 * ms},
			{userdata: 7, tag: eventtypeClock, clockID: clockMonotonic, timeout: 10 * ms}},
			[]event{{userdata: 6, tag: eventtypeClock, errno: wasi.EINVAL}}, 0},
		{"stdout is ready at once", []sub{
			{userdata: 8, tag: eventtypeClock, clockID: clockMonotonic, timeout: 10 * ms},
			{userdata: 9, tag: eventtypeFdWrite, clockID: 1}},
			[]event{{userdata: 9, tag: eventtypeFdWrite}}, 0},
		{"bad fd is an event error", []sub{{userdata: 10, tag: eventtypeFdRead, clockID: 77}},
			[]event{{userdata: 10, tag: eventtypeFdRead, errno: wasi.EBADF}}, 0},
		{"read from stdout", []sub{{userdata: 11, tag: eventtypeFdRead, clockID: 1}},
			[]event{{userdata: 11, tag: eventtypeFdRead, errno: wasi.EBADF}}, 0},
		{"write to stdin", []sub{{userdata: 12, tag: eventtypeFdWrite, clockID: 0}},
			[]event{{userdata: 12, tag: eventtypeFdWrite, errno: wasi.EBADF}}, 0},
	}
	for _, tt := range tests {
		r.subs(tt.subs...)
		before := clk.Monotonic()
		evs, e := r.poll(len(tt.subs))
		if e != 0 {
			t.Errorf("%s: %v", tt.name, e)
			continue
		}
		if len(evs) != len(tt.want) {
			t.Errorf("%s: events %+v, want %+v", tt.name, evs, tt.want)
			continue
		}
		for i := range evs {
			if evs[i] != tt.want[i] {
				t.Errorf("%s: event %d = %+v, want %+v", tt.name, i, evs[i], tt.want[i])
			}
		}
		if el := clk.Monotonic() - before; tt.name != "absolute realtime" && el != tt.elapsed {
			t.Errorf("%s: took %v of fake time, want %v", tt.name, el, tt.elapsed)
		}
	}
	if now := clk.Now(); now.Before(time.Unix(1_700_000_000, 0).Add(time.Hour)) {
		t.Errorf("absolute realtime wait ended early: %v", now)
	}
}

func TestPollFds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("0123456789"), 0o644)
	r := newRaw(t, Config{Stdin: strings.NewReader("input"), Preopens: []wasi.Preopen{{GuestPath: "/d", HostDir: dir}}})
	fd := r.openFile(3, "f", 0, rightsRead, 0)
	r.call("fd_seek", uint64(fd), 4, 0, 200)
	r.subs(sub{userdata: 1, tag: eventtypeFdRead, clockID: fd})
	if evs, e := r.poll(1); e != 0 || len(evs) != 1 || evs[0].nbytes != 6 || evs[0].errno != 0 {
		t.Errorf("file read readiness: %+v %v", evs, e)
	}
	// stdin becomes ready once its data has arrived.
	r.subs(sub{userdata: 2, tag: eventtypeFdRead, clockID: 0})
	if evs, e := r.poll(1); e != 0 || len(evs) != 1 || evs[0].userdata != 2 || evs[0].nbytes != 5 {
		t.Errorf("stdin readiness: %+v %v", evs, e)
	}
	r.iovecs(100, [2]uint32{3000, 16})
	r.call("fd_read", 0, 100, 1, 200)
	if evs, e := r.poll(1); e != 0 || len(evs) != 1 || evs[0].flags != eventHangup {
		t.Errorf("stdin at EOF: %+v %v", evs, e)
	}
	r.subs(sub{userdata: 3, tag: eventtypeFdRead, clockID: 3})
	if evs, e := r.poll(1); e != 0 || len(evs) != 1 || evs[0].errno != 0 {
		t.Errorf("directory readiness: %+v %v", evs, e)
	}
}

// stdin that has no data does not end the wait; the clock does.
func TestPollStdinWaitsForClock(t *testing.T) {
	inR, inW := newPipe()
	defer inW.Close()
	r := newRaw(t, Config{Stdin: inR})
	r.subs(sub{userdata: 1, tag: eventtypeFdRead, clockID: 0},
		sub{userdata: 2, tag: eventtypeClock, clockID: clockMonotonic, timeout: uint64(20 * time.Millisecond)})
	start := time.Now()
	evs, e := r.poll(2)
	if e != 0 || len(evs) != 1 || evs[0].userdata != 2 {
		t.Fatalf("events %+v %v", evs, e)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("returned after %v", el)
	}
	go inW.Write([]byte("x"))
	r.subs(sub{userdata: 1, tag: eventtypeFdRead, clockID: 0},
		sub{userdata: 2, tag: eventtypeClock, clockID: clockMonotonic, timeout: uint64(time.Hour)})
	evs, e = r.poll(2)
	if e != 0 || len(evs) != 1 || evs[0].userdata != 1 || evs[0].nbytes != 1 {
		t.Fatalf("events after data %+v %v", evs, e)
	}
}

// A long sleep ends with the call's deadline, not after it.
func TestPollDeadline(t *testing.T) {
	lim := engine.DefaultLimits()
	lim.Deadline = 50 * time.Millisecond
	r := newRawLimits(t, Config{}, lim)
	r.subs(sub{userdata: 1, tag: eventtypeClock, clockID: clockMonotonic, timeout: uint64(time.Hour)})
	start := time.Now()
	err := r.callErr(context.Background(), "poll_oneoff", subsAt, eventsAt, 1, neventAt)
	if !errors.Is(err, engine.ErrDeadlineExceeded) {
		t.Errorf("hour-long poll: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v", el)
	}
}

func TestPoll_Errors(t *testing.T) {
	r := newRaw(t, Config{})
	r.subs(sub{userdata: 1, tag: eventtypeClock, clockID: clockMonotonic})
	tests := []struct {
		name string
		args []uint64
		err  wasi.Errno
	}{
		{"no subscriptions", []uint64{subsAt, eventsAt, 0, neventAt}, wasi.EINVAL},
		{"too many", []uint64{subsAt, eventsAt, MaxSubscriptions + 1, neventAt}, wasi.EINVAL},
		{"subscriptions out of memory", []uint64{memSize - 47, eventsAt, 1, neventAt}, wasi.EFAULT},
		{"events out of memory", []uint64{subsAt, memSize - 31, 1, neventAt}, wasi.EFAULT},
		{"count out of memory", []uint64{subsAt, eventsAt, 1, memSize - 3}, wasi.EFAULT},
		{"many subscriptions past memory", []uint64{subsAt, eventsAt, MaxSubscriptions, neventAt}, wasi.EFAULT},
	}
	for _, tt := range tests {
		if e := r.call("poll_oneoff", tt.args...); e != tt.err {
			t.Errorf("%s: %v, want %v", tt.name, e, tt.err)
		}
	}
	r.subs(sub{userdata: 1, tag: 3})
	if e := r.call("poll_oneoff", subsAt, eventsAt, 1, neventAt); e != wasi.EINVAL {
		t.Errorf("unknown tag: %v", e)
	}
	// Overlapping input and output still report the subscription's userdata.
	r.subs(sub{userdata: 0xABCDEF, tag: eventtypeClock, clockID: clockMonotonic})
	if e := r.call("poll_oneoff", subsAt, subsAt, 1, neventAt); e != 0 || r.u64(subsAt) != 0xABCDEF {
		t.Errorf("overlapping buffers: %v, userdata %#x", e, r.u64(subsAt))
	}
}
