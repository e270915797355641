//go:build race

package race

// Enabled reports whether the binary was built with the race detector. Tests use it to skip
// work the detector makes minutes long without adding coverage (the 12 MB componentize-js
// components, floods of log records); the run without -race covers that work.
const Enabled = true
