package wasi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

func TestErrnoNames(t *testing.T) {
	tests := []struct {
		e    Errno
		name string
		err  string
	}{
		{ESUCCESS, "ESUCCESS", "ESUCCESS (success)"},
		{E2BIG, "E2BIG", "E2BIG (argument list too long)"},
		{EBADF, "EBADF", "EBADF (bad file descriptor)"},
		{EDQUOT, "EDQUOT", "EDQUOT (quota exceeded)"},
		{ENOTSUP, "ENOTSUP", "ENOTSUP (not supported)"},
		{EPERM, "EPERM", "EPERM (operation not permitted)"},
		{ENOTCAPABLE, "ENOTCAPABLE", "ENOTCAPABLE (capabilities insufficient)"},
		{Errno(77), "errno(77)", "errno(77)"},
	}
	for _, tt := range tests {
		if got := tt.e.Name(); got != tt.name {
			t.Errorf("%d.Name() = %q, want %q", tt.e, got, tt.name)
		}
		if got := tt.e.Error(); got != tt.err {
			t.Errorf("%d.Error() = %q, want %q", tt.e, got, tt.err)
		}
	}
}

// The numbering must match witx exactly: guests compare raw numbers.
func TestErrnoNumbers(t *testing.T) {
	want := map[Errno]uint16{ESUCCESS: 0, EACCES: 2, EAGAIN: 6, EBADF: 8, EDQUOT: 19, EEXIST: 20,
		EFAULT: 21, EILSEQ: 25, EINTR: 27, EINVAL: 28, EIO: 29, EISDIR: 31, ELOOP: 32, EMFILE: 33,
		ENAMETOOLONG: 37, ENOENT: 44, ENOSYS: 52, ENOTDIR: 54, ENOTEMPTY: 55, ENOTSOCK: 57,
		ENOTSUP: 58, EPERM: 63, EROFS: 69, ESPIPE: 70, EXDEV: 75, ENOTCAPABLE: 76}
	for e, n := range want {
		if uint16(e) != n {
			t.Errorf("%s = %d, want %d", e.Name(), uint16(e), n)
		}
	}
	seen := map[string]bool{}
	for i := range errnoCount {
		e := Errno(i)
		if !e.Valid() || seen[e.Name()] || e.Name() == "" {
			t.Errorf("errno %d: name %q invalid or duplicated", i, e.Name())
		}
		seen[e.Name()] = true
	}
	if Errno(errnoCount).Valid() {
		t.Errorf("Errno(%d).Valid() = true", errnoCount)
	}
}

func TestToErrno(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	noteRootEscape(root)
	_, escapeErr := root.Open("../x")
	_, notExist := os.Open(dir + "/missing")
	tests := []struct {
		name string
		err  error
		want Errno
	}{
		{"nil", nil, ESUCCESS},
		{"errno", EDQUOT, EDQUOT},
		{"wrapped errno", fmt.Errorf("x: %w", ENOTDIR), ENOTDIR},
		{"os not exist", notExist, ENOENT},
		{"fs sentinel not exist", fs.ErrNotExist, ENOENT},
		{"fs sentinel exist", fs.ErrExist, EEXIST},
		{"fs sentinel permission", fs.ErrPermission, EACCES},
		{"fs closed", fs.ErrClosed, EBADF},
		{"fs invalid", fs.ErrInvalid, EINVAL},
		{"root escape", escapeErr, EPERM},
		{"context canceled", context.Canceled, EINTR},
		{"unknown", errors.New("boom"), EIO},
	}
	for _, tt := range tests {
		if got := ToErrno(tt.err); got != tt.want {
			t.Errorf("%s: ToErrno(%v) = %s, want %s", tt.name, tt.err, got.Name(), tt.want.Name())
		}
	}
}
