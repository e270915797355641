// Command goplugin is a Go (GOOS=wasip1, c-shared) implementation of world test:plugin/tool-plugin
// with the canonical ABI written by hand, because wit-bindgen-go's output needs TinyGo:
//
//	test:plugin/tool#name:    () -> i32          returns a pointer to {ptr, len}
//	test:plugin/tool#execute: (ptr, len) -> i32  returns a pointer to {u8 tag @0, ptr @4, len @8}
//	cabi_post_test:plugin/tool#*: (i32)          frees what the previous call returned
//	cabi_realloc                                  where the host puts the argument string
//
// execute returns ok(upper-cased args), or err("error: " + args) when args start with "fail";
// args starting with "log" also write a line on stderr, so a call goes through WASI.
//
// Garbage collection runs only inside the export bodies. The canonical ABI forbids calling an
// import while the host is lowering arguments through cabi_realloc or running post-return
// (CanonicalABI.md: may_leave is false), but a Go allocation that starts a collection reads the
// clock, a WASI import. A 1 MiB argument did exactly that; kobako traps as the spec says (jco
// does not check). So collection is switched off and done by hand when enough garbage is due.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"unsafe"
)

func main() {}

func init() { debug.SetGCPercent(-1) }

// garbage counts the bytes handed out since the last collection.
var garbage uint64

// collect runs a collection once 8 MiB were allocated; only called where imports are allowed.
func collect() {
	if garbage > 8<<20 {
		runtime.GC()
		garbage = 0
	}
}

// live keeps the Go buffers whose addresses the host holds reachable; Go's GC does not move them.
var live = map[uint32][]uint64{}

func alloc(size uint32) uint32 {
	if size == 0 {
		return 8 // aligned and non-null; nothing is read or written there
	}
	garbage += uint64(size)
	buf := make([]uint64, (size+7)/8)
	p := uint32(uintptr(unsafe.Pointer(&buf[0])))
	live[p] = buf
	return p
}

func mem(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
}

//go:wasmexport cabi_realloc
func cabiRealloc(oldPtr, oldSize, align, newSize uint32) uint32 {
	p := alloc(newSize)
	if oldPtr != 0 && oldSize != 0 {
		copy(mem(p, newSize), mem(oldPtr, min(oldSize, newSize)))
		delete(live, oldPtr)
	}
	return p
}

// ret is the return area for results that flatten to more than one core value.
var ret [3]uint32

func lower(s string) (uint32, uint32) {
	p := alloc(uint32(len(s)))
	copy(mem(p, uint32(len(s))), s)
	return p, uint32(len(s))
}

func release() { clear(live) }

//go:wasmexport test:plugin/tool#name
func name() uint32 {
	collect()
	ret[0], ret[1] = lower("go-plugin")
	return uint32(uintptr(unsafe.Pointer(&ret)))
}

//go:wasmexport cabi_post_test:plugin/tool#name
func postName(uint32) { release() }

//go:wasmexport test:plugin/tool#execute
func execute(p, n uint32) uint32 {
	args := string(mem(p, n)) // copies out of the host's buffer before it is dropped
	delete(live, p)
	garbage += 2 * uint64(n) // args and its upper-cased copy
	collect()
	if strings.HasPrefix(args, "log") {
		fmt.Fprintf(os.Stderr, "log from go: %d bytes\n", len(args))
	}
	if strings.HasPrefix(args, "fail") {
		ret[0] = 1
		ret[1], ret[2] = lower("error: " + args)
	} else {
		ret[0] = 0
		ret[1], ret[2] = lower(strings.ToUpper(args))
	}
	return uint32(uintptr(unsafe.Pointer(&ret)))
}

//go:wasmexport cabi_post_test:plugin/tool#execute
func postExecute(uint32) { release() }
