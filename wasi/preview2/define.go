package preview2

import (
	"fmt"

	"github.com/kobako/kobako/component"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

// Define defines every WASI 0.2 interface on l: wasi:io, wasi:clocks, wasi:random, wasi:cli,
// wasi:filesystem and wasi:sockets, at version 0.2.0, which satisfies imports of any 0.2.x
// version. Define once per Linker; each instance then needs its own Host, attached to its store
// with Bind before instantiation (as preview1.Module and preview1.Bind). A Linker so defined
// serves any number of instances, from any number of goroutines; a function called in a store
// without a Host traps with ErrNotBound.
func Define(l *component.Linker) error {
	for _, def := range []func(*component.Linker) error{
		defineError, definePoll, defineStreams, defineClocks, defineRandom,
		defineCLI, defineFilesystem, defineSockets, defineUses,
	} {
		if err := def(l); err != nil {
			return fmt.Errorf("preview2: define: %w", err)
		}
	}
	return nil
}

// uses lists, for each interface, the resource types it takes from other interfaces with `use`.
// A component's import of the interface names them as exports of its own, and the linker looks
// each up in the interface that names it, so they are defined there too, with the same
// destructor: the component's type for them is one resource, so the handles are the same.
var uses = map[string][]string{
	ifaceStreams:         {"error", "pollable"},
	ifaceStdin:           {"input-stream"},
	ifaceStdout:          {"output-stream"},
	ifaceStderr:          {"output-stream"},
	ifaceTerminalStdin:   {"terminal-input"},
	ifaceTerminalStdout:  {"terminal-output"},
	ifaceTerminalStderr:  {"terminal-output"},
	ifaceMonotonic:       {"pollable"},
	ifaceTypes:           {"error", "input-stream", "output-stream"},
	ifacePreopens:        {"descriptor"},
	ifaceNetwork:         {"error"},
	ifaceInstanceNetwork: {"network"},
	ifaceNameLookup:      {"pollable", "network"},
	ifaceTCP:             {"input-stream", "output-stream", "pollable", "network"},
	ifaceTCPCreate:       {"network", "tcp-socket"},
	ifaceUDP:             {"pollable", "network"},
	ifaceUDPCreate:       {"network", "udp-socket"},
}

// dtors gives the destructor of every WASI resource type by name (the names are unique across
// the WASI 0.2 interfaces).
func dtors() map[string]component.HostDtor {
	return map[string]component.HostDtor{
		"error":                  dtor[*ioError](),
		"pollable":               dropPollable,
		"input-stream":           dtor[*InputStream](),
		"output-stream":          dtor[*OutputStream](),
		"terminal-input":         dtor[terminal](),
		"terminal-output":        dtor[terminal](),
		"descriptor":             dtor[*descriptor](),
		"directory-entry-stream": dtor[*dirStream](),
		"network":                dtor[b.Network](),
		"tcp-socket":             nil,
		"udp-socket":             nil,
	}
}

func defineUses(l *component.Linker) error {
	d := dtors()
	for iface, names := range uses {
		for _, n := range names {
			if _, err := l.DefineResource(iface, n, d[n]); err != nil {
				return err
			}
		}
	}
	return nil
}
