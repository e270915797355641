//go:build unix

package preview1

// lazyPreopens says whether wasi.HostDirOptions.Lazy defers opening on this platform (see
// wasi's opensLater): on Unix it does, for a directory the process owns.
const lazyPreopens = true
