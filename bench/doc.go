// Package bench measures what kobako's engine costs over the wazero interpreter it is built on.
//
// The benchmarks run the same modules side by side under several engines, named in the benchmark's
// "engine=" part so that benchstat can put them in columns:
//
//   - bare: wazero's interpreter running the original module: the baseline.
//   - kobako: kobako's engine (package engine): the module rewritten for fuel metering, run with a
//     per-call deadline and its limits. kobako/bare is the overhead the targets bound.
//   - unmetered: kobako's engine with an unmetered store (Limits.Fuel = engine.Unmetered): the
//     module without the metering rewrite, in the engine's runtime with wazero's close-on-context-
//     done, and kobako's deadline, limits and WASI. unmetered/bare bounds what turning fuel off
//     leaves of kobako's cost.
//   - fuel-only: wazero's interpreter running kobako's rewritten module, without the deadline
//     machinery: the cost of the metering code alone.
//   - deadline-only: wazero's interpreter running the original module with wazero's own
//     interruption (WithCloseOnContextDone, a timeout context per call). kobako used it until
//     2026-11-30; its deadlines are now checked by the refuel hook that metering calls anyway, so
//     this column shows what the dropped machinery cost, not part of kobako's.
//   - compiler: wazero's compiler, for reference only; kobako never uses it.
//   - wazy: wazy v0.8.0's interpreter (github.com/samyfodil/wazy, a wazero fork), the original
//     module with a timeout context per call, which wazy's interpreter honours without any option:
//     the comparison issue 24 asks for. wazy also runs the ZeroClaw tool components
//     (BenchmarkZeroClawExecute via=wazy, BenchmarkSnapshotHeap via=wazy) with its own WASI 0.2
//     host. wazy is imported by this package's tests only.
//
// Workloads: recursive fib and a call-free tight loop (as Go GOOS=wasip1 guests and in WAT), SHA-256
// over 1 MiB and a JSON round trip (Go guests), each called repeatedly on a warm instance; compile
// time and retained memory for a 2.5 MB Go module, and for real JS, Go and C components against
// bare wazero compiling their core modules (BenchmarkCompileMemory); fresh instantiation plus
// _start for a tiny WAT command module and a Go hello world. Every benchmark checks its guest's
// result against one computed on the host, so a benchmark that computes the wrong thing fails
// instead of reporting.
//
// The fixtures live in testdata/ beside their sources; testdata/build.sh rebuilds them. README.md
// records the results and the command that reproduces them. Nothing imports this package.
package bench
