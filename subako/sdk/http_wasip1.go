//go:build wasip1

package sdk

import "unsafe"

// The subako_http imports, as ABI 1 declares them: (i32 ptr, i32 len) -> i32.
//
//go:wasmimport subako_http request
//go:noescape
func subakoHTTPRequest(ptr unsafe.Pointer, n uint32) int32

//go:wasmimport subako_http read_response
//go:noescape
func subakoHTTPReadResponse(ptr unsafe.Pointer, n uint32) int32

type wasmTransport struct{}

func (wasmTransport) request(req []byte) int32 {
	return subakoHTTPRequest(unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
}

func (wasmTransport) readResponse(buf []byte) int32 {
	return subakoHTTPReadResponse(unsafe.Pointer(unsafe.SliceData(buf)), uint32(len(buf)))
}

var hostTransport transport = wasmTransport{}
