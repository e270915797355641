//go:build !js && !wasip1

package boundedfile

import "syscall"

// openNonblock keeps an open of a file that turned into a FIFO from waiting for a writer.
const openNonblock = syscall.O_NONBLOCK
