// Package ocitest is the in-process OCI registry of kobako's registry tests: go-containerregistry's
// pkg/registry on 127.0.0.1 (plain HTTP, or TLS with httptest's certificate), optionally behind
// bearer-token auth with a token endpoint, with faults to inject: a layer whose bytes are altered in
// flight, a download cut halfway, a registry that stalls.
//
// Only _test.go files import it (oci, cmd/kobako).
package ocitest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Auth makes the registry demand bearer tokens, which its /token endpoint hands out: a token for
// pull and push to a client giving User and Password by basic auth, and, with AnonymousPull, a
// pull-only token to anyone.
type Auth struct {
	User, Password string
	AnonymousPull  bool
}

// Options configure a Registry.
type Options struct {
	// TLS serves HTTPS with httptest's certificate (see CertPEM) instead of plain HTTP.
	TLS bool
	// Auth, when set, requires bearer tokens.
	Auth *Auth
}

// Registry is a running test registry.
type Registry struct {
	Server *httptest.Server
	// Host is 127.0.0.1:PORT, as references name it.
	Host string

	inner   http.Handler
	auth    *Auth
	stopped chan struct{}

	mu      sync.Mutex
	tamper  map[string]bool
	cut     map[string]bool
	hang    map[string]bool
	stall   bool
	Pulls   int // blob GETs served
	Uploads int // blob uploads finished
}

const (
	pushToken = "token-push"
	pullToken = "token-pull"
)

// New starts a registry that stops when the test ends.
func New(t testing.TB, o Options) *Registry {
	t.Helper()
	r := &Registry{inner: registry.New(registry.Logger(nopLogger())), auth: o.Auth, stopped: make(chan struct{}),
		tamper: map[string]bool{}, cut: map[string]bool{}, hang: map[string]bool{}}
	if o.TLS {
		r.Server = httptest.NewTLSServer(r)
	} else {
		r.Server = httptest.NewServer(r)
	}
	// Cleanups run last-registered first: the stalled handlers return before Close waits for them.
	t.Cleanup(r.Server.Close)
	t.Cleanup(func() { close(r.stopped) })
	r.Host = strings.TrimPrefix(strings.TrimPrefix(r.Server.URL, "http://"), "https://")
	return r
}

// Ref is the oci:// reference of repo (with its tag or digest) in the registry.
func (r *Registry) Ref(repo string) string { return "oci://" + r.Host + "/" + repo }

// Tamper alters one byte in the middle of every download of the blob with the digest.
func (r *Registry) Tamper(digest string) { r.mu.Lock(); r.tamper[digest] = true; r.mu.Unlock() }

// Cut sends half of the blob with the digest, then closes the connection.
func (r *Registry) Cut(digest string) { r.mu.Lock(); r.cut[digest] = true; r.mu.Unlock() }

// Hang sends half of the blob with the digest, then waits, the connection open, until the test
// ends.
func (r *Registry) Hang(digest string) { r.mu.Lock(); r.hang[digest] = true; r.mu.Unlock() }

// Stall makes every later request wait, without answering, until the test ends.
func (r *Registry) Stall() { r.mu.Lock(); r.stall = true; r.mu.Unlock() }

// CertFile writes the TLS registry's certificate as PEM into a file and returns its path.
func (r *Registry) CertFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "registry-ca.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Server.Certificate().Raw})
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// DockerConfig writes a Docker config file holding user and password for host, points
// $DOCKER_CONFIG at it and $HOME at an empty directory (so no real ~/.docker is read), and returns
// the directory.
func DockerConfig(t testing.TB, host, user, password string) string {
	t.Helper()
	dir := t.TempDir()
	auths := map[string]any{}
	if host != "" {
		auths[host] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}
	}
	b, _ := json.Marshal(map[string]any{"auths": auths})
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	t.Setenv("HOME", t.TempDir())
	return dir
}

func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	stall := r.stall
	r.mu.Unlock()
	if stall {
		select {
		case <-r.stopped:
		case <-req.Context().Done():
		}
		return
	}
	if req.URL.Path == "/token" {
		r.token(w, req)
		return
	}
	if r.auth != nil && !r.authorized(req) {
		scheme := "http"
		if req.TLS != nil {
			scheme = "https"
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s://%s/token",service="ocitest"`, scheme, req.Host))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`))
		return
	}
	isBlobGet := req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/sha256:")
	if !isBlobGet {
		if req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/blobs/uploads/") {
			defer func() { r.mu.Lock(); r.Uploads++; r.mu.Unlock() }()
		}
		r.inner.ServeHTTP(w, req)
		return
	}
	digest := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	r.mu.Lock()
	r.Pulls++
	tamper, cut, hang := r.tamper[digest], r.cut[digest], r.hang[digest]
	r.mu.Unlock()
	if !tamper && !cut && !hang {
		r.inner.ServeHTTP(w, req)
		return
	}
	rec := httptest.NewRecorder()
	r.inner.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if tamper && len(body) > 0 {
		body = append([]byte(nil), body...)
		body[len(body)/2] ^= 0xff
	}
	if hang {
		w.WriteHeader(rec.Code)
		w.Write(body[:len(body)/2])
		http.NewResponseController(w).Flush()
		select {
		case <-r.stopped:
		case <-req.Context().Done():
		}
		return
	}
	if !cut {
		w.WriteHeader(rec.Code)
		w.Write(body)
		return
	}
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	writeHalf(buf, rec.Code, w.Header(), body)
}

// writeHalf writes a response's status and headers and the first half of its body.
func writeHalf(buf *bufio.ReadWriter, code int, h http.Header, body []byte) {
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	h.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

func (r *Registry) authorized(req *http.Request) bool {
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	switch tok {
	case pushToken:
		return true
	case pullToken:
		return req.Method == http.MethodGet || req.Method == http.MethodHead
	}
	return false
}

func (r *Registry) token(w http.ResponseWriter, req *http.Request) {
	tok := ""
	if u, p, ok := req.BasicAuth(); ok {
		if u == r.auth.User && p == r.auth.Password {
			tok = pushToken
		}
	} else if r.auth.AnonymousPull {
		tok = pullToken
	}
	if tok == "" {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"token": tok, "access_token": tok})
}

func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }
