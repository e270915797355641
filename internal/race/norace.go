//go:build !race

package race

// Enabled reports whether the binary was built with the race detector (see race.go).
const Enabled = false
