package wasi

import (
	"fmt"
	"sync/atomic"
)

// DefaultMaxWriteSize is the default cap on one write call: ABI 1 says a single file write of more
// than 1 GiB fails with EDQUOT.
const DefaultMaxWriteSize = 1 << 30

// Budget caps the bytes written to files during one call of a guest. Every File of every tree that
// shares the Budget draws on it; a write that does not fit fails with EDQUOT and writes nothing.
// Bytes are counted when written and never given back (truncating or deleting a file does not
// refund them), so the budget bounds the work a guest can make the disk do, not the space it ends
// up using. A Budget is safe for concurrent use.
type Budget struct {
	limit    int64
	maxWrite int64
	used     atomic.Int64
}

// NewBudget returns a budget of limit bytes in total, with at most maxWrite bytes per write call
// (DefaultMaxWriteSize when maxWrite is 0). Both must not be negative.
func NewBudget(limit, maxWrite int64) (*Budget, error) {
	if limit < 0 {
		return nil, fmt.Errorf("wasi: write budget %d is negative", limit)
	}
	if maxWrite < 0 {
		return nil, fmt.Errorf("wasi: write size cap %d is negative", maxWrite)
	}
	if maxWrite == 0 {
		maxWrite = DefaultMaxWriteSize
	}
	return &Budget{limit: limit, maxWrite: maxWrite}, nil
}

// Limit returns the total number of bytes the budget allows.
func (b *Budget) Limit() int64 { return b.limit }

// MaxWrite returns the cap on one write call.
func (b *Budget) MaxWrite() int64 { return b.maxWrite }

// Used returns the bytes charged so far.
func (b *Budget) Used() int64 { return b.used.Load() }

// Remaining returns the bytes that can still be written.
func (b *Budget) Remaining() int64 { return b.limit - b.used.Load() }

// Charge reserves n bytes for one write call, failing with EDQUOT, and charging nothing, when n is
// more than the per-call cap or than what remains. A negative n is EINVAL.
func (b *Budget) Charge(n int64) error {
	if n < 0 {
		return EINVAL
	}
	if n > b.maxWrite {
		return EDQUOT
	}
	for {
		used := b.used.Load()
		if n > b.limit-used {
			return EDQUOT
		}
		if b.used.CompareAndSwap(used, used+n) {
			return nil
		}
	}
}

// Refund gives back n bytes of a Charge that were not written after all (a short write).
func (b *Budget) Refund(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}
