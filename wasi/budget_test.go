package wasi

import (
	"sync"
	"testing"
)

func TestBudget(t *testing.T) {
	b, err := NewBudget(100, 40)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		charge int64
		refund int64
		err    error
		used   int64
	}{
		{charge: 30, used: 30},
		{charge: 41, err: EDQUOT, used: 30}, // over the per-call cap
		{charge: 40, used: 70},
		{charge: 31, err: EDQUOT, used: 70}, // over what is left
		{charge: 30, refund: 10, used: 90},
		{charge: -1, err: EINVAL, used: 90},
		{charge: 0, used: 90},
		{charge: 10, used: 100},
		{charge: 1, err: EDQUOT, used: 100},
	}
	for i, s := range steps {
		if err := b.Charge(s.charge); err != s.err {
			t.Fatalf("step %d: Charge(%d) = %v, want %v", i, s.charge, err, s.err)
		}
		b.Refund(s.refund)
		if b.Used() != s.used || b.Remaining() != 100-s.used {
			t.Fatalf("step %d: used %d remaining %d, want used %d", i, b.Used(), b.Remaining(), s.used)
		}
	}
	if b.Limit() != 100 || b.MaxWrite() != 40 {
		t.Errorf("Limit, MaxWrite = %d, %d", b.Limit(), b.MaxWrite())
	}
}

func TestBudget_Errors(t *testing.T) {
	if _, err := NewBudget(-1, 0); err == nil {
		t.Error("NewBudget(-1, 0): no error")
	}
	if _, err := NewBudget(1, -1); err == nil {
		t.Error("NewBudget(1, -1): no error")
	}
	b, err := NewBudget(1, 0)
	if err != nil || b.MaxWrite() != DefaultMaxWriteSize {
		t.Errorf("NewBudget(1, 0) = %v, %v; want max write %d", b, err, DefaultMaxWriteSize)
	}
}

// Concurrent charges never overdraw the budget.
func TestBudgetConcurrent(t *testing.T) {
	b, _ := NewBudget(1000, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := int64(0)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if b.Charge(3) == nil {
					mu.Lock()
					granted += 3
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if granted != b.Used() || granted > 1000 || granted < 997 {
		t.Fatalf("granted %d, used %d", granted, b.Used())
	}
}
