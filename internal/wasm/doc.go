// Package wasm decodes, checks and rewrites WebAssembly core module binaries before they reach
// wazero. It uses only the standard library.
//
// # Decoding and hardening
//
// Decode reads every section and every instruction of a core module (WebAssembly 2.0, plus the
// encodings of later proposals so that it can name them), checking each count and length against
// Limits and against the bytes that remain before allocating anything. A module that declares
// ten million locals in 36 bytes fails in Decode instead of making wazero allocate gigabytes.
// Decode does not type-check function bodies; wazero does that when it compiles the output.
//
// Features lists the post-MVP features a module uses and where; CheckEngineFeatures rejects those
// outside wazero's api.CoreFeaturesV2 (threads, exception handling, tail calls, typed function
// references, GC, memory64, multi-memory, relaxed SIMD, extended constant expressions).
//
// # Fuel
//
// Instrument rewrites a module so that it consumes fuel from an imported mutable i64 global that
// holds the remaining fuel. Instructions cost, as in wasmtime:
//
//   - 0 for nop, drop, block, loop, unreachable, return, else and end;
//   - 1 for every other instruction (if, br, br_if, br_table, call, call_indirect, local.get,
//     i32.add, memory.grow, ...).
//
// The fuel a call consumes when it returns normally is exactly the sum of the costs of the
// instructions it executed, callees included (host functions cost nothing beyond the call
// instruction). That is a property of the execution alone, so it is the same on every platform
// and for every way the instrumenter places its charges. A call succeeds if and only if that sum
// is at most the fuel it was given; otherwise the counter ends up negative, and the engine reports
// exhaustion.
//
// How the charges are placed:
//
//   - The body is cut into charge blocks: straight-line runs of instructions entered only at
//     their start. A new block starts at the function entry, after a loop that some branch
//     instruction targets, after if, after else, after br_if, and after the end of a block or if
//     that is reached other than by falling through (by a branch, or by the false edge of an if
//     without else). A block that can only be entered by falling through from the previous one is
//     the same block: calls, plain blocks, loops that nothing branches to, and ends reached only
//     by fall-through do not cut. Instructions after br, br_table, return and unreachable up to
//     the enclosing end or else are unreachable and charged nothing.
//   - Each block's cost is charged when it is entered, before its instructions run:
//     global.get; i64.const cost; i64.sub; global.set. Blocks that cost 0 charge nothing.
//   - Hoisting: when every successor of a block can be entered only from that block (the two
//     arms of an if/else, say), the smallest successor cost is moved into the block, since one of
//     them runs in full whenever the block completes. A then arm that costs less than its else arm
//     thus charges nothing.
//   - At every function entry whose body contains a call or call_indirect, and at every loop
//     header that a branch targets, the counter is checked after the charge, even when the
//     charge is 0: block; global.get; i64.const 0; i64.ge_s; br_if 0; unreachable; end. A function
//     without calls and loops runs a bounded number of instructions, so it needs no check.
//
// Charges never decrease the counter more than the instructions of the current block and its
// hoisted successors cost, so if a call's total is within its fuel no check fails along the way:
// the injected code traps only when the counter is negative. Every loop iteration and every call
// level passes a check, so an exhausted call stops within one block plus one function's
// straight-line code. When a call traps (including on exhaustion), the counter includes the cost
// of the rest of the block the trap happened in; if that makes it negative, the engine reports
// exhaustion rather than the trap.
//
// The output is a pure function of the input bytes and the options.
package wasm
