package runner

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// The logging queue's bounds, the reference host's (component_logging.rs). Guest log fields are
// strings of any length copied into host memory outside the guest's memory cap, so the queue is
// what bounds the host memory a plugin can pin through logging.
const (
	// LogQueueRecords is how many records may wait for the writer.
	LogQueueRecords = 1024
	// LogRecordMaxBytes bounds one record's guest bytes (function-name + attrs + message); a
	// bigger record is dropped whole, never truncated.
	LogRecordMaxBytes = 64 << 10
	// LogQueueMaxBytes bounds the guest bytes of all queued records together; a record's share
	// is released after it was written.
	LogQueueMaxBytes = 8 << 20
	// LogIdleReport is how often an idle writer checks for drops to report.
	LogIdleReport = 2 * time.Second
)

// LogSource attributes a guest record to the plugin instance and export that emitted it; the
// writer adds it as the host attrs plugin, plugin_capability, plugin_binding and plugin_fn.
type LogSource struct {
	Plugin     string
	Capability string
	Binding    string
	Fn         string
}

// LogQueueOptions tunes a LogQueue. The zero value is the reference's behaviour.
type LogQueueOptions struct {
	// IdleReport overrides LogIdleReport (tests use a short one).
	IdleReport time.Duration
}

// LogQueue carries guest log records to an embedder's slog.Handler without ever blocking the
// guest: Log only reserves bytes and does a non-blocking send, and one writer goroutine calls the
// handler. When the queue is full or over its byte budget the newest record is dropped; the writer
// reports the cumulative drop count after each write and when idle, so a loss is visible even if
// no record follows it. A LogQueue is safe for concurrent use.
type LogQueue struct {
	h       slog.Handler
	ch      chan logItem
	bytes   atomic.Int64
	dropped atomic.Uint64
	closed  atomic.Bool
	idle    time.Duration

	stop      chan struct{}
	done      chan struct{}
	flush     chan chan struct{}
	closeOnce sync.Once

	reported uint64 // the drop count last reported; writer goroutine only
}

type logItem struct {
	t     time.Time
	level LogLevel
	src   LogSource
	ev    PluginEvent
	size  int64
}

// NewLogQueue starts a queue writing to h; Close stops its writer.
func NewLogQueue(h slog.Handler, opts LogQueueOptions) *LogQueue {
	q := &LogQueue{
		h:     h,
		ch:    make(chan logItem, LogQueueRecords),
		idle:  opts.IdleReport,
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		flush: make(chan chan struct{}),
	}
	if q.idle <= 0 {
		q.idle = LogIdleReport
	}
	go q.run()
	return q
}

// Log queues one guest record. It never blocks and never fails the caller: it reports false when
// the record was dropped (too big, queue full or over budget, or the queue closed) and true when
// it was queued or the handler does not want its level.
func (q *LogQueue) Log(src LogSource, level LogLevel, ev PluginEvent) bool {
	if !q.h.Enabled(context.Background(), slogLevel(level)) {
		return true
	}
	size := int64(ev.guestBytes())
	if size > LogRecordMaxBytes || q.closed.Load() {
		q.dropped.Add(1)
		return false
	}
	for {
		cur := q.bytes.Load()
		if cur+size > LogQueueMaxBytes {
			q.dropped.Add(1)
			return false
		}
		if q.bytes.CompareAndSwap(cur, cur+size) {
			break
		}
	}
	select {
	case q.ch <- logItem{t: time.Now(), level: level, src: src, ev: ev, size: size}:
		return true
	default:
		q.bytes.Add(-size)
		q.dropped.Add(1)
		return false
	}
}

// Dropped is the cumulative number of dropped records.
func (q *LogQueue) Dropped() uint64 { return q.dropped.Load() }

// QueuedBytes is the guest bytes currently queued, for tests and metrics.
func (q *LogQueue) QueuedBytes() int64 { return q.bytes.Load() }

// Close stops accepting records, writes what is queued, reports drops and stops the writer. It
// returns ctx's error if the handler does not finish in time; the writer then exits on its own.
func (q *LogQueue) Close(ctx context.Context) error {
	q.closeOnce.Do(func() {
		q.closed.Store(true)
		close(q.stop)
	})
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush returns once every record queued before it was called has been handed to the handler,
// so that an embedder that shows a call's records with its result has them all. It returns ctx's
// error if the writer does not get there in time, and at once on a closed queue (Close writes
// what is queued).
func (q *LogQueue) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case q.flush <- done:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *LogQueue) run() {
	defer close(q.done)
	idle := time.NewTimer(q.idle)
	defer idle.Stop()
	for {
		select {
		case it := <-q.ch:
			q.write(it)
			q.reportDrops()
			idle.Reset(q.idle)
		case <-idle.C:
			q.reportDrops()
			idle.Reset(q.idle)
		case done := <-q.flush:
			// Everything queued before Flush is in the buffer already: write it all.
			for n := len(q.ch); n > 0; n-- {
				q.write(<-q.ch)
			}
			q.reportDrops()
			close(done)
		case <-q.stop:
			for {
				select {
				case it := <-q.ch:
					q.write(it)
				default:
					q.reportDrops()
					return
				}
			}
		}
	}
}

func (q *LogQueue) write(it logItem) {
	defer q.bytes.Add(-it.size)
	ev := &it.ev
	r := slog.NewRecord(it.t, slogLevel(it.level), ev.Message, 0)
	outcome, duration, raw := slog.Any("outcome", nil), slog.Any("duration_ms", nil), slog.Any("raw", nil)
	if ev.Outcome != nil {
		outcome = slog.String("outcome", ev.Outcome.String())
	}
	if ev.DurationMS != nil {
		duration = slog.Uint64("duration_ms", *ev.DurationMS)
	}
	if ev.Attrs != nil {
		raw = slog.String("raw", *ev.Attrs)
	}
	r.AddAttrs(
		slog.String("plugin", it.src.Plugin),
		slog.String("plugin_capability", it.src.Capability),
		slog.String("plugin_binding", it.src.Binding),
		slog.String("plugin_fn", it.src.Fn),
		slog.String("function_name", ev.FunctionName),
		slog.String("action", ev.Action.String()),
		outcome, duration, raw,
	)
	q.handle(r)
}

// reportDrops writes one warning with the cumulative drop count when it changed.
func (q *LogQueue) reportDrops() {
	n := q.dropped.Load()
	if n == q.reported {
		return
	}
	q.reported = n
	r := slog.NewRecord(time.Now(), slog.LevelWarn, "plugin log records dropped", 0)
	r.AddAttrs(slog.Uint64("dropped", n))
	q.handle(r)
}

// handle calls the embedder's handler; a panic in it must not end the writer (the guest must
// never be failed by logging), and an error has nowhere else to go.
func (q *LogQueue) handle(r slog.Record) {
	defer func() { _ = recover() }()
	if q.h.Enabled(context.Background(), r.Level) {
		_ = q.h.Handle(context.Background(), r)
	}
}
