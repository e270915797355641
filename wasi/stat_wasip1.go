//go:build wasip1

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
	st.Dev, st.Ino, st.Nlink = s.Dev, s.Ino, s.Nlink
	st.Atime = time.Unix(0, int64(s.Atime))
	st.Ctime = time.Unix(0, int64(s.Ctime))
}
