//go:build js

package wasi

import "syscall"

func addPlatformErrnos(map[syscall.Errno]Errno) {}
