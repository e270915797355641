package wasi

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestPreopenOpen_Errors(t *testing.T) {
	dir := t.TempDir()
	writable, err := OpenHostDir(dir, HostDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer writable.Close()
	for _, tt := range []struct {
		name string
		p    Preopen
		want string
	}{
		{"no guest path", Preopen{FS: fstest.MapFS{}}, "guest path"},
		{"NUL in guest path", Preopen{GuestPath: "/a\x00b", FS: fstest.MapFS{}}, "guest path"},
		{"guest path not UTF-8", Preopen{GuestPath: "/\xff", FS: fstest.MapFS{}}, "guest path"},
		{"guest path too long", Preopen{GuestPath: "/" + strings.Repeat("a", MaxPathLen), FS: fstest.MapFS{}}, "guest path"},
		{"no source", Preopen{GuestPath: "/a"}, "(0 are)"},
		{"two sources", Preopen{GuestPath: "/a", HostDir: dir, FS: fstest.MapFS{}}, "(2 are)"},
		{"three sources", Preopen{GuestPath: "/a", HostDir: dir, FS: fstest.MapFS{}, Dir: writable}, "(3 are)"},
		{"writable Dir asked read-only", Preopen{GuestPath: "/a", Dir: writable, ReadOnly: true}, "ReadOnly"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.p.Open(nil)
			if !errors.Is(err, ErrPreopen) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, %v; want an ErrPreopen mentioning %q", d, err, tt.want)
			}
		})
	}
	if _, err := (Preopen{GuestPath: "/a", HostDir: dir + "/missing"}).Open(nil); err == nil || errors.Is(err, ErrPreopen) {
		t.Errorf("a missing host directory: %v, want OpenHostDir's error", err)
	}
}

func TestPreopenOpen(t *testing.T) {
	fsys := fstest.MapFS{"hello.txt": {Data: []byte("hi")}}
	d, err := Preopen{GuestPath: "/data", FS: fsys}.Open(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.ReadOnly() {
		t.Error("an FS preopen is writable")
	}
	hd, err := Preopen{GuestPath: "/tmp", HostDir: t.TempDir(), ReadOnly: true}.Open(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hd.Close()
	if !hd.ReadOnly() {
		t.Error("a ReadOnly host preopen is writable")
	}
}
