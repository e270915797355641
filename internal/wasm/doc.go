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
//   - Costs then move between blocks where that is exact and leaves fewer charges to run. Each
//     move relies on one fact: a block that is entered runs in full if the call returns normally.
//     Sinking: when every predecessor of a block can continue only into it, and each of them
//     charges already, the block's cost is added to theirs. The header of Go's dispatch loop, which
//     every jump inside a Go function goes through, thus charges nothing. Pushing down: when every
//     successor of a block can be entered only from it (the two arms of an if/else, say), the
//     block's cost is added to each successor's, since it has run whenever one of them is
//     entered; down a chain of such blocks, one charge, in the last block before a join, a
//     return or a trap, pays for the whole chain. The entry block and blocks that call are not
//     pushed down; instead, when all their successors can be entered only from them, the
//     smallest successor cost is hoisted into them, since one of the successors runs in full
//     whenever they complete.
//   - Caller-charged entries: a function that no ref.func or element segment names can only be
//     called directly (or from outside through an export, or as the start function). Its entry
//     block's cost is then added to the charge of every block that calls it, and its own entry
//     charges nothing, so a call to a small function adds no fuel code at run time. Exports and
//     the start section point at a wrapper function, appended after the others, that charges the
//     entry block and calls the function; the wrapper's own instructions cost nothing and carry
//     the function's name in the name section.
//   - Checks: block; global.get; i64.const 0; i64.ge_s; br_if 0; unreachable; end (with a fuel
//     hook, call $hook in place of unreachable; see below), placed right after the charge (or
//     alone, when the block charges nothing) at every loop header that a branch targets, and
//     once per function that calls, unless every path from the function's entry to a call
//     passes a checked block already (in Go's functions the calls sit inside the dispatch loop,
//     whose header is checked): then at the start of the block holding its calls when they are
//     all in one block, otherwise at the function entry. A function without calls and loops
//     runs a bounded number of instructions before returning, so every unbounded execution (a
//     loop, or a chain of calls) passes a check at least once per iteration or call level.
//     Recursive fib, whose calls sit in its else arm, checks only on that path.
//
// A charge covers instructions that have run since the last join (costs pushed down), and
// instructions that will run if the call returns normally (the rest of the current block, and
// costs sunk or hoisted from a block that is certain to follow), never instructions that might
// not run. So if a call's total cost is within its fuel, no check fails along the way: the
// injected code traps only when the counter is negative. Loop headers and function entries are
// joins, and costs are never pushed down past a call or a return, so every loop iteration and
// call level has paid for itself before its next check, and an exhausted call stops at the next check, a
// bounded number of instructions late. When a call traps, the counter includes the costs charged
// so far: those of the block the trap happened in and of blocks certain to follow, but possibly
// not those of blocks since the last join whose costs were pushed down past the trap. If the
// counter is negative, the engine reports exhaustion rather than the trap.
//
// In wazero's interpreter a charge costs four dispatches and a check five, so the overhead is
// largest on tiny loop bodies; see BenchmarkFuelOverhead, and bench/README.md for what the
// charges and checks cost on Go code.
//
// Each instruction is decoded once on the way from Decode to Instrument's output: Decode's pass
// over a function body, which checks it, also records the instructions the metering acts on
// (control flow, calls, the instructions whose indices the fuel imports renumber, bulk
// instructions), with the cost of those in between, in compact lists allocated in chunks per
// module. Instrument analyzes those lists and drops them, keeps of each body only its charge
// points and the instructions whose indices change, and writes the output into one buffer sized
// beforehand, copying the bytes in between. Decode keeps at most 4 bytes of lists per byte of
// code (real code needs under 2); past that, and when Instrument runs again on the same Module,
// Instrument decodes each body itself first, with the same result.
//
// # Fuel hook
//
// Where the Go scheduler is cooperative (GOOS=js, GOOS=wasip1), a guest spinning in a call-free
// loop never lets a deadline timer run, so trapping checks alone cannot enforce a deadline. With
// InstrumentOptions.FuelHook set, Instrument imports a host function (import FuelModule FuelHook
// (func)) and the checks call it when they find the counter negative:
//
//	block; global.get $fuel; i64.const 0; i64.ge_s; br_if 0; call $hook; end
//
// The host can then hand out the call's fuel in slices, as wasmtime's fuel_async_yield_interval
// does: it sets the counter to one slice, and the hook adds the next one, checking the deadline
// and yielding to the scheduler on the way. The counting and the placement of charges and checks
// are the same as without a hook, and the hook's own work costs no fuel; while the counter is
// non-negative a check runs exactly the same five dispatches. What the hook may rely on:
//
//   - A check calls it only with the counter negative. (The hook is also called right after every
//     bulk memory or table instruction whose length is at least BulkCheckLength, whatever the
//     counter, because such an instruction costs 1 fuel however long it runs: a loop of them
//     would otherwise reach the hook only every slice. With the counter non-negative the hook
//     must leave it alone; it can check the deadline. These calls cost no fuel either.)
//     The fuel used so far is the fuel handed out
//     minus the counter, and all of it will have been used if the call returns normally, so once
//     that exceeds the budget the hook should trap (by panicking in wazero) with exhaustion.
//   - Otherwise it must add at least the deficit (the counter's absolute value) to let the guest
//     go on; if it returns with the counter still negative, the guest runs on and calls it again
//     at the next check.
//   - Every loop iteration and call level passes a check, so a call that runs forever reaches the
//     hook within one loop iteration or one call level of using up its slice.
//   - When the call returns, the fuel it used is again the fuel handed out minus the counter,
//     which may be negative without the hook having been called (the last charges before a
//     return are not followed by a check); it exceeds the budget exactly when the call ran out
//     of fuel. After a trap the same difference is the fuel charged so far, which may leave out
//     the costs of the few blocks since the last join (see above).
//
// The hook takes function index h = the number of imported functions (it is placed after them in
// the import section), so every defined function moves up by one: calls, ref.func (in code and
// in constant expressions), element segments, function exports, the start section, the wrappers
// and the name section's function, local and label names are all renumbered. Its type is the
// module's first [] -> [] type, or one appended to the type section.
//
// The output is a pure function of the input bytes and the options.
package wasm
