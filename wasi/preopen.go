package wasi

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// ErrPreopen: a Preopen is invalid (a bad guest path, not exactly one source, a writable Dir asked
// to be read-only). Both previews wrap it behind their own ErrConfig.
var ErrPreopen = errors.New("invalid preopen")

// Preopen is a directory the host hands the guest at start, under GuestPath: preview 1 gives it a
// descriptor (3, 4, … in order, named by fd_prestat_dir_name), WASI 0.2 lists it in
// wasi:filesystem/preopens. Exactly one of HostDir, FS and Dir is set.
type Preopen struct {
	// GuestPath is the name the guest sees, such as "/volume/tmp": 1 to MaxPathLen bytes of
	// UTF-8 without NUL.
	GuestPath string
	// HostDir is a host directory, confined with os.Root: neither ".." nor symbolic links lead
	// out of it.
	HostDir string
	// FS is a file system served read-only.
	FS fs.FS
	// Dir is an already opened directory; the host that opens the Preopen takes it over and
	// closes it.
	Dir Dir
	// ReadOnly refuses every change (EPERM in preview 1, not-permitted in WASI 0.2). FS preopens
	// are always read-only.
	ReadOnly bool
}

// Open checks p and returns its directory, whose writes draw on budget (nil means unlimited). A
// HostDir is opened with HostDirOptions.Lazy: a guest that never uses it costs no open. Errors
// wrap ErrPreopen, or are those of OpenHostDir.
func (p Preopen) Open(budget *Budget) (Dir, error) {
	if p.GuestPath == "" || len(p.GuestPath) > MaxPathLen || strings.IndexByte(p.GuestPath, 0) >= 0 ||
		!utf8.ValidString(p.GuestPath) {
		return nil, fmt.Errorf("%w: guest path must be 1 to %d bytes of UTF-8 without NUL", ErrPreopen, MaxPathLen)
	}
	n := 0
	for _, set := range []bool{p.HostDir != "", p.FS != nil, p.Dir != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("%w: exactly one of HostDir, FS and Dir must be set (%d are)", ErrPreopen, n)
	}
	switch {
	case p.HostDir != "":
		return OpenHostDir(p.HostDir, HostDirOptions{ReadOnly: p.ReadOnly, Budget: budget, Lazy: true})
	case p.FS != nil:
		return NewFSDir(p.FS), nil
	}
	if p.ReadOnly && !p.Dir.ReadOnly() {
		return nil, fmt.Errorf("%w: Dir is writable but the preopen asks for ReadOnly", ErrPreopen)
	}
	return p.Dir, nil
}
