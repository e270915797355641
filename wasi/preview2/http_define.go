package preview2

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/egress"
)

// httpHost is the wasi:http state of a Host.
type httpHost struct {
	send      egress.Sender
	forbidden func(string) bool
	maxFields int
	// ctx ends when the Host closes: it bounds every request the guest started.
	ctx    context.Context
	cancel context.CancelFunc
}

// errNoSender is why a Host without HTTPConfig.Send denies every request.
var errNoSender = errors.New("the host gives this instance no network (no wasi:http sender)")

func denyAll(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
	return nil, &HTTPError{Code: Code(HTTPRequestDenied), Err: errNoSender}
}

func newHTTPHost(cfg HTTPConfig) (*httpHost, error) {
	if cfg.MaxFieldsBytes < 0 {
		return nil, fmt.Errorf("preview2: %w: HTTP.MaxFieldsBytes %d is negative", ErrConfig, cfg.MaxFieldsBytes)
	}
	hh := &httpHost{send: cfg.Send, forbidden: cfg.ForbiddenHeader, maxFields: cfg.MaxFieldsBytes}
	if hh.send == nil {
		hh.send = denyAll
	}
	if hh.forbidden == nil {
		hh.forbidden = IsForbiddenHeader
	}
	if hh.maxFields == 0 {
		hh.maxFields = DefaultMaxFieldsBytes
	}
	hh.ctx, hh.cancel = context.WithCancel(context.Background())
	return hh, nil
}

// requestContext returns the context a request runs under: until the Host closes, and no
// longer than the deadline of the call that sent it (the exchange outlives the call, as the
// guest reads the response in later calls, but a run's deadline bounds it all).
func (hh *httpHost) requestContext(call context.Context) (context.Context, context.CancelFunc) {
	if d, ok := call.Deadline(); ok {
		return context.WithDeadline(hh.ctx, d)
	}
	return context.WithCancel(hh.ctx)
}

// httpDtors are the resource types of wasi:http/types with their destructors.
func httpDtors() map[string]component.HostDtor {
	return map[string]component.HostDtor{
		"fields":                   dtor[*fields](),
		"headers":                  dtor[*fields](), // type headers = fields
		"trailers":                 dtor[*fields](), // type trailers = fields
		"outgoing-request":         dtor[*outgoingRequest](),
		"request-options":          dtor[*requestOptions](),
		"outgoing-body":            dtor[*outgoingBody](),
		"future-incoming-response": dtor[*futureResponse](),
		"incoming-response":        dtor[*incomingResponse](),
		"incoming-body":            dtor[*incomingBody](),
		"future-trailers":          dtor[*futureTrailers](),
		"outgoing-response":        dtor[*outgoingResponse](),
		"incoming-request":         dtor[*incomingRequest](),
		"response-outparam":        dtor[*responseOutparam](),
	}
}

// DefineHTTP defines wasi:http/types and wasi:http/outgoing-handler (the client side; version
// 0.2.0, which satisfies imports of every 0.2.x version) on l, which must hold Define's WASI
// interfaces too. Each instance's requests go to the sender of the Host bound to its store
// (WithHTTP's HTTPConfig.Send); a Host without one answers every request HTTP-request-denied. A Linker
// without DefineHTTP does not link wasi:http, so a component importing it fails to
// instantiate naming the import: how an embedder keeps the network from a plugin altogether.
//
// The server side of wasi:http/types (incoming-request, response-outparam, outgoing-response)
// is defined so that components built for both sides load; incoming-handler is not served.
func DefineHTTP(l *component.Linker) error {
	if err := defineHTTP(l); err != nil {
		return fmt.Errorf("preview2: define wasi:http: %w", err)
	}
	return nil
}

func defineHTTP(l *component.Linker) error {
	for name, d := range httpDtors() {
		if _, err := l.DefineResource(ifaceHTTPTypes, name, d); err != nil {
			return err
		}
	}
	// Resource types the interfaces take from others with `use`, under the names they use.
	wasiDtors := dtors()
	for name, d := range map[string]component.HostDtor{
		"io-error": wasiDtors["error"], "input-stream": wasiDtors["input-stream"],
		"output-stream": wasiDtors["output-stream"], "pollable": wasiDtors["pollable"],
	} {
		if _, err := l.DefineResource(ifaceHTTPTypes, name, d); err != nil {
			return err
		}
	}
	hd := httpDtors()
	for _, name := range []string{"outgoing-request", "request-options", "future-incoming-response"} {
		if _, err := l.DefineResource(ifaceHTTPOutgoing, name, hd[name]); err != nil {
			return err
		}
	}
	if err := defineAll(l, ifaceHTTPTypes, httpTypesFuncs()); err != nil {
		return err
	}
	return defineAll(l, ifaceHTTPOutgoing, httpOutgoingFuncs())
}

// httpTypesFuncs are the functions of wasi:http/types.
func httpTypesFuncs() map[string]any {
	fns := map[string]any{
		"[constructor]fields": func(_ context.Context, h *Host) (abi.Own[*fields], error) { return push(h, &fields{}) },
		"[static]fields.from-list": func(_ context.Context, h *Host, list []fieldEntry) (abi.Result[abi.Own[*fields], headerError], error) {
			return h.fieldsFromList(list)
		},
		"[method]fields.get": func(_ context.Context, h *Host, self abi.Borrow[*fields], name string) ([][]byte, error) {
			return h.fieldsGet(self, name)
		},
		"[method]fields.has": func(_ context.Context, h *Host, self abi.Borrow[*fields], name string) (bool, error) {
			return h.fieldsHas(self, name)
		},
		"[method]fields.set": func(_ context.Context, h *Host, self abi.Borrow[*fields], name string, values [][]byte) (headerResult, error) {
			return h.fieldsSet(self, name, values)
		},
		"[method]fields.delete": func(_ context.Context, h *Host, self abi.Borrow[*fields], name string) (headerResult, error) {
			return h.fieldsDelete(self, name)
		},
		"[method]fields.append": func(_ context.Context, h *Host, self abi.Borrow[*fields], name string, value []byte) (headerResult, error) {
			return h.fieldsAppend(self, name, value)
		},
		"[method]fields.entries": func(_ context.Context, h *Host, self abi.Borrow[*fields]) ([]fieldEntry, error) {
			return h.fieldsEntries(self)
		},
		"[method]fields.clone": func(_ context.Context, h *Host, self abi.Borrow[*fields]) (abi.Own[*fields], error) {
			return h.fieldsClone(self)
		},
	}
	for _, more := range []map[string]any{httpRequestFuncs(), httpResponseFuncs(), httpServerFuncs()} {
		for k, v := range more {
			fns[k] = v
		}
	}
	return fns
}

// httpOutgoingFuncs are the functions of wasi:http/outgoing-handler.
func httpOutgoingFuncs() map[string]any {
	return map[string]any{
		"handle": func(ctx context.Context, h *Host, req abi.Own[*outgoingRequest], opts *abi.Own[*requestOptions]) (handleResult, error) {
			return h.handle(ctx, req, opts)
		},
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
