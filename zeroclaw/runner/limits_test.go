package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/kobako/kobako/zeroclaw"
)

func TestOpenValidatesLimits(t *testing.T) {
	h := newHost(t)
	tests := []struct {
		set  func(*zeroclaw.Limits)
		want string
	}{
		{func(l *zeroclaw.Limits) { l.CallFuel = 0 }, "plugins.limits.call_fuel must be greater than 0"},
		{func(l *zeroclaw.Limits) { l.MaxMemoryMB = 0 }, "plugins.limits.max_memory_mb must be greater than 0"},
		{func(l *zeroclaw.Limits) { l.MaxTableElements = 0 }, "plugins.limits.max_table_elements must be greater than 0"},
		{func(l *zeroclaw.Limits) { l.MaxInstances = 0 }, "plugins.limits.max_instances must be greater than 0"},
		{func(l *zeroclaw.Limits) { l.CallTimeoutMS = 0 }, "plugins.limits.call_timeout_ms must be greater than 0"},
	}
	for _, tc := range tests {
		_, err := Open(context.Background(), Options{Host: h, Config: config(tc.set), Engine: testEngine()})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := Open(context.Background(), Options{}); err == nil {
		t.Error("Open without a host succeeded")
	}
}

func TestEngineLimitsFromConfig(t *testing.T) {
	h := newHost(t)
	rt := openRuntime(t, h, config(func(l *zeroclaw.Limits) {
		l.CallFuel, l.MaxMemoryMB, l.MaxTableElements, l.MaxInstances, l.CallTimeoutMS = 7, 3, 9, 2, 1500
	}))
	got := rt.engineLimits()
	if got.Fuel != 7 || got.MemoryBytes != 3<<20 || got.TableElements != 9 || got.Instances != 2 || got.Deadline.Milliseconds() != 1500 {
		t.Fatalf("%+v", got)
	}
	// Values past what the engine can hold saturate instead of wrapping.
	rt = openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.MaxMemoryMB, l.MaxTableElements = 1<<40, 1<<40 }))
	got = rt.engineLimits()
	if got.MemoryBytes != 1<<32 || got.TableElements != 1<<32-1 {
		t.Fatalf("%+v", got)
	}
}
