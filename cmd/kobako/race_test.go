//go:build race

package main

// raceEnabled skips work the race detector makes too slow to finish within a plugin call's
// deadline (the 100,000-record log flood) without adding coverage.
const raceEnabled = true
