package bench

import (
	"runtime"
	"testing"
	"time"
)

// cpuMeter adds up the CPU time of the benchmark's own thread over the measured calls and reports it
// as cpu-ns/op. On a shared machine wall time (sec/op) counts the time other processes hold the CPU;
// thread CPU time mostly does not, so the ratios in README.md are taken from cpu-ns/op. It excludes
// work on other threads: the Go runtime's background GC (GC assists are included) and kobako's
// deadline watcher, which waits and does not compute.
type cpuMeter struct {
	total time.Duration
	start time.Duration
	n     int
	ok    bool
}

// newCPUMeter pins the benchmark's goroutine to its thread until report.
func newCPUMeter() *cpuMeter {
	runtime.LockOSThread()
	_, ok := threadCPU()
	return &cpuMeter{ok: ok}
}

func (m *cpuMeter) begin() {
	if m.ok {
		m.start, _ = threadCPU()
	}
}

func (m *cpuMeter) end() {
	if m.ok {
		t, _ := threadCPU()
		m.total += t - m.start
		m.n++
	}
}

// report adds cpu-ns/op to b's results and unpins the goroutine.
func (m *cpuMeter) report(b *testing.B) { m.reportAs(b, "cpu-ns/op") }

// reportAs is report under another unit, for a meter of part of each iteration.
func (m *cpuMeter) reportAs(b *testing.B, unit string) {
	runtime.UnlockOSThread()
	if m.ok && m.n > 0 {
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(m.n), unit)
	}
}
