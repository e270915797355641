package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/zeroclaw/internal/errs"
)

// MaxArchiveBytes caps a downloaded archive (the reference's
// MAX_PLUGIN_ZIP_BYTES), checked against Content-Length and while streaming.
const MaxArchiveBytes = 50 * 1024 * 1024

// Location picks the index to use: flag when it is not blank, then
// $KOBAKO_PLUGIN_REGISTRY_URL, then $ZEROCLAW_PLUGIN_REGISTRY_URL, then
// DefaultIndexURL. getenv is os.Getenv when nil.
func Location(flag string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, v := range []string{flag, getenv(EnvRegistryURL), getenv(EnvZeroClawRegistryURL)} {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return DefaultIndexURL
}

// IsURL reports whether s names a URL rather than a local path.
func IsURL(s string) bool { return strings.Contains(s, "://") }

// Progress is told how many bytes of a download have arrived; total is -1
// when the size is unknown.
type Progress func(done, total int64)

// Fetcher reads indexes and archives over HTTP(S) or from local files.
type Fetcher struct {
	// Client is used for http and https; nil means a client with a
	// 10-minute overall timeout.
	Client *http.Client
}

var defaultClient = &http.Client{Timeout: 10 * time.Minute, CheckRedirect: noDowngrade}

// noDowngrade follows redirects as the default client does, but never from
// https to http: a redirect must not undo the scheme rule ArchiveLocation
// applies to the index's own URLs.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if strings.EqualFold(via[0].URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Redacted())
	}
	return nil
}

func (f *Fetcher) client() *http.Client {
	if f != nil && f.Client != nil {
		return f.Client
	}
	return defaultClient
}

// localPath maps a file:// URL or a plain path to a path.
func localPath(loc string) (string, error) {
	if !IsURL(loc) {
		return loc, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("unsupported URL scheme %q", u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("file URL %q names a remote host", loc)
	}
	return u.Path, nil
}

func isHTTP(loc string) bool {
	l := strings.ToLower(loc)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// FetchIndex reads and parses the index at loc: an http(s) URL, a file://
// URL or a local path. An HTTP error status fails; a 404 from the default
// index gets the reference's hint to use --registry.
func (f *Fetcher) FetchIndex(ctx context.Context, loc string) (*Index, error) {
	var data []byte
	base := loc
	if isHTTP(loc) {
		body, err := f.get(ctx, loc, MaxIndexBytes, nil, func(status int) error {
			if status == http.StatusNotFound && loc == DefaultIndexURL {
				return errs.New(ErrIndex, "the public plugin registry is not populated yet; use --registry <url> to point at a custom registry")
			}
			return errs.New(ErrIndex, "plugin registry returned HTTP %s for %s", statusText(status), loc)
		}, func(limit int64) error {
			return errs.New(ErrIndex, "plugin registry index %s exceeds %d bytes", loc, limit)
		})
		if err != nil {
			return nil, err
		}
		data = body
	} else {
		path, err := localPath(loc)
		if err != nil {
			return nil, errs.New(ErrIndex, "plugin registry %s: %v", loc, err)
		}
		if data, err = boundedfile.Read(path, MaxIndexBytes); err != nil {
			return nil, errs.New(ErrIndex, "reading plugin registry: %v", err)
		}
		if abs, err := filepath.Abs(path); err == nil {
			base = abs
		}
	}
	ix, err := ParseIndex(data)
	if err != nil {
		return nil, err
	}
	ix.Base = base
	return ix, nil
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprintf("%d", code)
}

// get fetches url into memory, capped at limit bytes.
func (f *Fetcher) get(ctx context.Context, u string, limit int64, progress Progress,
	onStatus func(int) error, onTooLarge func(int64) error) ([]byte, error) {
	var sb strings.Builder
	if _, err := f.stream(ctx, u, limit, &sb, progress, onStatus, onTooLarge); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

// stream copies the body of u into w, refusing a declared or actual length
// over limit; it never buffers more than one read past the cap.
func (f *Fetcher) stream(ctx context.Context, u string, limit int64, w io.Writer, progress Progress,
	onStatus func(int) error, onTooLarge func(int64) error) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, errs.New(ErrDownload, "fetching %s: %v", u, err)
	}
	resp, err := f.client().Do(req)
	if err != nil {
		// A *url.Error repeats the method and the URL, which this message already names.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, errs.New(ErrDownload, "fetching %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, onStatus(resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return 0, onTooLarge(limit)
	}
	return copyCapped(w, resp.Body, limit, resp.ContentLength, progress, onTooLarge)
}

// copyCapped copies at most limit bytes and fails as soon as one more byte
// arrives.
func copyCapped(w io.Writer, r io.Reader, limit, total int64, progress Progress, onTooLarge func(int64) error) (int64, error) {
	buf := make([]byte, 32*1024)
	var done int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if done+int64(n) > limit {
				return done, onTooLarge(limit)
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				return done, werr
			}
			done += int64(n)
			if progress != nil {
				progress(done, total)
			}
		}
		if errors.Is(err, io.EOF) {
			return done, nil
		}
		if err != nil {
			return done, errs.New(ErrDownload, "reading plugin archive response body: %v", err)
		}
	}
}

// ArchiveLocation resolves an entry's url against the index it came from.
// A remote index (base is an http or https URL) may name only https
// archives, or http ones when the index itself came over plain http, and
// relative references resolve against the index's URL: a server must never
// make the installer read the local file system. A local index may also
// name file:// URLs and paths, relative ones resolving against its
// directory.
func ArchiveLocation(entryURL, base string) (string, error) {
	if isHTTP(base) {
		return remoteArchiveURL(entryURL, base)
	}
	if IsURL(entryURL) {
		if !isHTTP(entryURL) && !strings.HasPrefix(strings.ToLower(entryURL), "file://") {
			return "", errs.New(ErrArchiveURL, "unsupported archive URL %q", entryURL)
		}
		return entryURL, nil
	}
	if filepath.IsAbs(entryURL) || base == "" {
		return entryURL, nil
	}
	basePath, err := localPath(base)
	if err != nil {
		return "", errs.New(ErrDownload, "registry location %s: %v", base, err)
	}
	return filepath.Join(filepath.Dir(basePath), entryURL), nil
}

// remoteArchiveURL resolves an archive URL named by the remote index at
// base; the scheme is checked after resolution, so "file:/x" or
// "//host/x" cannot slip past as "relative".
func remoteArchiveURL(entryURL, base string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", errs.New(ErrDownload, "registry URL %q: %v", base, err)
	}
	ref, err := url.Parse(entryURL)
	if err != nil {
		return "", errs.New(ErrArchiveURL, "archive URL %q: %v", entryURL, err)
	}
	u := b.ResolveReference(ref)
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "https" && scheme != "http":
		return "", errs.New(ErrArchiveURL, "archive URL %q: a remote index may name only https URLs or URLs relative to itself, not %s: URLs", entryURL, scheme)
	case scheme == "http" && !strings.EqualFold(b.Scheme, "http"):
		return "", errs.New(ErrArchiveURL, "archive URL %q: the index %s is served over https, so its archives must be too", entryURL, base)
	case u.Host == "" || u.Opaque != "":
		return "", errs.New(ErrArchiveURL, "archive URL %q: no host", entryURL)
	}
	return u.String(), nil
}

// Download fetches an entry's archive into w, capped at MaxArchiveBytes, and
// verifies its sha256 when the entry pins one. base is the index's Base. It
// returns the archive's size.
func (f *Fetcher) Download(ctx context.Context, e Entry, base string, w io.Writer, progress Progress) (int64, error) {
	loc, err := ArchiveLocation(e.URL, base)
	if err != nil {
		return 0, err
	}
	tooLarge := func(limit int64) error {
		return errs.New(ErrTooLarge, "plugin archive exceeds maximum size of %d bytes", limit)
	}
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	var n int64
	switch {
	case isHTTP(loc):
		n, err = f.stream(ctx, loc, MaxArchiveBytes, mw, progress, func(status int) error {
			return errs.New(ErrDownload, "plugin archive returned HTTP %s for %s", statusText(status), loc)
		}, tooLarge)
	case isHTTP(base):
		// ArchiveLocation already refuses this; a remote index must never reach copyLocal.
		return 0, errs.New(ErrArchiveURL, "archive URL %q: not an http(s) URL", loc)
	default:
		n, err = copyLocal(loc, mw, progress, tooLarge)
	}
	if err != nil {
		return n, err
	}
	if err := VerifySHA256(h.Sum(nil), e.SHA256); err != nil {
		return n, err
	}
	return n, nil
}

func copyLocal(loc string, w io.Writer, progress Progress, tooLarge func(int64) error) (int64, error) {
	path, err := localPath(loc)
	if err != nil {
		return 0, errs.New(ErrDownload, "reading plugin archive %s: %v", loc, err)
	}
	fh, err := os.Open(path)
	if err != nil {
		return 0, errs.New(ErrDownload, "reading plugin archive %s: %v", loc, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return 0, errs.New(ErrDownload, "reading plugin archive %s: %v", loc, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, errs.New(ErrDownload, "%s is not a regular file", path)
	}
	if fi.Size() > MaxArchiveBytes {
		return 0, tooLarge(MaxArchiveBytes)
	}
	return copyCapped(w, fh, MaxArchiveBytes, fi.Size(), progress, tooLarge)
}

// VerifySHA256 compares a digest with an entry's pin: hex, optionally
// prefixed "sha256:", compared case-insensitively. An empty pin verifies
// nothing.
func VerifySHA256(sum []byte, expected string) error {
	if expected == "" {
		return nil
	}
	expected = strings.TrimPrefix(expected, "sha256:")
	if got := hex.EncodeToString(sum); !strings.EqualFold(got, expected) {
		return errs.New(ErrChecksum, "plugin archive sha256 mismatch: the archive's is %s, the registry pins %s", got, strings.ToLower(expected))
	}
	return nil
}
