package preview1

import (
	"context"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// args_get(argv, argv_buf) and environ_get(environ, environ_buf) write a pointer per string into
// the first array and the NUL-terminated strings into the buffer. Both regions are checked
// before anything is written.

func argsGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return writeStrings(g, h.args, h.argsSize, u32(s[0]), u32(s[1]))
}

func argsSizesGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return writeSizes(g, uint32(len(h.args)), h.argsSize, u32(s[0]), u32(s[1]))
}

func environGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return writeStrings(g, h.env, h.envSize, u32(s[0]), u32(s[1]))
}

func environSizesGet(_ context.Context, h *Host, _ *engine.Caller, g mem, s []uint64) wasi.Errno {
	return writeSizes(g, uint32(len(h.env)), h.envSize, u32(s[0]), u32(s[1]))
}

func writeSizes(g mem, count, size, countPtr, sizePtr uint32) wasi.Errno {
	if e := g.check(countPtr, 4); e != 0 {
		return e
	}
	if e := g.check(sizePtr, 4); e != 0 {
		return e
	}
	g.putU32(countPtr, count)
	g.putU32(sizePtr, size)
	return wasi.ESUCCESS
}

func writeStrings(g mem, list []string, size, ptrs, buf uint32) wasi.Errno {
	ptrArr, e := g.array(ptrs, uint32(len(list)), 4)
	if e != 0 {
		return e
	}
	data, e := g.read(buf, size)
	if e != 0 {
		return e
	}
	off := uint32(0)
	for i, a := range list {
		put32(ptrArr[i*4:], buf+off)
		off += uint32(copy(data[off:], a))
		data[off] = 0
		off++
	}
	return wasi.ESUCCESS
}
