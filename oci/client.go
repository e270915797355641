package oci

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Scheme prefixes every reference kobako takes on its command line.
const Scheme = "oci://"

// DefaultTimeout is how long a registry may stay silent when Options.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// EnvCAFile names a file of PEM certificates that New trusts for registry TLS besides the system's
// (a private registry's CA), when Options.RootCAs is nil.
const EnvCAFile = "KOBAKO_REGISTRY_CA_FILE"

// Options configure a Client.
type Options struct {
	// Insecure lists the registries (HOST or HOST:PORT, as in references) that may be reached
	// over plain HTTP. Any other registry must speak HTTPS: a plain-HTTP answer, or a redirect to
	// an http URL, is ErrPlainHTTP.
	Insecure []string
	// Timeout is how long a registry may stay silent: to accept a connection, to answer a request,
	// and between two reads of a download. 0 means DefaultTimeout. A download that keeps moving is
	// not cut, however long it takes; cancel the context for an overall deadline.
	Timeout time.Duration
	// Keychain finds credentials; nil means authn.DefaultKeychain (the Docker config file,
	// $DOCKER_CONFIG, its credential helpers, else anonymous).
	Keychain authn.Keychain
	// RootCAs are the certificate authorities registry TLS trusts; nil means the system's, plus
	// the certificates in the file $KOBAKO_REGISTRY_CA_FILE names when it is set.
	RootCAs *x509.CertPool
	// UserAgent is sent with every request.
	UserAgent string
}

// Client talks to OCI registries.
type Client struct {
	opts   Options
	remote []remote.Option
	mu     sync.Mutex
	puller *remote.Puller
	pusher *remote.Pusher
}

// New returns a client. It fails only when the CA file cannot be read.
func New(o Options) (*Client, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Keychain == nil {
		o.Keychain = authn.DefaultKeychain
	}
	if o.RootCAs == nil {
		if f := os.Getenv(EnvCAFile); f != "" {
			pool, err := x509.SystemCertPool()
			if err != nil {
				pool = x509.NewCertPool()
			}
			pem, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("oci: $%s: %w", EnvCAFile, err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("oci: $%s: %s holds no PEM certificate", EnvCAFile, f)
			}
			o.RootCAs = pool
		}
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	// No dial, handshake or header timeouts of the transport's own: the guard's silence timer covers
	// them all, and its error says which registry stalled.
	base.DialContext = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	base.TLSHandshakeTimeout = 0
	if o.RootCAs != nil {
		base.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	g := &guard{base: base, timeout: o.Timeout, insecure: map[string]bool{}}
	for _, h := range o.Insecure {
		g.insecure[strings.ToLower(h)] = true
	}
	c := &Client{opts: o}
	c.remote = []remote.Option{remote.WithTransport(g), remote.WithAuthFromKeychain(o.Keychain)}
	if o.UserAgent != "" {
		c.remote = append(c.remote, remote.WithUserAgent(o.UserAgent))
	}
	return c, nil
}

func (c *Client) getPuller() (*remote.Puller, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.puller == nil {
		p, err := remote.NewPuller(c.remote...)
		if err != nil {
			return nil, err
		}
		c.puller = p
	}
	return c.puller, nil
}

func (c *Client) getPusher() (*remote.Pusher, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pusher == nil {
		p, err := remote.NewPusher(c.remote...)
		if err != nil {
			return nil, err
		}
		c.pusher = p
	}
	return c.pusher, nil
}

// IsRef reports whether s is meant as an OCI reference (it starts with oci://).
func IsRef(s string) bool { return strings.HasPrefix(s, Scheme) }

// ParseRef parses oci://REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST] (a missing tag is "latest") and
// returns its canonical form, oci:// followed by the full name.
func ParseRef(s string) (string, error) {
	r, err := parseRef(s, nil)
	if err != nil {
		return "", err
	}
	return Scheme + r.Name(), nil
}

func parseRef(s string, insecure map[string]bool) (name.Reference, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return nil, fmt.Errorf("%w: %q does not start with %s", ErrReference, s, Scheme)
	}
	if !strings.Contains(rest, "/") {
		return nil, fmt.Errorf("%w: %q: want oci://REGISTRY/REPOSITORY[:TAG|@DIGEST]", ErrReference, s)
	}
	host, _, _ := strings.Cut(rest, "/")
	var opts []name.Option
	if insecure[strings.ToLower(host)] {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(rest, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrReference, s, err)
	}
	return r, nil
}

// Resolved is a reference resolved to one artifact.
type Resolved struct {
	// Ref is the canonical reference (see ParseRef).
	Ref string
	// Digest is the digest of the artifact's manifest (inside an index, the chosen entry's).
	Digest string
	// Artifact is the classified manifest.
	Artifact *Artifact
	// Manifest is the manifest's bytes.
	Manifest []byte

	ref name.Reference
}

// Resolve fetches the manifest the reference names, picking from an image index the entry of a
// wanted kind (SelectFromIndex), and classifies it (Classify). An artifact of a kind not wanted is
// ErrManifest.
func (c *Client) Resolve(ctx context.Context, ref string, want ...Kind) (*Resolved, error) {
	r, err := parseRef(ref, c.insecure())
	if err != nil {
		return nil, err
	}
	p, err := c.getPuller()
	if err != nil {
		return nil, err
	}
	desc, err := p.Get(ctx, r)
	if err != nil {
		return nil, c.wrap(ref, "fetching the manifest", err)
	}
	if IsIndex(string(desc.MediaType)) {
		d, err := SelectFromIndex(desc.Manifest, want...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		if desc, err = p.Get(ctx, r.Context().Digest(d.Digest)); err != nil {
			return nil, c.wrap(ref, "fetching the manifest "+d.Digest+" of the index", err)
		}
	}
	a, err := Classify(string(desc.MediaType), desc.Manifest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if !slices.Contains(want, a.Kind) {
		var names []string
		for _, k := range want {
			names = append(names, k.String())
		}
		return nil, fmt.Errorf("%s: %w: it holds a %s, not a %s", ref, ErrManifest, a.Kind, strings.Join(names, " or "))
	}
	return &Resolved{Ref: Scheme + r.Name(), Digest: desc.Digest.String(), Artifact: a, Manifest: desc.Manifest, ref: r}, nil
}

func (c *Client) insecure() map[string]bool {
	m := map[string]bool{}
	for _, h := range c.opts.Insecure {
		m[strings.ToLower(h)] = true
	}
	return m
}

// wrap turns a client error into one of the package's, naming the reference and what was done.
func (c *Client) wrap(ref, doing string, err error) error {
	for _, s := range []error{ErrPlainHTTP, ErrStalled} {
		if errors.Is(err, s) {
			var g *guardError
			if errors.As(err, &g) {
				return fmt.Errorf("%s: %s: %w", ref, doing, g)
			}
			return fmt.Errorf("%s: %s: %w", ref, doing, err)
		}
	}
	var te *transport.Error
	if errors.As(err, &te) {
		hint := ""
		switch te.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = " (give credentials with docker login, or in the Docker config file: ~/.docker/config.json or $DOCKER_CONFIG/config.json)"
		case http.StatusNotFound:
			hint = " (no such repository, tag or digest)"
		}
		return fmt.Errorf("%s: %s: %w: %v%s", ref, doing, ErrRegistry, te, hint)
	}
	return fmt.Errorf("%s: %s: %w: %v", ref, doing, ErrRegistry, err)
}

// Layer streams one layer of a resolved artifact into w. max caps its size: a descriptor over it
// is ErrTooLarge before anything is fetched. No more than the declared size is read, and bytes
// whose size or digest differ from the descriptor's are ErrDigest; w has then received some of
// them, so the caller must drop what it wrote.
func (c *Client) Layer(ctx context.Context, r *Resolved, d Descriptor, max int64, w io.Writer) error {
	what := fmt.Sprintf("layer %s (%s)", d.Digest, d.MediaType)
	if d.Size > max {
		return fmt.Errorf("%s: %w: %s is %d bytes, more than %d", r.Ref, ErrTooLarge, what, d.Size, max)
	}
	if err := checkDescriptor(d); err != nil {
		return fmt.Errorf("%s: %w: %v", r.Ref, ErrManifest, err)
	}
	p, err := c.getPuller()
	if err != nil {
		return err
	}
	l, err := p.Layer(ctx, r.ref.Context().Digest(d.Digest))
	if err != nil {
		return c.wrap(r.Ref, "fetching "+what, err)
	}
	rc, err := l.Compressed()
	if err != nil {
		return c.wrap(r.Ref, "fetching "+what, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(rc, d.Size+1))
	if mismatch := checkSum(h, n, d); mismatch != "" && (err == nil || n >= d.Size) {
		// The library's own check may have failed the read first; the message says what differed.
		return fmt.Errorf("%s: %w: %s: %s", r.Ref, ErrDigest, what, mismatch)
	}
	if err != nil {
		return c.wrap(r.Ref, "reading "+what, err)
	}
	return nil
}

// checkSum says how n bytes hashed into h differ from d, or "".
func checkSum(h hash.Hash, n int64, d Descriptor) string {
	if n != d.Size {
		return fmt.Sprintf("the registry sent %d bytes or more, the manifest says %d", n, d.Size)
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != d.Digest {
		return fmt.Sprintf("the bytes have digest %s, the manifest says %s", got, d.Digest)
	}
	return ""
}

// guard is the transport under the registry client: it refuses plain HTTP to registries not
// listed as insecure, and cuts a request whose registry stays silent for longer than timeout.
type guard struct {
	base     http.RoundTripper
	timeout  time.Duration
	insecure map[string]bool
}

// guardError is ErrPlainHTTP or ErrStalled with the host.
type guardError struct {
	sentinel error
	msg      string
}

func (e *guardError) Error() string { return e.msg }
func (e *guardError) Unwrap() error { return e.sentinel }

func (g *guard) plainHTTP(host string) error {
	return &guardError{ErrPlainHTTP, fmt.Sprintf("registry %s speaks plain HTTP (no TLS); kobako uses it only when told to: pass --insecure-registry %s", host, host)}
}

// noFallback refuses the plain-HTTP attempt the registry client makes beside HTTPS for loopback
// and private hosts. It is not ErrPlainHTTP: the HTTPS attempt's error says what went wrong.
func (g *guard) noFallback(host string) error {
	return fmt.Errorf("not trying plain HTTP to %s (pass --insecure-registry %s to allow it)", host, host)
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	host := strings.ToLower(req.URL.Host)
	if req.URL.Scheme == "http" && !g.insecure[host] {
		if req.URL.Path == "/v2/" {
			return nil, g.noFallback(req.URL.Host)
		}
		return nil, g.plainHTTP(req.URL.Host)
	}
	ctx, cancel := context.WithCancel(req.Context())
	var fired atomic.Bool
	timer := time.AfterFunc(g.timeout, func() { fired.Store(true); cancel() })
	resp, err := g.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel()
		var rh tls.RecordHeaderError
		switch {
		case fired.Load():
			return nil, g.stalled(req)
		case errors.As(err, &rh) && string(rh.RecordHeader[:]) == "HTTP/" && !g.insecure[host]:
			return nil, g.plainHTTP(req.URL.Host)
		}
		return nil, err
	}
	timer.Reset(g.timeout)
	resp.Body = &idleBody{rc: resp.Body, g: g, req: req, timer: timer, cancel: cancel, fired: &fired}
	return resp, nil
}

func (g *guard) stalled(req *http.Request) error {
	return &guardError{ErrStalled, fmt.Sprintf("registry %s sent nothing for %v (%s %s); try again, or allow it longer with --registry-timeout", req.URL.Host, g.timeout, req.Method, req.URL.Path)}
}

// idleBody restarts the silence timer at every read that brings bytes.
type idleBody struct {
	rc     io.ReadCloser
	g      *guard
	req    *http.Request
	timer  *time.Timer
	cancel context.CancelFunc
	fired  *atomic.Bool
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && !b.fired.Load() {
		b.timer.Reset(b.g.timeout)
	}
	if err != nil && err != io.EOF && b.fired.Load() {
		return n, b.g.stalled(b.req)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}
