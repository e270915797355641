package abi

import "fmt"

// StringEncoding is the `string-encoding` canonopt.
type StringEncoding uint8

// The three string encodings of the canonical ABI.
const (
	// UTF8: a string is (pointer, byte length), 1-aligned.
	UTF8 StringEncoding = iota
	// UTF16: a string is (pointer, UTF-16 code units), 2-aligned, little-endian.
	UTF16
	// Latin1UTF16: a string is (pointer, tagged code units), 2-aligned: Latin-1 bytes when the
	// UTF16Tag bit of the length is clear, UTF-16 code units when it is set.
	Latin1UTF16
)

// String returns "utf8", "utf16" or "latin1+utf16".
func (e StringEncoding) String() string {
	switch e {
	case UTF8:
		return "utf8"
	case UTF16:
		return "utf16"
	case Latin1UTF16:
		return "latin1+utf16"
	}
	return fmt.Sprintf("string-encoding(%d)", uint8(e))
}

// DefaultMaxLiftBytes is the default CallContext.MaxLiftBytes: 1 GiB.
const DefaultMaxLiftBytes = 1 << 30

// liftNodeCost is what one lifted Value is charged against MaxLiftBytes: its own size.
const liftNodeCost = 48

// CallContext carries the canonical options and instance state that lifting and lowering need
// (the specification's LiftLowerContext: CanonicalABI.md#lifting-and-lowering-context). Make one
// per call; it is not safe for concurrent use.
type CallContext struct {
	// Memory is the `memory` canonopt: the guest memory that strings, lists and spilled
	// arguments live in. Needed by any type containing a string or list, and by spilling.
	Memory Memory
	// Realloc is the `realloc` canonopt, needed to lower strings and lists into the guest and to
	// spill the parameters of a lifted export.
	Realloc Realloc
	// Encoding is the `string-encoding` canonopt (UTF8 by default).
	Encoding StringEncoding
	// PostReturn is the `post-return` canonopt: called by CallExport with the export's flat
	// results after they have been lifted, so the guest can free them.
	PostReturn func(flatResults []uint64) error
	// Async is the `async` canonopt. Async lift and lower are not supported: when set, every
	// operation fails with ErrAsync rather than misreading the async ABI.
	Async bool
	// Handles is the guest instance's handle table, needed for own and borrow.
	Handles HandleTable
	// Scope tracks the borrows of the current call. CallExport and ServeImport make one when it
	// is nil; set it to drive lifting and lowering of borrow handles directly.
	Scope *BorrowScope
	// MaxLiftBytes bounds the host memory one lift may materialise (strings, list payloads and
	// 48 bytes per Value). Guest memory can alias — a million list entries may all point at the
	// same megabyte — so without a bound a small guest could make the host allocate terabytes.
	// Zero means DefaultMaxLiftBytes.
	MaxLiftBytes uint64

	// flat is CallExport's buffer for the flat arguments, kept so that an embedder reusing one
	// CallContext for many calls (one at a time) does not allocate it on each.
	flat []uint64
	// scratch holds the bytes of one scalar that lowering writes straight into Memory: a buffer
	// here does not escape per write.
	scratch [8]byte
	// typedStorer and typedLifter serve GoFunc calls, so that the typed path does not allocate
	// them per call; a CallContext runs one call at a time.
	typedStorer storer
	typedLifter lifter
}

func (cx *CallContext) checkAsync() error {
	if cx.Async {
		return errorf(ErrAsync, "async canonopt")
	}
	return nil
}

func (cx *CallContext) memory() (Memory, error) {
	if cx.Memory == nil {
		return nil, errorf(ErrMissingOption, "memory canonopt required")
	}
	return cx.Memory, nil
}

// alloc calls realloc(0, 0, align, size) and checks the result's alignment and bounds. The
// returned pointer is valid for size bytes.
func (cx *CallContext) alloc(align, size uint32) (uint32, error) {
	return cx.realloc(0, 0, align, size)
}

func (cx *CallContext) realloc(old, oldSize, align, size uint32) (uint32, error) {
	if cx.Realloc == nil {
		return 0, errorf(ErrMissingOption, "realloc canonopt required")
	}
	mem, err := cx.memory()
	if err != nil {
		return 0, err
	}
	p, err := cx.Realloc(old, oldSize, align, size)
	if err != nil {
		return 0, fmt.Errorf("realloc(%d, %d, %d, %d): %w: %w", old, oldSize, align, size, ErrRealloc, err)
	}
	if p%align != 0 {
		return 0, errorf(ErrMisaligned, "realloc returned %#x, not %d-aligned", p, align)
	}
	if uint64(p)+uint64(size) > uint64(mem.Size()) {
		return 0, errorf(ErrOutOfBounds, "realloc returned [%#x, +%d) beyond memory size %d", p, size, mem.Size())
	}
	return p, nil
}

// view returns the live view of [ptr, ptr+n), checking bounds with 64-bit arithmetic so that
// ptr+n cannot wrap.
func view(mem Memory, ptr uint32, n uint64) ([]byte, error) {
	if uint64(ptr)+n > uint64(mem.Size()) {
		return nil, errorf(ErrOutOfBounds, "range [%#x, +%d) beyond memory size %d", ptr, n, mem.Size())
	}
	b, ok := mem.Read(ptr, uint32(n))
	if !ok || uint64(len(b)) != n {
		return nil, errorf(ErrOutOfBounds, "range [%#x, +%d) not readable", ptr, n)
	}
	return b, nil
}

func checkAlign(ptr, align uint32, what string) error {
	if ptr%align != 0 {
		return errorf(ErrMisaligned, "%s pointer %#x is not %d-aligned", what, ptr, align)
	}
	return nil
}
