//go:build unix || wasip1

package wasi

import "syscall"

// js has no ETXTBSY.
func addPlatformErrnos(m map[syscall.Errno]Errno) { m[syscall.ETXTBSY] = ETXTBSY }
