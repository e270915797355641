//go:build unix

package wasi

import (
	"os"
	"syscall"
)

// opensLater reports whether os.OpenRoot(path) is certain to succeed as far as one stat can tell:
// path is a directory (after symbolic links) that the process owns and the owner may read. The
// owner's permission bits are the only ones that apply to the owner (an ACL's entries for other
// users and groups do not), so such a directory opens; anything else is left to an eager open
// and its exact error.
func opensLater(path string) bool {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return false
	}
	return uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFDIR && uint32(st.Mode)&0o400 != 0 &&
		int(st.Uid) == os.Geteuid()
}
