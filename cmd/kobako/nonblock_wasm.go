//go:build js || wasip1

package main

// openNonblock is 0 where syscall has no O_NONBLOCK: there the host decides what an open of a
// FIFO does, and the check after the open still refuses one.
const openNonblock = 0
