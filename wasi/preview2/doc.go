// Package preview2 is kobako's WASI 0.2 host: the interfaces of wasi:io, wasi:clocks,
// wasi:random, wasi:cli, wasi:filesystem and wasi:sockets that a wasm32-wasip2 command or a
// component built with the preview 1 adapter imports, served through package component's Linker.
//
// Define defines every interface on a Linker once, at version 0.2.0, which satisfies an import of
// any 0.2.x version (the linker matches semver-compatible versions). A Host holds the state of one
// component instance: its arguments and environment, stdio, the preopened directories (sandboxed
// exactly as in wasi/preview1, through package wasi), the clock, the randomness and the write
// budget, and the component.ResourceTable of the host resources (pollables, streams, errors,
// descriptors, directory listings) the guest holds handles to. Bind builds it from a Config and
// attaches it to a store, as preview1.Module and preview1.Bind do; the host functions find it
// through their component.Caller. So one Linker serves any number of instances, from any number
// of goroutines. Run does all of it with a Linker shared by every run.
//
// Other hosts (wasi:http, a plugin runtime) hand the guest streams and pollables that wasi:io
// reads and polls: they make them with NewInputStream, NewReaderStream, NewOutputStream and
// NewPollable, push them into the calling instance's Host.Resources (HostOf finds the Host from
// a Caller) and return the rep as an own handle (abi.Own[*InputStream], …).
//
// Blocking operations (blocking-read, pollable.block, poll, blocking-flush) wait on the call's
// context, so the store's deadline interrupts them: the guest traps with the deadline error.
// wasi:cli/exit ends the call with an *engine.ExitError (the one exit type, as preview 1's
// proc_exit), which Run turns into the exit code.
//
// wasi:sockets is linked so that components importing it instantiate, and every operation that
// would reach the network answers not-supported or access-denied: outbound access belongs to
// wasi:http and the shared egress policy.
//
// # wasi:http
//
// DefineHTTP adds wasi:http/types and wasi:http/outgoing-handler 0.2 (the client side; Linker
// and Run include it). Every request goes through one function the embedder supplies,
// WithHTTP's HTTPConfig.Send (the shape of wasmtime-wasi-http's send_request hook, over net/http types);
// package wasi/preview2/httpegress provides kobako's, which puts the egress policy between the
// guest and the network. A Host without a sender answers every request HTTP-request-denied.
//
// The host checks what it can before the sender sees a request: fields refuse invalid names and
// values (header-error.invalid-syntax), the forbidden connection headers (header-error.forbidden,
// IsForbiddenHeader) and changes to headers a request or response owns (header-error.immutable);
// the setters refuse malformed methods, schemes, authorities and paths; handle answers
// HTTP-request-URI-invalid, HTTP-request-method-invalid and the like for what remains. Bodies
// stream both ways through buffers of BodyBuffer bytes: check-write grants only what is free, and
// a response body is read ahead at most that far, so neither a large upload nor a large download
// is ever held whole, and a slow reader holds the sender back. Request and response trailers
// pass through. Waiting (poll, blocking reads and writes) honours the call's deadline, and every
// request ends with the Host, or at the deadline of the call that sent it. Failures reach the
// guest as error-codes: an *HTTPError from the sender keeps its ErrorCode, any other error is
// internal-error, and http-error-code finds the code behind a stream's io-error.
package preview2
