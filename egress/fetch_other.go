//go:build !(js && wasm)

package egress

import "net/http"

// fetchTransport is t itself: outside a browser requests are always dialled, under every address
// rule (Options.Fetch has no effect).
func fetchTransport(t *http.Transport) roundTripper { return t }
