package preview1

import (
	"context"
	"io"
	"math"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// MaxSubscriptions bounds the subscriptions of one poll_oneoff call; more is EINVAL.
const MaxSubscriptions = 4096

const (
	eventtypeClock   = 0
	eventtypeFdRead  = 1
	eventtypeFdWrite = 2

	subclockAbstime = 1
	eventHangup     = 1

	subscriptionSize = 48
	eventSize        = 32
)

type subscription struct {
	userdata uint64
	tag      uint8
	fd       uint32
	deadline time.Duration // on the Host's monotonic clock, for clock subscriptions
	ready    bool
	errno    wasi.Errno
	nbytes   uint64
	hangup   bool
	stdin    bool // waits for stdin
}

// poll_oneoff(in, out, nsubscriptions, nevents) waits until at least one subscription is ready
// and reports every ready one. Files, directories, stdout and stderr are always ready; stdin is
// ready when data or its end has arrived; clocks are ready at their deadline. The wait ends early
// when the call's context ends (EINTR; the engine then reports the deadline). With a fake clock
// (wasi.FakeClock) sleeps take no real time.
func pollOneoff(ctx context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	inPtr, outPtr, n, neventsPtr := u32(s[0]), u32(s[1]), u32(s[2]), u32(s[3])
	if n == 0 || n > MaxSubscriptions {
		return wasi.EINVAL
	}
	in, errno := g.array(inPtr, n, subscriptionSize)
	if errno != 0 {
		return errno
	}
	out, errno := g.array(outPtr, n, eventSize)
	if errno != 0 {
		return errno
	}
	if errno := g.check(neventsPtr, 4); errno != 0 {
		return errno
	}

	// Decode everything first: in and out may overlap.
	now := h.clock.Monotonic()
	subs := h.subs[:0]
	earliest := time.Duration(-1)
	ready, waitStdin := false, false
	for i := range n {
		b := in[i*subscriptionSize : (i+1)*subscriptionSize]
		sub := subscription{userdata: le64(b), tag: b[8]}
		switch sub.tag {
		case eventtypeClock:
			id, timeout, flags := le32(b[16:]), le64(b[24:]), uint16(b[40])|uint16(b[41])<<8
			d, errno := h.deadline(id, timeout, flags&subclockAbstime != 0, now)
			switch {
			case errno != 0:
				sub.ready, sub.errno = true, errno
			case d <= now:
				sub.ready = true
			default:
				sub.deadline = d
				if earliest < 0 || d < earliest {
					earliest = d
				}
			}
		case eventtypeFdRead, eventtypeFdWrite:
			sub.fd = le32(b[16:])
			h.fdReadiness(&sub)
			waitStdin = waitStdin || sub.stdin
		default:
			h.subs = subs[:0]
			return wasi.EINVAL
		}
		ready = ready || sub.ready
		subs = append(subs, sub)
	}
	h.subs = subs[:0]

	if !ready {
		var timer <-chan time.Time
		if earliest >= 0 {
			timer = h.clock.After(earliest - now)
		}
		var stdinReady <-chan struct{}
		if waitStdin {
			stdinReady = h.stdin.ReadyChan()
		}
		fired := false
		select {
		case <-timer:
			fired = true
		case <-stdinReady:
		case <-ctx.Done():
			return wasi.EINTR
		}
		now = h.clock.Monotonic()
		for i := range subs {
			sub := &subs[i]
			switch {
			case sub.tag == eventtypeClock:
				sub.ready = sub.deadline <= now || (fired && sub.deadline == earliest)
			case sub.stdin:
				h.fdReadiness(sub)
			}
		}
	}

	count := uint32(0)
	for i := range subs {
		sub := &subs[i]
		if !sub.ready {
			continue
		}
		ev := out[count*eventSize : (count+1)*eventSize]
		clear(ev)
		put64(ev[0:], sub.userdata)
		put16(ev[8:], uint16(sub.errno))
		ev[10] = sub.tag
		if sub.tag != eventtypeClock {
			put64(ev[16:], sub.nbytes)
			if sub.hangup {
				put16(ev[24:], eventHangup)
			}
		}
		count++
	}
	return g.putU32(neventsPtr, count)
}

// deadline returns when a clock subscription fires, on the monotonic clock. An absolute realtime
// deadline is converted at the time of the call.
func (h *Host) deadline(id uint32, timeout uint64, abs bool, now time.Duration) (time.Duration, wasi.Errno) {
	switch id {
	case clockMonotonic:
		if abs {
			return time.Duration(min(timeout, math.MaxInt64)), wasi.ESUCCESS
		}
	case clockRealtime:
		if abs {
			wall := unixNanos(h.clock.Now())
			if timeout <= wall {
				return now, wasi.ESUCCESS
			}
			timeout -= wall
		}
	default:
		return 0, wasi.EINVAL
	}
	if timeout > uint64(math.MaxInt64-now) {
		return math.MaxInt64, wasi.ESUCCESS
	}
	return now + time.Duration(timeout), wasi.ESUCCESS
}

// fdReadiness fills in whether an fd subscription is ready.
func (h *Host) fdReadiness(sub *subscription) {
	sub.ready, sub.stdin, sub.nbytes, sub.hangup, sub.errno = true, false, 0, false, 0
	e := h.fds.get(sub.fd)
	if e == nil {
		sub.errno = wasi.EBADF
		return
	}
	if sub.tag == eventtypeFdWrite {
		if e.kind != kindWriter && e.kind != kindFile {
			sub.errno = wasi.EBADF
		}
		return
	}
	switch e.kind {
	case kindStdin:
		if !h.stdin.Ready() {
			sub.ready, sub.stdin = false, true
			return
		}
		sub.nbytes = uint64(h.stdin.Buffered())
		sub.hangup = h.stdin.AtEOF()
	case kindFile:
		st, err1 := e.file.Stat()
		pos, err2 := e.file.Seek(0, io.SeekCurrent)
		if err1 == nil && err2 == nil && int64(st.Size) > pos {
			sub.nbytes = uint64(int64(st.Size) - pos)
		}
	case kindWriter:
		sub.errno = wasi.EBADF
	}
}
