package preview1

import (
	"context"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

// proc_exit(code) ends the guest through the engine: the call returns *engine.ExitError.
func procExitFunc() engine.HostFunc {
	return engine.HostFunc{
		Name:   "proc_exit",
		Params: params("i"),
		Fn: func(ctx context.Context, c *engine.Caller, stack []uint64) {
			hostOf(c) // a store without Bind traps here too, like every other function
			c.Exit(ctx, u32(stack[0]))
		},
	}
}

// proc_raise is linked but signals do not exist in the sandbox: ENOSYS, as wasi-libc's own
// raise() would report for a signal it cannot deliver.
func procRaise(context.Context, *Host, *engine.Caller, mem, []uint64) wasi.Errno {
	return wasi.ENOSYS
}
