package egress

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// lateTransport answers every request with 200 after its delay, whatever the request's context
// says: what the real transport does when a stalled process finds the response and the
// timeout ready at once and picks the response.
type lateTransport struct{ delay time.Duration }

func (t lateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(t.delay)
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("late")),
		ContentLength: 4, Request: r}, nil
}

func (lateTransport) CloseIdleConnections() {}

// A response that arrives after the request's timeout is the timeout, not a success.
func TestDo_ResponseAfterTimeout(t *testing.T) {
	c := NewClient(Options{Resolver: newFakeResolver()})
	c.transport = lateTransport{delay: 60 * time.Millisecond}
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"api.example.com"}})
	_, err := c.Do(t.Context(), p, &Request{Method: "GET", URL: "https://api.example.com/x", Timeout: 20 * time.Millisecond})
	if r, _ := ReasonOf(err); r != ReasonTimeout {
		t.Fatalf("err %v (reason %v), want the timeout", err, r)
	}
	// In time, the same transport's answer is the response.
	resp, err := c.Do(t.Context(), p, &Request{Method: "GET", URL: "https://api.example.com/x", Timeout: 5 * time.Second})
	if err != nil || resp.Status != 200 {
		t.Fatalf("in time: %v, %v", resp, err)
	}
	resp.Body.Close()
}
