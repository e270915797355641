//go:build !unix

package wasi

// opensLater has no cheap way to tell that a directory will open on this platform, so
// HostDirOptions.Lazy opens at once.
func opensLater(string) bool { return false }
