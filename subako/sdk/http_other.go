//go:build !wasip1

package sdk

// hostTransport is nil off wasip1: there is no subako_http import to call, and Do says so with an
// error of kind abi.
var hostTransport transport
