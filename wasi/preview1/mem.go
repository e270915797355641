package preview1

import (
	"context"
	"fmt"
	"math"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// MaxIovecs bounds the iovec count of one read or write call (IOV_MAX in wasi-libc); more is
// EINVAL, so that guest-chosen counts never drive host allocation.
const MaxIovecs = 1024

// mem checks every guest pointer: an access that does not fit in linear memory (or a module with no
// exported memory) is EFAULT, and nothing is written.
type mem struct{ m engine.Memory }

func (g mem) read(p, n uint32) ([]byte, wasi.Errno) {
	if g.m == nil {
		return nil, wasi.EFAULT
	}
	b, ok := g.m.Read(p, n)
	if !ok {
		return nil, wasi.EFAULT
	}
	return b, wasi.ESUCCESS
}

func (g mem) u32(p uint32) (uint32, wasi.Errno) {
	if g.m == nil {
		return 0, wasi.EFAULT
	}
	v, ok := g.m.ReadUint32Le(p)
	if !ok {
		return 0, wasi.EFAULT
	}
	return v, wasi.ESUCCESS
}

func (g mem) putU32(p, v uint32) wasi.Errno {
	if g.m == nil || !g.m.WriteUint32Le(p, v) {
		return wasi.EFAULT
	}
	return wasi.ESUCCESS
}

func (g mem) putU64(p uint32, v uint64) wasi.Errno {
	if g.m == nil || !g.m.WriteUint64Le(p, v) {
		return wasi.EFAULT
	}
	return wasi.ESUCCESS
}

// check reports EFAULT unless n bytes at p are in memory: outputs are checked before a call has
// effects, so a bad output pointer never leaves work half done.
func (g mem) check(p, n uint32) wasi.Errno {
	_, e := g.read(p, n)
	return e
}

// array checks count elements of size bytes at p, with the multiplication done in 64 bits.
func (g mem) array(p, count, size uint32) ([]byte, wasi.Errno) {
	n := uint64(count) * uint64(size)
	if n > math.MaxUint32 {
		return nil, wasi.EFAULT
	}
	return g.read(p, uint32(n))
}

// str reads a guest string of at most max bytes (ENAMETOOLONG beyond).
func (g mem) str(p, n uint32, max int) (string, wasi.Errno) {
	b, e := g.read(p, n)
	if e != 0 {
		return "", e
	}
	if int(n) > max {
		return "", wasi.ENAMETOOLONG
	}
	return string(b), wasi.ESUCCESS
}

// path reads a path argument.
func (g mem) path(p, n uint32) (string, wasi.Errno) { return g.str(p, n, wasi.MaxPathLen) }

// iovecs returns views of the buffers an iovec (or ciovec) array at p describes, reusing scratch.
// Every buffer is checked before any I/O; their total must fit in the u32 the call reports.
func (g mem) iovecs(p, count uint32, scratch [][]byte) ([][]byte, uint64, wasi.Errno) {
	if count > MaxIovecs {
		return nil, 0, wasi.EINVAL
	}
	arr, e := g.array(p, count, 8)
	if e != 0 {
		return nil, 0, e
	}
	out := scratch[:0]
	var total uint64
	for i := uint32(0); i < count; i++ {
		ptr := le32(arr[i*8:])
		n := le32(arr[i*8+4:])
		b, e := g.read(ptr, n)
		if e != 0 {
			return nil, 0, e
		}
		total += uint64(n)
		out = append(out, b)
	}
	if total > math.MaxUint32 {
		return nil, 0, wasi.EINVAL
	}
	return out, total, wasi.ESUCCESS
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

func put16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }

func put32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func put64(b []byte, v uint64) { put32(b, uint32(v)); put32(b[4:], uint32(v>>32)) }

// call is the common shape of the module's functions: params in, an errno out.
type call func(ctx context.Context, h *Host, c *engine.Caller, g mem, s []uint64) wasi.Errno

var (
	i32 = engine.I32
	i64 = engine.I64
)

func fn(name string, params []engine.ValueType, f call) engine.HostFunc {
	return engine.HostFunc{
		Name:    name,
		Params:  params,
		Results: []engine.ValueType{i32},
		Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
			h := hostOf(c)
			if h.closed {
				stack[0] = uint64(wasi.EBADF)
				return
			}
			stack[0] = uint64(f(ctx, h, c, mem{c.Memory()}, stack))
		},
	}
}

func hostOf(c *engine.Caller) *Host {
	h, ok := hostKey.Get(c.Store())
	if !ok {
		// Per the engine's contract, a panic with an error ends the call with a host trap.
		panic(fmt.Errorf("preview1: %w", ErrNotBound))
	}
	return h
}

// params builds a parameter list: "i" for i32, "I" for i64.
func params(sig string) []engine.ValueType {
	out := make([]engine.ValueType, len(sig))
	for i, c := range sig {
		if c == 'I' {
			out[i] = i64
		} else {
			out[i] = i32
		}
	}
	return out
}

func u32(v uint64) uint32 { return uint32(v) }
