//go:build race

package httpegress_test

// raceEnabled skips the cases that run the 12 MB componentize-js fetch tool: under the race
// detector they take minutes, the run without -race covers them, and the Go client's cases
// (TestGoClient) drive the same host streams and sender concurrently under the detector.
const raceEnabled = true
