//go:build !unix

package preview1

// lazyPreopens: elsewhere (wasip1, js, Windows) a lazy host preopen opens at once.
const lazyPreopens = false
