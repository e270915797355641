// Package runner runs ZeroClaw plugins: the tool, channel and memory adapters of the reference
// host (zeroclaw-labs/zeroclaw, crates/zeroclaw-plugins) on kobako's component runtime, with the
// host interfaces every plugin world imports (logging, secrets, config, inbound), the per-frame
// host-call budget and the [plugins.limits] limits.
//
// The packaging side (manifests, signatures, registry, config resolution) lives in package
// zeroclaw, which never imports this one, so tools that only install and sign plugins stay free
// of the WebAssembly engine.
//
// The runtime is written as an embedder is told to write a host: through the bindings that
// cmd/kobako-bindgen generates from wit/ (package bindings). Each plugin's component is compiled
// and linked once, and its world's exports are prepared once on that InstancePre
// (bindings.NewToolPluginPre and the others; a channel's shape is found by preparing each), then
// every call passes the instance it runs in. The host interfaces are small types implementing
// bindings.Logging, Secrets, Config and Inbound, defined once on the runtime's linker; each call
// finds its instance's state in the calling store. Only Channel.Invoke and Memory.Invoke, for
// callers that hold WAVE text rather than Go values, call with dynamic values.
//
// The WIT contract the host implements is in wit/: v0 is the published zeroclaw:plugin@0.1.0
// package, unchanged; seed is the seed document's channel contract (configure() reading
// config.get, and secrets for channels).
package runner
