package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeTransport plays the host's side of the two imports with the same hold/read rules.
type fakeTransport struct {
	answer   []byte
	reqRC    int32 // when non-zero, request returns it instead of holding answer
	readRC   int32 // when non-zero, read_response returns it
	held     []byte
	lastReq  []byte
	requests int
}

func (f *fakeTransport) request(req []byte) int32 {
	f.requests++
	f.lastReq = append([]byte(nil), req...)
	if f.reqRC != 0 {
		return f.reqRC
	}
	f.held = f.answer
	return int32(len(f.held))
}

func (f *fakeTransport) readResponse(buf []byte) int32 {
	if f.readRC != 0 {
		return f.readRC
	}
	if f.held == nil {
		return -2
	}
	if len(buf) != len(f.held) {
		return -3
	}
	copy(buf, f.held)
	f.held = nil
	return 0
}

func TestDo(t *testing.T) {
	ok := `{"ok":{"status":200,"headers":{"content-type":"application/json"},"body":{"type":"inline","text":"{\"status\":\"shipped\"}"}}}`
	tests := []struct {
		name     string
		req      *Request
		tr       *fakeTransport
		wantKind ErrorKind
		errIn    string
		check    func(t *testing.T, r *Response, sent string)
	}{
		{"inline ok", &Request{URL: "https://a.example/", Headers: map[string]string{"Accept": "application/json"}}, &fakeTransport{answer: []byte(ok)}, "", "", func(t *testing.T, r *Response, sent string) {
			if r.Status != 200 || r.Body.Text != `{"status":"shipped"}` || r.Headers["content-type"] != "application/json" {
				t.Errorf("response %+v", r)
			}
			if sent != `{"url":"https://a.example/","headers":{"accept":"application/json"}}` {
				t.Errorf("sent %s", sent)
			}
		}},
		{"file ok", &Request{Method: "POST", URL: "https://a.example/up", Body: FileBody("/volume/tmp/in"), Output: FileOutput("/volume/tmp/out"), FollowRedirects: new(false), TimeoutMs: 5000},
			&fakeTransport{answer: []byte(`{"ok":{"status":201,"headers":{},"body":{"type":"file","path":"/volume/tmp/out","bytes":48211}}}`)}, "", "", func(t *testing.T, r *Response, sent string) {
				if r.Body.Type != OutputFile || r.Body.Bytes != 48211 || r.Body.Path != "/volume/tmp/out" {
					t.Errorf("response %+v", r)
				}
				want := `{"method":"POST","url":"https://a.example/up","body":{"type":"file","path":"/volume/tmp/in"},"output":{"type":"file","path":"/volume/tmp/out"},"follow_redirects":false,"timeout_ms":5000}`
				if sent != want {
					t.Errorf("sent %s\nwant %s", sent, want)
				}
			}},
		{"host error", &Request{URL: "https://api.example.com/"}, &fakeTransport{answer: []byte(`{"error":{"kind":"host_not_allowed","message":"api.example.com is not in this function's network allowlist"}}`)}, KindHostNotAllowed, "allowlist", nil},
		{"out of bounds on request", &Request{URL: "https://a.example/"}, &fakeTransport{reqRC: -1}, KindABI, "outside guest memory (-1)", nil},
		{"nothing held", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(ok), readRC: -2}, KindABI, "holds no answer (-2)", nil},
		{"length mismatch", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(ok), readRC: -3}, KindABI, "held answer (-3)", nil},
		{"odd code", &Request{URL: "https://a.example/"}, &fakeTransport{reqRC: -9}, KindABI, "unexpected return value -9", nil},
		{"empty answer", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte{}}, KindABI, "empty answer", nil},
		{"huge answer length", &Request{URL: "https://a.example/"}, &fakeTransport{reqRC: maxAnswerBytes + 1}, KindABI, "over", nil},
		{"malformed answer", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(`{"ok":`)}, KindABI, "malformed", nil},
		{"both ok and error", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(`{"ok":{"status":200,"headers":{},"body":{"type":"inline","text":""}},"error":{"kind":"timeout","message":""}}`)}, KindABI, "exactly one", nil},
		{"neither", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(`{}`)}, KindABI, "exactly one", nil},
		{"unknown answer field", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(`{"ok":{"status":200,"headers":{},"body":{"type":"inline","text":""},"extra":1}}`)}, KindABI, "malformed", nil},
		{"bad status", &Request{URL: "https://a.example/"}, &fakeTransport{answer: []byte(`{"ok":{"status":0,"headers":{},"body":{"type":"inline","text":""}}}`)}, KindABI, "status 0", nil},
		{"empty url not sent", &Request{}, &fakeTransport{}, KindInvalidRequest, "url is empty", nil},
		{"bad method not sent", &Request{URL: "https://a.example/", Method: "TRACE"}, &fakeTransport{}, KindInvalidRequest, `"TRACE"`, nil},
		{"header case clash not sent", &Request{URL: "https://a.example/", Headers: map[string]string{"X-A": "1", "x-a": "2"}}, &fakeTransport{}, KindInvalidRequest, "twice", nil},
		{"negative timeout not sent", &Request{URL: "https://a.example/", TimeoutMs: -1}, &fakeTransport{}, KindInvalidRequest, "negative", nil},
		{"bad output not sent", &Request{URL: "https://a.example/", Output: &Output{Type: "file"}}, &fakeTransport{}, KindInvalidRequest, "output", nil},
		{"oversized request not sent", &Request{URL: "https://a.example/", Body: TextBody(strings.Repeat("a", MaxHTTPRequestBytes))}, &fakeTransport{}, KindInvalidRequest, "over 8388608", nil},
		{"bad body not sent", &Request{URL: "https://a.example/", Body: &Body{Type: "base64"}}, &fakeTransport{}, KindInvalidRequest, "unknown type", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := do(context.Background(), tt.tr, tt.req)
			if tt.wantKind != "" {
				if KindOf(err) != tt.wantKind || !strings.Contains(err.Error(), tt.errIn) {
					t.Fatalf("err = %v, want kind %s containing %q", err, tt.wantKind, tt.errIn)
				}
				if tt.wantKind == KindInvalidRequest && tt.tr.requests != 0 {
					t.Errorf("a refused request reached the host")
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.tr.held != nil {
				t.Error("answer still held after read_response")
			}
			tt.check(t, resp, string(tt.tr.lastReq))
		})
	}
}

func TestDoWithoutHost(t *testing.T) {
	_, err := do(context.Background(), nil, &Request{URL: "https://a.example/"})
	if KindOf(err) != KindABI {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := do(ctx, &fakeTransport{}, &Request{URL: "https://a.example/"}); KindOf(err) != KindTimeout {
		t.Fatalf("cancelled: err = %v", err)
	}
	if KindOf(errors.New("plain")) != "" {
		t.Fatal("KindOf of a plain error")
	}
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		in    string
		errIn string
	}{
		{`{"method":"POST","url":"https://api.example.com/orders","headers":{"accept":"application/json"},"body":{"type":"json","json":{"order":1042}},"output":{"type":"inline"},"follow_redirects":true,"timeout_ms":5000}`, ""},
		{`{"url":"https://a/","body":{"type":"text","text":"hi"}}`, ""},
		{`{"method":"GET"}`, "url is missing"},
		{`{"url":"https://a/","extra":1}`, "unknown field"},
		{`{"url":"https://a/","body":{"type":"text"}}`, "exactly a text"},
		{`{"url":"https://a/","body":{"type":"json","json":1,"text":"x"}}`, "exactly a json"},
		{`{"url":"https://a/","body":{"type":"file"}}`, "exactly a path"},
		{`{"url":"https://a/","body":{"type":"base64","data":"aGk="}}`, "unknown field"},
		{`{"url":"https://a/","output":{"type":"file"}}`, "output"},
		{`{"url":"https://a/"} x`, "trailing"},
	}
	for _, tt := range tests {
		_, err := ParseRequest([]byte(tt.in))
		if tt.errIn == "" && err != nil {
			t.Errorf("%s: %v", tt.in, err)
		}
		if tt.errIn != "" && (err == nil || !strings.Contains(err.Error(), tt.errIn)) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.errIn)
		}
	}
}
