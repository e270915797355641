package egress

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sizeServer serves /stream?n=N (N bytes in flushed chunks, no Content-Length), /sized?n=N
// (Content-Length N) and /bytes?hex=… (raw bytes).
func sizeServer(t *testing.T, h2 bool) int {
	mux := http.NewServeMux()
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		chunk := []byte(strings.Repeat("x", 4096))
		for n > 0 {
			c := chunk[:min(n, len(chunk))]
			if _, err := w.Write(c); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			n -= len(c)
		}
	})
	mux.HandleFunc("/sized", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		if r.Method == http.MethodHead {
			return
		}
		w.Write([]byte(strings.Repeat("y", n)))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte{'c', 'a', 'f', 0xe9})
	})
	_, port := newServerProto(t, mux, h2)
	return port
}

func TestClient_ResponseSize(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run("h2="+strconv.FormatBool(h2), func(t *testing.T) {
			port := sizeServer(t, h2)
			c := loopbackClient(t, nil, nil)
			p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
			base := u("127.0.0.1", port, "")
			tests := []struct {
				name   string
				method string
				path   string
				max    int64
				doErr  Kind // from Do
				readN  int  // bytes read before the error
				rdErr  Kind // from reading
			}{
				{"stream at the cap", "GET", "/stream?n=1000", 1000, 0, 1000, 0},
				{"stream one over the cap", "GET", "/stream?n=1001", 1000, 0, 1000, KindTooLarge},
				{"stream far over the cap", "GET", "/stream?n=1048576", 1000, 0, 1000, KindTooLarge},
				{"stream, cap 0 means default", "GET", "/stream?n=70000", 0, 0, 70000, 0},
				{"stream, negative cap means none", "GET", "/stream?n=300000", -1, 0, 300000, 0},
				{"stream, cap of one byte", "GET", "/stream?n=2", 1, 0, 1, KindTooLarge},
				{"empty body", "GET", "/stream?n=0", 1, 0, 0, 0},
				{"declared at the cap", "GET", "/sized?n=1000", 1000, 0, 1000, 0},
				{"declared over the cap", "GET", "/sized?n=1001", 1000, KindTooLarge, 0, 0},
				{"declared over the default cap", "GET", "/sized?n=" + strconv.Itoa(DefaultMaxResponseBytes+1), 0, KindTooLarge, 0, 0},
				{"HEAD declares a length it does not send", "HEAD", "/sized?n=5000", 1000, 0, 0, 0},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp, err := c.Do(testContext(t), p, &Request{Method: tt.method, URL: base + tt.path, MaxResponseBytes: tt.max})
					if tt.doErr != 0 {
						wantKind(t, err, tt.doErr)
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					if len(b) != tt.readN {
						t.Errorf("read %d bytes, want %d", len(b), tt.readN)
					}
					if tt.rdErr != 0 {
						wantKind(t, err, tt.rdErr)
						// The error is sticky.
						if _, err2 := resp.Body.Read(make([]byte, 1)); !errors.Is(err2, ErrTooLarge) {
							t.Errorf("second read: %v", err2)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

func TestResponse_Text(t *testing.T) {
	port := sizeServer(t, true)
	c := loopbackClient(t, nil, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	resp, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/latin1")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = resp.Text()
	wantKind(t, err, KindNotText)
	resp, err = c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/stream?n=300000"), MaxResponseBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = resp.Text()
	wantKind(t, err, KindTooLarge)
	// Reading after Close is an error, not a hang or a panic.
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Fatal("read after close succeeded")
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestClient_Timeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux := http.NewServeMux()
	// /stall answers only when the client goes away or the test ends, or after 20 s: a client
	// that wrongly waited for it would get a 200 instead of a timeout.
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(20 * time.Second):
		}
	})
	mux.HandleFunc("/stall-body", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(20 * time.Second):
		}
	})
	_, port := newServer(t, mux)
	c := loopbackClient(t, nil, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	stall := u("127.0.0.1", port, "/stall")

	t.Run("request timeout shortens the deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		_, err := c.Do(ctx, p, &Request{URL: stall, Timeout: 50 * time.Millisecond})
		wantKind(t, err, KindTimeout)
	})
	t.Run("request timeout cannot extend the deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.Do(ctx, p, &Request{URL: stall, Timeout: time.Hour})
		wantKind(t, err, KindTimeout)
	})
	t.Run("deadline covers the body", func(t *testing.T) {
		resp, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/stall-body"), Timeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		b, err := resp.ReadAll()
		wantKind(t, err, KindTimeout)
		if string(b) != "partial" {
			t.Fatalf("body before the timeout = %q", b)
		}
	})
	t.Run("close aborts a blocked read", func(t *testing.T) {
		resp, err := c.Do(testContext(t), p, &Request{URL: u("127.0.0.1", port, "/stall-body")})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(resp.Body)
			done <- err
		}()
		time.Sleep(20 * time.Millisecond) // let the reader block; the test holds either way
		resp.Body.Close()
		if err := <-done; err == nil {
			t.Fatal("read of a closed body succeeded")
		}
	})
	t.Run("client maximum applies without a context deadline", func(t *testing.T) {
		c := NewClient(Options{RootCAs: certPool(nil), UnsafeAllowAddrs: []netip.Prefix{loopback4}, MaxTimeout: 50 * time.Millisecond})
		defer c.CloseIdleConnections()
		_, err := c.Do(context.Background(), p, &Request{URL: stall, Timeout: time.Hour})
		wantKind(t, err, KindTimeout)
	})
	t.Run("expired context", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := c.Do(ctx, p, &Request{URL: stall})
		wantKind(t, err, KindTimeout)
	})
	t.Run("negative timeout", func(t *testing.T) {
		_, err := c.Do(testContext(t), p, &Request{URL: stall, Timeout: -time.Second})
		wantKind(t, err, KindInvalidRequest)
	})
}

// The dialler's per-address share keeps one black-holed address from using the whole
// deadline.
func TestAttemptContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, ac := attemptContext(ctx, 4)
	defer ac()
	d, ok := a.Deadline()
	if left := time.Until(d); !ok || left > 3*time.Second || left < time.Second {
		t.Fatalf("share of 10s over 4 addresses = %v", left)
	}
	b, bc := attemptContext(ctx, 1)
	defer bc()
	if d2, _ := b.Deadline(); !d2.Equal(mustDeadline(ctx)) {
		t.Fatal("last address does not get the rest of the deadline")
	}
	short, sc := context.WithTimeout(context.Background(), time.Second)
	defer sc()
	s, ssc := attemptContext(short, 8)
	defer ssc()
	if d3, _ := s.Deadline(); d3.After(mustDeadline(short)) {
		t.Fatal("share extends the deadline")
	}
}

func mustDeadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
