package engine

import (
	"context"

	"github.com/kobako/kobako/abi"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// ValueType is a core wasm value type, encoded as in the binary format. It is abi.CoreType, the
// module's one definition of core value types, so that a component's flattened signature
// (abi.CoreSignature) and a core function's types (Function.Params) compare directly.
type ValueType = abi.CoreType

// The core value types.
const (
	I32       = abi.CoreI32
	I64       = abi.CoreI64
	F32       = abi.CoreF32
	F64       = abi.CoreF64
	V128      = abi.CoreV128
	FuncRef   = abi.CoreFuncRef
	ExternRef = abi.CoreExternRef
)

// HostFunc is a function the host provides to guests.
//
// Fn reads its parameters from stack[0:len(Params)] and writes its results to stack[0:len(Results)]
// (stack is long enough for both), as wazero's stack-based host functions do, so a call allocates
// nothing. To end the call with a failure, Fn panics with an error: the call then returns a *Trap of
// kind TrapHost wrapping that error. Fn must honour ctx: a deadline cannot interrupt Go code.
type HostFunc struct {
	Name    string
	Params  []ValueType
	Results []ValueType
	Fn      func(ctx context.Context, c *Caller, stack []uint64)
}

// HostModule is a named set of host functions that guests import. Define it once (typically a
// package-level value) and import it into any number of stores: the engine compiles it once. Per-store
// state belongs under a Key, reached from Fn through Caller.Store.
type HostModule struct {
	Name  string
	Funcs []HostFunc
}

func (*HostModule) importable() {}

// Caller is what a host function knows about the guest that called it.
type Caller struct {
	store *Store
	mod   api.Module
}

// Store returns the store the calling instance belongs to.
func (c *Caller) Store() *Store { return c.store }

// Instance returns the calling guest instance, or nil if the caller is not a guest instance of the
// store (a host module calling through another host module).
func (c *Caller) Instance() *Instance { return c.store.instanceOf(c.mod) }

// Memory returns the calling instance's exported memory named "memory", or nil when it has none.
func (c *Caller) Memory() Memory {
	m := c.mod.ExportedMemory("memory")
	if m == nil {
		return nil
	}
	return m
}

// Exit ends the calling instance with the given exit code, like WASI proc_exit: the current call
// returns *ExitError and the store can no longer be called. It does not return.
func (c *Caller) Exit(ctx context.Context, code uint32) {
	c.store.exited(code)
	_ = c.mod.CloseWithExitCode(ctx, code)
	panic(sys.NewExitError(code))
}

// Memory is a linear memory. Every access is bounds-checked: a read or write that does not fit
// returns ok == false and changes nothing. Read returns a live view of the memory, valid until the
// memory grows or its store closes; copy it to keep it. Do not use a Memory after its store
// closes: the buffer of a snapshot instance's memory then serves another instance.
type Memory interface {
	Size() uint32
	Grow(deltaPages uint32) (previousPages uint32, ok bool)
	Read(offset, byteCount uint32) ([]byte, bool)
	Write(offset uint32, v []byte) bool
	ReadUint16Le(offset uint32) (uint16, bool)
	WriteUint16Le(offset uint32, v uint16) bool
	ReadUint32Le(offset uint32) (uint32, bool)
	WriteUint32Le(offset, v uint32) bool
	ReadUint64Le(offset uint32) (uint64, bool)
	WriteUint64Le(offset uint32, v uint64) bool
	ReadFloat32Le(offset uint32) (float32, bool)
	WriteFloat32Le(offset uint32, v float32) bool
	ReadFloat64Le(offset uint32) (float64, bool)
	WriteFloat64Le(offset uint32, v float64) bool
}

// hostPanic carries a host function's error through wazero's recover so that the engine can tell it
// from a Go runtime error raised inside host code.
type hostPanic struct{ err error }

func (h *hostPanic) Error() string { return h.err.Error() }
func (h *hostPanic) Unwrap() error { return h.err }
