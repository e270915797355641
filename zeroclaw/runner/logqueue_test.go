package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/kobako/kobako/internal/race"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// captureHandler records what the writer hands it; gate, when set, blocks every Handle until it
// is closed (a stuck log consumer).
type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
	gate    chan struct{}
	level   slog.Level
	panics  bool
}

func (h *captureHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *captureHandler) WithGroup(string) slog.Handler                { return h }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	if h.gate != nil {
		<-h.gate
	}
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	h.mu.Unlock()
	if h.panics {
		panic("handler failed")
	}
	return nil
}

func (h *captureHandler) snapshot() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]slog.Record(nil), h.records...)
}

func attrs(r slog.Record) map[string]any {
	m := map[string]any{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.Any()
		return true
	})
	return m
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func closeQueue(t *testing.T, q *LogQueue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func dropReports(rs []slog.Record) []uint64 {
	var out []uint64
	for _, r := range rs {
		if r.Message == "plugin log records dropped" {
			out = append(out, attrs(r)["dropped"].(uint64))
		}
	}
	return out
}

var src = LogSource{Plugin: "p", Capability: "tool", Binding: "b", Fn: "execute"}

func TestLogQueueWritesRecordsWithHostAttrs(t *testing.T) {
	var buf bytes.Buffer
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug - 4})
	q := NewLogQueue(h, LogQueueOptions{})
	outcome, dur, raw := OutcomeFailure, uint64(12), `{"k":1}`
	if !q.Log(src, LogWarn, PluginEvent{FunctionName: "f", Action: PluginAction(25), Outcome: &outcome, DurationMS: &dur, Attrs: &raw, Message: "hello"}) {
		t.Fatal("record dropped")
	}
	q.Log(src, LogTrace, PluginEvent{FunctionName: "g", Message: "bare"})
	closeQueue(t, q)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines: %s", len(lines), buf.String())
	}
	var first, second map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"level": "WARN", "msg": "hello", "plugin": "p", "plugin_capability": "tool",
		"plugin_binding": "b", "plugin_fn": "execute", "function_name": "f", "action": "list-action",
		"outcome": "failure", "duration_ms": float64(12), "raw": `{"k":1}`}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %v, want %v", k, first[k], v)
		}
	}
	for _, k := range []string{"outcome", "duration_ms", "raw"} {
		if v, ok := second[k]; !ok || v != nil {
			t.Errorf("unset %s = %v (present %v), want null", k, v, ok)
		}
	}
	if second["level"] != "DEBUG-4" || second["action"] != "start" {
		t.Errorf("trace record: %v", second)
	}
}

func TestLogQueueDropsOversizeRecordsWhole(t *testing.T) {
	h := &captureHandler{}
	q := NewLogQueue(h, LogQueueOptions{})
	attrsStr := "a"
	tests := []struct {
		name string
		ev   PluginEvent
		ok   bool
	}{
		{"exactly 64 KiB", PluginEvent{FunctionName: "f", Attrs: &attrsStr, Message: strings.Repeat("x", LogRecordMaxBytes-2)}, true},
		{"one byte over in the message", PluginEvent{FunctionName: "f", Attrs: &attrsStr, Message: strings.Repeat("x", LogRecordMaxBytes-1)}, false},
		{"over in the function name", PluginEvent{FunctionName: strings.Repeat("f", LogRecordMaxBytes+1)}, false},
		{"over in the attrs", PluginEvent{Attrs: func() *string { s := strings.Repeat("a", LogRecordMaxBytes+1); return &s }()}, false},
	}
	for _, tc := range tests {
		if got := q.Log(src, LogInfo, tc.ev); got != tc.ok {
			t.Errorf("%s: Log = %v, want %v", tc.name, got, tc.ok)
		}
	}
	closeQueue(t, q)
	rs := h.snapshot()
	written := 0
	for _, r := range rs {
		if r.Message != "plugin log records dropped" {
			written++
			if len(r.Message) != LogRecordMaxBytes-2 {
				t.Errorf("written record was altered: %d bytes", len(r.Message))
			}
		}
	}
	if written != 1 || q.Dropped() != 3 {
		t.Fatalf("written %d, dropped %d; want 1 and 3", written, q.Dropped())
	}
	if d := dropReports(rs); len(d) == 0 || d[len(d)-1] != 3 {
		t.Fatalf("drop reports %v, want the last to be 3", d)
	}
}

func TestLogQueueFullDropsNewest(t *testing.T) {
	h := &captureHandler{gate: make(chan struct{})}
	q := NewLogQueue(h, LogQueueOptions{})
	accepted := 0
	for i := range 2000 {
		if q.Log(src, LogInfo, PluginEvent{Message: "m" + string(rune('a'+i%26))}) {
			accepted++
		}
	}
	// The writer may hold one record in Handle; the channel holds the rest.
	if accepted < LogQueueRecords || accepted > LogQueueRecords+1 {
		t.Fatalf("accepted %d records, want %d or %d", accepted, LogQueueRecords, LogQueueRecords+1)
	}
	if q.Dropped() != uint64(2000-accepted) {
		t.Fatalf("dropped %d, want %d", q.Dropped(), 2000-accepted)
	}
	close(h.gate)
	closeQueue(t, q)
	rs := h.snapshot()
	if len(rs)-len(dropReports(rs)) != accepted {
		t.Fatalf("wrote %d records, want %d", len(rs)-len(dropReports(rs)), accepted)
	}
	// The oldest records were kept: the first written is the first logged.
	if rs[0].Message != "ma" {
		t.Fatalf("first written %q, want the first logged", rs[0].Message)
	}
	if d := dropReports(rs); len(d) == 0 || d[len(d)-1] != q.Dropped() {
		t.Fatalf("drop reports %v, want the last to be %d", d, q.Dropped())
	}
}

func TestLogQueueByteBudget(t *testing.T) {
	h := &captureHandler{gate: make(chan struct{})}
	q := NewLogQueue(h, LogQueueOptions{})
	msg := strings.Repeat("x", 60<<10)
	accepted := 0
	for range 500 {
		if q.Log(src, LogInfo, PluginEvent{Message: msg}) {
			accepted++
		}
	}
	if max := LogQueueMaxBytes / (60 << 10); accepted != max {
		t.Fatalf("accepted %d records of 60 KiB, want %d (8 MiB)", accepted, max)
	}
	if q.QueuedBytes() > LogQueueMaxBytes {
		t.Fatalf("queued %d bytes, over the budget", q.QueuedBytes())
	}
	close(h.gate)
	closeQueue(t, q)
	if q.QueuedBytes() != 0 {
		t.Fatalf("%d bytes still accounted after the writes", q.QueuedBytes())
	}
}

func TestLogQueueReportsDropsWhenIdle(t *testing.T) {
	h := &captureHandler{}
	q := NewLogQueue(h, LogQueueOptions{IdleReport: 10 * time.Millisecond})
	defer closeQueue(t, q)
	q.Log(src, LogInfo, PluginEvent{Message: strings.Repeat("x", LogRecordMaxBytes+1)})
	// No record follows the dropped one; the idle writer still reports it.
	waitFor(t, "the idle drop report", func() bool {
		d := dropReports(h.snapshot())
		return len(d) == 1 && d[0] == 1
	})
}

func TestLogQueueLevelFilteredRecordsAreNotDrops(t *testing.T) {
	h := &captureHandler{level: slog.LevelWarn}
	q := NewLogQueue(h, LogQueueOptions{})
	for range 3000 {
		q.Log(src, LogDebug, PluginEvent{Message: "quiet"})
	}
	closeQueue(t, q)
	if q.Dropped() != 0 || len(h.snapshot()) != 0 {
		t.Fatalf("dropped %d, wrote %d; want 0 and 0", q.Dropped(), len(h.snapshot()))
	}
}

func TestLogQueueSurvivesHandlerPanicsAndClose(t *testing.T) {
	h := &captureHandler{panics: true}
	q := NewLogQueue(h, LogQueueOptions{})
	q.Log(src, LogInfo, PluginEvent{Message: "one"})
	q.Log(src, LogInfo, PluginEvent{Message: "two"})
	closeQueue(t, q)
	if n := len(h.snapshot()); n != 2 {
		t.Fatalf("wrote %d records through a panicking handler, want 2", n)
	}
	if q.Log(src, LogInfo, PluginEvent{Message: "late"}) {
		t.Fatal("a record was accepted after Close")
	}
	closeQueue(t, q) // a second Close is harmless
}

func TestLogQueueCloseGivesUpOnAStuckHandler(t *testing.T) {
	h := &captureHandler{gate: make(chan struct{})}
	q := NewLogQueue(h, LogQueueOptions{})
	q.Log(src, LogInfo, PluginEvent{Message: "stuck"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Close(ctx); err == nil {
		t.Fatal("Close returned while the handler was stuck")
	}
	close(h.gate)
	closeQueue(t, q)
}

func TestLogQueueConcurrentLoggers(t *testing.T) {
	h := &captureHandler{}
	q := NewLogQueue(h, LogQueueOptions{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				q.Log(LogSource{Plugin: "p", Binding: string(rune('a' + g))}, LogInfo, PluginEvent{Message: "m"})
			}
		}()
	}
	wg.Wait()
	closeQueue(t, q)
	written := len(h.snapshot()) - len(dropReports(h.snapshot()))
	if uint64(written)+q.Dropped() != 1600 {
		t.Fatalf("written %d + dropped %d != 1600", written, q.Dropped())
	}
}

// TestLogQueueFloodKeepsHeapBounded logs 100,000 records of 60 KiB, each a fresh host copy as
// lifting it from guest memory would make, while the writer is stuck: Log never blocks, and the
// live heap stays near the 8 MiB budget instead of growing with the flood.
func TestLogQueueFloodKeepsHeapBounded(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector; run without -race")
	}
	if testing.Short() {
		t.Skip("allocates 6 GB in total")
	}
	h := &captureHandler{gate: make(chan struct{})}
	q := NewLogQueue(h, LogQueueOptions{})
	base := strings.Repeat("x", 60<<10)
	heap := func() uint64 {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	var peak uint64
	const n = 100_000
	for i := range n {
		q.Log(src, LogInfo, PluginEvent{FunctionName: "flood", Message: strings.Clone(base)})
		if i%20_000 == 19_999 {
			peak = max(peak, heap())
		}
	}
	if peak > before+24<<20 {
		t.Fatalf("heap grew from %d to %d bytes during the flood", before, peak)
	}
	if q.Dropped() < n-LogQueueRecords {
		t.Fatalf("dropped %d of %d", q.Dropped(), n)
	}
	close(h.gate)
	closeQueue(t, q)
	if d := dropReports(h.snapshot()); len(d) == 0 || d[len(d)-1] != q.Dropped() {
		t.Fatalf("drop reports end at %v, want %d", d, q.Dropped())
	}
}

// TestLogQueueFlush: once Flush returns, every record logged before it has reached the handler,
// whatever the writer was doing; a stuck handler makes Flush give up with ctx's error, and Flush
// on a closed queue returns at once.
func TestLogQueueFlush(t *testing.T) {
	h := &captureHandler{}
	q := NewLogQueue(h, LogQueueOptions{})
	for round := 1; round <= 20; round++ {
		for i := 0; i < round; i++ {
			q.Log(src, LogInfo, PluginEvent{Message: "m"})
		}
		if err := q.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, want := len(h.snapshot()), round*(round+1)/2; got != want {
			t.Fatalf("round %d: %d records after Flush, want %d", round, got, want)
		}
	}
	closeQueue(t, q)
	if err := q.Flush(context.Background()); err != nil {
		t.Errorf("Flush on a closed queue: %v", err)
	}

	stuck := &captureHandler{gate: make(chan struct{})}
	q = NewLogQueue(stuck, LogQueueOptions{})
	q.Log(src, LogInfo, PluginEvent{Message: "stuck"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Flush(ctx); err == nil {
		t.Error("Flush returned while the handler was stuck")
	}
	close(stuck.gate)
	closeQueue(t, q)
}
