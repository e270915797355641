package preview1

import (
	"testing"

	"github.com/kobako/kobako/wasi"
)

func TestArgsEnviron(t *testing.T) {
	r := newRaw(t, Config{Args: []string{"prog", "", "héllo"}, Env: []string{"A=1", "EMPTY="}})
	tests := []struct {
		sizes, get string
		count      uint32
		size       uint32
		strs       []string
	}{
		{"args_sizes_get", "args_get", 3, 5 + 1 + 7, []string{"prog", "", "héllo"}},
		{"environ_sizes_get", "environ_get", 2, 4 + 7, []string{"A=1", "EMPTY="}},
	}
	for _, tt := range tests {
		if e := r.call(tt.sizes, 100, 104); e != 0 {
			t.Fatalf("%s = %v", tt.sizes, e)
		}
		if r.u32(100) != tt.count || r.u32(104) != tt.size {
			t.Fatalf("%s: count %d size %d, want %d %d", tt.sizes, r.u32(100), r.u32(104), tt.count, tt.size)
		}
		if e := r.call(tt.get, 200, 300); e != 0 {
			t.Fatalf("%s = %v", tt.get, e)
		}
		for i, want := range tt.strs {
			p := r.u32(200 + uint32(i)*4)
			got := r.read(p, uint32(len(want)+1))
			if string(got[:len(want)]) != want || got[len(want)] != 0 {
				t.Errorf("%s[%d] = %q, want %q NUL", tt.get, i, got, want)
			}
		}
	}
}

func TestArgsEnviron_Errors(t *testing.T) {
	r := newRaw(t, Config{Args: []string{"prog", "arg"}, Env: []string{"A=1"}})
	sentinel := []byte{0xAA, 0xAA, 0xAA, 0xAA}
	tests := []struct {
		name string
		fn   string
		a, b uint64
	}{
		{"sizes: count out of memory", "args_sizes_get", memSize - 2, 100},
		{"sizes: size out of memory", "args_sizes_get", 100, memSize},
		{"sizes: size pointer wraps", "args_sizes_get", 100, 0xFFFFFFFF},
		{"get: argv array out of memory", "args_get", memSize - 4, 100},
		{"get: buffer out of memory", "args_get", 100, memSize - 3},
		{"env sizes: count out of memory", "environ_sizes_get", memSize, 100},
		{"env get: buffer out of memory", "environ_get", 100, memSize - 1},
	}
	for _, tt := range tests {
		r.write(100, sentinel)
		if e := r.call(tt.fn, tt.a, tt.b); e != wasi.EFAULT {
			t.Errorf("%s: %v, want EFAULT", tt.name, e)
		}
		if got := r.read(100, 4); string(got) != string(sentinel) {
			t.Errorf("%s: wrote %x before failing", tt.name, got)
		}
	}
}
