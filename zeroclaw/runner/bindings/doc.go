// Package bindings holds the Go host bindings of the zeroclaw:plugin@0.1.0 worlds, generated
// from ../wit by cmd/kobako-bindgen: the published v0 tool-plugin, channel-plugin and
// memory-plugin, and the seed's channel-plugin (configure() without a parameter, importing
// config and secrets) as SeedChannelPlugin. The WIT types are shared by both packages and
// declared once; a world that does not fit a component fails when its {World}Pre is made, which
// is how a host tells the two channel shapes apart.
//
// The exports are prepared once per component (NewToolPluginPre and the others, on a
// component.InstancePre) and called with the instance to run in; the imports are Go interfaces
// (Logging, Secrets, Config, Inbound) that Define… serves on a component.Linker, their methods
// given the calling instance's *component.Caller.
package bindings

//go:generate go run ../../../cmd/kobako-bindgen -wit ../wit/v0 -world tool-plugin -world channel-plugin -world memory-plugin -wit ../wit/seed -world channel-plugin=seed-channel-plugin -o zeroclaw.go
