//go:build js || wasip1

package boundedfile

// openNonblock is 0 where syscall has no O_NONBLOCK: there the host decides what an open of a
// FIFO does, and the check on the open file still refuses one.
const openNonblock = 0
