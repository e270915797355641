package preview1

import (
	"context"
	"io"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// readdirState streams a directory listing across fd_readdir calls. Cookies number the entries:
// 0 is ".", 1 is "..", and 2, 3, … the entries in the order the directory yields them. The state
// holds at most one entry (one that did not fit in the guest's buffer last time), so a huge
// directory or a huge guest buffer never makes the host hold a listing in memory. A cookie below
// the current position restarts the listing from the beginning.
type readdirState struct {
	r    wasi.DirReader
	pos  uint64         // cookie of held, or of the next entry r yields
	held *wasi.DirEntry // read from r but not yet delivered whole
}

const direntSize = 24

// fd_readdir(fd, buf, buf_len, cookie, bufused): as the WASI spec asks, the buffer is filled
// completely, the last entry cut short if it does not fit; bufused < buf_len means the end of the
// directory was reached.
func fdReaddir(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	e, errno := h.entry(u32(s[0]))
	if errno != 0 {
		return errno
	}
	if e.kind != kindDir {
		if e.kind == kindFile {
			return wasi.ENOTDIR
		}
		return wasi.EBADF
	}
	buf, errno := g.read(u32(s[1]), u32(s[2]))
	if errno != 0 {
		return errno
	}
	usedPtr := u32(s[4])
	if errno := g.check(usedPtr, 4); errno != 0 {
		return errno
	}
	cookie := s[3]
	used := 0
	var scratch [direntSize + 256]byte

	// put writes one entry, cut to what fits; it reports whether it was written whole.
	put := func(next uint64, ino uint64, typ wasi.Filetype, name string) bool {
		rec := scratch[:0]
		if direntSize+len(name) > len(scratch) {
			rec = make([]byte, 0, direntSize+len(name))
		}
		rec = rec[:direntSize]
		clear(rec)
		put64(rec[0:], next)
		put64(rec[8:], ino)
		put32(rec[16:], uint32(len(name)))
		rec[20] = byte(typ)
		rec = append(rec, name...)
		n := copy(buf[used:], rec)
		used += n
		return n == len(rec)
	}

	if cookie < 2 {
		st, err := e.dir.Stat()
		if err != nil {
			return errnoOf(err)
		}
		if cookie == 0 && !put(1, st.Ino, wasi.FiletypeDirectory, ".") {
			return g.putU32(usedPtr, uint32(used))
		}
		if !put(2, st.Ino, wasi.FiletypeDirectory, "..") {
			return g.putU32(usedPtr, uint32(used))
		}
		cookie = 2
	}

	rs := e.readdir
	if rs == nil || rs.r == nil || cookie < rs.pos {
		if rs != nil && rs.r != nil {
			rs.r.Close()
		}
		r, err := e.dir.ReadDir()
		if err != nil {
			return errnoOf(err)
		}
		rs = &readdirState{r: r, pos: 2}
		e.readdir = rs
	}
	next := func() (*wasi.DirEntry, wasi.Errno) {
		if rs.held != nil {
			return rs.held, wasi.ESUCCESS
		}
		de, err := rs.r.Next()
		if err == io.EOF {
			return nil, wasi.ESUCCESS
		}
		if err != nil {
			return nil, errnoOf(err)
		}
		rs.held = &de
		return rs.held, wasi.ESUCCESS
	}
	for rs.pos < cookie {
		de, errno := next()
		if errno != 0 {
			return errno
		}
		if de == nil {
			return g.putU32(usedPtr, uint32(used))
		}
		rs.held = nil
		rs.pos++
	}
	for used < len(buf) {
		de, errno := next()
		if errno != 0 {
			if used > 0 {
				break
			}
			return errno
		}
		if de == nil {
			break
		}
		if !put(rs.pos+1, de.Ino, de.Type, de.Name) {
			break // held for the next call, which asks for this cookie again
		}
		rs.held = nil
		rs.pos++
	}
	return g.putU32(usedPtr, uint32(used))
}
