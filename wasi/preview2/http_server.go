package preview2

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

// The server side of wasi:http/types (incoming-request, response-outparam, outgoing-response)
// belongs to wasi:http/incoming-handler, which this host does not serve. Components built for
// both sides (componentize-js imports every function of wasi:http/types) must still load, so the
// functions are defined: outgoing-response works as data, and incoming-request and
// response-outparam have no constructor, so no guest can hold one and their methods fail as for
// any unknown handle.

// incomingRequest is an incoming-request resource; the host never creates one.
type incomingRequest struct{}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*incomingRequest) ResourceName() string { return "incoming-request" }

// responseOutparam is a response-outparam resource; the host never creates one.
type responseOutparam struct{}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*responseOutparam) ResourceName() string { return "response-outparam" }

// outgoingResponse is an outgoing-response resource.
type outgoingResponse struct {
	status  uint16
	headers *fields
	body    *outgoingBody
}

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*outgoingResponse) ResourceName() string { return "outgoing-response" }

func httpServerFuncs() map[string]any {
	type (
		inReqHandle   = abi.Borrow[*incomingRequest]
		outRespHandle = abi.Borrow[*outgoingResponse]
		inBodyResult  = abi.Result[abi.Own[*incomingBody], struct{}]
		outBodyResult = abi.Result[abi.Own[*outgoingBody], struct{}]
	)
	inReq := func(h *Host, self inReqHandle) error { _, err := borrowed(h, self); return err }
	outResp := func(h *Host, self outRespHandle) (*outgoingResponse, error) { return borrowed(h, self) }
	return map[string]any{
		"[method]incoming-request.method": func(_ context.Context, h *Host, self inReqHandle) (method, error) {
			return method{}, inReq(h, self)
		},
		"[method]incoming-request.path-with-query": func(_ context.Context, h *Host, self inReqHandle) (*string, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.scheme": func(_ context.Context, h *Host, self inReqHandle) (*scheme, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.authority": func(_ context.Context, h *Host, self inReqHandle) (*string, error) {
			return nil, inReq(h, self)
		},
		"[method]incoming-request.headers": func(_ context.Context, h *Host, self inReqHandle) (abi.Own[*fields], error) {
			return abi.Own[*fields]{}, inReq(h, self)
		},
		"[method]incoming-request.consume": func(_ context.Context, h *Host, self inReqHandle) (inBodyResult, error) {
			return inBodyResult{}, inReq(h, self)
		},
		"[static]response-outparam.set": func(_ context.Context, h *Host, self abi.Own[*responseOutparam], _ abi.Result[abi.Own[*outgoingResponse], httpErrorCode]) error {
			_, err := component.GetOwn(h.res, self)
			if err != nil {
				return fmt.Errorf("preview2: %w: %w", ErrHandle, err)
			}
			return nil
		},
		"[constructor]outgoing-response": func(_ context.Context, h *Host, hdrs abi.Own[*fields]) (abi.Own[*outgoingResponse], error) {
			f, err := take(h, hdrs)
			if err != nil {
				return abi.Own[*outgoingResponse]{}, err
			}
			f.immutable = true
			return push(h, &outgoingResponse{status: 200, headers: f})
		},
		"[method]outgoing-response.status-code": func(_ context.Context, h *Host, self outRespHandle) (uint16, error) {
			r, err := outResp(h, self)
			if err != nil {
				return 0, err
			}
			return r.status, nil
		},
		"[method]outgoing-response.set-status-code": func(_ context.Context, h *Host, self outRespHandle, code uint16) (unitRes, error) {
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
		"[method]outgoing-response.headers": func(_ context.Context, h *Host, self outRespHandle) (abi.Own[*fields], error) {
			r, err := outResp(h, self)
			if err != nil {
				return abi.Own[*fields]{}, err
			}
			return push(h, r.headers.clone(true))
		},
		"[method]outgoing-response.body": func(_ context.Context, h *Host, self outRespHandle) (outBodyResult, error) {
			r, err := outResp(h, self)
			if err != nil {
				return outBodyResult{}, err
			}
			if r.body != nil {
				return abi.Err[abi.Own[*outgoingBody]](struct{}{}), nil
			}
			b := &outgoingBody{pipe: newBodyPipe(-1)}
			o, err := push(h, b)
			if err != nil {
				return outBodyResult{}, err
			}
			r.body = b
			return abi.Ok[abi.Own[*outgoingBody], struct{}](o), nil
		},
	}
}
