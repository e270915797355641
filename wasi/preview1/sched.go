package preview1

import (
	"context"
	"runtime"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// sched_yield lets other goroutines of the host run; a guest has no other threads.
func schedYield(context.Context, *Host, *engine.Caller, mem, []uint64) wasi.Errno {
	runtime.Gosched()
	return wasi.ESUCCESS
}
