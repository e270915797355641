//go:build !linux

package bench

import "time"

// threadCPU reports that per-thread CPU time is not measured on this system; the benchmarks then
// report wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }

// processCPU reports that process CPU time is not measured on this system.
func processCPU() (time.Duration, bool) { return 0, false }
