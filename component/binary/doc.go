// Package binary decodes and validates WebAssembly components: the binary format of the
// component model (design/mvp/Binary.md and Explainer.md in WebAssembly/component-model), in the
// synchronous 0.2 form that wasm32-wasip2 toolchains produce.
//
// Decode turns a component binary into a plain data model, a *Component:
//
//   - Definitions lists every definition in binary order: embedded core modules (kept as bytes;
//     package engine compiles them), core instances, core types, nested components, component
//     instances, aliases, types, canonical definitions (lift, lower, resource.new, resource.drop,
//     resource.rep), start, imports and exports. Package component instantiates a component by
//     walking this list.
//   - The thirteen index spaces (core funcs, tables, memories, globals, types, modules and
//     instances; component funcs, values, types, instances and components) say, for every index,
//     which definition introduced it and what its type is.
//   - Types are resolved into a tree of Go values (Type, ValType, FuncType, InstanceType,
//     ComponentType). Structural types compare structurally; resource types compare by the
//     identity of their *Resource, which every instantiation of a component replaces with fresh
//     ones, as the component model's generative resources require. ABITypes converts value and
//     function types into package abi's types for lifting and lowering.
//
// Decode validates while it decodes, the way the reference validator (wasmparser) does: every
// index is checked against its index space at the point of use, outer aliases against the
// enclosing scopes, type references against the kind of type they need; instantiation
// arguments and export ascriptions are checked by subtyping with resources bound by path; canon
// lift and lower are checked against the flattened core signature and the options they need;
// import and export names are checked for syntax (kebab-case labels, interface names, semver),
// strong uniqueness, the [constructor]/[method]/[static] rules and the external visibility of the
// types they use.
//
// Features beyond the synchronous component model 0.2 are refused with ErrUnsupported and a
// message naming the feature: async function types, options and built-ins (task.*, subtask.*,
// stream.*, future.*, waitable-set.*, context.*, backpressure.*), the stream, future and
// error-context types, threads (thread.*), value definitions, fixed-length lists, maps, GC types
// and memory64.
//
// No input can make Decode panic, loop or allocate out of proportion to its size: counts are
// checked against the bytes that remain before anything is allocated for them, nesting is bounded
// (MaxNesting, abi.MaxTypeDepth), types are bounded in size (MaxTypeSize) and type checking has a
// budget of work. A fuzz target (fuzz/component_fuzz_test.go) exercises this.
//
// Package component compiles and runs what Decode returns; this package imports only abi and
// the standard library, so tools that only inspect components need no runtime.
package binary
