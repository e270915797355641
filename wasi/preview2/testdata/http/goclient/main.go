// Command goclient is a ZeroClaw tool (world kobako:goclient/http-client: tool-plugin plus
// wasi:http/outgoing-handler) written in standard Go (GOOS=wasip1, c-shared), with its bindings
// written by hand in wasihttp.go. It drives the whole wasi:http client the way real code does: an
// outgoing-request with method, scheme, authority and path; headers; request-options timeouts;
// the outgoing-body written through its output-stream with check-write and poll back-pressure,
// then finished with trailers; outgoing-handler.handle; the future-incoming-response waited for
// with subscribe and poll; the incoming-response's status and headers; its body read through the
// input-stream until closed; and the future-trailers. ../build.sh makes it a component.
//
// execute takes a JSON object:
//
//	url        "scheme://authority/path?query" (required unless scheme, authority and path are given)
//	method     default "GET"; any other name is sent as method.other
//	scheme, authority, path   override the parts taken from url ("" for none)
//	headers    [[name, value], ...] request headers, appended in order
//	body       string sent as the request body, repeat times (default 1), in writes of at most
//	           chunk bytes (default 65536) as check-write allows
//	trailers   [[name, value], ...] sent with outgoing-body.finish
//	connect_timeout_ms, first_byte_timeout_ms, between_bytes_timeout_ms   request-options
//	follow     follow up to this many redirects (301, 302, 303, 307, 308) in the guest; 303 and
//	           301/302 after POST become GET without a body
//	digest     true: report the body's length and FNV-1a 32-bit hash instead of the body
//
// On a response it returns ok({success: true, output: JSON}) with output
//
//	{"status": N, "headers": [[name, value], ...], "trailers": [[name, value], ...],
//	 "body": text, "length": N, "fnv1a": N, "hops": N, "url": "the last URL requested"}
//
// Whatever wasi:http refuses comes back as ok({success: false, error: "<step>: <reason>"}), where
// step names the call (header, set-method, set-scheme, set-authority, set-path-with-query,
// options, handle, response, body-write, finish, body-read, trailers) and reason is the
// error-code or header-error case name, or "rejected" for a setter that refused its value, e.g.
// "response: HTTP-request-denied" (the host refuses a request through the future, since it sends
// in the background), "header: forbidden" or "set-method: rejected". It returns err only when the
// arguments are not valid JSON.
package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
)

func main() {}

// Garbage collection runs only inside export bodies (collect): the canonical ABI forbids imports
// while the host runs cabi_realloc, and a collection reads the clock through WASI.
func init() { debug.SetGCPercent(-1) }

func collect() {
	if garbage > 8<<20 {
		runtime.GC()
		garbage = 0
	}
}

type args struct {
	URL       string      `json:"url"`
	Method    string      `json:"method"`
	Scheme    *string     `json:"scheme"`
	Authority *string     `json:"authority"`
	Path      *string     `json:"path"`
	Headers   [][2]string `json:"headers"`
	Body      *string     `json:"body"`
	Repeat    int         `json:"repeat"`
	Chunk     int         `json:"chunk"`
	Trailers  [][2]string `json:"trailers"`
	Connect   uint64      `json:"connect_timeout_ms"`
	FirstByte uint64      `json:"first_byte_timeout_ms"`
	Between   uint64      `json:"between_bytes_timeout_ms"`
	Follow    int         `json:"follow"`
	Digest    bool        `json:"digest"`
}

type output struct {
	Status   int          `json:"status"`
	Headers  [][2]string  `json:"headers"`
	Trailers *[][2]string `json:"trailers"`
	Body     string       `json:"body"`
	Length   int          `json:"length"`
	FNV1a    uint32       `json:"fnv1a"`
	Hops     int          `json:"hops"`
	URL      string       `json:"url"`
}

// failure is a refusal by wasi:http: the step that failed and the case it answered.
type failure struct{ step, reason string }

func (f *failure) Error() string { return f.step + ": " + f.reason }

func execute(in string) (output string, toolErr, err error) {
	var a args
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		return "", nil, &failure{"bad arguments", err.Error()}
	}
	out, err := run(a)
	if err != nil {
		return "", err, nil
	}
	b, _ := json.Marshal(out)
	return string(b), nil, nil
}

// target is one request's line: method and the three URL parts.
type target struct {
	method                  string
	scheme, authority, path *string
}

func splitURL(u string) (scheme, authority, path string) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", "", u
	}
	i := strings.IndexAny(rest, "/?")
	if i < 0 {
		return scheme, rest, "/"
	}
	path = rest[i:]
	if path[0] == '?' {
		path = "/" + path
	}
	return scheme, rest[:i], path
}

func run(a args) (*output, error) {
	t := target{method: a.Method, scheme: a.Scheme, authority: a.Authority, path: a.Path}
	if t.method == "" {
		t.method = "GET"
	}
	if a.URL != "" {
		s, au, p := splitURL(a.URL)
		t.scheme, t.authority, t.path = or(t.scheme, s), or(t.authority, au), or(t.path, p)
	}
	body := a.Body
	out := &output{URL: a.URL}
	for {
		status, err := send(a, t, body, out)
		if err != nil {
			return nil, err
		}
		if out.Hops >= a.Follow || !redirect(status) {
			return out, nil
		}
		loc := header(out.Headers, "location")
		if loc == "" {
			return out, nil
		}
		if strings.Contains(loc, "://") {
			s, au, p := splitURL(loc)
			t.scheme, t.authority, t.path = &s, &au, &p
		} else {
			t.path = &loc
		}
		if status == 303 || (status <= 302 && t.method == "POST") {
			t.method, body = "GET", nil
		}
		out.Hops++
		out.URL = deref(t.scheme) + "://" + deref(t.authority) + deref(t.path)
	}
}

func redirect(status int) bool {
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308
}

func or(over *string, v string) *string {
	if over != nil {
		return over
	}
	return &v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func header(h [][2]string, name string) string {
	for _, kv := range h {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}

// fields makes a fields resource of kvs.
func fields(kvs [][2]string) (uint32, error) {
	f := newFields()
	for _, kv := range kvs {
		np, nn := lowerString(kv[0])
		vp, vn := lowerString(kv[1])
		fieldsAppend(f, np, nn, vp, vn, areaPtr())
		if u8(0) == 1 {
			dropFields(f)
			e := u8(1)
			if int(e) < len(headerErrors) {
				return 0, &failure{"header", headerErrors[e]}
			}
			return 0, &failure{"header", "bad header-error"}
		}
	}
	return f, nil
}

func ms(n uint64) uint64 { return n * 1_000_000 }

// send makes one request and reads its response into out; it returns the status.
func send(a args, t target, body *string, out *output) (int, error) {
	hdrs, err := fields(a.Headers)
	if err != nil {
		return 0, err
	}
	req := newOutgoingRequest(hdrs)
	disc, mp, mn := uint32(9), uint32(0), uint32(0) // method.other(name)
	for i, m := range methods {
		if m == t.method {
			disc = uint32(i)
		}
	}
	if disc == 9 {
		mp, mn = lowerString(t.method)
	}
	if setMethod(req, disc, mp, mn) != 0 {
		dropOutgoingRequest(req)
		return 0, &failure{"set-method", "rejected"}
	}
	if t.scheme != nil {
		var sd, sp, sn uint32
		switch *t.scheme {
		case "http":
			sd = 0
		case "https":
			sd = 1
		default:
			sd = 2
			sp, sn = lowerString(*t.scheme)
		}
		if setScheme(req, 1, sd, sp, sn) != 0 {
			dropOutgoingRequest(req)
			return 0, &failure{"set-scheme", "rejected"}
		}
	}
	if t.authority != nil {
		p, n := lowerString(*t.authority)
		if setAuthority(req, 1, p, n) != 0 {
			dropOutgoingRequest(req)
			return 0, &failure{"set-authority", "rejected"}
		}
	}
	if t.path != nil {
		p, n := lowerString(*t.path)
		if setPathWithQuery(req, 1, p, n) != 0 {
			dropOutgoingRequest(req)
			return 0, &failure{"set-path-with-query", "rejected"}
		}
	}
	var someOpts, opts uint32
	if a.Connect+a.FirstByte+a.Between > 0 {
		opts, someOpts = newRequestOptions(), 1
		if (a.Connect > 0 && setConnectTimeout(opts, 1, ms(a.Connect)) != 0) ||
			(a.FirstByte > 0 && setFirstByteTimeout(opts, 1, ms(a.FirstByte)) != 0) ||
			(a.Between > 0 && setBetweenBytesTimeout(opts, 1, ms(a.Between)) != 0) {
			dropRequestOptions(opts)
			dropOutgoingRequest(req)
			return 0, &failure{"options", "rejected"}
		}
	}
	outgoingRequestBody(req, areaPtr())
	if u8(0) != 0 {
		dropOutgoingRequest(req)
		return 0, &failure{"body", "already taken"}
	}
	obody := u32(4)
	outgoingBodyWrite(obody, areaPtr())
	if u8(0) != 0 {
		return 0, &failure{"body", "write already taken"}
	}
	stream := u32(4)

	// handle before the body is written: the host streams the body while it is produced.
	handle(req, someOpts, opts, areaPtr())
	if u8(0) != 0 {
		reason := errorCode(8)
		dropOutputStream(stream)
		dropOutgoingBody(obody)
		return 0, &failure{"handle", reason}
	}
	future := u32(8)
	defer dropFutureResponse(future)

	if body != nil {
		if err := writeBody(stream, *body, max(a.Repeat, 1), a.Chunk); err != nil {
			dropOutputStream(stream)
			dropOutgoingBody(obody)
			return 0, err
		}
	}
	dropOutputStream(stream)
	var someTrailers, trailers uint32
	if a.Trailers != nil {
		tf, err := fields(a.Trailers)
		if err != nil {
			dropOutgoingBody(obody)
			return 0, err
		}
		someTrailers, trailers = 1, tf
	}
	outgoingBodyFinish(obody, someTrailers, trailers, areaPtr())
	if u8(0) != 0 {
		return 0, &failure{"finish", errorCode(8)}
	}

	// option<result<result<incoming-response, error-code>>>: 0, 8, 16, payload at 24.
	wait(futureResponseSubscribe(future))
	futureResponseGet(future, areaPtr())
	switch {
	case u8(0) == 0:
		return 0, &failure{"response", "not ready after poll"}
	case u8(8) != 0:
		return 0, &failure{"response", "taken twice"}
	case u8(16) != 0:
		return 0, &failure{"response", errorCode(24)}
	}
	resp := u32(24)
	defer dropIncomingResponse(resp)
	out.Status = int(responseStatus(resp))
	rh := responseHeaders(resp)
	out.Headers = entries(rh)
	dropFields(rh)
	return out.Status, readBody(resp, a.Digest, out)
}

// writeBody writes repeat copies of body, never more at once than check-write allows, waiting
// on the stream's pollable when it allows nothing.
func writeBody(s uint32, body string, repeat, chunk int) error {
	if chunk <= 0 {
		chunk = 64 << 10
	}
	for range repeat {
		rest := []byte(body)
		for len(rest) > 0 {
			// result<u64, stream-error>: payload at 8.
			checkWrite(s, areaPtr())
			if u8(0) != 0 {
				_, reason := streamError(8)
				return &failure{"body-write", reason}
			}
			n := int(min(uint64(chunk), u64(8), uint64(len(rest))))
			if n == 0 {
				wait(outputSubscribe(s))
				continue
			}
			p, pn := lower(rest[:n])
			streamWrite(s, p, pn, areaPtr())
			delete(live, p)
			if u8(0) != 0 {
				_, reason := streamError(4)
				return &failure{"body-write", reason}
			}
			rest = rest[n:]
		}
		collect()
	}
	blockingFlush(s, areaPtr())
	if u8(0) != 0 {
		_, reason := streamError(4)
		return &failure{"body-write", reason}
	}
	return nil
}

// readBody reads the incoming body until the stream is closed, then the trailers.
func readBody(resp uint32, digest bool, out *output) error {
	responseConsume(resp, areaPtr())
	if u8(0) != 0 {
		return &failure{"body-read", "consumed twice"}
	}
	ib := u32(4)
	incomingBodyStream(ib, areaPtr())
	if u8(0) != 0 {
		dropIncomingBody(ib)
		return &failure{"body-read", "stream taken twice"}
	}
	in := u32(4)
	var text []byte
	out.Length, out.FNV1a = 0, 2166136261
	for {
		// result<list<u8>, stream-error>: payload at 4.
		streamRead(in, 64<<10, areaPtr())
		if u8(0) != 0 {
			closed, reason := streamError(4)
			if closed {
				break
			}
			dropInputStream(in)
			dropIncomingBody(ib)
			return &failure{"body-read", reason}
		}
		chunk := liftBytes(u32(4), u32(8))
		if len(chunk) == 0 {
			wait(inputSubscribe(in))
			continue
		}
		out.Length += len(chunk)
		for _, b := range chunk {
			out.FNV1a = (out.FNV1a ^ uint32(b)) * 16777619
		}
		if !digest {
			text = append(text, chunk...)
		}
		collect()
	}
	dropInputStream(in)
	out.Body = string(text)

	// option<result<result<option<trailers>, error-code>>>: 0, 8, 16, payload at 24.
	ft := incomingBodyFinish(ib)
	defer dropFutureTrailers(ft)
	wait(futureTrailersSubscribe(ft))
	futureTrailersGet(ft, areaPtr())
	switch {
	case u8(0) == 0:
		return &failure{"trailers", "not ready after poll"}
	case u8(8) != 0:
		return &failure{"trailers", "taken twice"}
	case u8(16) != 0:
		return &failure{"trailers", errorCode(24)}
	}
	kvs := [][2]string{}
	if u8(24) == 1 {
		tr := u32(28)
		kvs = entries(tr)
		dropFields(tr)
	}
	out.Trailers = &kvs
	return nil
}
