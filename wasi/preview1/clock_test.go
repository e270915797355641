package preview1

import (
	"testing"
	"time"

	"github.com/kobako/kobako/wasi"
)

func TestClocks(t *testing.T) {
	clk := wasi.NewFakeClock(time.Unix(1_700_000_000, 5), 0)
	clk.Advance(3 * time.Second)
	r := newRaw(t, Config{Clock: clk})
	tests := []struct {
		fn   string
		args []uint64
		want uint64
		err  wasi.Errno
	}{
		{"clock_time_get", []uint64{clockRealtime, 0, 100}, 1_700_000_003_000_000_005, 0},
		{"clock_time_get", []uint64{clockMonotonic, 1000, 100}, uint64(3 * time.Second), 0},
		{"clock_time_get", []uint64{2, 0, 100}, 0, wasi.EINVAL}, // process CPU time
		{"clock_time_get", []uint64{3, 0, 100}, 0, wasi.EINVAL},
		{"clock_time_get", []uint64{99, 0, 100}, 0, wasi.EINVAL},
		{"clock_time_get", []uint64{clockRealtime, 0, memSize - 7}, 0, wasi.EFAULT},
		{"clock_res_get", []uint64{clockRealtime, 100}, 1, 0},
		{"clock_res_get", []uint64{clockMonotonic, 100}, 1, 0},
		{"clock_res_get", []uint64{2, 100}, 0, wasi.EINVAL},
		{"clock_res_get", []uint64{clockMonotonic, memSize}, 0, wasi.EFAULT},
	}
	for _, tt := range tests {
		r.write(100, make([]byte, 8))
		if e := r.call(tt.fn, tt.args...); e != tt.err {
			t.Errorf("%s%v = %v, want %v", tt.fn, tt.args, e, tt.err)
			continue
		}
		if tt.err == 0 && r.u64(100) != tt.want {
			t.Errorf("%s%v wrote %d, want %d", tt.fn, tt.args, r.u64(100), tt.want)
		}
	}
}

// Before the Unix epoch the wall clock reads 0 rather than wrapping.
func TestClockBeforeEpoch(t *testing.T) {
	r := newRaw(t, Config{Clock: wasi.NewFakeClock(time.Unix(-10, 0), 0)})
	if e := r.call("clock_time_get", clockRealtime, 0, 100); e != 0 || r.u64(100) != 0 {
		t.Errorf("realtime before epoch = %v, %d", e, r.u64(100))
	}
}
