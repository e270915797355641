// Package component runs WebAssembly components (the synchronous component model 0.2) on
// package engine: Compile, the Linker, prepared components (InstancePre), instances, exported
// functions, the Caller host functions see, and host resources. The binary format itself (the
// decoder, the data model, validation and the WIT printer) is package component/binary.
//
// Compile decodes a component and compiles its core modules through package engine (metered and
// limited; the engine caches compiled modules by content), and works out the link plan once: where
// each core function, memory, table and global comes from, a small glue module for each bundle of
// core exports passed to an instantiation (wit-component's shim and fixup tables included), and
// one host module holding the canon lower and resource.new/drop/rep trampolines with their
// flattened signatures. Component.Close gives all of it back to the engine (a host that compiles
// new versions of a plugin in one engine closes each one it replaces); instances already made
// keep working, new ones are refused with ErrClosed.
//
// A Linker holds the host side: functions by interface ("wasi:io/streams@0.2.0#write") written as
// typed Go functions (package abi's typed mapping) or dynamic HostFuncs over abi.Value, and host
// resource types with destructors. Versioned interface names match semver-compatible versions.
// Host functions and destructors receive a *Caller, the calling instance and its store, so one
// Linker serves any number of instances: per-instance host state lives in the store under an
// engine.Key (DefineFuncWith passes it to a typed function directly), and the Go values behind
// host resources in a ResourceTable, reached with typed handles (abi.Own, abi.Borrow).
// DefineInterface serves a whole interface from a Go value's methods (GoName maps the names), and
// Instance.BindInterface binds an exported one to a struct of Go funcs. Linker.Prepare links a
// compiled component once, resolving and type-checking every import; the InstancePre it returns
// instantiates without name lookups. Exports are bound once on it too (wasmtime's generated
// {World}Pre): PrepareFunc and InstancePre.BindInterface check the Go types and plan the typed
// path there, and each call then takes the instance to run in, so binding a fresh instance costs
// nothing (cmd/kobako-bindgen generates such bindings from WIT). A guest's breach of the canonical ABI is an *engine.Trap of
// kind TrapCanonicalABI, and discards the store as any trap does.
// Linker.Instantiate walks the component's definitions in order in one engine.Store: all the
// instance's core instances share the store's fuel and count against its instance limit. The resulting Instance calls exports by name ("f" or "iface#f") with
// abi values (Call) or through Go functions bound once (Bind, or Typed1 without reflect.MakeFunc),
// whose arguments and results, like those of typed host functions, move straight between Go
// values and guest memory by a plan made at bind time (abi.GoFunc); it keeps a resource handle table with
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
// Instances, core modules and components may be aliased from the exports of component instances;
// a component taken out of an instance keeps the scope it was defined in, so its outer aliases
// reach the instance that exported it.
//
// Refused with ErrRuntimeUnsupported: core modules and components imported by the root
// component (the Linker defines functions, interfaces and resources only), and root imports of
// instances that export anything but functions and types.
package component
