//go:build !(unix || wasip1 || js || windows)

package wasi

// sysErrno has no host error numbers to translate on this platform; ToErrno relies on the io/fs
// sentinels.
func sysErrno(error) (Errno, bool) { return 0, false }
