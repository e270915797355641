package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over in and out (newline-delimited JSON-RPC, as `kobako mcp` does
// on its stdin and stdout) until in ends or ctx is done. When in ends, the calls in flight are
// answered before it returns nil; when ctx ends first it returns ctx's error.
//
// A line that is not a JSON-RPC message kobako serves is answered with its JSON-RPC error (-32700,
// -32600, -32601 or -32602) and the connection goes on, as does a line longer than
// Options.MaxMessageBytes. Both eras share the connection in any order: requests that carry a
// 2026-07-28 _meta (and server/discover) are served statelessly under their own _meta, the others
// by the session an initialize opened; an initialize that follows a discover, or another
// initialize, is answered as a first one.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	c := &stdioConn{srv: s, out: out, pending: map[string]*sdkConn{}, cancelled: map[string]bool{}, asked: map[string]*sdkConn{}}
	c.idle = sync.NewCond(&c.mu)
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() { readErr <- readLines(in, s.maxMessage(), lines, stop) }()
	for {
		select {
		case <-ctx.Done():
			c.closeAll()
			return ctx.Err()
		case err := <-readErr:
			if err != nil && !errors.Is(err, io.EOF) {
				c.closeAll()
				return fmt.Errorf("mcpserve: stdio: %w", err)
			}
			// The client is done sending: answer what is in flight, then end.
			if !c.drain(ctx) {
				c.closeAll()
				return ctx.Err()
			}
			c.closeAll()
			return c.writeErr()
		case line := <-lines:
			c.receive(ctx, line)
			if err := c.writeErr(); err != nil {
				c.closeAll()
				return fmt.Errorf("mcpserve: stdio: %w", err)
			}
		}
	}
}

// oversized marks a line readLines cut short.
var oversized = []byte{0}

// readLines sends each line of in (without its newline) to lines. A line longer than max is read
// to its end without being kept, and oversized is sent in its place.
func readLines(in io.Reader, max int64, lines chan<- []byte, stop <-chan struct{}) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		var line []byte
		over := false
		for {
			chunk, err := r.ReadSlice('\n')
			if !over {
				if int64(len(line)+len(chunk)) > max+1 { // +1: the newline
					over, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if len(line) > 0 || over {
					break
				}
				return err
			}
			break
		}
		if over {
			line = oversized
		} else {
			line = bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
		}
		select {
		case lines <- line:
		case <-stop:
			return nil
		}
	}
}

// stdioConn is one stdio client. Its requests go to one of two SDK sessions: legacy, opened by
// initialize, for requests without a 2026-07-28 _meta; modern for the rest. The SDK keys a session's
// handshake on the first of initialize and server/discover it receives, so one session cannot
// take both in either order, as Claude Code sends them.
type stdioConn struct {
	srv *Server
	out io.Writer

	wmu  sync.Mutex // one line at a time on out
	werr error

	mu        sync.Mutex
	idle      *sync.Cond // signalled when pending empties
	legacy    *sdkConn
	modern    *sdkConn
	retired   []*sdkConn          // legacy sessions a later initialize replaced, closed when idle
	pending   map[string]*sdkConn // requests in flight, by id
	cancelled map[string]bool     // of those, the ones the client cancelled: their answers are dropped
	asked     map[string]*sdkConn // requests the server sent the client, by id
}

// sdkConn is the Connection one SDK session reads from and writes to.
type sdkConn struct {
	front       *stdioConn
	in          chan jsonrpc.Message
	done        chan struct{}
	closeOnce   sync.Once
	ss          *mcp.ServerSession
	initialized bool // legacy: an initialize was forwarded
	calls       int  // requests in flight
}

func (c *sdkConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *sdkConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *sdkConn) Write(_ context.Context, m jsonrpc.Message) error {
	select {
	case <-c.done:
		return mcp.ErrConnectionClosed
	default:
	}
	c.front.fromSession(c, m)
	return nil
}

func (c *sdkConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

func (c *sdkConn) SessionID() string { return "" }

// session returns the legacy or modern session, opening it on first use. Opening lazily keeps a
// session the client never spoke to from receiving notifications.
func (c *stdioConn) session(ctx context.Context, modern bool) (*sdkConn, error) {
	p := &c.legacy
	if modern {
		p = &c.modern
	}
	if *p != nil {
		return *p, nil
	}
	sc := &sdkConn{front: c, in: make(chan jsonrpc.Message, 16), done: make(chan struct{})}
	ss, err := c.srv.mcp.Connect(context.WithoutCancel(ctx), sc, nil)
	if err != nil {
		return nil, err
	}
	sc.ss = ss
	*p = sc
	return sc, nil
}

// receive handles one line from the client.
func (c *stdioConn) receive(ctx context.Context, line []byte) {
	if bytes.Equal(line, oversized) {
		c.reply((&rpcError{code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: the message is longer than %d bytes and was dropped", c.srv.maxMessage())}).encode())
		return
	}
	m, rerr := inspect(line)
	if rerr != nil {
		if !rerr.notify {
			c.reply(rerr.encode())
		}
		return
	}
	switch {
	case m.response:
		c.mu.Lock()
		k := idKey(m.id)
		sc := c.asked[k]
		delete(c.asked, k)
		c.mu.Unlock()
		if sc != nil {
			c.forward(sc, m)
		}
	case !m.call():
		c.notification(m)
	default:
		c.request(ctx, m)
	}
}

func (c *stdioConn) notification(m *inbound) {
	c.mu.Lock()
	var sc *sdkConn
	if m.method == "notifications/cancelled" {
		k := idKey(m.params["requestId"])
		if sc = c.pending[k]; sc != nil {
			c.cancelled[k] = true
		}
	} else {
		sc = c.legacy
	}
	c.mu.Unlock()
	if sc != nil {
		c.forward(sc, m)
	}
}

func (c *stdioConn) request(ctx context.Context, m *inbound) {
	k := idKey(m.id)
	c.mu.Lock()
	if c.pending[k] != nil {
		c.mu.Unlock()
		c.reply((&rpcError{id: m.id, code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: id %s is already used by a request in flight", m.id)}).encode())
		return
	}
	if !m.modern() {
		switch {
		case m.method == "initialize":
			if c.legacy != nil && c.legacy.initialized {
				// A repeated initialize starts over, as a client that reconnects expects; the old
				// session answers its calls in flight and is then closed.
				c.retired = append(c.retired, c.legacy)
				c.legacy = nil
				c.closeIdleLocked()
			}
		case m.method == "ping" && (c.legacy == nil || !c.legacy.initialized):
			c.mu.Unlock()
			c.reply([]byte(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{}}`))
			return
		case c.legacy == nil || !c.legacy.initialized:
			c.mu.Unlock()
			c.reply((&rpcError{id: m.id, code: codeInvalidRequest, message: fmt.Sprintf(
				"Invalid Request: %s before initialize; send initialize first, or give the request a %q _meta (protocol %s)",
				m.method, metaVersionKey, statelessVersion)}).encode())
			return
		}
	}
	sc, err := c.session(ctx, m.modern())
	if err != nil {
		c.mu.Unlock()
		c.reply((&rpcError{id: m.id, code: codeInternalError, message: fmt.Sprintf("Internal error: %v", err)}).encode())
		return
	}
	if m.method == "initialize" {
		sc.initialized = true
	}
	c.pending[k] = sc
	sc.calls++
	c.mu.Unlock()
	c.forward(sc, m)
}

// forward hands a checked message to a session.
func (c *stdioConn) forward(sc *sdkConn, m *inbound) {
	msg, err := jsonrpc.DecodeMessage(m.raw)
	if err != nil {
		if m.call() {
			c.answered(m.id)
			c.reply((&rpcError{id: m.id, code: codeInvalidRequest, message: fmt.Sprintf("Invalid Request: %v", err)}).encode())
		}
		return
	}
	select {
	case sc.in <- msg:
	case <-sc.done:
		if m.call() {
			c.answered(m.id)
			c.reply((&rpcError{id: m.id, code: codeInternalError, message: "Internal error: the session closed"}).encode())
		}
	}
}

// answered takes a request off the in-flight list and reports whether the client cancelled it.
func (c *stdioConn) answered(id json.RawMessage) (cancelled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := idKey(id)
	sc := c.pending[k]
	if sc == nil {
		return false
	}
	cancelled = c.cancelled[k]
	delete(c.pending, k)
	delete(c.cancelled, k)
	sc.calls--
	c.closeIdleLocked()
	if len(c.pending) == 0 {
		c.idle.Broadcast()
	}
	return cancelled
}

// closeIdleLocked closes the retired sessions that have no call in flight.
func (c *stdioConn) closeIdleLocked() {
	kept := c.retired[:0]
	for _, r := range c.retired {
		if r.calls == 0 {
			// Not here: Close waits for the session's last answer, whose write takes c.mu.
			go r.ss.Close()
		} else {
			kept = append(kept, r)
		}
	}
	c.retired = kept
}

// fromSession writes what a session sends to the client. An answer to a request the client
// cancelled is dropped, as the specification asks; an error the SDK sent without a code gets one.
func (c *stdioConn) fromSession(sc *sdkConn, m jsonrpc.Message) {
	switch m := m.(type) {
	case *jsonrpc.Response:
		id, _ := json.Marshal(m.ID.Raw())
		if c.answered(id) {
			return
		}
		b, err := encodeResponse(m)
		if err != nil {
			c.srv.log.Error("encoding an answer", "error", err)
			return
		}
		c.reply(b)
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			id, _ := json.Marshal(m.ID.Raw())
			c.mu.Lock()
			c.asked[idKey(id)] = sc
			c.mu.Unlock()
		}
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			c.srv.log.Error("encoding a message", "error", err)
			return
		}
		c.reply(b)
	}
}

// encodeResponse encodes an SDK response, giving a code to an error the SDK sent without one.
func encodeResponse(r *jsonrpc.Response) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(r)
	if err != nil || r.Error == nil {
		return b, err
	}
	var doc struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}
	if json.Unmarshal(b, &doc) != nil || !sdkError(doc.Error) {
		return b, nil
	}
	return json.Marshal(doc)
}

// reply writes one line to the client.
func (c *stdioConn) reply(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return
	}
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		c.werr = err
	}
}

func (c *stdioConn) writeErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// drain waits until every request in flight was answered, or ctx ends (false).
func (c *stdioConn) drain(ctx context.Context) bool {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.idle.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && ctx.Err() == nil {
		c.idle.Wait()
	}
	return ctx.Err() == nil
}

// closeAll ends every session. The calls in flight are cancelled first: a session's Close waits
// for its handlers, and a guest stops at once when its call's context ends.
func (c *stdioConn) closeAll() {
	c.mu.Lock()
	all := append([]*sdkConn{c.legacy, c.modern}, c.retired...)
	c.legacy, c.modern, c.retired = nil, nil, nil
	type call struct {
		sc *sdkConn
		id string
	}
	var inFlight []call
	for k, sc := range c.pending {
		c.cancelled[k] = true
		inFlight = append(inFlight, call{sc, k})
	}
	c.mu.Unlock()
	for _, f := range inFlight {
		id, err := jsonrpc.MakeID(idValue(f.id))
		if err != nil {
			continue
		}
		n, err := jsonrpc2Notification("notifications/cancelled", map[string]any{"requestId": id.Raw(), "reason": "the server is shutting down"})
		if err == nil {
			select {
			case f.sc.in <- n:
			case <-f.sc.done:
			}
		}
	}
	for _, sc := range all {
		if sc != nil {
			sc.ss.Close()
		}
	}
}

// idValue is the id an idKey was made from, as MakeID takes it.
func idValue(k string) any {
	if k == "" {
		return nil
	}
	if k[0] == 's' {
		return k[1:]
	}
	n, _ := strconv.ParseInt(k[1:], 10, 64)
	return float64(n)
}

func jsonrpc2Notification(method string, params any) (jsonrpc.Message, error) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	return jsonrpc.DecodeMessage(b)
}

// idKey is a request id as a map key: a string id and a number id never share one.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if isJSONString(raw) {
		var s string
		json.Unmarshal(raw, &s)
		return "s" + s
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n" + strconv.FormatInt(n, 10)
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return "n" + strconv.FormatInt(int64(f), 10)
	}
	return "?" + string(raw)
}
