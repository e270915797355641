// Package engine is the only place kobako configures wazero. It runs core WebAssembly modules on
// wazero's interpreter (never its compiler, never cgo) with the limits a plugin host needs:
//
//   - Compile once, instantiate many: Engine.Compile decodes and checks a module before wazero sees
//     it (bounded locals, function and section sizes, counts, adjustable through Config.DecodeLimits;
//     only WebAssembly 2.0 features), rewrites it for fuel metering and table limits, compiles it,
//     and caches the result by content hash until its last holder closes it (Module.Close).
//   - A Store is one plugin instance: the core instances it holds share one fuel budget and one set
//     of Limits (fuel per call, deadline, memory per linear memory, table elements, instance count).
//     A zero field of Limits takes its default (DefaultLimits). Only fuel can be turned off:
//     Limits.Fuel = Unmetered makes an unmetered store, whose modules run without the metering
//     rewrite and stop at the deadline through wazero's own interruption checks; no other value
//     makes a limit unlimited.
//   - Fuel is deterministic: it counts wasm instructions with wasmtime's costs, so the same module and
//     input use the same fuel on every platform. A call-free infinite loop stops.
//   - A context deadline interrupts a spinning guest: the metering hands the guest its fuel in
//     slices of 10,000, and the refuel hook that hands out the next slice checks the deadline.
//     The guest reaches the hook at the first loop header or function entry after it used up a
//     slice (about 0.25 ms of the tightest loop on the interpreter; slices of 1,000 in the last 2 ms
//     before the deadline, where a loaded machine would stretch a slice's time), and after every
//     long bulk memory or table instruction, so no per-call timer or watcher goroutine is needed. (An
//     unmetered store has no hook; see Unmetered for how it keeps its deadline.) Host functions
//     get a context whose Done closes at the deadline and must honour it. An interrupted or
//     trapped store is discarded.
//   - A call that runs and ends abnormally ends in a *Trap whose Kind says what happened, or in an
//     *ExitError when the guest exits. A call that cannot run fails with a plain error instead:
//     ErrInstanceUnavailable once the store was discarded (after a trap, an exit, an interrupted
//     call or Store.Discard), and also when the instance was closed under a running call;
//     ErrClosed once the store was closed; and an argument error for the wrong number of
//     parameters. So a caller tells "the guest failed" (a *Trap) from "the store is spent"
//     (ErrInstanceUnavailable, ErrClosed) with errors.As and errors.Is. Guest → host → guest
//     re-entry is bounded, so no guest behaviour can crash the host process with a Go stack
//     overflow.
//
// Host functions are defined once as a HostModule and imported into any number of stores; per-store
// state is attached under a typed Key (NewKey) and found through the Caller.
package engine
