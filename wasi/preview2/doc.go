// Package preview2 is kobako's WASI 0.2 host: the interfaces of wasi:io, wasi:clocks,
// wasi:random, wasi:cli, wasi:filesystem and wasi:sockets that a wasm32-wasip2 command or a
// component built with the preview 1 adapter imports, served through package component's Linker.
//
// A Host holds the state of one component instance: its arguments and environment, stdio, the
// preopened directories (sandboxed exactly as in wasi/preview1, through package wasi), the clock,
// the randomness and the write budget, and a table of the host resources (pollables, streams,
// errors, descriptors, directory listings) the guest holds handles to. NewHost builds it from a
// Config and Host.Define defines every interface on a Linker at version 0.2.0, which satisfies an
// import of any 0.2.x version (the linker matches semver-compatible versions).
//
// Host functions are bound to their Host because a component host function learns nothing of the
// store that called it; so a Linker carries one Host, and a fresh Linker is made for each run
// (defining is cheap; compiled components are cached by the engine). Run does all of it.
//
// Blocking operations (blocking-read, pollable.block, poll, blocking-flush) wait on the call's
// context, so the store's deadline interrupts them: the guest traps with the deadline error.
// wasi:cli/exit ends the run with an *ExitError that Run turns into the exit code.
//
// wasi:sockets is linked so that components importing it instantiate, and every operation that
// would reach the network answers not-supported or access-denied: outbound access belongs to
// wasi:http and the shared egress policy.
package preview2
