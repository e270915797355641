// Package runtime runs ZeroClaw plugins: the tool, channel and memory adapters of the reference
// host (zeroclaw-labs/zeroclaw, crates/zeroclaw-plugins) on kobako's component runtime, with the
// host interfaces every plugin world imports (logging, secrets, config, inbound), the per-frame
// host-call budget and the [plugins.limits] limits.
//
// The packaging side (manifests, signatures, registry, config resolution) lives in package
// zeroclaw, which never imports this one, so tools that only install and sign plugins stay free
// of the WebAssembly engine.
//
// The WIT contract the host implements is in wit/: v0 is the published zeroclaw:plugin@0.1.0
// package, unchanged; seed is the seed document's channel contract (configure() reading
// config.get, and secrets for channels).
package runtime
