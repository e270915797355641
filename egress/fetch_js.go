//go:build js && wasm

package egress

import (
	"net/http"
	"strings"
	"syscall/js"
)

// fetchTransport sends hops through the browser's fetch: net/http's js RoundTrip uses fetch only
// for a Transport without dial functions, so t loses its dialler (and with it the resolved
// address check, which a page cannot make).
func fetchTransport(t *http.Transport) roundTripper {
	t.DialContext = nil
	return &fetchRoundTripper{t: t}
}

type fetchRoundTripper struct{ t *http.Transport }

// The Request.Header keys net/http's js RoundTrip reads as fetch options (and removes).
const (
	fetchCredentials = "js.fetch:credentials"
	fetchRedirect    = "js.fetch:redirect"
	fetchMode        = "js.fetch:mode"
)

// browserFetch reports whether net/http will use fetch: not where it is missing, and not under
// node, where net/http dials instead (go.dev/issue/57613).
func browserFetch() bool {
	if js.Global().Get("fetch").Type() != js.TypeFunction {
		return false
	}
	p := js.Global().Get("process")
	return !(p.Type() == js.TypeObject && p.Get("argv0").Type() == js.TypeString && strings.HasPrefix(p.Get("argv0").String(), "node"))
}

func (f *fetchRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !browserFetch() {
		// net/http would dial with its default dialler, under none of the address rules.
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errorf(ReasonConnect, nil, "Options.Fetch is set but this JavaScript host has no browser fetch")
	}
	req = req.Clone(req.Context())
	// Never the page's cookies or HTTP authentication: the request is the plugin's, not the page's.
	req.Header.Set(fetchCredentials, "omit")
	// A followed redirect would reach a URL the policy never saw; manual makes fetch answer an
	// opaque response (status 0) instead.
	req.Header.Set(fetchRedirect, "manual")
	req.Header.Set(fetchMode, "cors")
	resp, err := f.t.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == 0 {
		_ = resp.Body.Close()
		return nil, errorf(ReasonProtocol, nil, "%s answered with a redirect, which a browser does not let the page see, so it cannot be checked against the policy and is not followed", req.URL.Host)
	}
	return resp, nil
}

func (f *fetchRoundTripper) CloseIdleConnections() { f.t.CloseIdleConnections() }
