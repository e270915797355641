// Package component decodes and validates WebAssembly components: the binary format of the
// component model (design/mvp/Binary.md and Explainer.md in WebAssembly/component-model), in the
// synchronous 0.2 form that wasm32-wasip2 toolchains produce.
//
// Decode turns a component binary into a plain data model, a *Component:
//
//   - Definitions lists every definition in binary order: embedded core modules (kept as bytes;
//     package engine compiles them), core instances, core types, nested components, component
//     instances, aliases, types, canonical definitions (lift, lower, resource.new, resource.drop,
//     resource.rep), start, imports and exports. The linker instantiates a component by walking
//     this list.
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
// (MaxNesting, MaxTypeDepth), types are bounded in size (MaxTypeSize) and type checking has a
// budget of work. A fuzz target (fuzz/component_fuzz_test.go) exercises this.
//
// # Running components
//
// Compile decodes a component and compiles its core modules through package engine (metered and
// limited; the engine caches compiled modules by content), and works out the link plan once: where
// each core function, memory, table and global comes from, a small glue module for each bundle of
// core exports passed to an instantiation (wit-component's shim and fixup tables included), and
// one host module holding the canon lower and resource.new/drop/rep trampolines with their
// flattened signatures.
//
// A Linker holds the host side: functions by interface ("wasi:io/streams@0.2.0#write") written as
// typed Go functions (package abi's typed mapping) or dynamic HostFuncs over abi.Value, and host
// resource types with destructors. Versioned interface names match semver-compatible versions.
// Linker.Instantiate walks the component's definitions in order in one engine.Store: all the
// instance's core instances share the store's fuel and count against its instance limit. The resulting ComponentInstance calls exports by name ("f" or "iface#f") with
// abi values (Call) or through Go functions bound once (Bind), keeps a resource handle table with
// own and borrow handles, lend counts and per-call borrow scopes, runs destructors on
// resource.drop, and enforces the may_enter and may_leave rules of CanonicalABI.md.
//
// Nested components become component instances of their own inside the same store, with their
// own handle tables and may_enter flags; a call between two of them is a canon lower in one
// fused with a canon lift in the other, values passing through abi.Value. The same component
// may be instantiated any number of times in one store, nested or at the root: every instance
// has its own state and fresh resource types, and the trampolines its instances share find
// their instance by the core instance that calls them. Outer aliases of core modules and
// components resolve at compile time to the enclosing component's; a nested component may
// import core modules and components, which its parent passes as instantiation arguments (and
// outer aliases of such imports resolve through the instance tree). A component start function
// (without arguments or results: value definitions are out of scope) runs at its place in the
// definition order, called through canon lift like an export, in an engine frame of its own. A
// canon lift may name a canon lower or resource built-in as its core function (re-exporting an
// import, or exposing resource.new as a function): it runs through a small wasm wrapper.
//
// Refused with ErrRuntimeUnsupported: core modules and components imported by the root
// component (the Linker defines functions, interfaces and resources only), core modules and
// components aliased from instance exports, and root imports of instances that export anything
// but functions and types.
package component
