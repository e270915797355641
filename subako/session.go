package subako

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

// Limits of ABI 1 on a run.
const (
	// MaxStdoutBytes is the most a module may write to stdout in one run, base64 images included.
	MaxStdoutBytes = wire.MaxStdoutBytes
	// StderrTailBytes is about how much of stderr a crash report carries: its first KiB and
	// the rest from its end, with a line saying how much was left out between them.
	StderrTailBytes = 4 << 10
	// ExitGrace is how long a module has to exit after its stdin closes.
	ExitGrace = time.Second
)

// Rule is an ABI 1 rule whose breach makes a run a crash.
type Rule int

// The crash rules.
const (
	RuleRPCError         Rule = iota + 1 // answered with a JSON-RPC error
	RuleNotComplete                      // answered with a resultType other than "complete"
	RuleNotMessage                       // wrote a stdout line that is not a JSON-RPC message
	RuleUnknownID                        // answered an id that was not awaiting an answer
	RuleOwnRequest                       // sent a request of its own
	RuleExitBeforeAnswer                 // exited before answering every request
	RuleExitNonZero                      // exited with a non-zero status
	RuleLingered                         // still running ExitGrace after stdin closed
	RuleTrap                             // trapped
	RuleOutOfFuel                        // ran out of fuel
	RuleOutOfMemory                      // ran out of memory
	RuleOutOfTime                        // ran out of time
	RuleStdoutTooLarge                   // wrote more than MaxStdoutBytes to stdout
	RuleMalformedResult                  // answered with a result of the wrong shape
)

var ruleText = map[Rule]string{
	RuleRPCError:         "answered with a JSON-RPC error",
	RuleNotComplete:      "answered with a resultType other than \"complete\"",
	RuleNotMessage:       "wrote a stdout line that is not a JSON-RPC message",
	RuleUnknownID:        "answered an id that was never sent or was already answered",
	RuleOwnRequest:       "sent a request of its own (a stateless server sends none)",
	RuleExitBeforeAnswer: "exited before answering",
	RuleExitNonZero:      "exited with a non-zero status",
	RuleLingered:         "was still running 1 s after stdin closed",
	RuleTrap:             "trapped",
	RuleOutOfFuel:        "ran out of fuel",
	RuleOutOfMemory:      "ran out of memory",
	RuleOutOfTime:        "ran out of time",
	RuleStdoutTooLarge:   "wrote more than 1 MiB to stdout",
	RuleMalformedResult:  "answered with a malformed result",
}

// String describes the rule's breach, e.g. "exited before answering".
func (r Rule) String() string {
	if s, ok := ruleText[r]; ok {
		return s
	}
	return fmt.Sprintf("rule(%d)", int(r))
}

// CrashError reports that a module crashed: which rule it broke, the details, and the start and
// the end of its stderr (StderrTailBytes), which is what the model is shown.
type CrashError struct {
	Rule   Rule
	Detail string
	// Stderr is the module's stderr, valid UTF-8: whole when it is at most StderrTailBytes,
	// else its first KiB and its end with an "[… N bytes of stderr omitted …]" line between.
	Stderr string
	// Err is the underlying engine error (a *engine.Trap), when there is one.
	Err error
}

// Error reads like "subako: function crashed: exited with a non-zero status: exit status 3".
func (e *CrashError) Error() string {
	s := "subako: " + ErrCrash.Error() + ": " + e.Rule.String()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is matches ErrCrash.
func (e *CrashError) Is(target error) bool { return target == ErrCrash }

// Unwrap returns the engine error, if any.
func (e *CrashError) Unwrap() error { return e.Err }

// Report is the crash as a model is told it: the rule, then the end of stderr.
func (e *CrashError) Report() string {
	s := "The function crashed: it " + e.Rule.String()
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	s += "."
	if e.Stderr != "" {
		s += "\nLast stderr output:\n" + e.Stderr
	}
	return s
}

// outgoing is a request the host sends.
type outgoing struct {
	method string
	params any
}

// driver decides what to send: first, then after each answer. answer returns nil when the run
// has asked everything; an error ends the run with that error.
type driver interface {
	first() outgoing
	answer(result json.RawMessage) (*outgoing, error)
}

// predecoder is a driver that decodes a result (an object) once for the resultType check and its
// answer. predecode returns the resultType (nil when absent or null) and true, or false when the
// one decode failed, and the run then checks the result as for any driver.
type predecoder interface {
	predecode(result json.RawMessage) (resultType *string, ok bool)
}

// runSpec is what one run of a module gets.
type runSpec struct {
	limits engine.Limits
	wasi   wasi.Config // Stdin, Stdout and Stderr are set by run
	http   *httpState
}

var errLingered = errors.New("module still running after stdin closed")

// session is the host side of one run's stdio.
type session struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	drv    driver
	meta   json.RawMessage // the requests' _meta object, encoded
	stdin  *stdinPipe
	pipe   stdinPipe // what stdin points to in a run (allocated with the session)
	stderr tailBuffer

	mu       sync.Mutex
	line     []byte
	total    int
	pending  string // id awaiting an answer
	answered bool   // every request answered and stdin closed
	failure  error
	timer    *time.Timer
	lingered atomic.Bool
}

// run runs the module once, feeding drv's requests and checking every rule.
func (p *Package) run(ctx context.Context, spec runSpec, drv driver) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &session{ctx: ctx, cancel: cancel, drv: drv, meta: p.rt.meta}
	s.stdin = &s.pipe
	defer s.stdin.Close()
	if err := s.send(drv.first()); err != nil {
		return err
	}
	store, err := p.rt.eng.NewStore(ctx, spec.limits)
	if err != nil {
		return fmt.Errorf("subako: run: %w: %v", ErrOptions, err)
	}
	defer store.Close(ctx)
	cfg := spec.wasi
	cfg.Args = p.args
	if p.args[0] != p.Manifest.Name { // the embedder changed Manifest after Load
		cfg.Args = []string{p.Manifest.Name}
	}
	cfg.Stdin, cfg.Stdout, cfg.Stderr = s.stdin, s, &s.stderr
	host, err := preview1.Bind(store, cfg)
	if err != nil {
		return fmt.Errorf("subako: run: %w", err)
	}
	defer host.Close()
	hs := spec.http
	if hs == nil {
		hs = &httpState{}
	}
	hs.host, hs.client = host, p.rt.client
	httpKey.Set(store, hs)
	inst, err := store.Instantiate(ctx, p.mod, importsFor)
	if err == nil {
		_, err = inst.Call(ctx, "_start")
	}
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	return s.verdict(ctx, err, store)
}

var importsFor = engine.Imports{preview1.ModuleName: preview1.Module, HTTPModuleName: HTTPModule}

func requestMeta(version string) wire.RequestMeta {
	return wire.RequestMeta{
		ClientCapabilities: json.RawMessage(`{}`),
		ClientInfo:         wire.Implementation{Name: "kobako", Version: version},
		ProtocolVersion:    ProtocolVersion,
	}
}

// newID returns a fresh request id: the method's last element and 96 random bits.
func newID(method string) string {
	var b [12]byte
	rand.Read(b[:])
	if i := strings.LastIndexByte(method, '/'); i >= 0 {
		method = method[i+1:]
	}
	return method + "-" + hex.EncodeToString(b[:])
}

// send writes one request line to stdin and records its id. Called with s.mu held, or before the
// run starts.
func (s *session) send(o outgoing) error {
	id := newID(o.method)
	params, err := json.Marshal(o.params)
	if err != nil {
		return fmt.Errorf("subako: run: encode %s params: %w", o.method, err)
	}
	params = bytes.TrimSpace(params)
	if len(params) < 2 || params[0] != '{' {
		return fmt.Errorf("subako: run: BUG: %s params %s are not a JSON object", o.method, params)
	}
	// The params object gets _meta added as its first member (the drivers never set one), so the
	// driver's members keep their order and end the line, where a crude guest finds a tool call's
	// name (the order the map encoding this replaced gave: _meta, arguments, name). The id comes
	// before params so that even a crude guest finds the top-level id first. The line is spliced
	// together rather than re-encoded: a call is short, and this runs for every one. The members
	// are those of wire.Request, in that order.
	line := make([]byte, 0, 64+len(id)+len(o.method)+len(params)+len(s.meta))
	line = append(line, `{"jsonrpc":"`+wire.Version+`","id":`...)
	line = wire.AppendString(line, id)
	line = append(line, `,"method":`...)
	line = wire.AppendString(line, o.method)
	line = append(line, `,"params":{"_meta":`...)
	line = append(line, s.meta...)
	if inner := bytes.TrimSpace(params[1 : len(params)-1]); len(inner) > 0 {
		line = append(line, ',')
		line = append(line, inner...)
	}
	line = append(line, "}}\n"...)
	s.pending = id
	s.stdin.Write(line)
	return nil
}

// Write receives the module's stdout. It enforces MaxStdoutBytes and handles each complete line
// as it arrives, so the next request goes out as soon as an answer is in.
func (s *session) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure != nil {
		return len(b), nil
	}
	if s.total+len(b) > MaxStdoutBytes {
		s.fail(&CrashError{Rule: RuleStdoutTooLarge, Detail: fmt.Sprintf("more than %d bytes", MaxStdoutBytes)})
		return len(b), nil
	}
	s.total += len(b)
	s.line = append(s.line, b...)
	for s.failure == nil {
		i := bytes.IndexByte(s.line, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSuffix(s.line[:i], []byte("\r"))
		s.handle(line)
		s.line = s.line[i+1:]
	}
	return len(b), nil
}

// fail records the first failure and stops the module. Called with s.mu held.
func (s *session) fail(err error) {
	if s.failure == nil {
		s.failure = err
		s.cancel(err)
	}
}

func (s *session) handle(line []byte) {
	m, err := parseMessage(line)
	if err != nil {
		s.fail(&CrashError{Rule: RuleNotMessage, Detail: fmt.Sprintf("%q", clip(line)), Err: err})
		return
	}
	switch m.Kind {
	case kindNotification:
		return
	case kindRequest:
		s.fail(&CrashError{Rule: RuleOwnRequest, Detail: fmt.Sprintf("method %q", m.Method)})
		return
	}
	if s.pending == "" || !idIs(m.ID, s.pending) {
		s.fail(&CrashError{Rule: RuleUnknownID, Detail: fmt.Sprintf("id %s", clip(m.ID))})
		return
	}
	s.pending = ""
	if m.Kind == kindError {
		s.fail(&CrashError{Rule: RuleRPCError, Detail: fmt.Sprintf("code %d: %s", m.Error.Code, clip([]byte(m.Error.Message)))})
		return
	}
	var head struct {
		ResultType *string `json:"resultType"`
	}
	if m.Result[0] != '{' {
		s.fail(&CrashError{Rule: RuleMalformedResult, Detail: fmt.Sprintf("the result %s is not an object", clip(m.Result))})
		return
	}
	if p, ok := s.drv.(predecoder); ok {
		head.ResultType, ok = p.predecode(m.Result)
		if !ok && json.Unmarshal(m.Result, &head) != nil {
			s.fail(&CrashError{Rule: RuleMalformedResult, Detail: fmt.Sprintf("the result %s is not an object", clip(m.Result))})
			return
		}
	} else if json.Unmarshal(m.Result, &head) != nil {
		s.fail(&CrashError{Rule: RuleMalformedResult, Detail: fmt.Sprintf("the result %s is not an object", clip(m.Result))})
		return
	}
	if head.ResultType != nil && *head.ResultType != wire.ResultComplete {
		s.fail(&CrashError{Rule: RuleNotComplete, Detail: fmt.Sprintf("resultType %q", *head.ResultType)})
		return
	}
	next, err := s.drv.answer(m.Result)
	if err != nil {
		s.fail(err)
		return
	}
	if next != nil {
		if err := s.send(*next); err != nil {
			s.fail(err)
		}
		return
	}
	s.answered = true
	s.stdin.Close()
	s.timer = time.AfterFunc(ExitGrace, func() {
		s.lingered.Store(true)
		s.cancel(errLingered)
	})
}

// idIs reports whether the JSON id raw (a valid JSON value) is the string want, as json.Unmarshal
// into a string would find: a string without escapes and of valid UTF-8 decodes to its bytes, so
// it is compared as it stands; any other id is decoded.
func idIs(raw json.RawMessage, want string) bool {
	if len(raw) >= 2 && raw[0] == '"' {
		if in := raw[1 : len(raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return string(in) == want
		}
	}
	var id string
	return json.Unmarshal(raw, &id) == nil && id == want
}

// verdict turns the end of a run into nil or the error that says what went wrong.
func (s *session) verdict(ctx context.Context, err error, store *engine.Store) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tail := s.stderr.String()
	withTail := func(c *CrashError) error {
		c.Stderr = tail
		return c
	}
	if s.failure != nil {
		var c *CrashError
		if errors.As(s.failure, &c) {
			return withTail(c)
		}
		return s.failure
	}
	if s.lingered.Load() {
		return withTail(&CrashError{Rule: RuleLingered, Err: err})
	}
	limits := store.Limits()
	// The engine cannot say that a memory.grow failed, so a module that ended abnormally with its
	// memory within the last eighth of the limit (at least one page) is taken to have run out:
	// allocators give up when a grow fails and the next would not fit.
	margin := max(limits.MemoryBytes/8, 65536)
	nearMemoryLimit := store.PeakMemory()+margin > limits.MemoryBytes
	var exit *engine.ExitError
	var trap *engine.Trap
	switch {
	case errors.As(err, &exit):
		if exit.Code != 0 && nearMemoryLimit {
			return withTail(&CrashError{Rule: RuleOutOfMemory, Detail: fmt.Sprintf("exit status %d with memory at the limit of %d bytes", exit.Code, limits.MemoryBytes)})
		}
		if !s.answered {
			return withTail(&CrashError{Rule: RuleExitBeforeAnswer, Detail: exit.Error()})
		}
		if exit.Code != 0 {
			return withTail(&CrashError{Rule: RuleExitNonZero, Detail: exit.Error()})
		}
	case errors.As(err, &trap):
		if trap.Kind == engine.TrapCanceled {
			// Not a failure or the exit grace (both handled above): the caller gave up.
			if cause := context.Cause(ctx); cause != nil {
				return fmt.Errorf("subako: run: %w", cause)
			}
		}
		c := &CrashError{Rule: RuleTrap, Detail: trapDetail(trap), Err: trap}
		switch trap.Kind {
		case engine.TrapFuelExhausted:
			c.Rule = RuleOutOfFuel
		case engine.TrapDeadlineExceeded:
			c.Rule, c.Detail = RuleOutOfTime, fmt.Sprintf("the call's deadline of %s passed", limits.Deadline)
		case engine.TrapMemoryLimit:
			c.Rule = RuleOutOfMemory
		default:
			if nearMemoryLimit {
				c.Rule, c.Detail = RuleOutOfMemory, fmt.Sprintf("%s with memory at the limit of %d bytes", c.Detail, limits.MemoryBytes)
			}
		}
		return withTail(c)
	case err != nil:
		return fmt.Errorf("subako: run: %w", err)
	}
	if !s.answered {
		return withTail(&CrashError{Rule: RuleExitBeforeAnswer, Detail: "_start returned"})
	}
	if len(bytes.TrimSpace(s.line)) > 0 {
		return withTail(&CrashError{Rule: RuleNotMessage, Detail: fmt.Sprintf("stdout ends with the unterminated line %q", clip(s.line))})
	}
	return nil
}

func trapDetail(t *engine.Trap) string {
	d := t.Kind.String()
	if t.Function != "" {
		d += " in function " + t.Function
	}
	return d
}

// stdinPipe is the module's stdin: requests are appended as the run goes, and Close ends it. It
// is a wasi.PollableReader, so the guest reads it on its own goroutine: a run starts no reading
// goroutine and allocates no read buffer.
type stdinPipe struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	// ready is closed by the next Write or Close; nil until someone waits, and made afresh for
	// each wait, since a closed channel cannot be reopened once the data is consumed.
	ready chan struct{}
}

var _ wasi.PollableReader = (*stdinPipe)(nil)

func newStdinPipe() *stdinPipe { return &stdinPipe{} }

// Write appends b to what the module reads. After Close it drops b: the module has been told its
// input ended, and bytes appearing after that would contradict it.
func (p *stdinPipe) Write(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(b) == 0 {
		return
	}
	p.buf = append(p.buf, b...)
	p.wakeLocked()
}

// Read blocks until there is data or the pipe is closed, for readers other than wasi.Input.
func (p *stdinPipe) Read(b []byte) (int, error) {
	for {
		n, err := p.TryRead(b)
		if err != wasi.EAGAIN {
			return n, err
		}
		<-p.ReadyChan()
	}
}

// TryRead implements wasi.PollableReader.
func (p *stdinPipe) TryRead(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) == 0 {
		if p.closed {
			return 0, io.EOF
		}
		return 0, wasi.EAGAIN
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil // let a long run's consumed requests go
	}
	return n, nil
}

// Buffered implements wasi.PollableReader.
func (p *stdinPipe) Buffered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf)
}

// ReadyChan implements wasi.PollableReader.
func (p *stdinPipe) ReadyChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 || p.closed {
		return closedChan
	}
	if p.ready == nil {
		p.ready = make(chan struct{})
	}
	return p.ready
}

// Close ends the module's input; closing again does nothing.
func (p *stdinPipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.wakeLocked()
	return nil
}

func (p *stdinPipe) wakeLocked() {
	if p.ready != nil {
		close(p.ready)
		p.ready = nil
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// stderrHeadBytes is how much of the start of stderr a crash report keeps besides its end: a Go
// or Rust runtime prints the cause ("fatal error: runtime: out of memory", "panic: ...") first
// and then pages of goroutine or thread dumps, so the end alone would miss it.
const stderrHeadBytes = 1 << 10

// tailBuffer keeps the first stderrHeadBytes and the last StderrTailBytes-stderrHeadBytes
// written to it.
type tailBuffer struct {
	mu    sync.Mutex
	head  []byte
	buf   []byte // what followed head, trimmed to its last tailMax bytes when read
	total int64
}

const tailMax = StderrTailBytes - stderrHeadBytes

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	t.total += int64(n)
	if k := min(stderrHeadBytes-len(t.head), len(b)); k > 0 {
		t.head = append(t.head, b[:k]...)
		b = b[k:]
	}
	if len(b) >= tailMax {
		t.buf = append(t.buf[:0], b[len(b)-tailMax:]...)
		return n, nil
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return n, nil
}

// String is the start and the end of what was written; when bytes between them were dropped, it
// cuts both at line boundaries (where there are any) and says how much is left out between them.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	head, tail := t.head, t.buf
	if len(tail) > tailMax {
		tail = tail[len(tail)-tailMax:]
	}
	if t.total == int64(len(head)+len(tail)) {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD")
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	omitted := t.total - int64(len(head)+len(tail))
	s := string(head)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	s += fmt.Sprintf("[… %d bytes of stderr omitted …]\n", omitted) + string(tail)
	return strings.ToValidUTF8(s, "\uFFFD")
}
