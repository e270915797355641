//go:build !(linux || android || openbsd || dragonfly || solaris || illumos || darwin || ios || freebsd || netbsd || wasip1)

package wasi

import "io/fs"

// sysStat leaves device, inode, link count and the access and change times at their portable
// defaults where Go exposes no portable way to read them (Windows, js, AIX, Plan 9).
func sysStat(fs.FileInfo, *Stat) {}
