package preview1

import (
	"context"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// The socket functions are linked so that modules importing them load, but no socket ever exists
// (ABI 1: HTTP goes through subako_http). A descriptor that is open is therefore not a socket
// (ENOTSOCK); any other number is EBADF. Nothing is read from or written to guest memory.

func sockAccept(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	return noSocket(h, u32(s[0]))
}

func sockRecv(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	return noSocket(h, u32(s[0]))
}

func sockSend(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	return noSocket(h, u32(s[0]))
}

func sockShutdown(_ context.Context, h *Host, _ *engine.Caller, _ mem, s []uint64) wasi.Errno {
	return noSocket(h, u32(s[0]))
}

func noSocket(h *Host, fd uint32) wasi.Errno {
	if h.fds.get(fd) == nil {
		return wasi.EBADF
	}
	return wasi.ENOTSOCK
}
