package runner

import (
	"fmt"
	"sync"
)

// DefaultInboundCapacity is how many messages a channel's inbound queue holds by default.
const DefaultInboundCapacity = 1024

// InboundQueue is a channel's host-side inbound queue: the embedder's listeners (a webhook
// server, a vendor client) push messages, and the plugin drains them with inbound.inbound-poll
// from its poll-message export. It is bounded; Push fails with ErrInboundFull rather than grow.
// Safe for concurrent use.
type InboundQueue struct {
	mu   sync.Mutex
	msgs []HostInboundMessage
	head int
	cap  int
}

// NewInboundQueue returns a queue holding at most capacity messages (DefaultInboundCapacity
// when capacity <= 0).
func NewInboundQueue(capacity int) *InboundQueue {
	if capacity <= 0 {
		capacity = DefaultInboundCapacity
	}
	return &InboundQueue{cap: capacity}
}

// Push queues m and returns the number of messages now pending.
func (q *InboundQueue) Push(m HostInboundMessage) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.msgs) - q.head
	if n >= q.cap {
		return n, fmt.Errorf("%w: %d messages are pending", ErrInboundFull, n)
	}
	if q.head > 0 && q.head*2 >= len(q.msgs) {
		q.msgs = append(q.msgs[:0], q.msgs[q.head:]...)
		q.head = 0
	}
	q.msgs = append(q.msgs, m)
	return n + 1, nil
}

// Len is the number of pending messages.
func (q *InboundQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.msgs) - q.head
}

func (q *InboundQueue) pop() (HostInboundMessage, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.msgs) {
		return HostInboundMessage{}, false
	}
	m := q.msgs[q.head]
	q.msgs[q.head] = HostInboundMessage{}
	q.head++
	if q.head == len(q.msgs) {
		q.msgs, q.head = q.msgs[:0], 0
	}
	return m, true
}
