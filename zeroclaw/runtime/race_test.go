//go:build race

package runtime

// raceEnabled skips the tests whose cost the race detector multiplies without adding coverage
// (heap accounting, the 12 MB JavaScript component, the 6 GB log flood); the concurrency tests
// run under it.
const raceEnabled = true
