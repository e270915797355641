package wasi

import (
	"strings"
	"unicode/utf8"
)

// MaxPathLen bounds a guest path, or a symbolic link's contents, in bytes (POSIX PATH_MAX on
// Linux). A longer path fails with ENAMETOOLONG before the host file system sees it.
const MaxPathLen = 4096

// CheckPath validates a path that a guest gives relative to a directory capability and returns it
// cleaned: no "." components, no repeated or trailing slashes, "." for the directory itself.
// dirOnly reports a trailing slash, which POSIX reads as "must be a directory".
//
// Following the WASI path-resolution rules (and wasmtime), a path that is absolute, or whose ".."
// components climb above the directory, fails with EPERM ("not permitted"), as does any later
// resolution step that leaves the directory through a symbolic link. kobako uses EPERM rather
// than the legacy ENOTCAPABLE: it is what wasmtime returns since its preview 1 runs on preview 2,
// and what wasi:filesystem calls `not-permitted`, so preview 1 and preview 2 guests see the same
// error. Other failures: an empty path is ENOENT, a NUL byte EINVAL, invalid UTF-8 EILSEQ (WASI
// paths are strings), more than MaxPathLen bytes ENAMETOOLONG.
//
// The check is lexical. It does not make the path safe by itself: symbolic links are confined by
// the directory implementation (os.Root for host directories), which resolves the path again.
func CheckPath(p string) (clean string, dirOnly bool, err error) {
	if err := checkString(p); err != nil {
		return "", false, err
	}
	if p[0] == '/' {
		return "", false, EPERM
	}
	parts, err := cleanParts(p, nil)
	if err != nil {
		return "", false, err
	}
	dirOnly = p[len(p)-1] == '/'
	if len(parts) == 0 {
		return ".", dirOnly, nil
	}
	return strings.Join(parts, "/"), dirOnly, nil
}

// CheckSymlink validates the contents of a symbolic link that a guest creates in the directory
// linkDir (a path already cleaned by CheckPath, relative to the root of the capability). The
// target must be relative and, read from linkDir, must stay inside the root: a link that could
// only resolve outside is refused with EPERM when it is made, so that no escaping link ever lands
// on the host, where other tools might follow it.
func CheckSymlink(linkDir, target string) error {
	if err := checkString(target); err != nil {
		return err
	}
	if target[0] == '/' {
		return EPERM
	}
	var base []string
	if linkDir != "." && linkDir != "" {
		base = strings.Split(linkDir, "/")
	}
	_, err := cleanParts(target, base)
	return err
}

func checkString(p string) error {
	switch {
	case p == "":
		return ENOENT
	case len(p) > MaxPathLen:
		return ENAMETOOLONG
	case strings.IndexByte(p, 0) >= 0:
		return EINVAL
	case !utf8.ValidString(p):
		return EILSEQ
	}
	return nil
}

// cleanParts appends the components of the relative path p to base, resolving "." and ".."
// lexically, and fails with EPERM when ".." would climb above the start of base.
func cleanParts(p string, base []string) ([]string, error) {
	parts := base
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				return nil, EPERM
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, c)
		}
	}
	return parts, nil
}

// JoinPath joins a cleaned directory path and a cleaned relative path, both as returned by
// CheckPath, treating "." as empty.
func JoinPath(dir, rel string) string {
	switch {
	case dir == "." || dir == "":
		return rel
	case rel == "." || rel == "":
		return dir
	}
	return dir + "/" + rel
}

// splitDir returns the directory part of a cleaned path ("." when it has none) and the last
// component.
func splitDir(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ".", p
	}
	return p[:i], p[i+1:]
}
