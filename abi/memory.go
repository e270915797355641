package abi

import "fmt"

// Memory is a 32-bit linear memory as the canonical ABI sees it. Package engine's memory (over
// wazero) satisfies it, and so does SliceMemory.
//
// Read returns a live view: writes through the returned slice change memory, and the view stays
// valid until the memory grows. The canonical ABI relies on this: lifting reads through views
// without copying twice, and lowering writes through a view only between two realloc calls,
// because a realloc may grow (and so move) memory. Read and Write return ok == false, changing
// nothing, when [offset, offset+byteCount) does not fit.
type Memory interface {
	// Size returns the memory size in bytes.
	Size() uint32
	// Read returns a live view of byteCount bytes at offset.
	Read(offset, byteCount uint32) ([]byte, bool)
	// Write copies v into memory at offset.
	Write(offset uint32, v []byte) bool
}

// Realloc is the guest's canonical realloc function (the `realloc` canonopt):
// (func (param $originalPtr i32) (param $originalSize i32) (param $alignment i32)
// (param $newSize i32) (result i32)). The returned error is a trap inside the guest; lowering
// stops and wraps it with ErrRealloc. The returned pointer is checked for alignment and bounds
// before it is used.
type Realloc func(oldPtr, oldSize, align, newSize uint32) (uint32, error)

// SliceMemory is a Memory backed by a Go byte slice, with a bump allocator as its Realloc. It
// serves tests, examples and hosts that need canonical ABI bytes outside any wasm instance.
//
// When an allocation does not fit, it grows by whole 64 KiB pages up to its limit, moving the
// backing array as a real memory.grow may: views taken before a Realloc call are then stale.
type SliceMemory struct {
	buf   []byte
	next  uint32
	limit uint32
	// Allocs counts Realloc calls, for tests of allocation behaviour.
	Allocs int
}

// pageSize is the WebAssembly page size.
const pageSize = 1 << 16

// NewSliceMemory returns a zeroed memory of size bytes that can grow to limit bytes (limit is
// raised to size if lower). Allocation starts at offset 8, so that pointer 0 is never handed out.
func NewSliceMemory(size, limit uint32) *SliceMemory {
	return &SliceMemory{buf: make([]byte, size), next: 8, limit: max(limit, size)}
}

// Size returns the memory size in bytes.
func (m *SliceMemory) Size() uint32 { return uint32(len(m.buf)) }

// Bytes returns the whole backing slice (a live view).
func (m *SliceMemory) Bytes() []byte { return m.buf }

// Read returns a live view of [offset, offset+byteCount).
func (m *SliceMemory) Read(offset, byteCount uint32) ([]byte, bool) {
	end := uint64(offset) + uint64(byteCount)
	if end > uint64(len(m.buf)) {
		return nil, false
	}
	return m.buf[offset:end:end], true
}

// Write copies v to offset.
func (m *SliceMemory) Write(offset uint32, v []byte) bool {
	end := uint64(offset) + uint64(len(v))
	if end > uint64(len(m.buf)) {
		return false
	}
	copy(m.buf[offset:], v)
	return true
}

// Realloc allocates newSize bytes aligned to align by bumping a pointer; when shrinking or
// growing an existing block it copies min(oldSize, newSize) bytes. It never frees.
func (m *SliceMemory) Realloc(oldPtr, oldSize, align, newSize uint32) (uint32, error) {
	m.Allocs++
	if align == 0 || align&(align-1) != 0 {
		return 0, fmt.Errorf("slice memory: alignment %d is not a power of two", align)
	}
	if oldPtr != 0 && newSize <= oldSize {
		return oldPtr, nil // shrink in place
	}
	p := alignTo(uint64(m.next), uint64(align))
	end := p + uint64(newSize)
	if end > uint64(m.limit) {
		return 0, fmt.Errorf("slice memory: out of memory allocating %d bytes (limit %d)", newSize, m.limit)
	}
	if end > uint64(len(m.buf)) {
		// Grow geometrically, like a guest allocator asking for spare pages, so that many small
		// allocations do not copy the whole memory each time.
		n := min(max(alignTo(end, pageSize), alignTo(2*uint64(len(m.buf)), pageSize)), uint64(m.limit))
		grown := make([]byte, n)
		copy(grown, m.buf)
		m.buf = grown
	}
	if oldPtr != 0 && oldSize > 0 {
		if uint64(oldPtr)+uint64(oldSize) > uint64(len(m.buf)) {
			return 0, fmt.Errorf("slice memory: realloc of [%d, +%d) out of bounds", oldPtr, oldSize)
		}
		copy(m.buf[p:], m.buf[oldPtr:oldPtr+oldSize])
	}
	m.next = uint32(end)
	return uint32(p), nil
}

// Reset forgets every allocation and zeroes the memory, keeping its size.
func (m *SliceMemory) Reset() {
	clear(m.buf)
	m.next = 8
	m.Allocs = 0
}
