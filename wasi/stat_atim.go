//go:build linux || android || openbsd || dragonfly || solaris || illumos

package wasi

import (
	"io/fs"
	"syscall"
	"time"
)

func sysStat(fi fs.FileInfo, st *Stat) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	st.Dev, st.Ino, st.Nlink = uint64(s.Dev), uint64(s.Ino), uint64(s.Nlink)
	st.Atime = time.Unix(s.Atim.Unix())
	st.Ctime = time.Unix(s.Ctim.Unix())
}
