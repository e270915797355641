// Package engine is the only place kobako configures wazero. It runs core WebAssembly modules on
// wazero's interpreter (never its compiler, never cgo) with the limits a plugin host needs:
//
//   - Compile once, instantiate many: Engine.Compile decodes and checks a module before wazero sees
//     it (bounded locals, function and section sizes, counts, adjustable through Config.DecodeLimits;
//     only WebAssembly 2.0 features), rewrites it for fuel metering and table limits, compiles it,
//     and caches the result by content hash.
//   - A Store is one plugin instance: the core instances it holds share one fuel budget and one set
//     of Limits (fuel per call, deadline, memory per linear memory, table elements, instance count).
//     Every store has explicit limits; there is no unlimited default.
//   - Fuel is deterministic: it counts wasm instructions with wasmtime's costs, so the same module and
//     input use the same fuel on every platform. A call-free infinite loop stops.
//   - A context deadline interrupts a spinning guest: the metering's refuel hook checks it at least
//     every 100,000 instructions and after every long bulk memory or table instruction, so no
//     per-call timer or watcher goroutine is needed. Host functions get a context whose Done closes
//     at the deadline and must honour it. An interrupted or trapped store is discarded.
//   - Everything that ends a call abnormally is a *Trap whose Kind says what happened, except a guest's
//     exit, which is *ExitError. Guest → host → guest re-entry is bounded, so no guest behaviour can
//     crash the host process with a Go stack overflow.
//
// Host functions are defined once as a HostModule and imported into any number of stores; per-store
// state is attached under a typed Key (NewKey) and found through the Caller.
package engine
