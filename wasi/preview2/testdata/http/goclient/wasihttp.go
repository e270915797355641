package main

// The wasi:http 0.2 client, wasi:io and ZeroClaw tool bindings, with the canonical ABI written by
// hand (wasm32 layouts). wit-bindgen-go's generated code assumes 32-bit pointers in every list,
// string and result it reads from linear memory (TinyGo's layout); standard Go's GOARCH=wasm has
// 64-bit pointers, uintptr and string headers, so those layouts do not match (see ../README.md).
// Memory that the host reads or writes during an import is always heap or global memory, never
// the goroutine stack, which can move when cabi_realloc re-enters Go.

import (
	"unsafe"
)

// live holds the blocks handed out by cabi_realloc and lower until the export returns.
var (
	live    = map[uint32][]uint64{}
	garbage uint64
)

func alloc(size uint32) uint32 {
	if size == 0 {
		return 8
	}
	garbage += uint64(size)
	buf := make([]uint64, (size+7)/8)
	p := uint32(uintptr(unsafe.Pointer(&buf[0])))
	live[p] = buf
	return p
}

func mem(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
}

//go:wasmexport cabi_realloc
func cabiRealloc(oldPtr, oldSize, align, newSize uint32) uint32 {
	p := alloc(newSize)
	if oldPtr != 0 && oldSize != 0 {
		copy(mem(p, newSize), mem(oldPtr, min(oldSize, newSize)))
		delete(live, oldPtr)
	}
	return p
}

func lower(b []byte) (uint32, uint32) {
	p := alloc(uint32(len(b)))
	copy(mem(p, uint32(len(b))), b)
	return p, uint32(len(b))
}

func lowerString(s string) (uint32, uint32) { return lower([]byte(s)) }

// liftBytes copies a list<u8> the host allocated and releases its block.
func liftBytes(p, n uint32) []byte {
	b := append([]byte(nil), mem(p, n)...)
	delete(live, p)
	return b
}

// area is the return area of every import and export: 64 bytes, 8-aligned, not on the stack.
var area [8]uint64

func areaPtr() uint32 { return uint32(uintptr(unsafe.Pointer(&area))) }

func u8(off uint32) uint8   { return mem(areaPtr()+off, 1)[0] }
func u32(off uint32) uint32 { return *(*uint32)(unsafe.Pointer(uintptr(areaPtr() + off))) }
func u64(off uint32) uint64 { return *(*uint64)(unsafe.Pointer(uintptr(areaPtr() + off))) }

func load32(p uint32) uint32 { return *(*uint32)(unsafe.Pointer(uintptr(p))) }

// errorCodes are the cases of wasi:http/types.error-code, in WIT order.
var errorCodes = []string{"DNS-timeout", "DNS-error", "destination-not-found", "destination-unavailable",
	"destination-IP-prohibited", "destination-IP-unroutable", "connection-refused", "connection-terminated",
	"connection-timeout", "connection-read-timeout", "connection-write-timeout", "connection-limit-reached",
	"TLS-protocol-error", "TLS-certificate-error", "TLS-alert-received", "HTTP-request-denied",
	"HTTP-request-length-required", "HTTP-request-body-size", "HTTP-request-method-invalid",
	"HTTP-request-URI-invalid", "HTTP-request-URI-too-long", "HTTP-request-header-section-size",
	"HTTP-request-header-size", "HTTP-request-trailer-section-size", "HTTP-request-trailer-size",
	"HTTP-response-incomplete", "HTTP-response-header-section-size", "HTTP-response-header-size",
	"HTTP-response-body-size", "HTTP-response-trailer-section-size", "HTTP-response-trailer-size",
	"HTTP-response-transfer-coding", "HTTP-response-content-coding", "HTTP-response-timeout",
	"HTTP-upgrade-failed", "HTTP-protocol-error", "loop-detected", "configuration-error", "internal-error"}

// errorCode names the error-code whose discriminant is at off (size 32, align 8). The payloads
// are not needed by the tests; the strings some carry stay in live until the export returns.
func errorCode(off uint32) string {
	d := u8(off)
	if int(d) < len(errorCodes) {
		return errorCodes[d]
	}
	return "bad-error-code"
}

var headerErrors = []string{"invalid-syntax", "forbidden", "immutable"}

// wasi:http/types

//go:wasmimport wasi:http/types@0.2.12 [constructor]fields
func newFields() uint32

//go:wasmimport wasi:http/types@0.2.12 [method]fields.append
func fieldsAppend(self, name, nameLen, value, valueLen, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]fields.entries
func fieldsEntries(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]fields
func dropFields(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [constructor]outgoing-request
func newOutgoingRequest(headers uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-request.set-method
func setMethod(self, disc, p, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-request.set-scheme
func setScheme(self, some, disc, p, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-request.set-authority
func setAuthority(self, some, p, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-request.set-path-with-query
func setPathWithQuery(self, some, p, n uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-request.body
func outgoingRequestBody(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]outgoing-request
func dropOutgoingRequest(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [constructor]request-options
func newRequestOptions() uint32

//go:wasmimport wasi:http/types@0.2.12 [method]request-options.set-connect-timeout
func setConnectTimeout(self, some uint32, d uint64) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]request-options.set-first-byte-timeout
func setFirstByteTimeout(self, some uint32, d uint64) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]request-options.set-between-bytes-timeout
func setBetweenBytesTimeout(self, some uint32, d uint64) uint32

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]request-options
func dropRequestOptions(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]outgoing-body.write
func outgoingBodyWrite(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [static]outgoing-body.finish
func outgoingBodyFinish(body, some, trailers, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]outgoing-body
func dropOutgoingBody(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]future-incoming-response.subscribe
func futureResponseSubscribe(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]future-incoming-response.get
func futureResponseGet(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]future-incoming-response
func dropFutureResponse(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]incoming-response.status
func responseStatus(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]incoming-response.headers
func responseHeaders(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]incoming-response.consume
func responseConsume(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]incoming-response
func dropIncomingResponse(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]incoming-body.stream
func incomingBodyStream(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [static]incoming-body.finish
func incomingBodyFinish(body uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]incoming-body
func dropIncomingBody(self uint32)

//go:wasmimport wasi:http/types@0.2.12 [method]future-trailers.subscribe
func futureTrailersSubscribe(self uint32) uint32

//go:wasmimport wasi:http/types@0.2.12 [method]future-trailers.get
func futureTrailersGet(self, ret uint32)

//go:wasmimport wasi:http/types@0.2.12 [resource-drop]future-trailers
func dropFutureTrailers(self uint32)

//go:wasmimport wasi:http/types@0.2.12 http-error-code
func httpErrorCode(err, ret uint32)

// wasi:http/outgoing-handler

//go:wasmimport wasi:http/outgoing-handler@0.2.12 handle
func handle(request, some, options, ret uint32)

// wasi:io

//go:wasmimport wasi:io/streams@0.2.12 [method]output-stream.check-write
func checkWrite(self, ret uint32)

//go:wasmimport wasi:io/streams@0.2.12 [method]output-stream.write
func streamWrite(self, p, n, ret uint32)

//go:wasmimport wasi:io/streams@0.2.12 [method]output-stream.blocking-flush
func blockingFlush(self, ret uint32)

//go:wasmimport wasi:io/streams@0.2.12 [method]output-stream.subscribe
func outputSubscribe(self uint32) uint32

//go:wasmimport wasi:io/streams@0.2.12 [resource-drop]output-stream
func dropOutputStream(self uint32)

//go:wasmimport wasi:io/streams@0.2.12 [method]input-stream.read
func streamRead(self uint32, n uint64, ret uint32)

//go:wasmimport wasi:io/streams@0.2.12 [method]input-stream.subscribe
func inputSubscribe(self uint32) uint32

//go:wasmimport wasi:io/streams@0.2.12 [resource-drop]input-stream
func dropInputStream(self uint32)

//go:wasmimport wasi:io/poll@0.2.12 poll
func pollList(p, n, ret uint32)

//go:wasmimport wasi:io/poll@0.2.12 [resource-drop]pollable
func dropPollable(self uint32)

//go:wasmimport wasi:io/error@0.2.12 [method]error.to-debug-string
func errorDebugString(self, ret uint32)

//go:wasmimport wasi:io/error@0.2.12 [resource-drop]error
func dropError(self uint32)

// Helpers over the raw imports.

// wait blocks on one pollable through poll, the way an event loop with one pollable does, and
// drops it.
func wait(p uint32) {
	var one [1]uint32
	one[0] = p
	lp, _ := lower(unsafe.Slice((*byte)(unsafe.Pointer(&one[0])), 4))
	pollList(lp, 1, areaPtr())
	delete(live, lp)
	rp, rn := u32(0), u32(4)
	if rn != 1 || load32(rp) != 0 {
		panic("poll did not report the one pollable ready")
	}
	delete(live, rp)
	dropPollable(p)
}

// streamError reads the stream-error whose discriminant is at off: "" for closed, else the
// http error-code the io error carries (or its debug string).
func streamError(off uint32) (closed bool, reason string) {
	if u8(off) == 1 {
		return true, "closed"
	}
	e := u32(off + 4)
	defer dropError(e)
	httpErrorCode(e, areaPtr())
	if u8(0) == 1 {
		return false, errorCode(8)
	}
	errorDebugString(e, areaPtr())
	return false, "io-error " + string(liftBytes(u32(0), u32(4)))
}

// entries reads a fields resource's entries.
func entries(f uint32) [][2]string {
	fieldsEntries(f, areaPtr())
	p, n := u32(0), u32(4)
	kvs := make([][2]string, 0, n)
	for i := range n {
		e := p + 16*i
		kvs = append(kvs, [2]string{string(liftBytes(load32(e), load32(e+4))), string(liftBytes(load32(e+8), load32(e+12)))})
	}
	delete(live, p)
	return kvs
}

// methods are the payload-less cases of wasi:http/types.method, in WIT order.
var methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// The exports. Their results live in area; post-return functions are not needed since live is
// cleared when execute returns and the metadata strings are constants.

func returnString(s string) uint32 {
	area[0] = 0
	p, n := lowerString(s)
	*(*uint32)(unsafe.Pointer(&area)) = p
	*(*uint32)(unsafe.Pointer(uintptr(areaPtr() + 4))) = n
	return areaPtr()
}

//go:wasmexport zeroclaw:plugin/plugin-info@0.1.0#plugin-name
func pluginName() uint32 { return returnString("go-http-client") }

//go:wasmexport zeroclaw:plugin/plugin-info@0.1.0#plugin-version
func pluginVersion() uint32 { return returnString("0.1.0") }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#name
func toolName() uint32 { return returnString("go_http") }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#description
func toolDescription() uint32 { return returnString("wasi:http client in Go (kobako fixture)") }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#parameters-schema
func toolParametersSchema() uint32 { return returnString(`{"type":"object"}`) }

// toolExecute lowers result<tool-result, string> (size 28, align 4): discriminant at 0, then
// success at 4, output at 8, error option at 16 (or the err string at 4).
//
//go:wasmexport zeroclaw:plugin/tool@0.1.0#execute
func toolExecute(p, n uint32) uint32 {
	in := string(liftBytes(p, n))
	collect()
	output, toolErr, err := execute(in)
	clear(live)
	clear(area[:])
	put := func(off, v uint32) { *(*uint32)(unsafe.Pointer(uintptr(areaPtr() + off))) = v }
	if err != nil {
		put(0, 1)
		sp, sn := lowerString(err.Error())
		put(4, sp)
		put(8, sn)
		return areaPtr()
	}
	if toolErr != nil {
		op, on := lowerString("")
		put(8, op)
		put(12, on)
		put(16, 1)
		ep, en := lowerString(toolErr.Error())
		put(20, ep)
		put(24, en)
		return areaPtr()
	}
	put(4, 1)
	op, on := lowerString(output)
	put(8, op)
	put(12, on)
	return areaPtr()
}
