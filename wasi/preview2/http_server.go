package preview2

import (
	"context"

	"github.com/kobako/kobako/abi"
)

// The server side of wasi:http/types (incoming-request, response-outparam, outgoing-response)
// belongs to wasi:http/incoming-handler, which this host does not serve. Components built for
// both sides (componentize-js imports every function of wasi:http/types) must still load, so the
// functions are defined: outgoing-response works as data, and incoming-request and
// response-outparam have no constructor, so no guest can hold one and their methods fail as for
// any unknown handle.

// incomingRequest is an incoming-request resource; the host never creates one.
type incomingRequest struct{}

// responseOutparam is a response-outparam resource; the host never creates one.
type responseOutparam struct{}

// outgoingResponse is an outgoing-response resource.
type outgoingResponse struct {
	status  uint16
	headers *fields
	body    *outgoingBody
}

func httpServerFuncs() map[string]any {
	inReq := func(h *Host, self uint32) error { _, err := get[*incomingRequest](h, self); return err }
	outResp := func(h *Host, self uint32) (*outgoingResponse, error) { return get[*outgoingResponse](h, self) }
	return map[string]any{
		"[method]incoming-request.method": func(_ context.Context, h *Host, self uint32) (method, error) {
			return method{}, inReq(h, self)
		},
		"[method]incoming-request.path-with-query": func(_ context.Context, h *Host, self uint32) (*string, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.scheme": func(_ context.Context, h *Host, self uint32) (*scheme, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.authority": func(_ context.Context, h *Host, self uint32) (*string, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.headers": func(_ context.Context, h *Host, self uint32) (uint32, error) {
			return 0, inReq(h, self)
		},
		"[method]incoming-request.consume": func(_ context.Context, h *Host, self uint32) (abi.Result[uint32, struct{}], error) {
			return abi.Result[uint32, struct{}]{}, inReq(h, self)
		},
		"[static]response-outparam.set": func(_ context.Context, h *Host, self uint32, _ abi.Result[uint32, httpErrorCode]) error {
			_, err := get[*responseOutparam](h, self)
			return err
		},
		"[constructor]outgoing-response": func(_ context.Context, h *Host, hdrs uint32) (uint32, error) {
			f, err := take[*fields](h, hdrs)
			if err != nil {
				return 0, err
			}
			f.immutable = true
			return h.add(&outgoingResponse{status: 200, headers: f})
		},
		"[method]outgoing-response.status-code": func(_ context.Context, h *Host, self uint32) (uint16, error) {
			r, err := outResp(h, self)
			if err != nil {
				return 0, err
			}
			return r.status, nil
		},
		"[method]outgoing-response.set-status-code": func(_ context.Context, h *Host, self uint32, code uint16) (unitRes, error) {
			r, err := outResp(h, self)
			if err != nil {
				return unitRes{}, err
			}
			if code < 100 || code > 999 {
				return unitErr, nil
			}
			r.status = code
			return unitOk, nil
		},
		"[method]outgoing-response.headers": func(_ context.Context, h *Host, self uint32) (uint32, error) {
			r, err := outResp(h, self)
			if err != nil {
				return 0, err
			}
			return h.add(r.headers.clone(true))
		},
		"[method]outgoing-response.body": func(_ context.Context, h *Host, self uint32) (abi.Result[uint32, struct{}], error) {
			r, err := outResp(h, self)
			if err != nil {
				return abi.Result[uint32, struct{}]{}, err
			}
			if r.body != nil {
				return abi.Err[uint32](struct{}{}), nil
			}
			b := &outgoingBody{pipe: newBodyPipe(-1)}
			rep, err := h.add(b)
			if err != nil {
				return abi.Result[uint32, struct{}]{}, err
			}
			r.body = b
			return abi.Ok[uint32, struct{}](rep), nil
		},
	}
}
